//! Ref updates: never a blind overwrite (STORE.md §3).
//!
//! A writer takes the exclusive per-ref lock file
//! `<git-common-dir>/entire-persistent-ref-locks/<ref, / \ : -> _>.lock`
//! (`flock`, released when the holder exits, even by SIGKILL), then makes
//! up to [`MAX_ATTEMPTS`] attempts, each reading the fresh tip, rebuilding
//! its commit on it and moving the ref with an expected previous value
//! (compare-and-swap, inside one ref transaction with any companion refs,
//! made by `ref_store` in the repository's ref format). A lost race backs off 1-9 ms (1-17 ms after the fifth attempt).
//! Nothing moves unless every ref of the transaction still holds the value
//! the attempt was built on, so a failed write leaves every ref as it was.
//!
//! A writer killed inside git's own ref-lock window leaves `<ref>.lock`
//! behind, and git (and gix) then refuse to move that ref. Holding our lock
//! file, a writer that finds such a git lock older than
//! [`ABANDONED_GIT_LOCK_AGE`] removes it: git programs hold ref locks for
//! milliseconds, so a lock that old was left by a dead process.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gix::ObjectId;

use crate::ref_store::{self, Edit, Expected, Outcome};
use agent_checkpoint::{Error, Result};

/// Compare-and-swap attempts before a write gives up with `ref_busy`.
pub const MAX_ATTEMPTS: u32 = 16;

/// Age after which a git `<ref>.lock` met while holding our lock is taken
/// as abandoned.
pub const ABANDONED_GIT_LOCK_AGE: Duration = Duration::from_secs(2);

/// The directory (in the git common dir) of the per-ref lock files.
pub const LOCK_DIR: &str = "entire-persistent-ref-locks";

/// The lock file of `ref_name` under `common_dir`.
pub fn lock_path(common_dir: &Path, ref_name: &str) -> PathBuf {
    let flat: String = ref_name
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '_'
            } else {
                c
            }
        })
        .collect();
    common_dir.join(LOCK_DIR).join(format!("{flat}.lock"))
}

/// An exclusive lock on a ref's lock file, held until dropped.
#[derive(Debug)]
pub(crate) struct RefLock {
    _file: File,
}

/// Takes the exclusive lock of `ref_name`, waiting for its holder at most
/// the store's lock wait (default 10 s).
pub(crate) fn lock(common_dir: &Path, ref_name: &str) -> Result<RefLock> {
    lock_file(&lock_path(common_dir, ref_name))
}

/// Takes the exclusive lock on the file `path` (`<common-dir>/<dir>/<file>`;
/// the file and its directory are created when missing, in the
/// repository's sharing mode: owner-only unless `core.sharedRepository`
/// says otherwise), waiting for its holder at most the lock wait of the
/// store that opened the repository.
///
/// # Errors
/// [`Error::LockBusy`] (code `ref_busy`, naming `path`) when another
/// process kept the lock for the whole wait; an I/O error.
pub(crate) fn lock_file(path: &Path) -> Result<RefLock> {
    use agent_checkpoint_naming::lock_wait::lock_within;
    let policy = crate::locks::policy_of_lock(path);
    let io = |p: &Path, e: std::io::Error| Error::io(p.display().to_string(), e);
    let dir = path.parent().unwrap_or(path);
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| io(path, std::io::Error::from(std::io::ErrorKind::InvalidInput)))?;
    // Never through a symlink, never a FIFO (see crate::nofollow).
    let dir_fd = match crate::nofollow::Dir::open(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            policy.sharing.create_dir(dir).map_err(|e| io(dir, e))?;
            crate::nofollow::Dir::open(dir)
        }
        other => other,
    }
    .map_err(|e| io(dir, e))?;
    let file = dir_fd
        .open_file(
            name,
            true,
            crate::nofollow::Create::IfMissing,
            policy.sharing,
        )
        .map_err(|e| io(path, e))?;
    match lock_within(&file, policy.wait) {
        Ok(true) => Ok(RefLock { _file: file }),
        Ok(false) => Err(Error::LockBusy {
            path: path.display().to_string(),
            waited_ms: u64::try_from(policy.wait.as_millis()).unwrap_or(u64::MAX),
        }),
        Err(e) => Err(Error::io(path.display().to_string(), e)),
    }
}

/// The commit a ref points at, `None` when it does not exist.
///
/// # Errors
/// [`Error::CorruptObject`] for a symbolic or unreadable ref.
pub(crate) fn read_tip(repo: &gix::Repository, ref_name: &str) -> Result<Option<ObjectId>> {
    ref_store::read_tip(repo, ref_name)
}

