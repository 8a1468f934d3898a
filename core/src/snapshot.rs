//! The snapshot format (version 1): strict parse, validation, deterministic output.
//!
//! ```json
//! {"version":1,
//!  "entries":{"src/a.py":"<base64>","gen/new.py":null},
//!  "created_dirs":["gen"],
//!  "modes":{"src/a.py":493},
//!  "links":{"docs/current":"v2/index.md"}}
//! ```
//!
//! `entries` and `created_dirs` are what the seed's Python module reads and
//! writes; `modes`, `links`, `digests` (SHA-256 hex of each file), `applied`
//! (post-batch states, see `record_applied`), `root` (where it was taken),
//! `critical` and `mac` (HMAC-SHA256 hex) are extensions it ignores. How the
//! format grows is written in `docs/FORMAT.md`: unknown top-level members are
//! kept and ignored unless `critical` names them. Keys are canonical
//! [`RelPath`]s; anything else is rejected before anything is touched.

mod encode;
mod index;
mod inspect;
mod json;
pub(crate) mod links;
mod parse;
pub(crate) mod validate;

use std::collections::{BTreeMap, BTreeSet};

pub(crate) use encode::SnapshotEncoder;
pub(crate) use index::Index;
pub use inspect::{inspect_snapshot, CapturedKind, CapturedPath};
pub use json::SnapshotJson;

use crate::digest::{sha256, PathState, Sha256Digest};
use crate::error::{Error, Result};
use crate::parallel;
use crate::relpath::RelPath;
use crate::seal::{KeyId, SealKey};

/// The only snapshot version this crate reads and writes.
pub const SNAPSHOT_VERSION: u64 = 1;

/// The extensions (optional top-level members) this build understands; a
/// snapshot may name any of them in `critical`.
pub const KNOWN_EXTENSIONS: [&str; 9] = [
    "modes",
    "links",
    "digests",
    "applied",
    "root",
    "critical",
    "mac",
    "created_dirs",
    "skipped",
];

/// Size limits applied while parsing, before anything is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest accepted snapshot text, in bytes.
    pub max_snapshot_bytes: usize,
    /// Most entries (plus links) in one snapshot.
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            // 4 GiB where memory allows; 1 GiB on 32-bit targets (wasm).
            max_snapshot_bytes: usize::try_from(4_u64 << 30).unwrap_or(1 << 30),
            max_entries: 1_000_000,
        }
    }
}

impl Limits {
    /// Sets [`Limits::max_snapshot_bytes`].
    pub fn with_max_snapshot_bytes(mut self, bytes: usize) -> Limits {
        self.max_snapshot_bytes = bytes;
        self
    }

    /// Sets [`Limits::max_entries`].
    pub fn with_max_entries(mut self, entries: usize) -> Limits {
        self.max_entries = entries;
        self
    }
}

/// How strictly to read a snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Accept keys with a `.git` component (refused by default).
    pub allow_git_dir: bool,
    /// Size limits.
    pub limits: Limits,
    /// Refuse the snapshot (`unauthenticated`) unless it is sealed with
    /// this key; checked before any costly validation.
    pub key: Option<SealKey>,
}

impl ParseOptions {
    /// Default options, with `.git` keys allowed or not.
    pub fn allowing_git_dir(allow_git_dir: bool) -> ParseOptions {
        ParseOptions::default().with_allow_git_dir(allow_git_dir)
    }

    /// Sets [`ParseOptions::allow_git_dir`].
    pub fn with_allow_git_dir(mut self, allow: bool) -> ParseOptions {
        self.allow_git_dir = allow;
        self
    }

    /// Sets [`ParseOptions::limits`].
    pub fn with_limits(mut self, limits: Limits) -> ParseOptions {
        self.limits = limits;
        self
    }

    /// Sets [`ParseOptions::key`].
    pub fn with_key(mut self, key: Option<SealKey>) -> ParseOptions {
        self.key = key;
        self
    }
}

