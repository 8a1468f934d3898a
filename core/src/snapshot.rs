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
//! (post-batch states, see `record_applied`) and `mac` (HMAC-SHA256 hex) are
//! extensions it ignores. Keys are canonical
//! [`RelPath`]s; anything else is rejected before anything is touched.

mod encode;
mod inspect;
mod parse;
pub(crate) mod validate;

use std::collections::{BTreeMap, BTreeSet};

pub use encode::SnapshotEncoder;
pub use inspect::{inspect_snapshot, CapturedKind, CapturedPath};

use crate::digest::{PathState, Sha256Digest};
use crate::error::Result;
use crate::relpath::RelPath;

/// The only snapshot version this crate reads and writes.
pub const SNAPSHOT_VERSION: u64 = 1;

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

/// How strictly to read a snapshot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Accept keys with a `.git` component (refused by default).
    pub allow_git_dir: bool,
    /// Size limits.
    pub limits: Limits,
}

impl ParseOptions {
    /// Default options, with `.git` keys allowed or not.
    pub fn allowing_git_dir(allow_git_dir: bool) -> ParseOptions {
        ParseOptions {
            allow_git_dir,
            ..ParseOptions::default()
        }
    }
}

/// A parsed, validated snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Captured paths: the original bytes, or `None` if the path did not exist.
    pub entries: BTreeMap<RelPath, Option<Vec<u8>>>,
    /// Directories the batch would create; the only ones rollback may prune.
    pub created_dirs: BTreeSet<RelPath>,
    /// Permission bits of captured files.
    pub modes: BTreeMap<RelPath, u32>,
    /// Captured symlinks and their target text.
    pub links: BTreeMap<RelPath, String>,
    /// SHA-256 of each captured file's bytes (extension `digests`).
    pub digests: BTreeMap<RelPath, Sha256Digest>,
    /// The state of each captured path right after the batch, recorded by
    /// `record_applied` (extension `applied`): the human-edit guard.
    pub applied: BTreeMap<RelPath, PathState>,
    /// HMAC-SHA256 over the canonical text without `mac` (extension `mac`).
    pub mac: Option<Sha256Digest>,
}

impl Snapshot {
    /// Parses and validates `json`; any problem is a typed error and
    /// nothing of the snapshot is returned.
    pub fn parse(json: &str, options: &ParseOptions) -> Result<Snapshot> {
        let snapshot = parse::parse(json, options)?;
        snapshot.validate(options.allow_git_dir)?;
        Ok(snapshot)
    }

    /// Checks the cross-field rules (see the module docs of `validate`).
    pub fn validate(&self, allow_git_dir: bool) -> Result<()> {
        validate::validate(self, allow_git_dir)
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

    /// The deterministic JSON text of this snapshot.
    pub fn to_json(&self) -> String {
        self.encode(true)
    }

    /// The canonical text the MAC covers: [`Snapshot::to_json`] without `mac`.
    pub fn canonical_unsealed(&self) -> String {
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
}

/// The paths captured by `json`, sorted; empty for a malformed snapshot
/// (best effort, like the seed's `snapshot_paths`).
pub fn snapshot_paths(json: &str) -> Vec<String> {
    Snapshot::parse(json, &ParseOptions::allowing_git_dir(true))
        .map(|s| s.paths())
        .unwrap_or_default()
}
