//! `CheckpointStore`'s shadow-branch methods (STORE.md §4): one commit per
//! agent step, listing, log, transcript, rewind, condense, clean. Each has
//! an `…Async` twin that runs the git and filesystem work on the libuv
//! thread pool.

use std::sync::Arc;

use agent_checkpoint_store::{shadow, SessionWrite, ShadowLogQuery, ShadowStep, Store, TaskInfo};
use napi::bindgen_prelude::{AsyncTask, Uint8Array};
use napi::Env;
use napi_derive::napi;

use crate::diff::diff_options;
use crate::error::OrThrow;
use crate::plan::PlanItem;
use crate::snapshot::RollbackReport;
use crate::store::{root_or_workdir, session_write, CheckpointStore};
use crate::task::{spawn, spawn_then, Work};

/// What a step may carry besides its session.
#[napi(object)]
#[derive(Default)]
pub struct ShadowStepOptions {
    /// Files the step touched (relative to the working tree; a directory
    /// stands for its files). The session's first step takes every change
    /// `git status` shows anyway.
    pub files: Option<Vec<String>>,
    /// Files the step deleted.
    pub deleted: Option<Vec<String>>,
    /// The commit message (default `Checkpoint`).
    pub message: Option<String>,
    /// The session's metadata directory, stored redacted under
    /// `.entire/metadata/<sessionId>/`.
    pub metadata_dir: Option<String>,
    /// Take every change `git status` shows (default: when the session has
    /// no step on the branch yet).
    pub first: Option<bool>,
    /// Make it a subagent task step of this tool-use ID.
    pub task: Option<String>,
    /// The subagent's ID (task steps).
    pub agent_id: Option<String>,
    /// The task's checkpoint UUID (task steps).
    pub checkpoint_uuid: Option<String>,
    /// Files HEAD does not track over this many bytes (default 100 MiB)
    /// are not read: listed in `tooLarge` with their size.
    pub max_file_bytes: Option<f64>,
}

/// A file a step did not take for its size.
#[napi(object)]
pub struct TooLargeFile {
    /// The path.
    pub path: String,
    /// Its size in bytes.
    pub size: f64,
}

/// What a step did.
#[napi(object)]
pub struct StepResult {
    /// The step's commit; the unchanged tip when skipped.
    pub commit: String,
    /// The shadow branch.
    pub branch: String,
    /// No commit was made: the tree equals the previous step's.
    pub skipped: bool,
    /// The commit HEAD pointed at (the branch's base).
    pub base_commit: String,
    /// Whether the step was taken as the session's first.
    pub first: bool,
    /// Named paths not taken (ignored, or under `.git` / `.entire`).
    pub left_out: Vec<String>,
    /// Files HEAD does not track over `maxFileBytes`, never read, sorted.
    pub too_large: Vec<TooLargeFile>,
}

/// One shadow branch.
#[napi(object)]
pub struct ShadowBranchInfo {
    /// The branch name (`entire/abc1234-e3b0c4`).
    pub branch: String,
    /// The base commit's prefix, as the name holds it.
    pub base_commit: String,
    /// The worktree hash the name holds.
    pub worktree_hash: String,
    /// The tip commit.
    pub tip: String,
    /// The tip's session.
    pub session_id: String,
    /// When the tip was committed (RFC 3339).
    pub timestamp: String,
}

/// One step on a shadow branch.
#[napi(object)]
pub struct ShadowStepInfo {
    /// The step's commit.
    pub commit: String,
    /// The first line of its message.
    pub message: String,
    /// Its session.
    pub session_id: String,
    /// Its session's metadata directory in the tree.
    pub metadata_dir: String,
    /// Whether it is a task step.
    pub is_task: bool,
    /// The task's tool-use ID (empty for other steps).
    pub tool_use_id: String,
    /// When it was committed (RFC 3339).
    pub timestamp: String,
    /// The branch it is on.
    pub branch: String,
}

/// Which steps `shadowLog` shows.
#[napi(object)]
#[derive(Default)]
pub struct ShadowLogOptions {
    /// Only this session's steps.
    pub session_id: Option<String>,
    /// At most this many steps (0 or absent: all).
    pub limit: Option<u32>,
    /// The branch (default: the one of HEAD in this worktree).
    pub branch: Option<String>,
}

/// How `shadowRewind` writes.
#[napi(object)]
#[derive(Default)]
pub struct ShadowRewindOptions {
    /// fsync files and directories (default `true`).
    pub durable: Option<bool>,
    /// Return the redo snapshot (default `true`).
    pub redo: Option<bool>,
}

