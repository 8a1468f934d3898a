//! Sealed snapshots: an HMAC-SHA256 over the canonical text, checked in
//! constant time before anything is touched.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::digest::{to_hex, Sha256Digest};
use crate::error::{Error, Result};
use crate::snapshot::Snapshot;

type HmacSha256 = Hmac<Sha256>;

fn keyed(key: &[u8]) -> Result<HmacSha256> {
    // HMAC takes keys of any length; this cannot fail for Hmac<Sha256>.
    HmacSha256::new_from_slice(key).map_err(|_| Error::Unauthenticated {
        reason: "the key cannot be used for HMAC-SHA256".into(),
    })
}

/// The MAC of a snapshot's canonical text under `key`.
pub fn mac_of(canonical_unsealed: &str, key: &[u8]) -> Result<Sha256Digest> {
    let mut mac = keyed(key)?;
    mac.update(canonical_unsealed.as_bytes());
    Ok(mac.finalize().into_bytes().into())
}

/// Appends `"mac"` to canonical unsealed text (whose last byte is `}`).
pub fn seal_text(mut canonical_unsealed: String, key: &[u8]) -> Result<String> {
    let mac = mac_of(&canonical_unsealed, key)?;
    if canonical_unsealed.pop() != Some('}') {
        return Err(Error::malformed("not a snapshot object"));
    }
    canonical_unsealed.push_str(",\"mac\":\"");
    canonical_unsealed.push_str(&to_hex(&mac));
    canonical_unsealed.push_str("\"}");
    Ok(canonical_unsealed)
}

/// Checks that `snapshot` carries a MAC and that it is right for `key`.
pub fn verify(snapshot: &Snapshot, key: &[u8]) -> Result<()> {
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
        let text = r#"{"version":1,"entries":{"a":"YQ=="},"created_dirs":[]}"#.to_owned();
        let sealed = seal_text(text, b"k1").unwrap();
        let snap = Snapshot::parse(&sealed, &ParseOptions::default()).unwrap();
        assert!(verify(&snap, b"k1").is_ok());
        assert_eq!(snap.to_json(), sealed, "canonical round trip");
        let e = verify(&snap, b"k2").unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::Unauthenticated);
        let forged = sealed.replace("YQ==", "Yg==");
        let snap = Snapshot::parse(&forged, &ParseOptions::default()).unwrap();
        assert!(verify(&snap, b"k1").is_err());
    }
}
