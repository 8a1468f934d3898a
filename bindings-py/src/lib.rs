//! Python bindings of agent-checkpoint: the private module
//! `agent_checkpoint._native`, re-exported by the `agent_checkpoint` package.
//!
//! Each function converts its arguments, calls the core and maps the error
//! (see `errors`); no semantics live here. This file only registers names.

mod args;
mod checkpoint;
mod diff;
mod error_samples;
mod errors;
mod inspect;
mod naming;
mod options;
mod progress;
mod queue;
mod redact;
mod store;
mod store_remote;
mod store_shadow;
mod store_storage;

use pyo3::prelude::*;

/// Targeted path snapshot and rollback for atomic batch edits, the
/// checkpoint naming layer and secret redaction (native part of
/// `agent_checkpoint`).
#[pymodule(name = "_native")]
fn native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(module)?;
    naming::register_constants(module)?;
    module.add_function(wrap_pyfunction!(errors::error_class, module)?)?;
    module.add_function(wrap_pyfunction!(error_samples::error_samples, module)?)?;

    module.add_function(wrap_pyfunction!(checkpoint::create_checkpoint, module)?)?;
    module.add_function(wrap_pyfunction!(checkpoint::rollback, module)?)?;
    module.add_class::<checkpoint::RollbackResult>()?;
    module.add_function(wrap_pyfunction!(checkpoint::plan_rollback, module)?)?;
    module.add_class::<checkpoint::PlanItem>()?;
    module.add_class::<checkpoint::PathProblem>()?;
    module.add_class::<diff::Hunk>()?;
    module.add_class::<diff::DiffLine>()?;
    module.add_function(wrap_pyfunction!(checkpoint::record_applied, module)?)?;
    module.add_function(wrap_pyfunction!(inspect::snapshot_paths, module)?)?;
    module.add_function(wrap_pyfunction!(inspect::inspect_snapshot, module)?)?;
    module.add_class::<inspect::CapturedPath>()?;

    module.add_function(wrap_pyfunction!(naming::new_checkpoint_id, module)?)?;
    module.add_function(wrap_pyfunction!(naming::new_ulid, module)?)?;
    module.add_function(wrap_pyfunction!(naming::checkpoint_id_kind, module)?)?;
    module.add_function(wrap_pyfunction!(naming::validate_checkpoint_id, module)?)?;
    module.add_function(wrap_pyfunction!(naming::shard_for, module)?)?;
    module.add_function(wrap_pyfunction!(naming::checkpoint_path, module)?)?;
    module.add_function(wrap_pyfunction!(naming::display_short, module)?)?;
    module.add_function(wrap_pyfunction!(naming::ulid_timestamp_ms, module)?)?;
    module.add_function(wrap_pyfunction!(naming::ref_name, module)?)?;
    module.add_function(wrap_pyfunction!(naming::parse_ref, module)?)?;
    module.add_function(wrap_pyfunction!(naming::shadow_branch_name, module)?)?;
    module.add_function(wrap_pyfunction!(naming::parse_shadow_branch_name, module)?)?;
    module.add_function(wrap_pyfunction!(naming::hash_worktree_id, module)?)?;
    module.add_function(wrap_pyfunction!(naming::is_shadow_branch, module)?)?;
    module.add_function(wrap_pyfunction!(naming::split_prompts, module)?)?;
    module.add_function(wrap_pyfunction!(naming::join_prompts, module)?)?;

    module.add_class::<queue::PushQueue>()?;
    module.add_class::<store::CheckpointStore>()?;
    store_remote::register(module)?;
    store_storage::register(module)?;

    module.add_function(wrap_pyfunction!(redact::redact_text, module)?)?;
    module.add_function(wrap_pyfunction!(redact::redact_json, module)?)?;
    module.add_function(wrap_pyfunction!(redact::redact_blob, module)?)?;
    module.add_class::<redact::Redactor>()?;
    module.add_class::<redact::Redaction>()?;
    module.add_class::<redact::BlobRedaction>()?;
    module.add_class::<redact::Finding>()?;
    Ok(())
}
