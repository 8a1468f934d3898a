//! Capture: snapshot exactly the paths a batch will touch, before it runs.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::digest::{sha256, Sha256Digest};
use crate::error::{Error, Result};
use crate::options::CaptureOptions;
use crate::parallel;
use crate::progress::{Counter, ProgressStage};
use crate::relpath::{is_git_name, RelPath};
use crate::resolve::{resolve_reading, Resolved};
use crate::rollback::NotCovered;
use crate::root::{EntryKind, Metadata, Root};
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

/// Files at most this large are read by the same look that finds them
/// (one path resolution per file), and hashed on the way...
const HELD_FILE_BYTES: u64 = 256 << 10;
/// ... as long as the bytes held so far stay within this.
const HELD_BYTES: u64 = 32 << 20;
/// With at least this many paths, they are looked at (and small files
/// read and hashed) on more than one thread, where the root allows it.
const MIN_PARALLEL_PATHS: usize = 32;

/// A small file read while planning: its bytes and digest, or why it
/// could not be read (reported when its turn to be encoded comes).
type Held = Result<(Vec<u8>, Sha256Digest)>;

/// The plan of a capture: every key and what is there, and the small
/// files read on the way (the others are read one by one when encoded).
#[derive(Debug, Default)]
struct Plan {
    entries: BTreeMap<RelPath, Found>,
    links: BTreeMap<RelPath, String>,
    /// Keys named directly (not reached through a symlink).
    direct: BTreeSet<RelPath>,
    held: BTreeMap<RelPath, Held>,
    /// Files over `max_file_bytes`, with the size seen: left out, unread.
    skipped: BTreeMap<RelPath, u64>,
    /// The keys in the order the batch first named them.
    first_seen: Vec<RelPath>,
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
///
/// A file larger than [`CaptureOptions::max_file_bytes`] is not read: it is
/// left out of the snapshot's entries and listed in its `skipped` member
/// with the size seen ([`Snapshot::skipped`]), and a rollback reports it as
/// not covered and leaves it alone. The size is judged from metadata before
/// reading, and the read itself is bounded by the limit, so a file that
/// grows past it meanwhile is skipped too, never read whole.
pub fn capture<R, I, S>(root: &R, paths: I, options: &CaptureOptions) -> Result<SnapshotJson>
where
    R: Root + ?Sized,
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    capture_report(root, paths, options).map(|captured| captured.snapshot)
}

/// What [`capture_report`] gives: the snapshot, and the files it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Captured {
    /// The snapshot's JSON text (what [`capture`] returns).
    pub snapshot: SnapshotJson,
    /// The files left out for their size (over
    /// [`CaptureOptions::max_file_bytes`]), sorted by path: the snapshot's
    /// `skipped` member, without parsing it back.
    pub skipped: Vec<NotCovered>,
}

/// [`capture`], also listing the files it skipped for their size.
pub fn capture_report<R, I, S>(root: &R, paths: I, options: &CaptureOptions) -> Result<Captured>
where
    R: Root + ?Sized,
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut plan = plan(root, paths, options)?;
    respell(root, &mut plan);
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
        skipped: std::mem::take(&mut plan.skipped),
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
    let mut grew = false;
    for (key, found) in &plan.entries {
        match found {
            Found::File(..) => {
                if let Some(held) = plan.held.remove(key) {
                    if let Some(size) = grew_past_limit(&held, options.max_file_bytes) {
                        skip_late(&mut skeleton, key, size);
                        grew = true;
                        progress.step();
                        continue;
                    }
                    let (bytes, digest) = held?;
                    encoder.entry(key, Some(&bytes));
                    skeleton.digests.insert(key.clone(), digest);
                    progress.step();
                    continue;
                }
                let read = root.read_file(key, Some(options.max_file_bytes));
                if let Some(size) = grew_past_limit(&read, options.max_file_bytes) {
                    skip_late(&mut skeleton, key, size);
                    grew = true;
                    progress.step();
                    continue;
                }
                let bytes = read?;
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
    if grew {
        // What we write must still be what rollback accepts.
        crate::snapshot::validate::validate(&skeleton, options.allow_git_dir)?;
    }
    let text = encoder.finish(&skeleton, false);
    Ok(Captured {
        snapshot: SnapshotJson(match &options.key {
            Some(key) => seal_text(text, key)?,
            None => text,
        }),
        skipped: crate::rollback::not_covered(&skeleton),
    })
}

/// One input path resolved, with its bytes and digest when it is a small
/// file that `limit` lets the look read (never one the capture refuses
/// for a `.git` component: that is not read at all).
fn look<R: Root + ?Sized>(
    root: &R,
    input: &str,
    limit: &dyn Fn(&Metadata) -> Option<u64>,
    allow_git_dir: bool,
) -> Result<(Resolved, Option<Held>)> {
    let refused = !allow_git_dir && input.split('/').any(is_git_name);
    let (resolved, bytes) = if refused {
        resolve_reading(root, input, &|_| None)?
    } else {
        resolve_reading(root, input, limit)?
    };
    let held = bytes.map(|read| {
        read.map(|bytes| {
            let digest = sha256(&bytes);
            (bytes, digest)
        })
    });
    Ok((resolved, held))
}

fn plan<R, I, S>(root: &R, paths: I, options: &CaptureOptions) -> Result<Plan>
where
    R: Root + ?Sized,
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let inputs: Vec<String> = paths.into_iter().map(|p| p.as_ref().to_owned()).collect();
    let max = options.max_file_bytes;
    let budget = AtomicU64::new(HELD_BYTES);
    // Small files within the budget are read by the look that finds them.
    let limit = |m: &Metadata| {
        if m.len > HELD_FILE_BYTES || m.len > max {
            return None;
        }
        budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(m.len)
            })
            .ok()
            .map(|_| max)
    };
    let mut plan = Plan::default();
    let mut add = |looked: Result<(Resolved, Option<Held>)>| plan_one(&mut plan, looked, options);
    match root.as_sync() {
        // In input order: the first error is the one a single thread meets.
        Some(shared) => parallel::for_each_in_order(
            &inputs,
            MIN_PARALLEL_PATHS,
            |input| look(shared, input, &limit, options.allow_git_dir),
            &mut add,
        )?,
        None => {
            for input in &inputs {
                add(look(root, input, &limit, options.allow_git_dir))?;
            }
        }
    }
    Ok(plan)
}

