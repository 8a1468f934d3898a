//! Strict reading of snapshot text: duplicate keys at any level, unknown
//! top-level keys, wrong types and bad base64 are all errors.
//!
//! The top level is read in two steps: first every field as raw JSON (so the
//! version is checked before the other fields are interpreted), then each
//! known field with its own strict reader.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{ParseOptions, Snapshot, SNAPSHOT_VERSION};
use crate::codec;
use crate::digest::{from_hex, PathState, Sha256Digest};
use crate::error::{Error, Result};
use crate::parallel;
use crate::relpath::{truncate_for_message, RelPath};

/// The top-level keys of format version 1 this build reads.
const KNOWN_FIELDS: [&str; 11] = [
    "version",
    "entries",
    "created_dirs",
    "modes",
    "links",
    "digests",
    "applied",
    "root",
    "critical",
    "skipped",
    "mac",
];

pub(super) fn parse(json: &str, options: &ParseOptions) -> Result<Snapshot> {
    let limits = options.limits;
    if json.len() > limits.max_snapshot_bytes {
        return Err(Error::too_large(
            "snapshot",
            json.len() as u64,
            limits.max_snapshot_bytes as u64,
        ));
    }
    let overflowed = Cell::new(false);
    let seed = TopLevelSeed {
        max_entries: limits.max_entries,
        overflowed: &overflowed,
    };
    let mut de = serde_json::Deserializer::from_str(json);
    let mut top = seed
        .deserialize(&mut de)
        .and_then(|top| de.end().map(|()| top))
        .map_err(|e| {
            if overflowed.get() {
                too_many("entries", limits.max_entries)
            } else {
                json_error(e)
            }
        })?;
    check_version(top.field("version"))?;
    let mut snapshot = Snapshot::default();
    if let Some(raw) = top.field("critical") {
        let names: Vec<String> =
            serde_json::from_str(raw.get()).map_err(|e| field_error("critical", e))?;
        for name in names {
            if !KNOWN_FIELDS.contains(&name.as_str()) {
                return Err(Error::UnsupportedExtension { name });
            }
            if !snapshot.critical.insert(name.clone()) {
                return Err(Error::malformed(format!(
                    "duplicate critical item {name:?}"
                )));
            }
        }
    }
    // Members a later version of the format added: kept (so a MAC over them
    // still verifies and they survive a re-encoding), otherwise ignored.
    for (key, raw) in top
        .fields
        .iter()
        .filter(|(k, _)| !KNOWN_FIELDS.contains(&k.as_str()))
    {
        let value: serde_json::Value =
            serde_json::from_str(raw.get()).map_err(|e| field_error(key, e))?;
        let mut text = String::new();
        super::encode::canonical_json(&value, &mut text);
        snapshot.extensions.insert(key.clone(), text);
    }
    let entries: Vec<(String, Option<Text<'_>>)> = match top.entries.take() {
        Some(parsed) => parsed,
        None => {
            let raw = top
                .field("entries")
                .ok_or_else(|| Error::malformed("missing \"entries\""))?;
            strict_map(raw, "entries", limits.max_entries)?
        }
    };
    // Each file's bytes are decoded and hashed in one pass (on every core
    // for large snapshots); when every digest recorded matches, rollback
    // need not hash them again.
    let expected = expected_digests(top.field("digests"), limits.max_entries);
    let decoded = parallel::map(
        &entries,
        |(_, encoded)| encoded.as_ref().map_or(0, |t| t.0.len()),
        |(_, encoded)| encoded.as_ref().map(|t| codec::decode_hashing(&t.0)),
    );
    let mut intact = expected.is_some() || top.field("digests").is_none();
    for ((key, _), result) in entries.iter().zip(decoded) {
        let path = snapshot_key(key, "entries")?;
        let content = match result {
            None => None,
            Some(Ok((bytes, digest))) => {
                let recorded = expected.as_ref().and_then(|m| m.get(key.as_str()));
                if recorded.is_some_and(|d| *d != digest) {
                    intact = false;
                }
                Some(bytes)
            }
            Some(Err(e)) => return Err(base64_error(&path, &e)),
        };
        snapshot.entries.insert(path, content);
    }
    if let Some(raw) = top.field("created_dirs") {
        let dirs: Vec<String> =
            serde_json::from_str(raw.get()).map_err(|e| field_error("created_dirs", e))?;
        let mut set = BTreeSet::new();
        for dir in dirs {
            let path = snapshot_key(&dir, "created_dirs")?;
            if !set.insert(path) {
                return Err(Error::malformed(format!(
                    "duplicate created_dirs item {dir:?}"
                )));
            }
        }
        snapshot.created_dirs = set;
    }
    if let Some(raw) = top.field("modes") {
        let modes: Vec<(String, u32)> = strict_map(raw, "modes", limits.max_entries)?;
        snapshot.modes = keyed(modes, "modes")?;
    }
    if let Some(raw) = top.field("links") {
        let links: Vec<(String, String)> = strict_map(raw, "links", limits.max_entries)?;
        snapshot.links = keyed(links, "links")?;
    }
    if let Some(raw) = top.field("digests") {
        let digests: Vec<(String, String)> = strict_map(raw, "digests", limits.max_entries)?;
        for (key, text) in digests {
            let digest = from_hex(&text).ok_or_else(|| {
                Error::malformed(format!("digests: {text:?} is not 64 lowercase hex digits"))
            })?;
            snapshot
                .digests
                .insert(snapshot_key(&key, "digests")?, digest);
        }
    }
    snapshot.digests_verified = intact;
    if let Some(raw) = top.field("applied") {
        let applied: Vec<(String, Option<String>)> =
            strict_map(raw, "applied", limits.max_entries)?;
        for (key, text) in applied {
            let state = PathState::from_json_value(text.as_deref()).ok_or_else(|| {
                Error::malformed(format!("applied: {text:?} is not a path state"))
            })?;
            snapshot
                .applied
                .insert(snapshot_key(&key, "applied")?, state);
        }
    }
    if let Some(raw) = top.field("root") {
        let root: String = serde_json::from_str(raw.get()).map_err(|e| field_error("root", e))?;
        if !is_absolute_root(&root) || root.chars().any(char::is_control) {
            return Err(Error::malformed(format!(
                "root: {:?} is not an absolute path",
                truncate_for_message(&root)
            )));
        }
        snapshot.root = Some(root);
    }
    if let Some(raw) = top.field("skipped") {
        let skipped: Vec<(String, u64)> = strict_map(raw, "skipped", limits.max_entries)?;
        snapshot.skipped = keyed(skipped, "skipped")?;
    }
    if let Some(raw) = top.field("mac") {
        let text: String = serde_json::from_str(raw.get()).map_err(|e| field_error("mac", e))?;
        let mac =
            from_hex(&text).ok_or_else(|| Error::malformed("mac: not 64 lowercase hex digits"))?;
        snapshot.mac = Some(mac);
    }
    if snapshot.entries.len() + snapshot.links.len() > limits.max_entries {
        return Err(Error::too_large(
            "snapshot entries",
            (snapshot.entries.len() + snapshot.links.len()) as u64,
            limits.max_entries as u64,
        ));
    }
    Ok(snapshot)
}

