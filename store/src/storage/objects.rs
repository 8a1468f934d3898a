//! The git side of [`super`]: which objects only the store's refs reach
//! (`git rev-list --objects`), their size on disk (`git cat-file
//! --batch-check`), and deleting exactly those objects.

use std::collections::HashMap;
use std::path::Path;

use gix::ObjectId;

use crate::objects::{corrupt, git_error};
use crate::remote::git_program::{one_line_reason, GitProgram};
use agent_checkpoint::{Error, Result};

/// `git` for `repo` (any ref format: rev-list and cat-file read reftable
/// through git itself).
pub(crate) fn git(repo: &gix::Repository) -> GitProgram {
    GitProgram::new(repo.git_dir(), repo.workdir())
}

/// Runs `git <args>` for `repo` with lazy fetching off
/// (`GIT_NO_LAZY_FETCH=1`): in a partial clone an object the promisor
/// remote holds and this repository lacks stays missing (du and gc count
/// and free only what is here), never fetched one by one.
fn run_local(
    repo: &gix::Repository,
    args: &[&str],
    stdin: Option<&[u8]>,
) -> Result<std::process::Output> {
    git(repo).run_env(args, stdin, &[("GIT_NO_LAZY_FETCH", "1")])
}

/// `rev-list`'s way with a missing object: one a promisor remote holds
/// (a partial clone's) is left out, any other is an error.
const MISSING: &str = "--missing=allow-promisor";

fn hex_lines(ids: &[ObjectId]) -> String {
    ids.iter().map(|id| format!("{id}\n")).collect()
}

fn parse_ids(repo: &gix::Repository, text: &str, what: &str) -> Result<Vec<ObjectId>> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            ObjectId::from_hex(l.trim().as_bytes())
                .ok()
                .filter(|id| id.kind() == repo.object_hash())
                .ok_or_else(|| corrupt(what, format!("git listed {l:?}")))
        })
        .collect()
}

/// The objects reachable from `tips` and from nothing `exclude` names
/// (`--all`, `--reflog`, `--indexed-objects`, `--exclude=...` before
/// `--all`). Tips that are not in the repository are left out.
///
/// `git rev-list --objects <tips> --not <others>` alone over-counts: it
/// marks only the trees of the excluded commits its walk meets, so an
/// object an unrelated history also holds (a shadow step's tree is
/// HEAD's tree with no parent) is listed as if only `tips` reached it.
/// That list is the candidates; every object the excluded side reaches
/// (its own full `git rev-list --objects` walk, as `git prune` walks) is
/// then taken out of them.
///
/// # Errors
/// An I/O error when git fails.
pub(crate) fn reachable_only_from(
    repo: &gix::Repository,
    tips: &[ObjectId],
    exclude: &[String],
) -> Result<Vec<ObjectId>> {
    let candidates = candidates(repo, tips, exclude)?;
    if candidates.is_empty() {
        return Ok(candidates);
    }
    let mut args = vec!["rev-list", "--objects", "--no-object-names", MISSING];
    args.extend(exclude.iter().map(String::as_str));
    let out = run_local(repo, &args, None)?;
    if !out.status.success() {
        return Err(git_error(
            "git rev-list --objects",
            one_line_reason(&String::from_utf8_lossy(&out.stderr)),
        ));
    }
    let mut only: std::collections::HashSet<ObjectId> = candidates.iter().copied().collect();
    for line in out.stdout.split(|b| *b == b'\n') {
        if let Ok(id) = ObjectId::from_hex(line) {
            only.remove(&id);
        }
    }
    Ok(candidates
        .into_iter()
        .filter(|id| only.contains(id))
        .collect())
}

