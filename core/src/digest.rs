//! SHA-256 digests of captured content, and the state of a path by content.

use sha2::{Digest as _, Sha256};

/// A SHA-256 digest.
pub type Sha256Digest = [u8; 32];

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> Sha256Digest {
    Sha256::digest(bytes).into()
}

/// Lowercase hex of a digest.
pub fn to_hex(digest: &Sha256Digest) -> String {
    hex::encode(digest)
}

/// Parses 64 lowercase hex characters.
pub fn from_hex(text: &str) -> Option<Sha256Digest> {
    if text.len() != 64 || text.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    let mut out = [0u8; 32];
    hex::decode_to_slice(text, &mut out).ok()?;
    Some(out)
}

/// The state of one path, compared by content: what `record_applied` stores
/// and what the human-edit guard compares against.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathState {
    /// Nothing is there.
    Absent,
    /// A regular file with this content digest.
    File(Sha256Digest),
    /// A symlink with this target text.
    Symlink(String),
    /// A directory.
    Dir,
    /// A FIFO, socket or device.
    Other,
}

impl PathState {
    /// The snapshot spelling: `null`, `"sha256:<hex>"`, `"symlink:<target>"`,
    /// `"dir"` or `"other"`.
    pub fn to_json_value(&self) -> Option<String> {
        match self {
            PathState::Absent => None,
            PathState::File(d) => Some(format!("sha256:{}", to_hex(d))),
            PathState::Symlink(t) => Some(format!("symlink:{t}")),
            PathState::Dir => Some("dir".to_owned()),
            PathState::Other => Some("other".to_owned()),
        }
    }

    /// Reads the snapshot spelling back; `None` if it is not one.
    pub fn from_json_value(value: Option<&str>) -> Option<PathState> {
        let Some(text) = value else {
            return Some(PathState::Absent);
        };
        if let Some(hex) = text.strip_prefix("sha256:") {
            return from_hex(hex).map(PathState::File);
        }
        if let Some(target) = text.strip_prefix("symlink:") {
            return Some(PathState::Symlink(target.to_owned()));
        }
        match text {
            "dir" => Some(PathState::Dir),
            "other" => Some(PathState::Other),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_strictness() {
        let d = sha256(b"");
        assert_eq!(
            to_hex(&d),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(from_hex(&to_hex(&d)), Some(d));
        assert_eq!(from_hex(&to_hex(&d).to_uppercase()), None);
        assert_eq!(from_hex("abc"), None);
    }

    #[test]
    fn states_round_trip() {
        for s in [
            PathState::Absent,
            PathState::File(sha256(b"x")),
            PathState::Symlink("a/b".into()),
            PathState::Dir,
            PathState::Other,
        ] {
            assert_eq!(
                PathState::from_json_value(s.to_json_value().as_deref()),
                Some(s)
            );
        }
        assert_eq!(PathState::from_json_value(Some("sha256:zz")), None);
        assert_eq!(PathState::from_json_value(Some("file")), None);
    }
}