/// A parsed, validated snapshot. It can only be made by parsing text (or
/// by this crate's own capture), so one that exists is valid.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Captured paths: the original bytes, or `None` if the path did not exist.
    pub(crate) entries: BTreeMap<RelPath, Option<Vec<u8>>>,
    /// Directories the batch would create; the only ones rollback may prune.
    pub(crate) created_dirs: BTreeSet<RelPath>,
    /// Permission bits of captured files.
    pub(crate) modes: BTreeMap<RelPath, u32>,
    /// Captured symlinks and their target text.
    pub(crate) links: BTreeMap<RelPath, String>,
    /// SHA-256 of each captured file's bytes.
    pub(crate) digests: BTreeMap<RelPath, Sha256Digest>,
    /// The state of each captured path right after the batch.
    pub(crate) applied: BTreeMap<RelPath, PathState>,
    /// The canonical absolute path of the root it was taken under.
    pub(crate) root: Option<String>,
    /// The extensions a reader must understand (`critical`).
    pub(crate) critical: BTreeSet<String>,
    /// Paths the capture was asked for but left out (files over
    /// `max_file_bytes`), each with the size seen: not covered by a rollback.
    pub(crate) skipped: BTreeMap<RelPath, u64>,
    /// Members this build does not know, kept as canonical JSON text.
    pub(crate) extensions: BTreeMap<String, String>,
    /// HMAC-SHA256 over the canonical text without `mac`.
    pub(crate) mac: Option<Sha256Digest>,
    /// The key this snapshot was verified with, when parsed with one.
    pub(crate) verified_with: Option<KeyId>,
    /// Every file's bytes were found to match their recorded digest while
    /// parsing (decoded and hashed in one pass): [`Snapshot::verify_digests`]
    /// has nothing left to check. Only parsing sets it; nothing in this
    /// crate changes a parsed snapshot's bytes or digests.
    pub(crate) digests_verified: bool,
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Snapshot) -> bool {
        // What the snapshot says, not how it was read.
        self.entries == other.entries
            && self.created_dirs == other.created_dirs
            && self.modes == other.modes
            && self.links == other.links
            && self.digests == other.digests
            && self.applied == other.applied
            && self.root == other.root
            && self.critical == other.critical
            && self.skipped == other.skipped
            && self.extensions == other.extensions
            && self.mac == other.mac
    }
}

impl Eq for Snapshot {}

impl Snapshot {
    /// Parses and validates `json`; any problem is a typed error and
    /// nothing of the snapshot is returned. With a key, the MAC is checked
    /// right after the text is read, before any costly validation.
    pub fn parse(json: &str, options: &ParseOptions) -> Result<Snapshot> {
        let mut snapshot = parse::parse(json, options)?;
        if let Some(key) = &options.key {
            crate::seal::verify(&snapshot, key)?;
            snapshot.verified_with = Some(key.id()?);
        }
        validate::validate(&snapshot, options.allow_git_dir)?;
        Ok(snapshot)
    }

    /// The captured files and new paths, sorted: each path with its bytes,
    /// or `None` for a path that did not exist.
    pub fn entries(&self) -> impl Iterator<Item = (&RelPath, Option<&[u8]>)> {
        self.entries.iter().map(|(p, c)| (p, c.as_deref()))
    }

    /// The captured symlinks and their target text, sorted.
    pub fn links(&self) -> impl Iterator<Item = (&RelPath, &str)> {
        self.links.iter().map(|(p, t)| (p, t.as_str()))
    }

    /// The directories the batch would create (the only ones rollback may prune).
    pub fn created_dirs(&self) -> impl Iterator<Item = &RelPath> {
        self.created_dirs.iter()
    }

    /// The recorded permission bits of a captured file.
    pub fn mode(&self, path: &RelPath) -> Option<u32> {
        self.modes.get(path).copied()
    }

    /// The recorded SHA-256 of a captured file.
    pub fn digest(&self, path: &RelPath) -> Option<&Sha256Digest> {
        self.digests.get(path)
    }

