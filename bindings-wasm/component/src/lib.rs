//! agent-checkpoint as a WASI preview-2 component (WIT world
//! `agent:checkpoint/checkpoint`, in `wit/checkpoint.wit`).
//!
//! Every export converts its arguments, calls the core and maps the error
//! to the WIT `checkpoint-error` (see the `errors` module). File functions open the
//! `root` the host names through `wasi_root::WasiRoot`, inside the host's
//! preopens. Only built for wasm targets, so that the workspace's host build
//! and tests are unaffected.
#![cfg(target_family = "wasm")]

mod diff;
mod errors;
mod options;
pub mod wasi_root;

use agent_checkpoint_naming::{id, prompts, refs};

use agent_checkpoint::Snapshot;
use bindings::{
    CaptureOptions, CapturedKind, CapturedPath, CheckpointError, Guest, IdKind, NotCovered,
    PathProblem, PlanItem, PlanOptions, RecordAppliedOptions, RollbackOptions, RollbackReport,
    ShadowBranch,
};
use errors::{core_result, to_wit};
use wasi_root::WasiRoot;

/// The types and glue wit-bindgen generates from `wit/checkpoint.wit`.
#[allow(unsafe_code, reason = "wit-bindgen's generated canonical-ABI glue")]
#[allow(missing_docs, reason = "generated; the WIT file documents the world")]
#[allow(
    clippy::too_many_arguments,
    reason = "generated: the canonical ABI flattens the option records into arguments"
)]
mod bindings {
    wit_bindgen::generate!({
        world: "checkpoint",
        path: "wit",
    });

    use super::Component;
    export!(Component);
}

/// The component: one implementation of the world's exports.
struct Component;

/// The core's outcome as the WIT reports it: a refused snapshot is a
/// report with `valid: false` (the core's rule, not decided here).
fn report(outcome: agent_checkpoint::RollbackOutcome) -> RollbackReport {
    let (valid, ok) = (outcome.valid(), outcome.ok());
    let report = outcome.report;
    let problem = |path: String, code, reason: String| PathProblem {
        path,
        code: errors::wit_code(code),
        reason,
    };
    RollbackReport {
        valid,
        ok,
        error: outcome.refusal.as_ref().map(to_wit),
        restored: report.restored,
        unrestored: report
            .unrestored
            .into_iter()
            .map(|u| problem(u.path, u.code, u.reason))
            .collect(),
        conflicts: report.conflicts,
        other_root: report.plan.other_root.clone(),
        plan: report
            .plan
            .items
            .into_iter()
            .map(options::plan_item)
            .collect(),
        redo: report.redo.map(String::from),
        not_in_redo: report
            .not_in_redo
            .into_iter()
            .map(|n| problem(n.path, n.code, n.reason))
            .collect(),
        not_covered: report
            .not_covered
            .into_iter()
            .map(|n| NotCovered {
                path: n.path,
                size: n.size,
                code: errors::wit_code(n.code),
            })
            .collect(),
    }
}

fn into_string(id: id::CheckpointId) -> String {
    id.into_string()
}

impl Guest for Component {
    fn create_checkpoint(
        root: String,
        paths: Vec<String>,
        options: CaptureOptions,
    ) -> Result<String, CheckpointError> {
        let root = core_result(WasiRoot::open(&root))?;
        let options = options::capture(options)?;
        core_result(agent_checkpoint::capture(&root, &paths, &options).map(String::from))
    }

    fn rollback(
        root: String,
        checkpoint: String,
        options: RollbackOptions,
    ) -> Result<RollbackReport, CheckpointError> {
        let root = core_result(WasiRoot::open(&root))?;
        let (parse, options) = options::rollback(options)?;
        Ok(report(agent_checkpoint::rollback_text(
            &root,
            &checkpoint,
            &parse,
            &options,
        )))
    }

    fn plan_rollback(
        root: String,
        checkpoint: String,
        options: PlanOptions,
    ) -> Result<Vec<PlanItem>, CheckpointError> {
        let root = core_result(WasiRoot::open(&root))?;
        let (parse, options) = options::plan(options)?;
        let plan = core_result(
            Snapshot::parse(&checkpoint, &parse)
                .and_then(|snapshot| agent_checkpoint::plan_rollback(&root, &snapshot, &options)),
        )?;
        Ok(plan.items.into_iter().map(options::plan_item).collect())
    }

