//! Shadow-branch retention on the fly: when a shadow step starts a new
//! branch (the first step on a new `HEAD` commit), the shadow branches no
//! session needs (what [`crate::Store::shadow_clean`] deletes: base commit
//! gone, or every session condensed; never one a worktree has checked out)
//! are deleted, their tips recorded for the next [`crate::Store::gc`] as
//! retention records removed snapshots. Off with `entire.shadowAutoClean
//! = false`.

use gix::ObjectId;

use super::retention::record_pending;
use crate::shadow::cas;
use crate::Store;
use agent_checkpoint::{Error, Result};

/// The git config key that turns shadow-branch cleaning on a new branch
/// off (`false`); on by default.
pub const SHADOW_AUTO_CLEAN_CONFIG: &str = "entire.shadowAutoClean";

/// Whether `repo`'s git config lets a shadow step clean (default: yes).
///
/// # Errors
/// `invalid_argument` naming the key for a value that is not a boolean.
fn enabled(repo: &gix::Repository) -> Result<bool> {
    match repo.config_snapshot().try_boolean(SHADOW_AUTO_CLEAN_CONFIG) {
        Ok(None) => Ok(true),
        Ok(Some(on)) => Ok(on),
        Err(e) => Err(Error::invalid_argument(
            SHADOW_AUTO_CLEAN_CONFIG,
            format!("not a boolean: {e}"),
        )),
    }
}

/// After a step created `branch`: deletes every other shadow branch no
/// session needs (each only while it holds the tip it was chosen with) and
/// records their tips for gc. Returns how many went.
///
/// # Errors
/// As [`Store::shadow_clean`]; `invalid_argument` for a bad
/// [`SHADOW_AUTO_CLEAN_CONFIG`].
pub(crate) fn clean_on_new_branch(
    store: &Store,
    repo: &gix::Repository,
    branch: &str,
) -> Result<usize> {
    if !enabled(repo)? {
        return Ok(0);
    }
    let mut tips = Vec::new();
    for cleaned in store.unneeded_branches(repo)? {
        if cleaned.branch == branch {
            continue;
        }
        let Ok(tip) = ObjectId::from_hex(cleaned.tip.as_bytes()) else {
            continue;
        };
        if cas::delete(repo, &store.common_dir, &cleaned.branch, tip)? {
            tips.push(tip);
        }
    }
    record_pending(&store.common_dir, tips.iter().copied())?;
    Ok(tips.len())
}