fn too_many(field: &str, max: usize) -> Error {
    Error::too_large(format!("snapshot {field}"), max as u64 + 1, max as u64)
}

fn json_error(e: serde_json::Error) -> Error {
    Error::malformed(format!("not a snapshot object: {e}"))
}

fn field_error(field: &str, e: serde_json::Error) -> Error {
    Error::malformed(format!("{field:?}: {e}"))
}

fn check_version(raw: Option<&RawValue>) -> Result<()> {
    let raw = raw.ok_or_else(|| Error::malformed("missing \"version\""))?;
    let value: serde_json::Value =
        serde_json::from_str(raw.get()).map_err(|e| field_error("version", e))?;
    match value {
        serde_json::Value::Number(n) if n.as_u64() == Some(SNAPSHOT_VERSION) => Ok(()),
        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => {
            Err(Error::UnsupportedVersion {
                version: n.to_string(),
            })
        }
        other => Err(Error::malformed(format!(
            "\"version\" must be an integer, not {other}"
        ))),
    }
}

fn snapshot_key(key: &str, field: &str) -> Result<RelPath> {
    RelPath::try_from(key).map_err(|e| {
        Error::malformed(format!(
            "{field}: key {:?} is not a canonical relative path ({})",
            truncate_for_message(key),
            match &e {
                Error::InvalidPath { reason, .. } => reason.as_str(),
                _ => "invalid",
            }
        ))
    })
}

fn keyed<V>(pairs: Vec<(String, V)>, field: &str) -> Result<BTreeMap<RelPath, V>> {
    pairs
        .into_iter()
        .map(|(k, v)| Ok((snapshot_key(&k, field)?, v)))
        .collect()
}

fn base64_error(path: &RelPath, e: &base64::DecodeError) -> Error {
    Error::malformed(format!(
        "entries: the content of {path:?} is not valid base64 ({e})"
    ))
}

