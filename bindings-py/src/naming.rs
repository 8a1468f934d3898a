//! The naming layer: checkpoint IDs, refs, shadow branches and prompt files.

use agent_checkpoint_naming::{id, prompts, refs};
use pyo3::prelude::*;

use crate::args::strings;
use crate::errors::IntoPyResult;

/// A new legacy checkpoint ID: 12 lowercase hex characters from 6 random bytes.
#[pyfunction]
pub fn new_checkpoint_id(py: Python<'_>) -> PyResult<String> {
    id::new_checkpoint_id()
        .map(id::CheckpointId::into_string)
        .into_py_result(py)
}

/// A new ULID for `timestamp_ms` (milliseconds since the epoch; `None` = now).
#[pyfunction]
#[pyo3(signature = (timestamp_ms = None))]
pub fn new_ulid(py: Python<'_>, timestamp_ms: Option<u64>) -> PyResult<String> {
    id::new_ulid(timestamp_ms)
        .map(id::CheckpointId::into_string)
        .into_py_result(py)
}

/// `"legacy"`, `"ulid"` or `"unknown"`.
#[pyfunction]
pub fn checkpoint_id_kind(s: &str) -> &'static str {
    id::checkpoint_id_kind(s).as_str()
}

/// Returns `s` if it is a legacy or ULID checkpoint ID; raises
/// `InvalidCheckpointIdError` otherwise.
#[pyfunction]
pub fn validate_checkpoint_id(py: Python<'_>, s: &str) -> PyResult<String> {
    id::validate_checkpoint_id(s)
        .map(id::CheckpointId::into_string)
        .into_py_result(py)
}

/// The ref-namespace shard of an ID: its last two characters.
#[pyfunction]
pub fn shard_for(s: &str) -> String {
    id::shard_for(s)
}

/// The tree path of an ID on the metadata branch: `ab/cdef...`.
#[pyfunction]
pub fn checkpoint_path(s: &str) -> String {
    id::checkpoint_path(s)
}

/// A ULID in full, anything else cut to 12 bytes.
#[pyfunction]
pub fn display_short(s: &str) -> String {
    id::display_short(s)
}

/// The millisecond timestamp of a canonical ULID, else `None`.
#[pyfunction]
pub fn ulid_timestamp_ms(s: &str) -> Option<u64> {
    id::ulid_timestamp_ms(s)
}

/// `refs/entire/checkpoints/<shard>/<id>`; raises `InvalidCheckpointIdError`
/// for an ID of unknown kind.
#[pyfunction]
pub fn ref_name(py: Python<'_>, id: &str) -> PyResult<String> {
    refs::ref_name(id).into_py_result(py)
}

/// The ID of a checkpoint ref name, or `None` if `name` is not one.
#[pyfunction]
pub fn parse_ref(name: &str) -> Option<String> {
    refs::parse_ref(name)
}

/// `entire/<commit[:7]>-<hash_worktree_id(worktree_id)>`.
#[pyfunction]
#[pyo3(signature = (base_commit, worktree_id = ""))]
pub fn shadow_branch_name(
    py: Python<'_>,
    base_commit: &str,
    worktree_id: &str,
) -> PyResult<String> {
    refs::shadow_branch_name(base_commit, worktree_id).into_py_result(py)
}

/// `(commit_prefix, worktree_hash)` of a shadow branch name, or `None`
/// (the package wraps it in the named tuple `ShadowBranch`).
#[pyfunction]
pub fn parse_shadow_branch_name(name: &str) -> Option<(String, String)> {
    refs::parse_shadow_branch_name(name).map(|b| (b.commit_prefix, b.worktree_hash))
}

/// The first 6 hex characters of SHA-256 of `worktree_id`.
#[pyfunction]
pub fn hash_worktree_id(worktree_id: &str) -> String {
    refs::hash_worktree_id(worktree_id)
}

/// Whether `name` is a shadow branch (never the metadata branch).
#[pyfunction]
pub fn is_shadow_branch(name: &str) -> bool {
    refs::is_shadow_branch(name)
}

/// The prompts of a prompt file, split on `PROMPT_SEPARATOR`.
#[pyfunction]
pub fn split_prompts(content: &str) -> Vec<String> {
    prompts::split_prompts(content)
}

/// The prompts joined with `PROMPT_SEPARATOR`.
#[pyfunction]
pub fn join_prompts(prompts: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(prompts::join_prompts(&strings(prompts)?))
}

/// Adds the naming constants to `module`.
pub fn register_constants(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("PROMPT_SEPARATOR", prompts::PROMPT_SEPARATOR)?;
    module.add("CHECKPOINT_REF_PREFIX", refs::CHECKPOINT_REF_PREFIX)?;
    module.add("SHADOW_BRANCH_PREFIX", refs::SHADOW_BRANCH_PREFIX)?;
    module.add("METADATA_BRANCH", refs::METADATA_BRANCH)?;
    Ok(())
}
