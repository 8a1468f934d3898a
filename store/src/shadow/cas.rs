//! Moving and deleting a shadow branch: under the branch's exclusive lock
//! file, compare-and-swap with the tip the attempt was built on, up to
//! [`MAX_ATTEMPTS`] attempts with the store's backoff; exhaustion is
//! `ref_busy` ("shadow branch ref moved"), or an I/O error naming the git
//! lock file that stayed in the way. Moves and deletes alike clear a git
//! lock of the branch left by a killed process. A losing attempt deletes
//! the loose commit object it wrote (never one that existed before it).

use std::path::Path;

use gix::ObjectId;

use crate::objects::{self, git_error};
use crate::ref_store::{self, Edit, Expected, Outcome};
use crate::ref_update::{
    backoff, cas_edit, clear_abandoned_git_locks, gave_up, lock_file, read_tip, MAX_ATTEMPTS,
};
use agent_checkpoint::Result;

/// The full ref of a shadow branch.
pub(crate) fn full_ref(branch: &str) -> String {
    format!("refs/heads/{branch}")
}

/// What one attempt proposes.
pub(crate) enum Attempt<T> {
    /// Move the branch to `commit`; `fresh` when this attempt wrote it.
    Move {
        commit: ObjectId,
        fresh: bool,
        value: T,
    },
    /// Leave the branch where it is (a skipped step).
    Stay(T),
}

/// Writes a commit for an attempt: `(id, fresh)`, `fresh` when the object
/// did not exist before.
pub(crate) fn write_commit(
    repo: &gix::Repository,
    tree: ObjectId,
    parent: Option<ObjectId>,
    message: &str,
    who: &gix::actor::Signature,
) -> Result<(ObjectId, bool)> {
    let commit = objects::encode_commit(repo, tree, parent, message, who)?;
    let id = gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Commit, &commit)
        .map_err(|e| git_error("hashing a commit", e))?;
    let existed = repo.has_object(id);
    let written = objects::write_encoded_commit(repo, &commit)?;
    Ok((written, !existed))
}

/// Runs `build` under the lock of `branch` until its commit lands (or it
/// decides to stay), at most [`MAX_ATTEMPTS`] times; `build` gets the
/// branch's fresh tip each time.
///
/// # Errors
/// What `build` returns; [`Error::RefBusy`] when every attempt lost.
pub(crate) fn update<T>(
    repo: &gix::Repository,
    common_dir: &Path,
    branch: &str,
    who: &gix::actor::Signature,
    mut build: impl FnMut(Option<ObjectId>) -> Result<Attempt<T>>,
) -> Result<T> {
    let ref_name = full_ref(branch);
    let _lock = lock_file(&super::lock_path(common_dir, branch))?;
    let mut held = Vec::new();
    for attempt in 1..=MAX_ATTEMPTS {
        let tip = read_tip(repo, &ref_name)?;
        let (commit, fresh, value) = match build(tip)? {
            Attempt::Stay(value) => return Ok(value),
            Attempt::Move {
                commit,
                fresh,
                value,
            } => (commit, fresh, value),
        };
        let edit = cas_edit(&ref_name, tip, commit, "entire: shadow step")?;
        held = match ref_store::apply(repo, &[edit], who)? {
            Outcome::Done => return Ok(value),
            Outcome::Moved => Vec::new(),
            Outcome::Locked(held) => {
                clear_abandoned_git_locks(common_dir, std::slice::from_ref(&ref_name));
                held
            }
        };
        if fresh {
            remove_loose(repo, commit);
        }
        backoff(attempt)?;
    }
    Err(gave_up(&ref_name, &held))
}

/// Deletes `branch` if it still points at `expected`, under its lock.
/// `Ok(false)` when it moved or is gone (nothing deleted). A git lock file
/// in the way is cleared when abandoned (as a step does), else reported.
///
/// # Errors
/// An I/O error naming a git lock file that stayed in the way (a live
/// `<branch>.lock`, or `packed-refs.lock`, which a delete needs); an I/O
/// error from the ref store.
pub(crate) fn delete(
    repo: &gix::Repository,
    common_dir: &Path,
    branch: &str,
    expected: ObjectId,
) -> Result<bool> {
    let ref_name = full_ref(branch);
    let _lock = lock_file(&super::lock_path(common_dir, branch))?;
    let edit = Edit::delete(&ref_name, Expected::Is(expected), "entire: shadow clean")?;
    let mut held = Vec::new();
    for attempt in 1..=MAX_ATTEMPTS {
        if read_tip(repo, &ref_name)? != Some(expected) {
            return Ok(false);
        }
        held = match ref_store::apply(repo, std::slice::from_ref(&edit), &deleter(repo))? {
            Outcome::Done => return Ok(true),
            Outcome::Moved => return Ok(false),
            Outcome::Locked(held) => {
                clear_abandoned_git_locks(common_dir, std::slice::from_ref(&ref_name));
                held
            }
        };
        backoff(attempt)?;
    }
    Err(gave_up(&ref_name, &held))
}

/// Who a delete's reflog names: the repository's identity.
fn deleter(repo: &gix::Repository) -> gix::actor::Signature {
    crate::store::signature(repo, None)
}

/// Removes the loose object `id` (best effort).
fn remove_loose(repo: &gix::Repository, id: ObjectId) {
    let hex = id.to_string();
    let (dir, file) = hex.split_at(2);
    let path = repo.objects.store_ref().path().join(dir).join(file);
    let _ = std::fs::remove_file(path);
}