    /// The post-batch state `record_applied` recorded for a path.
    pub fn applied(&self, path: &RelPath) -> Option<&PathState> {
        self.applied.get(path)
    }

    /// Whether `record_applied` recorded post-batch states.
    pub fn has_applied(&self) -> bool {
        !self.applied.is_empty()
    }

    /// The root the snapshot was taken under (canonical absolute path), if recorded.
    pub fn root(&self) -> Option<&str> {
        self.root.as_deref()
    }

    /// The paths the capture left out (files over its `max_file_bytes`),
    /// sorted, each with the size it saw. A rollback neither restores nor
    /// removes them: it lists them in [`crate::RollbackReport::not_covered`].
    pub fn skipped(&self) -> impl Iterator<Item = (&RelPath, u64)> {
        self.skipped.iter().map(|(p, size)| (p, *size))
    }

    /// Whether the snapshot carries a MAC.
    pub fn is_sealed(&self) -> bool {
        self.mac.is_some()
    }

    /// Every captured path (entries and links), sorted.
    pub fn paths(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .entries
            .keys()
            .chain(self.links.keys())
            .map(|p| p.to_string())
            .collect();
        all.sort();
        all
    }

    /// The number of captured paths (entries and links).
    pub fn len(&self) -> usize {
        self.entries.len() + self.links.len()
    }

    /// Whether nothing is captured.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The deterministic JSON text of this snapshot.
    pub fn to_json(&self) -> SnapshotJson {
        SnapshotJson(self.encode(true))
    }

    /// The text of this snapshot sealed with `key` (an HMAC-SHA256 over
    /// the canonical text, in `mac`), replacing any MAC it had.
    pub fn sealed(&self, key: &SealKey) -> Result<SnapshotJson> {
        crate::seal::seal_text(self.canonical_unsealed(), key).map(SnapshotJson)
    }

    /// The canonical text the MAC covers: the text without `mac`.
    pub(crate) fn canonical_unsealed(&self) -> String {
        self.encode(false)
    }

    fn encode(&self, with_mac: bool) -> String {
        let mut encoder = SnapshotEncoder::with_capacity(self.encoded_size_hint());
        for (path, content) in &self.entries {
            encoder.entry(path, content.as_deref());
        }
        encoder.finish(self, with_mac)
    }

    fn encoded_size_hint(&self) -> usize {
        self.entries
            .iter()
            .map(|(k, v)| k.as_str().len() + 8 + v.as_ref().map_or(4, |b| b.len() / 3 * 4 + 4))
            .sum::<usize>()
            + 64
    }

    /// Checks every captured file's bytes against its recorded digest (in
    /// parallel for large snapshots). A mismatch anywhere makes the whole
    /// snapshot invalid: rollback and plan refuse it before touching anything.
    pub fn verify_digests(&self) -> Result<()> {
        if self.digests_verified {
            return Ok(());
        }
        let files: Vec<(&RelPath, &[u8], &Sha256Digest)> = self
            .entries
            .iter()
            .filter_map(|(path, content)| {
                let digest = self.digests.get(path)?;
                content.as_deref().map(|bytes| (path, bytes, digest))
            })
            .collect();
        let intact = parallel::map(
            &files,
            |(_, bytes, _)| bytes.len(),
            |(_, bytes, digest)| sha256(bytes) == **digest,
        );
        match files.iter().zip(intact).find(|(_, ok)| !ok) {
            Some(((path, _, _), _)) => Err(Error::malformed(format!(
                "entries: the bytes of {path:?} do not match their digest (corrupted or forged)"
            ))),
            None => Ok(()),
        }
    }
}

/// The paths captured by `json`, sorted; empty for a malformed snapshot
/// (best effort, like the seed's `snapshot_paths`).
pub fn snapshot_paths(json: &str) -> Vec<String> {
    Snapshot::parse(json, &ParseOptions::allowing_git_dir(true))
        .map(|s| s.paths())
        .unwrap_or_default()
}