/// What `shadowRewindPlan` shows.
#[napi(object)]
#[derive(Default)]
pub struct ShadowRewindPlanOptions {
    /// Describe each change (`diff`, `diffSummary`, `hunks`), as
    /// `planRollback` does (default `false`).
    pub diff: Option<bool>,
    /// Unchanged lines shown around each change (default 3).
    pub diff_context: Option<f64>,
    /// Files larger than this on either side get one line instead of a
    /// line diff (default 1 MiB).
    pub diff_max_bytes: Option<f64>,
}

/// What `shadowCondense` did.
#[napi(object)]
pub struct CondenseResult {
    /// The checkpoint written.
    pub checkpoint_id: String,
    /// Its new commit.
    pub commit: String,
    /// The ref that points at it.
    pub ref_name: String,
    /// The session's slot in the checkpoint.
    pub session_index: u32,
    /// The shadow branch the steps were on.
    pub branch: String,
    /// How many steps the session had there.
    pub steps: u32,
    /// The files the steps touched.
    pub files_touched: Vec<String>,
    /// Whether the branch was deleted.
    pub branch_deleted: bool,
}

/// A branch `shadowClean` deleted.
#[napi(object)]
pub struct CleanedBranch {
    /// The branch name.
    pub branch: String,
    /// Its tip when deleted.
    pub tip: String,
    /// `'base_commit_gone'` or `'sessions_condensed'`.
    pub reason: String,
}

fn step_of(
    env: &Env,
    session_id: String,
    o: ShadowStepOptions,
) -> napi::Result<(ShadowStep, Option<TaskInfo>)> {
    let mut step = ShadowStep::new(session_id)
        .files(o.files.unwrap_or_default())
        .deleted(o.deleted.unwrap_or_default());
    if let Some(max) = crate::options::byte_count(env, "maxFileBytes", o.max_file_bytes)? {
        step = step.max_untracked_bytes(max);
    }
    step.message = o.message;
    step.metadata_dir = o.metadata_dir.map(Into::into);
    step.first = o.first;
    let task = o.task.map(|id| {
        let mut info = TaskInfo::new(id);
        info.agent_id = o.agent_id.unwrap_or_default();
        info.checkpoint_uuid = o.checkpoint_uuid.unwrap_or_default();
        info
    });
    Ok((step, task))
}

fn run_step(
    store: &Store,
    step: &ShadowStep,
    task: Option<&TaskInfo>,
) -> agent_checkpoint::Result<StepResult> {
    let r = match task {
        Some(task) => store.shadow_task_step(step, task)?,
        None => store.shadow_step(step)?,
    };
    Ok(StepResult {
        commit: r.commit,
        branch: r.branch,
        skipped: r.skipped,
        base_commit: r.base_commit,
        first: r.first,
        left_out: r.left_out,
        too_large: r
            .too_large
            .into_iter()
            .map(|f| TooLargeFile {
                path: f.path,
                size: f.size as f64,
            })
            .collect(),
    })
}

fn query_of(o: ShadowLogOptions) -> ShadowLogQuery {
    let mut query = ShadowLogQuery::new().limit(o.limit.unwrap_or(0) as usize);
    query.session_id = o.session_id;
    query.branch = o.branch;
    query
}

fn branches(store: &Store) -> agent_checkpoint::Result<Vec<ShadowBranchInfo>> {
    Ok(store
        .shadow_branches()?
        .into_iter()
        .map(|b| ShadowBranchInfo {
            timestamp: b.timestamp.to_string(),
            branch: b.branch,
            base_commit: b.base_commit,
            worktree_hash: b.worktree_hash,
            tip: b.tip,
            session_id: b.session_id,
        })
        .collect())
}

fn log(store: &Store, query: &ShadowLogQuery) -> agent_checkpoint::Result<Vec<ShadowStepInfo>> {
    Ok(store
        .shadow_log(query)?
        .into_iter()
        .map(|s| ShadowStepInfo {
            timestamp: s.timestamp.to_string(),
            commit: s.commit,
            message: s.message,
            session_id: s.session_id,
            metadata_dir: s.metadata_dir,
            is_task: s.is_task,
            tool_use_id: s.tool_use_id,
            branch: s.branch,
        })
        .collect())
}

fn rewind(
    store: &Store,
    commit: &str,
    root: Option<String>,
    o: ShadowRewindOptions,
) -> agent_checkpoint::Result<RollbackReport> {
    let root = root_or_workdir(store, root)?;
    let options = agent_checkpoint::RollbackOptions::default()
        .with_durable(o.durable.unwrap_or(true))
        .with_redo(o.redo.unwrap_or(true));
    store.shadow_rewind(commit, root, &options).map(Into::into)
}

