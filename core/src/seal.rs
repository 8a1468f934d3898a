//! Sealed snapshots: an HMAC-SHA256 over the canonical text, checked in
//! constant time before anything is touched.

use std::fmt;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::digest::{to_hex, Sha256Digest};
use crate::error::{Error, Result};
use crate::snapshot::Snapshot;

type HmacSha256 = Hmac<Sha256>;

/// A sealing key: the bytes of an HMAC-SHA256 key.
///
/// Never empty (an empty key would let anyone forge a "sealed" snapshot);
/// its `Debug` form shows no key material, and the bytes are zeroed when
/// it is dropped. Text keys stand for their UTF-8 bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct SealKey(Zeroizing<Vec<u8>>);

impl SealKey {
    /// A key from its bytes; `invalid_argument` when empty.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Result<SealKey> {
        let bytes = Zeroizing::new(bytes.into());
        if bytes.is_empty() {
            return Err(Error::invalid_argument(
                "key",
                "a sealing key must not be empty",
            ));
        }
        Ok(SealKey(bytes))
    }

    /// The key's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// A fingerprint of the key (not the key), to remember which key a
    /// snapshot was verified with.
    pub(crate) fn id(&self) -> Result<KeyId> {
        let mut mac = keyed(self)?;
        mac.update(b"agent-checkpoint key id");
        Ok(KeyId(mac.finalize().into_bytes().into()))
    }
}

impl fmt::Debug for SealKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SealKey(<{} bytes, redacted>)", self.0.len())
    }
}

impl TryFrom<&str> for SealKey {
    type Error = Error;
    fn try_from(text: &str) -> Result<SealKey> {
        SealKey::new(text.as_bytes())
    }
}

impl TryFrom<&[u8]> for SealKey {
    type Error = Error;
    fn try_from(bytes: &[u8]) -> Result<SealKey> {
        SealKey::new(bytes)
    }
}

/// A fingerprint of a [`SealKey`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeyId([u8; 32]);

fn keyed(key: &SealKey) -> Result<HmacSha256> {
    // HMAC takes keys of any length; this cannot fail for Hmac<Sha256>.
    HmacSha256::new_from_slice(key.as_bytes()).map_err(|_| Error::Unauthenticated {
        reason: "the key cannot be used for HMAC-SHA256".into(),
    })
}

/// Appends `"mac"` to canonical unsealed text (whose last byte is `}`).
pub(crate) fn seal_text(canonical_unsealed: String, key: &SealKey) -> Result<String> {
    if !canonical_unsealed.ends_with('}') {
        return Err(Error::malformed("not a snapshot object"));
    }
    Ok(Sealer::new(key)?.seal_object(canonical_unsealed))
}

/// A key made ready to seal (checked once, so sealing later cannot fail).
#[derive(Clone)]
pub(crate) struct Sealer(HmacSha256);

impl Sealer {
    /// Readies `key`; `unauthenticated` when it cannot key HMAC-SHA256.
    pub(crate) fn new(key: &SealKey) -> Result<Sealer> {
        keyed(key).map(Sealer)
    }

    /// Appends `"mac"` to canonical unsealed text, which must be a JSON
    /// object as the snapshot encoder writes it (its last byte `}`).
    pub(crate) fn seal_object(&self, mut canonical_unsealed: String) -> String {
        let mut mac = self.0.clone();
        mac.update(canonical_unsealed.as_bytes());
        let mac: Sha256Digest = mac.finalize().into_bytes().into();
        canonical_unsealed.pop();
        canonical_unsealed.push_str(",\"mac\":\"");
        canonical_unsealed.push_str(&to_hex(&mac));
        canonical_unsealed.push_str("\"}");
        canonical_unsealed
    }
}

impl fmt::Debug for Sealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sealer(<redacted>)")
    }
}

/// Checks that `snapshot` carries a MAC and that it is right for `key`.
pub(crate) fn verify(snapshot: &Snapshot, key: &SealKey) -> Result<()> {
    let id = key.id()?;
    if snapshot.verified_with == Some(id) {
        return Ok(());
    }
    let Some(expected) = snapshot.mac else {
        return Err(Error::Unauthenticated {
            reason: "the snapshot is not sealed (no \"mac\") but a key was given".into(),
        });
    };
    let mut mac = keyed(key)?;
    mac.update(snapshot.canonical_unsealed().as_bytes());
    mac.verify_slice(&expected)
        .map_err(|_| Error::Unauthenticated {
            reason: "the MAC does not match: wrong key, or the snapshot was altered".into(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::ParseOptions;

    #[test]
    fn sealed_text_verifies_and_tampering_fails() {
        let k1 = SealKey::new(*b"k1").unwrap();
        let k2 = SealKey::new(*b"k2").unwrap();
        let text = r#"{"version":1,"entries":{"a":"YQ=="},"created_dirs":[]}"#.to_owned();
        let sealed = seal_text(text, &k1).unwrap();
        let snap = Snapshot::parse(&sealed, &ParseOptions::default()).unwrap();
        assert!(verify(&snap, &k1).is_ok());
        assert_eq!(snap.to_json().as_str(), sealed, "canonical round trip");
        let e = verify(&snap, &k2).unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::Unauthenticated);
        let forged = sealed.replace("YQ==", "Yg==");
        let snap = Snapshot::parse(&forged, &ParseOptions::default()).unwrap();
        assert!(verify(&snap, &k1).is_err());
    }

    #[test]
    fn empty_keys_are_refused_and_keys_never_print() {
        assert_eq!(
            SealKey::new(Vec::new()).unwrap_err().code(),
            crate::ErrorCode::InvalidArgument
        );
        let key = SealKey::try_from("hunter2").unwrap();
        assert!(!format!("{key:?}").contains("hunter2"));
    }

    #[test]
    fn unknown_members_are_covered_by_the_mac() {
        let key = SealKey::new(*b"k").unwrap();
        let text = r#"{"version":1,"entries":{},"created_dirs":[],"zz_future":{"b":1,"a":[true]}}"#;
        let snap = Snapshot::parse(text, &ParseOptions::default()).unwrap();
        let sealed = seal_text(snap.canonical_unsealed(), &key).unwrap();
        let parsed = Snapshot::parse(
            &sealed,
            &ParseOptions::default().with_key(Some(key.clone())),
        );
        assert!(parsed.is_ok());
        let altered = sealed.replace("\"b\":1", "\"b\":2");
        let parsed = Snapshot::parse(&altered, &ParseOptions::default().with_key(Some(key)));
        assert_eq!(
            parsed.unwrap_err().code(),
            crate::ErrorCode::Unauthenticated
        );
    }
}
