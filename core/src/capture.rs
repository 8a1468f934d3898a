//! Capture: snapshot exactly the paths a batch will touch, before it runs.

use std::collections::{BTreeMap, BTreeSet};

use crate::digest::sha256;
use crate::error::{Error, Result};
use crate::parallel;
use crate::relpath::RelPath;
use crate::resolve::{resolve, Resolved};
use crate::root::{EntryKind, Root};
use crate::seal::seal_text;
use crate::snapshot::{Snapshot, SnapshotEncoder};

/// Options of [`capture`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CaptureOptions {
    /// Accept paths with a `.git` component (refused by default).
    pub allow_git_dir: bool,
    /// Refuse (with `too_large`) any file larger than this many bytes.
    pub max_file_bytes: Option<u64>,
    /// Seal the snapshot with an HMAC-SHA256 under this key (`mac`).
    pub key: Option<Vec<u8>>,
}

/// What capture found at one canonical key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// A regular file with these permission bits and (then) this length.
    File(u32, u64),
    /// Nothing: the batch will create it.
    Missing,
}

/// The plan of a capture: every key and what is there, before any byte is read.
#[derive(Debug, Default)]
struct Plan {
    entries: BTreeMap<RelPath, Found>,
    links: BTreeMap<RelPath, String>,
}

/// Snapshots `paths` under `root` and returns the snapshot's JSON text.
///
/// Every path is resolved to its canonical key first (see
/// [`crate::resolve`]); two spellings of one file give one entry. A path that
/// escapes the root, names a directory or special file, is not valid UTF-8
/// or has a `.git` component (unless allowed) fails the whole capture with a
/// typed error. Files are then read in key order and encoded straight into
/// the output.
pub fn capture<R, I, S>(root: &R, paths: I, options: &CaptureOptions) -> Result<String>
where
    R: Root + ?Sized,
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let plan = plan(root, paths, options)?;
    let missing = plan
        .entries
        .iter()
        .filter(|(_, f)| **f == Found::Missing)
        .map(|(k, _)| k);
    let mut skeleton = Snapshot {
        created_dirs: created_dirs(root, missing)?,
        links: plan.links,
        ..Snapshot::default()
    };
    let mut size = 64;
    for (key, found) in &plan.entries {
        size += key.as_str().len() + 8;
        let content = match found {
            Found::File(mode, len) => {
                skeleton.modes.insert(key.clone(), *mode);
                // base64 text, quotes and comma; the digest entry; the mode entry.
                size += usize::try_from(*len).unwrap_or(0).div_ceil(3) * 4 + 3;
                size += 2 * key.as_str().len() + 64 + 24;
                Some(Vec::new())
            }
            Found::Missing => None,
        };
        skeleton.entries.insert(key.clone(), content);
    }
    // What we write must be what rollback accepts: check it before reading.
    skeleton.validate(options.allow_git_dir)?;
    let mut encoder = SnapshotEncoder::with_capacity(size);
    for (key, found) in &plan.entries {
        match found {
            Found::File(..) => {
                let bytes = root.read_file(key, options.max_file_bytes)?;
                // Hash on a second thread while encoding (large files only).
                let (digest, ()) = parallel::join(
                    bytes.len(),
                    || sha256(&bytes),
                    || encoder.entry(key, Some(&bytes)),
                );
                skeleton.digests.insert(key.clone(), digest);
            }
            Found::Missing => encoder.entry(key, None),
        }
    }
    let text = encoder.finish(&skeleton, false);
    match &options.key {
        Some(key) => seal_text(text, key),
        None => Ok(text),
    }
}

fn plan<R, I, S>(root: &R, paths: I, options: &CaptureOptions) -> Result<Plan>
where
    R: Root + ?Sized,
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut plan = Plan::default();
    for input in paths {
        let resolved = resolve(root, input.as_ref())?;
        if !options.allow_git_dir {
            refuse_git(&resolved)?;
        }
        for (link, target) in &resolved.links {
            plan.links.insert(link.clone(), target.clone());
        }
        let found = match resolved.metadata {
            None => Found::Missing,
            Some(m) if m.kind == EntryKind::File => Found::File(m.mode, m.len),
            Some(m) => {
                return Err(Error::NotAFile {
                    path: resolved.key.to_string(),
                    kind: m.kind.describe().to_owned(),
                })
            }
        };
        if let Some(limit) = options.max_file_bytes {
            if let Some(m) = resolved.metadata.filter(|m| m.len > limit) {
                return Err(Error::TooLarge {
                    what: format!("file {}", resolved.key),
                    size: m.len,
                    limit,
                });
            }
        }
        plan.entries.entry(resolved.key).or_insert(found);
    }
    Ok(plan)
}

fn refuse_git(resolved: &Resolved) -> Result<()> {
    let keys = std::iter::once(&resolved.key).chain(resolved.links.iter().map(|(k, _)| k));
    for key in keys {
        if key.has_git_component() {
            return Err(Error::invalid_path(
                key.as_str(),
                "a .git component (pass allow_git_dir to permit it)",
            ));
        }
    }
    Ok(())
}

/// The ancestors of `missing` paths that are not directories now, i.e. the
/// directories creating those paths would bring into being.
pub(crate) fn created_dirs<'a, R: Root + ?Sized>(
    root: &R,
    missing: impl Iterator<Item = &'a RelPath>,
) -> Result<BTreeSet<RelPath>> {
    let mut known: BTreeMap<RelPath, bool> = BTreeMap::new();
    let mut created = BTreeSet::new();
    for key in missing {
        let mut gone = false;
        for dir in key.ancestors() {
            if !gone {
                let is_dir = match known.get(&dir) {
                    Some(v) => *v,
                    None => {
                        let v = root
                            .metadata(&dir)?
                            .is_some_and(|m| m.kind == EntryKind::Dir);
                        known.insert(dir.clone(), v);
                        v
                    }
                };
                gone = !is_dir;
            }
            if gone {
                created.insert(dir);
            }
        }
    }
    Ok(created)
}
