//! Blobs by path: `.json`/`.jsonl` JSON-aware, other text as text, binary
//! (a NUL byte) untouched.
//!
//! Text that is not valid UTF-8 (a Latin-1 `é` in a tool's output) is still
//! text: every byte of an invalid sequence stands in for a DEL (`0x7f`, one
//! byte for one, so offsets stay the same) while the layers run, and the
//! output keeps the original bytes outside the spans replaced. DEL ends
//! words, tokens and values like any other byte that is not part of them,
//! and is a legal character inside a JSON string, so a JSONL line with such
//! a byte is still redacted JSON-aware.

use memchr::memchr;

/// True for a path whose blob is redacted JSON-aware (`.json`, `.jsonl`,
/// any case).
pub fn is_json_path(path: &str) -> bool {
    let lower = path
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    lower.ends_with(".json") || lower.ends_with(".jsonl")
}

/// What a blob's bytes are, for redaction.
#[derive(Debug, PartialEq, Eq)]
pub enum BlobText<'a> {
    /// Valid UTF-8 without a NUL byte.
    Text(&'a str),
    /// Text with invalid UTF-8: the same length, every byte of an invalid
    /// sequence replaced by [`INVALID_STAND_IN`].
    Substituted(String),
    /// A NUL byte: binary, never redacted.
    Binary,
}

/// The byte an invalid UTF-8 byte stands for while a text is redacted.
pub const INVALID_STAND_IN: u8 = 0x7f;

/// Classifies `bytes`: binary when it holds a NUL byte, otherwise text.
pub fn as_text(bytes: &[u8]) -> BlobText<'_> {
    if memchr(0, bytes).is_some() {
        return BlobText::Binary;
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return BlobText::Text(text);
    }
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for _ in chunk.invalid() {
            out.push(char::from(INVALID_STAND_IN));
        }
    }
    BlobText::Substituted(out)
}

/// `bytes` with `spans` (offsets valid for `bytes` and its substituted
/// text alike) replaced by their replacement words.
pub fn apply_bytes(bytes: &[u8], spans: &[crate::layers::Span]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    for s in spans {
        if s.start < at || s.end > bytes.len() {
            continue;
        }
        out.extend_from_slice(&bytes[at..s.start]);
        out.extend_from_slice(s.replacement.as_bytes());
        at = s.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert!(is_json_path("a/full.jsonl"));
        assert!(is_json_path("metadata.JSON"));
        assert!(!is_json_path("a.json.txt"));
        assert!(!is_json_path("prompt.txt"));
        assert!(!is_json_path("json"));
    }

    #[test]
    fn binary_text_and_invalid_utf8() {
        assert_eq!(as_text(b"ok"), BlobText::Text("ok"));
        assert_eq!(as_text(b"a\0b"), BlobText::Binary);
        assert_eq!(as_text(b"\xff\0"), BlobText::Binary);
        // One stand-in per invalid byte; valid sequences around kept.
        assert_eq!(
            as_text(b"caf\xe9 \xe2\x82 \xc3\xa9"),
            BlobText::Substituted("caf\u{7f} \u{7f}\u{7f} \u{e9}".to_owned())
        );
    }
}
