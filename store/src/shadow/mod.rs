//! Shadow branches, the ephemeral store (STORE.md §4): one commit per agent
//! step on `entire/<commit7>-<worktree6>`, each a full snapshot of the
//! working tree, so a session can go back to any step.
//!
//! - [`crate::Store::shadow_step`] / [`crate::Store::shadow_task_step`]
//!   record a step. The first step of a session takes every change `git
//!   status` shows (untracked files included, ignored ones never); later
//!   steps take only the files the caller names (minus ignored ones: git's
//!   own rules, `.gitignore` at every level, `.git/info/exclude`,
//!   `core.excludesFile`; a failing ignore check fails the step, nothing
//!   written), editing the previous step's tree in place, so their cost
//!   does not grow with the repository. The session's metadata directory
//!   goes under `.entire/metadata/<sid>/`, redacted. A step whose tree
//!   equals its parent's makes no commit and says `skipped`.
//! - [`crate::Store::shadow_branches`], [`crate::Store::shadow_log`] and
//!   [`crate::Store::shadow_transcript`] read them back.
//! - [`crate::Store::shadow_rewind`] **\[ours\]** restores, through the
//!   core's rollback, exactly the paths the session touched that differ
//!   from the chosen step; [`crate::Store::shadow_rewind_plan`] previews it.
//! - [`crate::Store::shadow_condense`] turns a session's steps into one
//!   persistent checkpoint; [`crate::Store::shadow_clean`] deletes branches
//!   no session needs.
//!
//! Every ref update is a compare-and-swap under the lock file
//! `<git-common-dir>/entire-shadow-locks/<branch, / as _>.lock`, so many
//! processes stepping one branch lose nothing.

mod blob;
pub(crate) mod cas;
mod clean;
mod condense;
mod diff;
pub mod message;
mod modes;
mod paths;
pub(crate) mod read;
mod rewind;
mod status;
mod step;
mod worktree;
mod worktree_id;

pub use clean::CleanedBranch;
pub use condense::Condensed;
pub use read::{ShadowBranchInfo, ShadowLogQuery, ShadowStepInfo};
pub use step::{ShadowStep, SkippedFile, StepResult, DEFAULT_MAX_UNTRACKED_BYTES};
pub use worktree_id::worktree_id;

/// The directory of the agent tool's own files in a working tree; never
/// captured from the working tree, never written by a rewind.
pub const ENTIRE_DIR: &str = ".entire";

/// Where session metadata directories go in a shadow step's tree:
/// `.entire/metadata/<session id>/`.
pub const METADATA_ROOT: &str = ".entire/metadata";

/// The directory (in the git common dir) of the shadow-branch lock files.
pub const SHADOW_LOCK_DIR: &str = "entire-shadow-locks";

/// The in-tree metadata directory of session `session_id`.
pub fn metadata_dir(session_id: &str) -> String {
    format!("{METADATA_ROOT}/{session_id}")
}

/// The in-tree directory of task `tool_use_id` of session `session_id`.
pub fn task_metadata_dir(session_id: &str, tool_use_id: &str) -> String {
    format!("{METADATA_ROOT}/{session_id}/tasks/{tool_use_id}")
}

/// The lock file of shadow branch `branch` (`entire/abc1234-e3b0c4`)
/// under `common_dir`: `entire-shadow-locks/entire_abc1234-e3b0c4.lock`.
pub fn lock_path(common_dir: &std::path::Path, branch: &str) -> std::path::PathBuf {
    let flat = branch.replace('/', "_");
    common_dir
        .join(SHADOW_LOCK_DIR)
        .join(format!("{flat}.lock"))
}