    fn record_applied(
        root: String,
        checkpoint: String,
        options: RecordAppliedOptions,
    ) -> Result<String, CheckpointError> {
        let root = core_result(WasiRoot::open(&root))?;
        let (parse, options) = options::record(options)?;
        core_result(
            Snapshot::parse(&checkpoint, &parse)
                .and_then(|snapshot| agent_checkpoint::record_applied(&root, &snapshot, &options))
                .map(String::from),
        )
    }

    fn snapshot_paths(checkpoint: String) -> Vec<String> {
        agent_checkpoint::snapshot_paths(&checkpoint)
    }

    fn inspect_snapshot(checkpoint: String) -> Result<Vec<CapturedPath>, CheckpointError> {
        let items = core_result(agent_checkpoint::inspect_snapshot(&checkpoint))?;
        Ok(items
            .into_iter()
            .map(|item| CapturedPath {
                path: item.path,
                kind: match item.kind {
                    agent_checkpoint::CapturedKind::New => CapturedKind::New,
                    agent_checkpoint::CapturedKind::Link => CapturedKind::Link,
                    // A file, and any kind a newer core adds.
                    _ => CapturedKind::File,
                },
                size: item.size,
                mode: item.mode,
                link_target: item.link_target,
                digest: item.digest,
            })
            .collect())
    }

    fn checkpoint_id_kind(id: String) -> IdKind {
        match id::checkpoint_id_kind(&id) {
            id::IdKind::Legacy => IdKind::Legacy,
            id::IdKind::Ulid => IdKind::Ulid,
            // `unknown`, and any kind a newer naming crate adds.
            _ => IdKind::Unknown,
        }
    }

    fn validate_checkpoint_id(id: String) -> Result<String, CheckpointError> {
        core_result(id::validate_checkpoint_id(&id)).map(into_string)
    }

    fn new_checkpoint_id() -> Result<String, CheckpointError> {
        core_result(id::new_checkpoint_id()).map(into_string)
    }

    fn new_ulid(timestamp_ms: Option<u64>) -> Result<String, CheckpointError> {
        core_result(id::new_ulid(timestamp_ms)).map(into_string)
    }

    fn ulid_timestamp_ms(id: String) -> Option<u64> {
        id::ulid_timestamp_ms(&id)
    }

    fn display_short(id: String) -> String {
        id::display_short(&id)
    }

    fn checkpoint_path(id: String) -> String {
        id::checkpoint_path(&id)
    }

    fn shard_for(id: String) -> String {
        id::shard_for(&id)
    }

    fn ref_name(id: String) -> Result<String, CheckpointError> {
        core_result(refs::ref_name(&id))
    }

    fn parse_ref(name: String) -> Option<String> {
        refs::parse_ref(&name)
    }

    fn shadow_branch_name(
        base_commit: String,
        worktree_id: String,
    ) -> Result<String, CheckpointError> {
        core_result(refs::shadow_branch_name(&base_commit, &worktree_id))
    }

    fn parse_shadow_branch_name(name: String) -> Option<ShadowBranch> {
        refs::parse_shadow_branch_name(&name).map(|b| ShadowBranch {
            commit_prefix: b.commit_prefix,
            worktree_hash: b.worktree_hash,
        })
    }

    fn hash_worktree_id(worktree_id: String) -> String {
        refs::hash_worktree_id(&worktree_id)
    }

    fn is_shadow_branch(name: String) -> bool {
        refs::is_shadow_branch(&name)
    }

    fn checkpoint_ref_prefix() -> String {
        refs::CHECKPOINT_REF_PREFIX.to_owned()
    }

    fn shadow_branch_prefix() -> String {
        refs::SHADOW_BRANCH_PREFIX.to_owned()
    }

    fn metadata_branch() -> String {
        refs::METADATA_BRANCH.to_owned()
    }

    fn split_prompts(content: String) -> Vec<String> {
        prompts::split_prompts(&content)
    }

    fn join_prompts(prompts: Vec<String>) -> String {
        prompts::join_prompts(&prompts)
    }

    fn prompt_separator() -> String {
        prompts::PROMPT_SEPARATOR.to_owned()
    }
}