fn rewind_plan(
    store: &Store,
    commit: &str,
    root: Option<String>,
    options: &agent_checkpoint::PlanOptions,
) -> agent_checkpoint::Result<Vec<PlanItem>> {
    let root = root_or_workdir(store, root)?;
    let plan = store.shadow_rewind_plan(commit, root, options)?;
    Ok(plan.items.into_iter().map(PlanItem::from).collect())
}

/// The core's plan options of a rewind preview.
fn rewind_plan_options(
    env: &Env,
    options: Option<ShadowRewindPlanOptions>,
) -> napi::Result<agent_checkpoint::PlanOptions> {
    let o = options.unwrap_or_default();
    Ok(
        agent_checkpoint::PlanOptions::default().with_diff(diff_options(
            env,
            o.diff,
            o.diff_context,
            o.diff_max_bytes,
        )?),
    )
}

fn condense(store: &Store, json: &str) -> agent_checkpoint::Result<CondenseResult> {
    let c = store.shadow_condense(&SessionWrite::from_json(json)?)?;
    Ok(CondenseResult {
        checkpoint_id: c.checkpoint_id,
        commit: c.commit,
        ref_name: c.ref_name,
        session_index: u32::try_from(c.session_index).unwrap_or(u32::MAX),
        branch: c.branch,
        steps: u32::try_from(c.steps).unwrap_or(u32::MAX),
        files_touched: c.files_touched,
        branch_deleted: c.branch_deleted,
    })
}

fn cleaned(list: Vec<shadow::CleanedBranch>) -> Vec<CleanedBranch> {
    list.into_iter()
        .map(|c| CleanedBranch {
            branch: c.branch,
            tip: c.tip,
            reason: c.reason,
        })
        .collect()
}

#[napi]
impl CheckpointStore {
    /// Records one agent step on the shadow branch of HEAD and this
    /// worktree: the session's first step takes every change `git status`
    /// shows; later steps take the named files (minus ignored ones).
    #[napi]
    pub fn shadow_step(
        &self,
        env: Env,
        session_id: String,
        options: Option<ShadowStepOptions>,
    ) -> napi::Result<StepResult> {
        let (step, task) = step_of(&env, session_id, options.unwrap_or_default())?;
        run_step(&self.inner, &step, task.as_ref()).or_throw(&env)
    }

    /// `shadowStep` off the JS thread.
    #[napi(ts_return_type = "Promise<StepResult>")]
    pub fn shadow_step_async(
        &self,
        env: Env,
        session_id: String,
        options: Option<ShadowStepOptions>,
    ) -> napi::Result<AsyncTask<Work<StepResult, StepResult>>> {
        let (step, task) = step_of(&env, session_id, options.unwrap_or_default())?;
        let store = Arc::clone(&self.inner);
        Ok(spawn(move || run_step(&store, &step, task.as_ref())))
    }

    /// The shadow branch of HEAD in this worktree (it may not exist yet).
    #[napi]
    pub fn shadow_branch(&self, env: Env) -> napi::Result<String> {
        self.inner.shadow_branch().or_throw(&env)
    }

    /// Every shadow branch, newest tip first.
    #[napi]
    pub fn shadow_branches(&self, env: Env) -> napi::Result<Vec<ShadowBranchInfo>> {
        branches(&self.inner).or_throw(&env)
    }

    /// `shadowBranches` off the JS thread.
    #[napi(ts_return_type = "Promise<ShadowBranchInfo[]>")]
    pub fn shadow_branches_async(
        &self,
    ) -> AsyncTask<Work<Vec<ShadowBranchInfo>, Vec<ShadowBranchInfo>>> {
        let store = Arc::clone(&self.inner);
        spawn(move || branches(&store))
    }

    /// One branch's steps (default: the current one), newest first, by
    /// session, with a limit.
    #[napi]
    pub fn shadow_log(
        &self,
        env: Env,
        options: Option<ShadowLogOptions>,
    ) -> napi::Result<Vec<ShadowStepInfo>> {
        log(&self.inner, &query_of(options.unwrap_or_default())).or_throw(&env)
    }

    /// `shadowLog` off the JS thread.
    #[napi(ts_return_type = "Promise<ShadowStepInfo[]>")]
    pub fn shadow_log_async(
        &self,
        options: Option<ShadowLogOptions>,
    ) -> AsyncTask<Work<Vec<ShadowStepInfo>, Vec<ShadowStepInfo>>> {
        let query = query_of(options.unwrap_or_default());
        let store = Arc::clone(&self.inner);
        spawn(move || log(&store, &query))
    }