/// Adds one resolved input to the plan, or refuses it.
fn plan_one(
    plan: &mut Plan,
    looked: Result<(Resolved, Option<Held>)>,
    options: &CaptureOptions,
) -> Result<()> {
    let (resolved, held) = looked?;
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
    if resolved.links.is_empty() {
        plan.direct.insert(resolved.key.clone());
    }
    if let Some(m) = resolved.metadata.filter(|m| m.len > options.max_file_bytes) {
        // Two spellings of one file: the first one's look counts.
        if !plan.entries.contains_key(&resolved.key) {
            if !plan.skipped.contains_key(&resolved.key) {
                plan.first_seen.push(resolved.key.clone());
            }
            plan.skipped.entry(resolved.key).or_insert(m.len);
        }
        return Ok(());
    }
    // Two spellings of one file: the first one's look counts.
    if !plan.entries.contains_key(&resolved.key) && !plan.skipped.contains_key(&resolved.key) {
        if let Some(held) = held {
            plan.held.insert(resolved.key.clone(), held);
        }
        plan.first_seen.push(resolved.key.clone());
        plan.entries.insert(resolved.key, found);
    }
    Ok(())
}

/// The size of a file that grew past `max` since it was looked at, when
/// `read` is that refusal. (A refusal of the root's own, a budget, is not:
/// it stays an error.)
fn grew_past_limit<T>(read: &Result<T>, max: u64) -> Option<u64> {
    match read {
        Err(Error::TooLarge {
            path: Some(_),
            size,
            ..
        }) if *size > max => Some(*size),
        _ => None,
    }
}

/// Moves `key`, found over the limit only when read, from the snapshot's
/// entries to its `skipped` member. Its entry was never encoded.
fn skip_late(skeleton: &mut Snapshot, key: &RelPath, size: u64) {
    skeleton.entries.remove(key);
    skeleton.modes.remove(key);
    skeleton.skipped.insert(key.clone(), size);
}

/// Records every key under the spelling [`crate::casefold::spell`] gives
/// it: where two keys become one, the one the batch named first counts.
fn respell<R: Root + ?Sized>(root: &R, plan: &mut Plan) {
    let keys: Vec<(RelPath, bool)> = plan
        .first_seen
        .iter()
        .map(|k| {
            let missing = plan.entries.get(k) == Some(&Found::Missing);
            (k.clone(), !missing)
        })
        .collect();
    let renames = crate::casefold::spell::spellings(root, &keys);
    if renames.is_empty() {
        return;
    }
    for (key, _) in keys {
        let Some(to) = renames.get(&key) else {
            continue;
        };
        let (found, held) = (plan.entries.remove(&key), plan.held.remove(&key));
        let skipped = plan.skipped.remove(&key);
        if plan.direct.remove(&key) {
            plan.direct.insert(to.clone());
        }
        if plan.entries.contains_key(to) || plan.skipped.contains_key(to) {
            continue;
        }
        if let Some(size) = skipped {
            plan.skipped.insert(to.clone(), size);
        }
        if let Some(found) = found {
            plan.entries.insert(to.clone(), found);
        }
        if let Some(held) = held {
            plan.held.insert(to.clone(), held);
        }
    }
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