/// `git rev-list --objects <tips> --not <exclude>`: every object only
/// `tips` reach, and maybe some the excluded side reaches too.
fn candidates(
    repo: &gix::Repository,
    tips: &[ObjectId],
    exclude: &[String],
) -> Result<Vec<ObjectId>> {
    let tips: Vec<ObjectId> = tips
        .iter()
        .copied()
        .filter(|t| repo.has_object(t))
        .collect();
    if tips.is_empty() {
        return Ok(Vec::new());
    }
    let mut args = vec![
        "rev-list",
        "--objects",
        "--no-object-names",
        MISSING,
        "--stdin",
        "--not",
    ];
    args.extend(exclude.iter().map(String::as_str));
    let out = run_local(repo, &args, Some(hex_lines(&tips).as_bytes()))?;
    if !out.status.success() {
        return Err(git_error(
            "git rev-list --objects",
            one_line_reason(&String::from_utf8_lossy(&out.stderr)),
        ));
    }
    parse_ids(repo, &String::from_utf8_lossy(&out.stdout), "git rev-list")
}

/// The size on disk of each of `ids` (`%(objectsize:disk)`: its packed
/// size, or its loose file's), the ones git does not have left out.
///
/// # Errors
/// An I/O error when git fails.
pub(crate) fn disk_sizes(
    repo: &gix::Repository,
    ids: &[ObjectId],
) -> Result<HashMap<ObjectId, u64>> {
    let mut sizes = HashMap::with_capacity(ids.len());
    if ids.is_empty() {
        return Ok(sizes);
    }
    let args = ["cat-file", "--batch-check=%(objectname) %(objectsize:disk)"];
    let out = run_local(repo, &args, Some(hex_lines(ids).as_bytes()))?;
    if !out.status.success() {
        return Err(git_error(
            "git cat-file --batch-check",
            one_line_reason(&String::from_utf8_lossy(&out.stderr)),
        ));
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        // "<id> missing" for one git does not have.
        let mut parts = line.split(' ');
        let (Some(id), Some(size)) = (parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(id), Ok(size)) = (ObjectId::from_hex(id.as_bytes()), size.parse::<u64>()) else {
            continue;
        };
        sizes.insert(id, size);
    }
    Ok(sizes)
}

/// The loose file of `id` under the objects directory.
fn loose_path(objects_dir: &Path, id: &ObjectId) -> std::path::PathBuf {
    let hex = id.to_string();
    objects_dir.join(&hex[..2]).join(&hex[2..])
}

/// Whether any of `ids` is not a loose object here (so in a pack, or in
/// an alternate object store).
pub(crate) fn any_packed(common_dir: &Path, ids: &[ObjectId]) -> bool {
    let objects_dir = common_dir.join("objects");
    ids.iter().any(|id| !loose_path(&objects_dir, id).is_file())
}

/// `git repack -A -d -l`: every reachable object into one pack, every
/// unreachable packed one loosened (keeping its pack's time, so git's own
/// `gc.pruneExpire` still applies to it), nothing deleted that git would
/// keep.
///
/// # Errors
/// An I/O error when git fails.
pub(crate) fn repack_loosening(repo: &gix::Repository) -> Result<()> {
    let out = run_local(repo, &["repack", "-A", "-d", "-l", "-q"], None)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(git_error(
            "git repack -A -d",
            one_line_reason(&String::from_utf8_lossy(&out.stderr)),
        ))
    }
}

/// Deletes the loose files of `ids` (each never through a symlink: the
/// objects directory's own layout), and fan-out directories left empty.
/// Returns how many files went.
///
/// # Errors
/// An I/O error for a file that is there and cannot be removed.
pub(crate) fn delete_loose(common_dir: &Path, ids: &[ObjectId]) -> Result<usize> {
    let objects_dir = common_dir.join("objects");
    let mut removed = 0;
    let mut dirs = std::collections::BTreeSet::new();
    for id in ids {
        let path = loose_path(&objects_dir, id);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => {}
            _ => continue,
        }
        match std::fs::remove_file(&path) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(path.display().to_string(), e)),
        }
        if let Some(dir) = path.parent() {
            dirs.insert(dir.to_path_buf());
        }
    }
    for dir in dirs {
        // Only an empty one goes.
        let _ = std::fs::remove_dir(dir);
    }
    Ok(removed)
}