/// A ref edit moving `ref_name` from `expected` (`None`: must not exist) to `new`.
pub(crate) fn cas_edit(
    ref_name: &str,
    expected: Option<ObjectId>,
    new: ObjectId,
    log: &str,
) -> Result<Edit> {
    let expected = match expected {
        Some(old) => Expected::Is(old),
        None => Expected::Absent,
    };
    Edit::update(ref_name, expected, new, log)
}

/// What one attempt proposes: the ref edits (the locked ref's first) and
/// the value the write returns when they land.
pub(crate) struct Proposal<T> {
    pub edits: Vec<Edit>,
    pub value: T,
}

/// Runs `build` under the lock of `ref_name` until its edits land, at most
/// [`MAX_ATTEMPTS`] times; `build` gets the ref's fresh tip each time.
///
/// # Errors
/// What `build` returns; [`Error::RefBusy`] when every attempt lost; an
/// I/O error naming a git lock file that was in the way of the last
/// attempt and is not abandoned (see [`clear_abandoned_git_locks`]).
pub(crate) fn update<T>(
    repo: &gix::Repository,
    common_dir: &Path,
    ref_name: &str,
    committer: &gix::actor::Signature,
    mut build: impl FnMut(Option<ObjectId>) -> Result<Proposal<T>>,
) -> Result<T> {
    let _lock = lock(common_dir, ref_name)?;
    let mut held = Vec::new();
    for attempt in 1..=MAX_ATTEMPTS {
        let tip = read_tip(repo, ref_name)?;
        let proposal = build(tip)?;
        held = match ref_store::apply(repo, &proposal.edits, committer)? {
            Outcome::Done => return Ok(proposal.value),
            Outcome::Moved => Vec::new(),
            Outcome::Locked(held) => {
                let names: Vec<String> = proposal.edits.iter().map(|e| e.name.clone()).collect();
                clear_abandoned_git_locks(common_dir, &names);
                held
            }
        };
        backoff(attempt)?;
    }
    Err(gave_up(ref_name, &held))
}

/// The error of a compare-and-swap loop that lost every attempt: a
/// repository-wide git lock file (`packed-refs.lock`, reftable's
/// `tables.list.lock`) in the way of the last one, by path, if one still
/// is; else `ref_busy` (the ref moved, or another program holds its lock).
pub(crate) fn gave_up(ref_name: &str, held: &[PathBuf]) -> Error {
    let global = |p: &&PathBuf| {
        p.file_name()
            .is_some_and(|n| n == "packed-refs.lock" || n == "tables.list.lock")
            && p.is_file()
    };
    match held.iter().find(global) {
        Some(path) => ref_store::lock_held(path),
        None => Error::RefBusy {
            name: ref_name.to_owned(),
            attempts: MAX_ATTEMPTS,
        },
    }
}

/// Removes the git lock files of `names` that are older than
/// [`ABANDONED_GIT_LOCK_AGE`] (best effort). Only a ref's own lock: the
/// repository-wide ones (`packed-refs.lock`, reftable's `tables.list.lock`)
/// are git's to judge, and a write they block reports them by path.
pub(crate) fn clear_abandoned_git_locks(common_dir: &Path, names: &[String]) {
    for name in names {
        let lock = common_dir.join(format!("{name}.lock"));
        let age = std::fs::metadata(&lock)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok());
        if age.is_some_and(|age| age >= ABANDONED_GIT_LOCK_AGE) {
            let _ = std::fs::remove_file(&lock);
        }
    }
}

pub(crate) fn backoff(attempt: u32) -> Result<()> {
    let span: u8 = if attempt <= 5 { 9 } else { 17 };
    let mut byte = [0u8; 1];
    getrandom::fill(&mut byte).map_err(|e| Error::Io {
        path: None,
        error: std::io::Error::other(format!("system random source failed: {e}")),
    })?;
    let ms = 1 + u64::from(byte[0] % span);
    std::thread::sleep(Duration::from_millis(ms));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_file_names_flatten_the_ref() {
        let p = lock_path(
            Path::new("/repo/.git"),
            "refs/entire/checkpoints/f6/a1b2c3d4e5f6",
        );
        assert_eq!(
            p,
            Path::new("/repo/.git/entire-persistent-ref-locks/refs_entire_checkpoints_f6_a1b2c3d4e5f6.lock")
        );
        let p = lock_path(Path::new("/g"), "a\\b:c");
        assert_eq!(p, Path::new("/g/entire-persistent-ref-locks/a_b_c.lock"));
    }
}
