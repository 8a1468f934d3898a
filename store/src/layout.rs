//! The checkpoint tree's file names, transcript chunking and the
//! content-hash text (STORE.md §1-2).

use sha2::{Digest, Sha256};

/// The root summary and each session's metadata.
pub const METADATA_FILE: &str = "metadata.json";
/// A session's transcript (chunk 0).
pub const TRANSCRIPT_FILE: &str = "full.jsonl";
/// The legacy transcript name read when there is no `full.jsonl`.
pub const LEGACY_TRANSCRIPT_FILE: &str = "full.log";
/// `sha256:<hex>` of the stored transcript.
pub const CONTENT_HASH_FILE: &str = "content_hash.txt";
/// The session's prompts, joined by `"\n\n---\n\n"`.
pub const PROMPT_FILE: &str = "prompt.txt";
/// The directory of subagent task checkpoints.
pub const TASKS_DIR: &str = "tasks";
/// A task checkpoint's document.
pub const TASK_FILE: &str = "checkpoint.json";
/// Transcripts larger than this are split at line boundaries (50 MiB).
pub const MAX_CHUNK_BYTES: usize = 50 * 1024 * 1024;

/// `sha256:` + lowercase hex of `bytes`.
pub fn content_hash(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// The name of transcript chunk `index`: `full.jsonl`, `full.jsonl.001`, ...
pub fn chunk_name(index: usize) -> String {
    if index == 0 {
        TRANSCRIPT_FILE.to_owned()
    } else {
        format!("{TRANSCRIPT_FILE}.{index:03}")
    }
}

/// The chunk index of a file name, if it is a transcript chunk.
pub fn chunk_index(name: &str) -> Option<usize> {
    if name == TRANSCRIPT_FILE {
        return Some(0);
    }
    let suffix = name.strip_prefix(TRANSCRIPT_FILE)?.strip_prefix('.')?;
    if suffix.is_empty() || !suffix.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    suffix.parse().ok().filter(|&n| n > 0)
}

/// Splits `bytes` into chunks of at most `limit` bytes, cutting only after
/// a `\n` (a single line longer than `limit` is cut at `limit`). One chunk
/// when it fits; `limit` 0 is read as 1.
pub fn chunk(bytes: &[u8], limit: usize) -> Vec<&[u8]> {
    let limit = limit.max(1);
    let mut chunks = Vec::new();
    let mut rest = bytes;
    while rest.len() > limit {
        let window = &rest[..limit];
        let cut = match window.iter().rposition(|&b| b == b'\n') {
            Some(newline) => newline + 1,
            None => limit,
        };
        let (head, tail) = rest.split_at(cut);
        chunks.push(head);
        rest = tail;
    }
    if !rest.is_empty() || chunks.is_empty() {
        chunks.push(rest);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(chunk_name(0), "full.jsonl");
        assert_eq!(chunk_name(1), "full.jsonl.001");
        assert_eq!(chunk_name(1234), "full.jsonl.1234");
        assert_eq!(chunk_index("full.jsonl"), Some(0));
        assert_eq!(chunk_index("full.jsonl.002"), Some(2));
        assert_eq!(chunk_index("full.jsonl.000"), None);
        assert_eq!(chunk_index("full.jsonl."), None);
        assert_eq!(chunk_index("full.jsonl.x"), None);
        assert_eq!(chunk_index("full.log"), None);
    }

    #[test]
    fn chunks_cut_at_lines_and_concatenate_back() {
        let text = b"aaa\nbb\ncccc\nd";
        let chunks = chunk(text, 8);
        assert_eq!(chunks, [&b"aaa\nbb\n"[..], b"cccc\nd"]);
        assert_eq!(chunks.concat(), text);
        let long = b"0123456789\nab";
        assert_eq!(chunk(long, 4), [&b"0123"[..], b"4567", b"89\n", b"ab"]);
        assert_eq!(chunk(b"", 4), [&b""[..]]);
        assert_eq!(chunk(b"abc", 50), [&b"abc"[..]]);
    }

    #[test]
    fn hash_text() {
        assert_eq!(
            content_hash(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
