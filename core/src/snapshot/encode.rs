//! Deterministic snapshot output, written straight into one buffer.
//!
//! Entries are appended in sorted order as they are read, so a capture never
//! holds every file's raw bytes and their base64 at the same time.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use base64::Engine as _;

use super::SNAPSHOT_VERSION;
use crate::relpath::RelPath;

/// The base64 engine of the format: standard alphabet, padded, strict.
pub(crate) const BASE64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Writes a snapshot's JSON text incrementally.
///
/// Call [`SnapshotEncoder::entry`] once per path in ascending order, then
/// [`SnapshotEncoder::finish`].
#[derive(Debug)]
pub struct SnapshotEncoder {
    out: String,
    entries: usize,
}

impl SnapshotEncoder {
    /// A new encoder whose buffer starts with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> SnapshotEncoder {
        let mut out = String::with_capacity(capacity);
        let _ = write!(out, "{{\"version\":{SNAPSHOT_VERSION},\"entries\":{{");
        SnapshotEncoder { out, entries: 0 }
    }

    /// Appends one entry: the file's bytes, or `None` for a path that did not exist.
    pub fn entry(&mut self, path: &RelPath, content: Option<&[u8]>) {
        if self.entries > 0 {
            self.out.push(',');
        }
        self.entries += 1;
        push_json_string(&mut self.out, path.as_str());
        self.out.push(':');
        match content {
            Some(bytes) => {
                self.out.reserve(bytes.len().div_ceil(3) * 4 + 2);
                self.out.push('"');
                BASE64.encode_string(bytes, &mut self.out);
                self.out.push('"');
            }
            None => self.out.push_str("null"),
        }
    }

    /// Closes `entries`, writes the other sections and returns the text.
    /// Empty extension sections are left out.
    pub fn finish(
        mut self,
        created_dirs: &BTreeSet<RelPath>,
        modes: &BTreeMap<RelPath, u32>,
        links: &BTreeMap<RelPath, String>,
    ) -> String {
        self.out.push_str("},\"created_dirs\":[");
        for (i, dir) in created_dirs.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            push_json_string(&mut self.out, dir.as_str());
        }
        self.out.push(']');
        if !modes.is_empty() {
            self.out.push_str(",\"modes\":{");
            for (i, (path, mode)) in modes.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                push_json_string(&mut self.out, path.as_str());
                let _ = write!(self.out, ":{mode}");
            }
            self.out.push('}');
        }
        if !links.is_empty() {
            self.out.push_str(",\"links\":{");
            for (i, (path, target)) in links.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                push_json_string(&mut self.out, path.as_str());
                self.out.push(':');
                push_json_string(&mut self.out, target);
            }
            self.out.push('}');
        }
        self.out.push('}');
        self.out
    }
}

/// Appends `s` as a JSON string literal (RFC 8259 escaping).
pub(crate) fn push_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_round_trip_through_serde() {
        for s in [
            "plain",
            "quote\"back\\slash",
            "ctl\u{1}\n\t\r",
            "é ü 日本",
            "",
        ] {
            let mut out = String::new();
            push_json_string(&mut out, s);
            let back: String = serde_json::from_str(&out).unwrap();
            assert_eq!(back, s);
        }
    }
}
