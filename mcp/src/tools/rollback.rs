//! Tools that undo a batch: `plan_rollback` (a preview) and
//! `rollback_checkpoint`. Both run the core's one decision under the
//! server's root, with the snapshot the checkpoint keeps.

use agent_checkpoint::{
    DiffOptions, Error, OnConflict, ParseOptions, Plan, PlanOptions, RollbackOptions,
    RollbackReport, Snapshot,
};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::{blocking, parse_args, tool_result, ToolOutput};
use crate::schema::{input_schema, output_schema};
use crate::server::{CheckpointServer, State};

/// What to do with a path changed after the batch was applied: restore it
/// anyway (`overwrite`), or leave it and report it in `conflicts` (`skip`).
/// (No doc comment on the variants: the schema is then a plain `enum`,
/// which every client's schema dialect reads.)
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub(crate) enum ConflictChoice {
    #[default]
    Overwrite,
    Skip,
}

impl From<ConflictChoice> for OnConflict {
    fn from(c: ConflictChoice) -> OnConflict {
        match c {
            ConflictChoice::Overwrite => OnConflict::Overwrite,
            ConflictChoice::Skip => OnConflict::Skip,
        }
    }
}

/// Arguments of `plan_rollback`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlanArgs {
    /// The checkpoint to roll back to (from `capture_checkpoint`).
    pub checkpoint_id: String,
    /// `overwrite` (default) restores paths changed after the batch too;
    /// `skip` leaves them. Only snapshots with recorded post-batch states
    /// can tell such paths apart.
    #[serde(default)]
    pub on_conflict: ConflictChoice,
    /// Show what each change would be (default true): a unified diff from
    /// the file as it is now to the file the rollback brings back, or one
    /// line where no line diff can say it.
    #[serde(default = "yes")]
    pub diff: bool,
}

/// Arguments of `rollback_checkpoint`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RollbackArgs {
    /// The checkpoint to roll back to (from `capture_checkpoint`).
    pub checkpoint_id: String,
    /// `overwrite` (default) restores paths changed after the batch too;
    /// `skip` leaves them. Only snapshots with recorded post-batch states
    /// can tell such paths apart.
    #[serde(default)]
    pub on_conflict: ConflictChoice,
    /// Keep the current state of the paths as a new checkpoint first
    /// (`redo_checkpoint_id`), so this rollback can itself be undone
    /// (default true).
    #[serde(default = "yes")]
    pub redo: bool,
}

fn yes() -> bool {
    true
}

/// One step of a rollback plan.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PlanStep {
    /// The path (a captured path, or a directory the batch created).
    pub path: String,
    /// `keep` (already as captured), `write`, `remove`, `rmdir`,
    /// `conflict` (left alone) or `refuse` (cannot be restored safely).
    pub action: String,
    /// Whether the path changed after the batch.
    pub conflict: bool,
    /// For `refuse`: the error code the rollback reports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Why, when the action needs a word.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With `diff`: what the change would be in one line (`+3 -1`,
    /// `new file, 2 lines`, `binary file, 10 bytes -> 12 bytes`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_summary: Option<String>,
    /// With `diff`: the unified diff, when the change has a line diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// Result of `plan_rollback`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PlanResult {
    /// The checkpoint.
    pub checkpoint_id: String,
    /// How many steps change something (not `keep`).
    pub changes: usize,
    /// One step per path, sorted.
    pub steps: Vec<PlanStep>,
    /// The root the snapshot was taken under, when it is not this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_root: Option<String>,
    /// Diffs left out (their one-line summaries kept) because the diffs of
    /// one answer may hold at most 512 KiB of text.
    #[serde(skip_serializing_if = "is_zero")]
    pub diffs_left_out: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Files larger than this get a one-line summary instead of a diff.
const DIFF_FILE_BYTES: u64 = 256 << 10;

/// The diff text one `plan_rollback` answer may carry in all.
const DIFF_ANSWER_BYTES: usize = 512 << 10;

impl ToolOutput for PlanResult {
    fn summary(&self) -> String {
        let count = |a: &str| self.steps.iter().filter(|s| s.action == a).count();
        let mut text = format!(
            "Rolling back to {} would write {}, remove {}, keep {}, leave {} conflict(s) and refuse {} path(s). Nothing was changed.",
            self.checkpoint_id,
            count("write"),
            count("remove") + count("rmdir"),
            count("keep"),
            count("conflict"),
            count("refuse")
        );
        if self.diffs_left_out > 0 {
            text.push_str(&format!(
                " {} diff(s) left out of this answer (over {} KiB of diff text); their summaries are kept.",
                self.diffs_left_out,
                DIFF_ANSWER_BYTES >> 10
            ));
        }
        for step in &self.steps {
            if let Some(summary) = &step.diff_summary {
                text.push_str(&format!("\n\n{} {}: {summary}", step.action, step.path));
                if let Some(diff) = &step.diff {
                    text.push('\n');
                    text.push_str(diff.trim_end());
                }
            }
        }
        text
    }
}

