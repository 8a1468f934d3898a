//! The store's only calls into the core's capture-snapshot API: checking a
//! snapshot before it is stored, rolling a stored one back, planning that
//! rollback. Kept in this one module so a change of the core's signatures
//! is adapted here and nowhere else.

use std::path::Path;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, ParseOptions, Plan, PlanOptions, Result, RollbackOptions, RollbackReport, SealKey,
    Snapshot,
};

/// Checks that `text` is a snapshot the core can read (any `.git` keys
/// allowed: rollback applies the caller's own rule later).
///
/// # Errors
/// The core's `malformed_snapshot` / `unsupported_version` errors.
pub(crate) fn check_snapshot(text: &str) -> Result<()> {
    Snapshot::parse(text, &ParseOptions::allowing_git_dir(true)).map(|_| ())
}

/// Reads `text` with `parse`, the seal checked first with `key` (or with
/// `parse`'s own key when `key` is `None`).
fn read(text: &str, parse: &ParseOptions, key: Option<&SealKey>) -> Result<Snapshot> {
    let key = key.cloned().or_else(|| parse.key.clone());
    Snapshot::parse(text, &parse.clone().with_key(key))
}

/// Rolls `snapshot` back under the directory `root_dir`.
///
/// # Errors
/// An I/O error when `root_dir` cannot be opened; the core's errors for a
/// refused snapshot.
pub(crate) fn rollback(
    root_dir: &Path,
    snapshot: &str,
    parse: &ParseOptions,
    options: &RollbackOptions,
) -> Result<RollbackReport> {
    let snapshot = read(snapshot, parse, options.key.as_ref())?;
    let root = CapRoot::open(root_dir, ambient_authority())?;
    agent_checkpoint::rollback(&root, &snapshot, options)
}

/// What rolling `snapshot` back under `root_dir` would do, touching nothing.
///
/// # Errors
/// An I/O error when `root_dir` cannot be opened; the core's errors for a
/// refused snapshot.
pub(crate) fn plan(
    root_dir: &Path,
    snapshot: &str,
    parse: &ParseOptions,
    options: &PlanOptions,
) -> Result<Plan> {
    let snapshot = read(snapshot, parse, options.key.as_ref())?;
    let root = CapRoot::open(root_dir, ambient_authority())?;
    agent_checkpoint::plan_rollback(&root, &snapshot, options)
}
