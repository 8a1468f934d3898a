//! Ref updates: never a blind overwrite (STORE.md §3).
//!
//! A writer takes the exclusive per-ref lock file
//! `<git-common-dir>/entire-persistent-ref-locks/<ref, / \ : -> _>.lock`
//! (`flock`, released when the holder exits, even by SIGKILL), then makes
//! up to [`MAX_ATTEMPTS`] attempts, each reading the fresh tip, rebuilding
//! its commit on it and moving the ref with an expected previous value
//! (compare-and-swap, inside one gix ref transaction with any companion
//! refs). A lost race backs off 1-9 ms (1-17 ms after the fifth attempt).
//! Nothing moves unless every ref of the transaction still holds the value
//! the attempt was built on, so a failed write leaves every ref as it was.
//!
//! A writer killed inside git's own ref-lock window leaves `<ref>.lock`
//! behind, and git (and gix) then refuse to move that ref. Holding our lock
//! file, a writer that finds such a git lock older than
//! [`ABANDONED_GIT_LOCK_AGE`] removes it: git programs hold ref locks for
//! milliseconds, so a lock that old was left by a dead process.

use std::fs::{DirBuilder, File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::{FullName, Target};
use gix::ObjectId;

use crate::objects::{corrupt, git_error};
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

/// Takes the exclusive lock of `ref_name`, waiting for its holder.
pub(crate) fn lock(common_dir: &Path, ref_name: &str) -> Result<RefLock> {
    lock_file(&lock_path(common_dir, ref_name))
}

/// Takes the exclusive lock on the file `path` (created, with its directory
/// at mode 0750, when missing), waiting for its holder.
pub(crate) fn lock_file(path: &Path) -> Result<RefLock> {
    let open = || {
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
    };
    let file = match open() {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = path.parent().unwrap_or(path);
            let mut builder = DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o750);
            match builder.create(dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(Error::io(dir.display().to_string(), e)),
            }
            open().map_err(|e| Error::io(path.display().to_string(), e))?
        }
        Err(e) => return Err(Error::io(path.display().to_string(), e)),
    };
    file.lock()
        .map_err(|e| Error::io(path.display().to_string(), e))?;
    Ok(RefLock { _file: file })
}

/// The commit a ref points at, `None` when it does not exist.
///
/// # Errors
/// [`Error::CorruptObject`] for a symbolic or unreadable ref.
pub(crate) fn read_tip(repo: &gix::Repository, ref_name: &str) -> Result<Option<ObjectId>> {
    let found = repo
        .try_find_reference(ref_name)
        .map_err(|e| corrupt(format!("ref {ref_name:?}"), e))?;
    match found {
        None => Ok(None),
        Some(r) => match r.target().try_id() {
            Some(id) => Ok(Some(id.to_owned())),
            None => Err(corrupt(
                format!("ref {ref_name:?}"),
                "is symbolic, not a commit",
            )),
        },
    }
}

/// A ref edit moving `ref_name` from `expected` (`None`: must not exist) to `new`.
pub(crate) fn cas_edit(
    ref_name: &str,
    expected: Option<ObjectId>,
    new: ObjectId,
    log: &str,
) -> Result<RefEdit> {
    let name = FullName::try_from(ref_name).map_err(|e| Error::InvalidRefName {
        name: ref_name.to_owned(),
        reason: e.to_string(),
    })?;
    Ok(RefEdit {
        change: Change::Update {
            log: LogChange {
                mode: RefLog::AndReference,
                force_create_reflog: false,
                message: log.into(),
            },
            expected: match expected {
                Some(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
                None => PreviousValue::MustNotExist,
            },
            new: Target::Object(new),
        },
        name,
        deref: false,
    })
}

/// What one attempt proposes: the ref edits (the locked ref's first) and
/// the value the write returns when they land.
pub(crate) struct Proposal<T> {
    pub edits: Vec<RefEdit>,
    pub value: T,
}

/// Runs `build` under the lock of `ref_name` until its edits land, at most
/// [`MAX_ATTEMPTS`] times; `build` gets the ref's fresh tip each time.
///
/// # Errors
/// What `build` returns; [`Error::RefBusy`] when every attempt lost.
pub(crate) fn update<T>(
    repo: &gix::Repository,
    common_dir: &Path,
    ref_name: &str,
    committer: &gix::actor::Signature,
    mut build: impl FnMut(Option<ObjectId>) -> Result<Proposal<T>>,
) -> Result<T> {
    let _lock = lock(common_dir, ref_name)?;
    let mut time_buf = gix::date::parse::TimeBuf::default();
    let who = committer.to_ref(&mut time_buf);
    for attempt in 1..=MAX_ATTEMPTS {
        let tip = read_tip(repo, ref_name)?;
        let proposal = build(tip)?;
        let names: Vec<String> = proposal
            .edits
            .iter()
            .map(|e| e.name.as_bstr().to_string())
            .collect();
        match repo.edit_references_as(proposal.edits, Some(who)) {
            Ok(_) => return Ok(proposal.value),
            Err(e) if lost_race(&e) => {
                if e.is_retryable() {
                    clear_abandoned_git_locks(common_dir, &names);
                }
                backoff(attempt)?;
            }
            Err(e) => return Err(git_error(format!("updating {ref_name:?}"), e)),
        }
    }
    Err(Error::RefBusy {
        name: ref_name.to_owned(),
        attempts: MAX_ATTEMPTS,
    })
}

/// A ref that moved (`Conflict`), vanished (`NotFound`) or whose git lock
/// file is held by another program (`Retryable`).
pub(crate) fn lost_race(e: &gix::Error) -> bool {
    use gix::error::Class;
    matches!(
        e.dominant_class(),
        Some(Class::Conflict | Class::Retryable | Class::NotFound)
    )
}

/// Removes the git lock files of `names` that are older than
/// [`ABANDONED_GIT_LOCK_AGE`] (best effort).
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