/// A path a rollback could not restore, or left out of the redo.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PathProblem {
    /// The path.
    pub path: String,
    /// The error's stable code.
    pub code: String,
    /// Why.
    pub reason: String,
}

/// A file the capture left out for its size: not covered by a rollback.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LeftOutFile {
    /// The path.
    pub path: String,
    /// Its size in bytes when the capture looked at it.
    pub size: u64,
}

/// Result of `rollback_checkpoint`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RollbackResult {
    /// The checkpoint rolled back to.
    pub checkpoint_id: String,
    /// Every captured path is as captured (conflicts left on purpose do not count).
    pub ok: bool,
    /// Paths now as captured, sorted.
    pub restored: Vec<String>,
    /// Paths that could not be restored, each with a code and a reason.
    pub unrestored: Vec<PathProblem>,
    /// Paths changed after the batch and left alone (`on_conflict: skip`).
    pub conflicts: Vec<String>,
    /// The checkpoint holding the state just before this rollback: roll
    /// back to it to bring the batch's result back (with `redo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redo_checkpoint_id: Option<String>,
    /// Paths the redo checkpoint could not keep, and why.
    pub not_in_redo: Vec<PathProblem>,
    /// Files the capture skipped for their size (over the core's 100 MiB
    /// per-file limit): neither restored nor removed, left as they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_covered: Vec<LeftOutFile>,
    /// The root the snapshot was taken under, when it is not this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_root: Option<String>,
}

impl ToolOutput for RollbackResult {
    fn summary(&self) -> String {
        let mut text = format!(
            "Rolled back to {}: {} restored, {} unrestored, {} conflict(s): {}.",
            self.checkpoint_id,
            self.restored.len(),
            self.unrestored.len(),
            self.conflicts.len(),
            if self.ok { "ok" } else { "NOT ok" }
        );
        if !self.not_covered.is_empty() {
            text.push_str(&format!(
                " {} file(s) not covered (skipped by the capture for their size), left as they are.",
                self.not_covered.len()
            ));
        }
        if let Some(redo) = &self.redo_checkpoint_id {
            text.push_str(&format!(" To undo this rollback, roll back to {redo}."));
        }
        text
    }
}

fn snapshot(state: &State, id: &str) -> Result<Snapshot, Error> {
    Snapshot::parse(&state.keeper.snapshot(id)?, &ParseOptions::default())
}

fn steps(plan: &Plan) -> Vec<PlanStep> {
    plan.items
        .iter()
        .map(|item| PlanStep {
            path: item.path.clone(),
            action: item.action.as_str().to_owned(),
            conflict: item.conflict,
            code: item.code.map(|c| c.as_str().to_owned()),
            reason: item.reason.clone(),
            diff_summary: item.diff.as_ref().map(|d| d.summary.clone()),
            diff: item.diff.as_ref().and_then(|d| d.text.clone()),
        })
        .collect()
}

/// The plan options of a preview: diffs of files up to
/// [`DIFF_FILE_BYTES`] when `diff`.
pub(crate) fn preview_options(diff: bool) -> PlanOptions {
    PlanOptions::default()
        .with_diff(diff.then(|| DiffOptions::default().with_max_bytes(DIFF_FILE_BYTES)))
}

fn plan(state: &State, args: PlanArgs) -> Result<PlanResult, Error> {
    let snapshot = snapshot(state, &args.checkpoint_id)?;
    let options = preview_options(args.diff).with_on_conflict(args.on_conflict.into());
    let plan = agent_checkpoint::plan_rollback(&state.root, &snapshot, &options)?;
    Ok(plan_result(args.checkpoint_id, plan))
}

/// A plan as a tool result, its diffs kept within [`DIFF_ANSWER_BYTES`].
pub(crate) fn plan_result(checkpoint_id: String, plan: Plan) -> PlanResult {
    let mut steps = steps(&plan);
    let mut budget = DIFF_ANSWER_BYTES;
    let mut diffs_left_out = 0;
    for step in &mut steps {
        match step.diff.as_ref().map(String::len) {
            Some(len) if len <= budget => budget -= len,
            Some(_) => {
                step.diff = None;
                diffs_left_out += 1;
            }
            None => {}
        }
    }
    PlanResult {
        checkpoint_id,
        changes: steps.iter().filter(|s| s.action != "keep").count(),
        steps,
        other_root: plan.other_root,
        diffs_left_out,
    }
}

fn rollback(state: &State, args: RollbackArgs) -> Result<RollbackResult, Error> {
    // One call holding files at a time: the redo holds up to the limit.
    let _holding = state.within_the_limit();
    let snapshot = snapshot(state, &args.checkpoint_id)?;
    let options = RollbackOptions::default()
        .with_on_conflict(args.on_conflict.into())
        .with_redo(args.redo)
        .with_max_file_bytes(redo_file_limit(state, &snapshot.paths()));
    let report = agent_checkpoint::rollback(&state.root, &snapshot, &options)?;
    rollback_result(state, args.checkpoint_id, report)
}