    /// The transcript stored with a step (full or abbreviated commit).
    #[napi]
    pub fn shadow_transcript(&self, env: Env, commit: String) -> napi::Result<Uint8Array> {
        self.inner
            .shadow_transcript(&commit)
            .map(Into::into)
            .or_throw(&env)
    }

    /// `shadowTranscript` off the JS thread.
    #[napi(ts_return_type = "Promise<Uint8Array>")]
    pub fn shadow_transcript_async(&self, commit: String) -> AsyncTask<Work<Vec<u8>, Uint8Array>> {
        let store = Arc::clone(&self.inner);
        spawn_then(move || store.shadow_transcript(&commit), |b| Ok(b.into()))
    }

    /// Rewinds `root` (default: the working tree) to a step: the paths its
    /// session touched that differ from the step come back through the
    /// core's rollback; `report.redo` undoes it (`rollback(root, redo)`).
    #[napi]
    pub fn shadow_rewind(
        &self,
        env: Env,
        commit: String,
        root: Option<String>,
        options: Option<ShadowRewindOptions>,
    ) -> napi::Result<RollbackReport> {
        rewind(&self.inner, &commit, root, options.unwrap_or_default()).or_throw(&env)
    }

    /// `shadowRewind` off the JS thread.
    #[napi(ts_return_type = "Promise<RollbackReport>")]
    pub fn shadow_rewind_async(
        &self,
        commit: String,
        root: Option<String>,
        options: Option<ShadowRewindOptions>,
    ) -> AsyncTask<Work<RollbackReport, RollbackReport>> {
        let options = options.unwrap_or_default();
        let store = Arc::clone(&self.inner);
        spawn(move || rewind(&store, &commit, root, options))
    }

    /// What `shadowRewind` would do to each path, touching nothing; with
    /// `{ diff: true }`, what each change is (as `planRollback`).
    #[napi]
    pub fn shadow_rewind_plan(
        &self,
        env: Env,
        commit: String,
        root: Option<String>,
        options: Option<ShadowRewindPlanOptions>,
    ) -> napi::Result<Vec<PlanItem>> {
        let options = rewind_plan_options(&env, options)?;
        rewind_plan(&self.inner, &commit, root, &options).or_throw(&env)
    }

    /// `shadowRewindPlan` off the JS thread.
    #[napi(ts_return_type = "Promise<PlanItem[]>")]
    pub fn shadow_rewind_plan_async(
        &self,
        env: &Env,
        commit: String,
        root: Option<String>,
        options: Option<ShadowRewindPlanOptions>,
    ) -> napi::Result<AsyncTask<Work<Vec<PlanItem>, Vec<PlanItem>>>> {
        let options = rewind_plan_options(env, options)?;
        let store = Arc::clone(&self.inner);
        Ok(spawn(move || rewind_plan(&store, &commit, root, &options)))
    }

    /// Turns a session's steps into one persistent checkpoint (`fields` as
    /// `writeSession`'s), deleting the shadow branch when no session on it
    /// still needs it.
    #[napi]
    pub fn shadow_condense(
        &self,
        env: Env,
        session_id: String,
        checkpoint_id: String,
        #[napi(ts_arg_type = "SessionFields")] fields: Option<serde_json::Value>,
    ) -> napi::Result<CondenseResult> {
        let json = session_write(checkpoint_id, session_id, fields)?;
        condense(&self.inner, &json).or_throw(&env)
    }

    /// `shadowCondense` off the JS thread.
    #[napi(ts_return_type = "Promise<CondenseResult>")]
    pub fn shadow_condense_async(
        &self,
        session_id: String,
        checkpoint_id: String,
        #[napi(ts_arg_type = "SessionFields")] fields: Option<serde_json::Value>,
    ) -> napi::Result<AsyncTask<Work<CondenseResult, CondenseResult>>> {
        let json = session_write(checkpoint_id, session_id, fields)?;
        let store = Arc::clone(&self.inner);
        Ok(spawn(move || condense(&store, &json)))
    }

    /// Deletes the shadow branches no session needs.
    #[napi]
    pub fn shadow_clean(&self, env: Env) -> napi::Result<Vec<CleanedBranch>> {
        self.inner.shadow_clean().map(cleaned).or_throw(&env)
    }

    /// `shadowClean` off the JS thread.
    #[napi(ts_return_type = "Promise<CleanedBranch[]>")]
    pub fn shadow_clean_async(&self) -> AsyncTask<Work<Vec<CleanedBranch>, Vec<CleanedBranch>>> {
        let store = Arc::clone(&self.inner);
        spawn(move || store.shadow_clean().map(cleaned))
    }
}
