//! Capture: snapshot exactly the paths a batch will touch, before it runs.

use std::collections::{BTreeMap, BTreeSet};

use crate::digest::sha256;
use crate::error::{Error, Result};
use crate::options::CaptureOptions;
use crate::parallel;
use crate::progress::{Counter, ProgressStage};
use crate::relpath::RelPath;
use crate::resolve::{resolve, Resolved};
use crate::root::{EntryKind, Root};
use crate::seal::seal_text;
use crate::snapshot::{Snapshot, SnapshotEncoder, SnapshotJson};

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
    /// Keys named directly (not reached through a symlink).
    direct: BTreeSet<RelPath>,
}

/// Snapshots `paths` under `root` and returns the snapshot's JSON text.
///
/// A path below a regular file (`a.py/x` where `a.py` is a file) is
/// `not_a_directory`: a batch cannot create it without replacing the file.
///
/// Every path is resolved to its canonical key first (through the links in
/// the tree, as the kernel would); two spellings of one file give one entry. A path that
/// escapes the root, names a directory or special file, is not valid UTF-8
/// or has a `.git` component (unless allowed) fails the whole capture with a
/// typed error. Files are then read in key order and encoded straight into
/// the output.
pub fn capture<R, I, S>(root: &R, paths: I, options: &CaptureOptions) -> Result<SnapshotJson>
where
    R: Root + ?Sized,
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let plan = plan(root, paths, options)?;
    // Files the batch replaces: a new path below one of them is a type flip.
    let files: BTreeSet<RelPath> = plan
        .entries
        .iter()
        .filter(|(_, f)| **f != Found::Missing)
        .map(|(k, _)| k.clone())
        .collect();
    let missing: Vec<&RelPath> = plan
        .entries
        .iter()
        .filter(|(_, f)| **f == Found::Missing)
        .map(|(k, _)| k)
        .collect();
    // A path named directly below a file the snapshot does not hold cannot
    // be created by the batch (a link's dangling target is recorded as is).
    let direct = missing.iter().copied().filter(|k| plan.direct.contains(*k));
    created_dirs(root, direct, Some(&files))?;
    let mut skeleton = Snapshot {
        created_dirs: created_dirs(root, missing.into_iter(), None)?,
        links: plan.links,
        root: root.canonical_path().filter(|_| options.record_root),
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
    crate::snapshot::validate::validate(&skeleton, options.allow_git_dir)?;
    let mut encoder = SnapshotEncoder::with_capacity(size);
    let mut progress = Counter::start(
        options.progress.as_ref(),
        ProgressStage::Capture,
        plan.entries.len(),
    );
    for (key, found) in &plan.entries {
        match found {
            Found::File(..) => {
                let bytes = root.read_file(key, Some(options.max_file_bytes))?;
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
        progress.step();
    }
    let text = encoder.finish(&skeleton, false);
    Ok(SnapshotJson(match &options.key {
        Some(key) => seal_text(text, key)?,
        None => text,
    }))
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
        if let Some(m) = resolved.metadata.filter(|m| m.len > options.max_file_bytes) {
            return Err(Error::file_too_large(
                resolved.key.as_str(),
                m.len,
                options.max_file_bytes,
            ));
        }
        if resolved.links.is_empty() {
            plan.direct.insert(resolved.key.clone());
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
/// directories creating those paths would bring into being. With
/// `replaced` (the files a capture records), an ancestor that is a file or
/// special file not among them is `not_a_directory`: a batch cannot create a
/// path below a file without replacing it, and a snapshot that does not
/// hold that file could not bring it back. Without, such an ancestor is
/// taken as one more directory to create.
pub(crate) fn created_dirs<'a, R: Root + ?Sized>(
    root: &R,
    missing: impl Iterator<Item = &'a RelPath>,
    replaced: Option<&BTreeSet<RelPath>>,
) -> Result<BTreeSet<RelPath>> {
    let mut known: BTreeMap<RelPath, Option<EntryKind>> = BTreeMap::new();
    let mut created = BTreeSet::new();
    for key in missing {
        let mut gone = false;
        for dir in key.ancestors() {
            if !gone {
                let kind = match known.get(&dir) {
                    Some(v) => *v,
                    None => {
                        let v = root.metadata(&dir)?.map(|m| m.kind);
                        known.insert(dir.clone(), v);
                        v
                    }
                };
                match kind {
                    Some(EntryKind::Dir) => {}
                    Some(EntryKind::File | EntryKind::Other)
                        if replaced.is_some_and(|files| !files.contains(&dir)) =>
                    {
                        return Err(Error::NotADirectory {
                            path: key.to_string(),
                            parent: dir.to_string(),
                            kind: kind.map_or("file", |k| k.describe()).to_owned(),
                        })
                    }
                    _ => gone = true,
                }
            }
            if gone {
                created.insert(dir);
            }
        }
    }
    Ok(created)
}