/// The largest current file a rollback's redo reads, so that the redo
/// holds at most the server's `max_capture_bytes` in all (as a capture
/// does): the smallest files are kept, the larger ones left out of the
/// redo (listed in `not_in_redo`). Judged from the sizes now, before any
/// is read; a path that does not resolve counts nothing.
pub(crate) fn redo_file_limit(state: &State, paths: &[String]) -> u64 {
    let mut sizes = std::collections::BTreeMap::new();
    for path in paths {
        if let Ok(resolved) = agent_checkpoint::internals::resolve(&state.root, path) {
            if let Some(meta) = resolved
                .metadata
                .filter(|m| m.kind == agent_checkpoint::root::EntryKind::File)
            {
                sizes.insert(resolved.key, meta.len);
            }
        }
    }
    let mut sizes: Vec<u64> = sizes.into_values().collect();
    sizes.sort_unstable();
    let max = state.max_capture_bytes;
    let (mut total, mut limit) = (0u64, 0u64);
    let mut i = 0;
    while i < sizes.len() {
        // Files of the same size are all in or all out: the limit cannot
        // tell them apart.
        let size = sizes[i];
        let same = sizes[i..].iter().take_while(|s| **s == size).count() as u64;
        match size
            .checked_mul(same)
            .and_then(|group| total.checked_add(group))
        {
            Some(with) if with <= max => total = with,
            _ => return limit,
        }
        limit = size;
        i += same as usize;
    }
    // All of them fit: a file that grows meanwhile may still reach the limit.
    max.min(agent_checkpoint::DEFAULT_MAX_FILE_BYTES)
}

/// A rollback report as a tool result; its redo is kept as a new checkpoint
/// of the session that made `checkpoint_id` (or the server's).
pub(crate) fn rollback_result(
    state: &State,
    checkpoint_id: String,
    mut report: RollbackReport,
) -> Result<RollbackResult, Error> {
    let redo_checkpoint_id = match report.redo.take() {
        Some(redo) => {
            let session = state
                .keeper
                .describe(&checkpoint_id)
                .ok()
                .and_then(|c| c.session_ids.last().cloned())
                .unwrap_or_else(|| state.session_id.clone());
            let paths = agent_checkpoint::snapshot_paths(redo.as_str());
            Some(
                state
                    .keeper
                    .keep(redo.into_json().into_string(), &paths, &session, "")?
                    .checkpoint_id,
            )
        }
        None => None,
    };
    let problems = |list: Vec<(String, String, String)>| {
        list.into_iter()
            .map(|(path, code, reason)| PathProblem { path, code, reason })
            .collect()
    };
    Ok(RollbackResult {
        checkpoint_id,
        ok: report.ok(),
        other_root: report.other_root().map(str::to_owned),
        restored: report.restored,
        unrestored: problems(
            report
                .unrestored
                .into_iter()
                .map(|u| (u.path, u.code.as_str().to_owned(), u.reason))
                .collect(),
        ),
        conflicts: report.conflicts,
        redo_checkpoint_id,
        not_covered: report
            .not_covered
            .into_iter()
            .map(|n| LeftOutFile {
                path: n.path,
                size: n.size,
            })
            .collect(),
        not_in_redo: problems(
            report
                .not_in_redo
                .into_iter()
                .map(|n| (n.path, n.code.as_str().to_owned(), n.reason))
                .collect(),
        ),
    })
}

#[tool_router(router = rollback_tools, vis = "pub(crate)")]
impl CheckpointServer {
    #[tool(
        name = "plan_rollback",
        description = "Preview a rollback: say, path by path, what rollback_checkpoint would write, remove, keep or refuse, changing nothing. Use it before rolling back, to check that only the batch's files are affected.",
        input_schema = input_schema::<PlanArgs>(),
        output_schema = output_schema::<PlanResult>(),
        annotations(
            title = "Preview a rollback",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn plan_rollback(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(
            blocking(move || {
                let args: PlanArgs = parse_args(arguments)?;
                plan(&state, args)
            })
            .await,
        )
    }

    #[tool(
        name = "rollback_checkpoint",
        description = "Undo a batch of edits: restore exactly the paths captured in a checkpoint to their captured state (files rewritten atomically, created files and directories removed). Touches nothing else. With redo (default), the current state is kept first as redo_checkpoint_id, so the rollback can be undone too.",
        input_schema = input_schema::<RollbackArgs>(),
        output_schema = output_schema::<RollbackResult>(),
        annotations(
            title = "Roll back to a checkpoint",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn rollback_checkpoint(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(
            blocking(move || {
                let args: RollbackArgs = parse_args(arguments)?;
                rollback(&state, args)
            })
            .await,
        )
    }
}