/// The digests the snapshot records, by their key text, when `digests`
/// reads cleanly (a field that does not is refused later, in its turn).
fn expected_digests(
    raw: Option<&RawValue>,
    max_entries: usize,
) -> Option<BTreeMap<String, Sha256Digest>> {
    let pairs: Vec<(String, String)> = strict_map(raw?, "digests", max_entries).ok()?;
    pairs
        .into_iter()
        .map(|(key, text)| from_hex(&text).map(|d| (key, d)))
        .collect()
}

/// The top-level object: raw fields, duplicates refused. When `version`
/// comes first and is 1 (as this crate and the seed write it), `entries`
/// is read in the same pass instead of being scanned twice.
struct TopLevel<'a> {
    fields: Vec<(String, &'a RawValue)>,
    entries: Option<Vec<(String, Option<Text<'a>>)>>,
}

impl<'a> TopLevel<'a> {
    fn field(&self, name: &str) -> Option<&'a RawValue> {
        self.fields.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }
}

struct TopLevelSeed<'f> {
    max_entries: usize,
    overflowed: &'f Cell<bool>,
}

impl<'de, 'f> DeserializeSeed<'de> for TopLevelSeed<'f> {
    type Value = TopLevel<'de>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<TopLevel<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'f> Visitor<'de> for TopLevelSeed<'f> {
    type Value = TopLevel<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<TopLevel<'de>, A::Error> {
        let mut top = TopLevel {
            fields: Vec::new(),
            entries: None,
        };
        let mut version_one_first = false;
        while let Some(key) = map.next_key::<String>()? {
            if top.fields.iter().any(|(k, _)| *k == key)
                || (key == "entries" && top.entries.is_some())
            {
                return Err(de::Error::custom(format!(
                    "duplicate top-level key {key:?}"
                )));
            }
            if key == "entries" && version_one_first {
                let seed = StrictMap::<Option<Text<'de>>> {
                    max: self.max_entries,
                    overflowed: self.overflowed,
                    marker: std::marker::PhantomData,
                };
                top.entries = Some(map.next_value_seed(seed)?);
                continue;
            }
            let value: &'de RawValue = map.next_value()?;
            if top.fields.is_empty() && key == "version" && value.get().trim() == "1" {
                version_one_first = true;
            }
            top.fields.push((key, value));
        }
        Ok(top)
    }
}

/// Reads a JSON object as ordered pairs, refusing duplicate keys and more
/// than `max` pairs.
fn strict_map<'a, V: de::Deserialize<'a>>(
    raw: &'a RawValue,
    field: &str,
    max: usize,
) -> Result<Vec<(String, V)>> {
    let overflowed = Cell::new(false);
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let seed = StrictMap::<V> {
        max,
        overflowed: &overflowed,
        marker: std::marker::PhantomData,
    };
    seed.deserialize(&mut de).map_err(|e| {
        if overflowed.get() {
            too_many(field, max)
        } else {
            field_error(field, e)
        }
    })
}

struct StrictMap<'f, V> {
    max: usize,
    overflowed: &'f Cell<bool>,
    marker: std::marker::PhantomData<V>,
}

/// A JSON string, borrowed from the input when it has no escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a base64 string or null")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                s: &'de str,
            ) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de, V: de::Deserialize<'de>> DeserializeSeed<'de> for StrictMap<'_, V> {
    type Value = Vec<(String, V)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, V: de::Deserialize<'de>> Visitor<'de> for StrictMap<'_, V> {
    type Value = Vec<(String, V)>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut seen = BTreeSet::new();
        let mut pairs = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if pairs.len() >= self.max {
                self.overflowed.set(true);
                return Err(de::Error::custom(format!("more than {} keys", self.max)));
            }
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("duplicate key {key:?}")));
            }
            pairs.push((key, map.next_value()?));
        }
        Ok(pairs)
    }
    fn visit_seq<A: SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Err(de::Error::custom("expected an object, found an array"))
    }
}

/// Whether a snapshot's `root` is an absolute path: POSIX (`/...`), or
/// Windows, where a root is recorded as a drive path (`C:\...`) or a UNC
/// share (`\\server\share\...`).
fn is_absolute_root(root: &str) -> bool {
    let b = root.as_bytes();
    let drive =
        b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/');
    root.starts_with('/') || root.starts_with("\\\\") || drive
}

#[cfg(test)]
mod root_tests {
    use super::is_absolute_root;

    #[test]
    fn posix_drive_and_unc_roots_are_absolute() {
        for ok in ["/", "/home/p", r"C:\p", "c:/p", r"\\server\share\p"] {
            assert!(is_absolute_root(ok), "{ok:?}");
        }
        for bad in ["", "p", "./p", "C:p", r"\p", "1:/p"] {
            assert!(!is_absolute_root(bad), "{bad:?}");
        }
    }
}
