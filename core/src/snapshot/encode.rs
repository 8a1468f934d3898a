//! Deterministic snapshot output, written straight into one buffer.
//!
//! Entries are appended in sorted order as they are read, so a capture never
//! holds every file's raw bytes and their base64 at the same time.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Snapshot, SNAPSHOT_VERSION};
use crate::codec;
use crate::digest::to_hex;
use crate::relpath::RelPath;

/// Writes a snapshot's JSON text incrementally.
///
/// Call [`SnapshotEncoder::entry`] once per path in ascending order, then
/// [`SnapshotEncoder::finish`].
#[derive(Debug)]
pub(crate) struct SnapshotEncoder {
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
                codec::encode_into(bytes, &mut self.out);
                self.out.push('"');
            }
            None => self.out.push_str("null"),
        }
    }

    /// Closes `entries`, writes every other section of `rest` (its
    /// `entries` are ignored; `mac` only when `with_mac`) and returns the
    /// text. Empty extension sections are left out; `mac` comes last, so the
    /// text without it is the text with it minus that one member.
    pub fn finish(mut self, rest: &Snapshot, with_mac: bool) -> String {
        self.out.push_str("},\"created_dirs\":[");
        for (i, dir) in rest.created_dirs.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            push_json_string(&mut self.out, dir.as_str());
        }
        self.out.push(']');
        self.section("modes", &rest.modes, |out, mode| {
            let _ = write!(out, "{mode}");
        });
        self.section("links", &rest.links, |out, target| {
            push_json_string(out, target)
        });
        self.section("digests", &rest.digests, |out, digest| {
            push_json_string(out, &to_hex(digest));
        });
        self.section("applied", &rest.applied, |out, state| {
            match state.to_json_value() {
                Some(text) => push_json_string(out, &text),
                None => out.push_str("null"),
            }
        });
        if let Some(root) = &rest.root {
            self.out.push_str(",\"root\":");
            push_json_string(&mut self.out, root);
        }
        if !rest.critical.is_empty() {
            self.out.push_str(",\"critical\":[");
            for (i, name) in rest.critical.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                push_json_string(&mut self.out, name);
            }
            self.out.push(']');
        }
        // Members added after the table's (`skipped`) and members of a later
        // format version, in key order: where a reader that does not know
        // `skipped` puts it when it re-encodes, so a MAC still verifies.
        let skipped = (!rest.skipped.is_empty()).then(|| {
            let mut text = String::from("{");
            for (i, (path, size)) in rest.skipped.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                push_json_string(&mut text, path.as_str());
                let _ = write!(text, ":{size}");
            }
            text.push('}');
            ("skipped", text)
        });
        let mut later: Vec<(&str, &str)> = rest
            .extensions
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        if let Some((name, text)) = &skipped {
            later.push((name, text.as_str()));
            later.sort_unstable();
        }
        for (key, value) in later {
            self.out.push(',');
            push_json_string(&mut self.out, key);
            self.out.push(':');
            self.out.push_str(value);
        }
        if let Some(mac) = rest.mac.as_ref().filter(|_| with_mac) {
            self.out.push_str(",\"mac\":");
            push_json_string(&mut self.out, &to_hex(mac));
        }
        self.out.push('}');
        self.out
    }

    fn section<V>(
        &mut self,
        name: &str,
        map: &BTreeMap<RelPath, V>,
        value: impl Fn(&mut String, &V),
    ) {
        if map.is_empty() {
            return;
        }
        let _ = write!(self.out, ",\"{name}\":{{");
        for (i, (path, v)) in map.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            push_json_string(&mut self.out, path.as_str());
            self.out.push(':');
            value(&mut self.out, v);
        }
        self.out.push('}');
    }
}

/// The canonical text of a JSON value: no whitespace, object members in
/// ascending key order, strings escaped as [`push_json_string`] does.
pub(crate) fn canonical_json(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => out.push_str(&value.to_string()),
        Value::String(s) => push_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_string(out, key);
                out.push(':');
                canonical_json(item, out);
            }
            out.push('}');
        }
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
