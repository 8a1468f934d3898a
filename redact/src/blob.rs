//! Blobs by path: `.json`/`.jsonl` JSON-aware, other UTF-8 text as text,
//! binary untouched.

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

/// The bytes as text, or `None` for binary: a NUL byte or invalid UTF-8.
pub fn as_text(bytes: &[u8]) -> Option<&str> {
    if memchr(0, bytes).is_some() {
        return None;
    }
    std::str::from_utf8(bytes).ok()
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
    fn binary() {
        assert_eq!(as_text(b"ok"), Some("ok"));
        assert_eq!(as_text(b"a\0b"), None);
        assert_eq!(as_text(&[0xff, 0xfe]), None);
    }
}
