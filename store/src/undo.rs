//! The store's only calls into the core's capture-snapshot API: checking a
//! snapshot before it is stored, rolling a stored one back, planning that
//! rollback. Kept in this one module so a change of the core's signatures
//! is adapted here and nowhere else.

use std::borrow::Cow;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use agent_checkpoint::codec;
use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, Error, ParseOptions, Plan, PlanOptions, Result, RollbackOptions, RollbackReport,
    SealKey, Snapshot,
};

/// Checks that `text` is a snapshot the core can read (any `.git` keys
/// allowed: rollback applies the caller's own rule later), without ever
/// holding its files' decoded bytes: the core parses and validates a
/// skeleton of it (every file's base64 text replaced by `""`, everything
/// else as written), then each file's text is decoded by the core's own
/// decoder in steps of [`CHECK_STEP`] and dropped. A capture of N bytes
/// so costs the text it keeps, not that and N more.
///
/// # Errors
/// The core's `malformed_snapshot` / `unsupported_version` /
/// `too_large` errors.
pub(crate) fn check_snapshot(text: &str) -> Result<()> {
    let options = ParseOptions::allowing_git_dir(true);
    let max = options.limits.max_snapshot_bytes;
    if text.len() > max {
        return Err(Error::too_large("snapshot", text.len() as u64, max as u64));
    }
    let (skeleton, files) = skeleton(text)?;
    Snapshot::parse(&skeleton, &options)?;
    for (path, encoded) in files {
        check_base64(&path, encoded)?;
    }
    Ok(())
}

/// How much base64 text one decoding step of [`check_snapshot`] takes (a
/// multiple of 4).
const CHECK_STEP: usize = 1 << 16;

/// A file's path and base64 text, as [`skeleton`] found them.
type Encoded<'a> = (Cow<'a, str>, &'a str);

/// `text` with every string in `entries` replaced by `""` (its other
/// members, duplicates and values of the wrong type kept, so the core
/// judges them), and each file's path and base64 text.
fn skeleton(text: &str) -> Result<(String, Vec<Encoded<'_>>)> {
    let malformed = |e: serde_json::Error| Error::malformed(e.to_string());
    let top: Members<'_, &RawValue> = serde_json::from_str(text).map_err(malformed)?;
    let mut out = String::with_capacity(1024);
    let mut files = Vec::new();
    out.push('{');
    for (i, (key, raw)) in top.0.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_key(&mut out, key)?;
        if key != "entries" {
            out.push_str(raw.get());
            continue;
        }
        // Not an object: left for the core to refuse.
        let Ok(entries) = serde_json::from_str::<Members<'_, &RawValue>>(raw.get()) else {
            out.push_str(raw.get());
            continue;
        };
        out.push('{');
        for (j, (path, value)) in entries.0.into_iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            push_key(&mut out, &path)?;
            // Borrowed when it has no escapes (base64 never needs one), so
            // no file's text is copied.
            if let Ok(encoded) = serde_json::from_str::<&str>(value.get()) {
                out.push_str("\"\"");
                files.push((path, encoded));
            } else if let Ok(encoded) = serde_json::from_str::<String>(value.get()) {
                out.push_str("\"\"");
                check_base64(&path, &encoded)?;
            } else {
                out.push_str(value.get());
            }
        }
        out.push('}');
    }
    out.push('}');
    Ok((out, files))
}

fn push_key(out: &mut String, key: &str) -> Result<()> {
    let quoted = serde_json::to_string(key).map_err(|e| Error::malformed(e.to_string()))?;
    out.push_str(&quoted);
    out.push(':');
    Ok(())
}

/// Decodes `encoded` step by step, keeping nothing; where a step fails (or
/// ends with padding in mid-text) the whole text is decoded for the
/// verdict, as the core's own parse does.
fn check_base64(path: &str, encoded: &str) -> Result<()> {
    if stepwise_decodes(encoded.as_bytes()) {
        return Ok(());
    }
    codec::decode(encoded).map(drop).map_err(|e| {
        Error::malformed(format!(
            "entries: the content of {path:?} is not valid base64 ({e})"
        ))
    })
}

/// Whether every step of `input` decodes, padding only at its very end.
fn stepwise_decodes(input: &[u8]) -> bool {
    let mut rest = input;
    while !rest.is_empty() {
        let (step, tail) = rest.split_at(rest.len().min(CHECK_STEP));
        if !tail.is_empty() && step.last() == Some(&b'=') {
            return false;
        }
        // Base64 text is ASCII: a step that is not UTF-8 is judged whole.
        let Ok(step) = std::str::from_utf8(step) else {
            return false;
        };
        if codec::decode(step).is_err() {
            return false;
        }
        rest = tail;
    }
    true
}

/// The members of a JSON object in order, duplicates kept.
struct Members<'a, V>(Vec<(Cow<'a, str>, V)>);

impl<'de: 'a, 'a, V: Deserialize<'de>> Deserialize<'de> for Members<'a, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit<'a, V>(std::marker::PhantomData<(&'a (), V)>);
        impl<'de: 'a, 'a, V: Deserialize<'de>> Visitor<'de> for Visit<'a, V> {
            type Value = Members<'a, V>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    out.push((key, map.next_value()?));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// Reads `text` with `parse`, the seal checked first with `key` (or with
/// `parse`'s own key when `key` is `None`).
fn read(text: &str, parse: &ParseOptions, key: Option<&SealKey>) -> Result<Snapshot> {
    let key = key.cloned().or_else(|| parse.key.clone());
    Snapshot::parse(text, &parse.clone().with_key(key))
}

/// Rolls `snapshot` back under the directory `root_dir`.
///
/// # Errors
/// An I/O error when `root_dir` cannot be opened; the core's errors for a
/// refused snapshot.
pub(crate) fn rollback(
    root_dir: &Path,
    snapshot: &str,
    parse: &ParseOptions,
    options: &RollbackOptions,
) -> Result<RollbackReport> {
    let snapshot = read(snapshot, parse, options.key.as_ref())?;
    let root = CapRoot::open(root_dir, ambient_authority())?;
    agent_checkpoint::rollback(&root, &snapshot, options)
}

/// What rolling `snapshot` back under `root_dir` would do, touching nothing.
///
/// # Errors
/// An I/O error when `root_dir` cannot be opened; the core's errors for a
/// refused snapshot.
pub(crate) fn plan(
    root_dir: &Path,
    snapshot: &str,
    parse: &ParseOptions,
    options: &PlanOptions,
) -> Result<Plan> {
    let snapshot = read(snapshot, parse, options.key.as_ref())?;
    let root = CapRoot::open(root_dir, ambient_authority())?;
    agent_checkpoint::plan_rollback(&root, &snapshot, options)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn core_accepts(text: &str) -> bool {
        Snapshot::parse(text, &ParseOptions::allowing_git_dir(true)).is_ok()
    }

    /// The light check accepts and refuses exactly what the core's full
    /// parse does, for the ways a file's text or the structure can be bad.
    #[test]
    fn the_light_check_agrees_with_the_core() {
        let long = "QUJD".repeat(CHECK_STEP);
        let cases = [
            r#"{"version":1,"entries":{"a":"eA=="}}"#.to_owned(),
            r#"{"version":1,"entries":{"a":null,"b":""}}"#.to_owned(),
            r#"{"version":1,"entries":{"a":"eA\u003d\u003d"}}"#.to_owned(),
            r#"{"version":1,"entries":{"a":"eA="}}"#.to_owned(),
            r#"{"version":1,"entries":{"a":"e!=="}}"#.to_owned(),
            r#"{"version":1,"entries":{"a":5}}"#.to_owned(),
            r#"{"version":1,"entries":[]}"#.to_owned(),
            r#"{"version":1,"entries":{"a":"eA==","a":"eA=="}}"#.to_owned(),
            r#"{"version":1,"version":1,"entries":{}}"#.to_owned(),
            r#"{"version":2,"entries":{}}"#.to_owned(),
            r#"{"version":1,"entries":{"../x":"eA=="}}"#.to_owned(),
            r#"{"version":1,"entries":{"a":"eA=="}} x"#.to_owned(),
            format!(r#"{{"version":1,"entries":{{"a":"{long}"}}}}"#),
            format!(r#"{{"version":1,"entries":{{"a":"{long}!!!!"}}}}"#),
            format!(
                r#"{{"version":1,"entries":{{"a":"{}eA=={long}"}}}}"#,
                &long[4..]
            ),
            format!(r#"{{"version":1,"entries":{{"a":"{long}é"}}}}"#),
        ];
        for text in &cases {
            assert_eq!(
                check_snapshot(text).is_ok(),
                core_accepts(text),
                "{}",
                &text[..text.len().min(80)]
            );
        }
        assert!(check_snapshot(&cases[0]).is_ok() && check_snapshot(&cases[4]).is_err());
    }
}
