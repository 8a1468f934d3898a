//! Shadow-branch tools (STORE.md §4): `shadow_step` records the working
//! tree as one commit per agent step on the session's shadow branch,
//! `shadow_log` lists the steps, `shadow_rewind_plan` previews going back
//! to a step (with diffs) and `shadow_rewind` does it, atomically per file,
//! keeping a redo checkpoint. They need the root to be a git working tree.
//!
//! The root may be a directory below the working tree's top: every call
//! then passes it to the store as the scope, so a step records only what
//! lies below the root (`git status` limited to it, a named path outside it
//! `path_escapes_root`) and a rewind reads and writes only below it.

use agent_checkpoint::{Error, RollbackOptions};
use agent_checkpoint_store::{ShadowLogQuery, ShadowStep, Store};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::{blocking, parse_args, tool_result, ToolOutput};
use crate::schema::{input_schema, output_schema};
use crate::server::{CheckpointServer, State};
use crate::tools::rollback::{
    plan_result, preview_options, rollback_result, PlanResult, RollbackResult,
};

/// Arguments of `shadow_step`. Empty strings and lists mean "not given".
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepArgs {
    /// The session (default: the server's session).
    #[serde(default)]
    pub session_id: String,
    /// Files the step changed or created, relative to the root (a directory
    /// stands for its files). The session's first step takes everything
    /// `git status` shows below the root and needs none.
    #[serde(default)]
    pub files: Vec<String>,
    /// Files the step deleted.
    #[serde(default)]
    pub deleted: Vec<String>,
    /// The step's message, one line (default: "Step").
    #[serde(default)]
    pub message: String,
}

/// Result of `shadow_step`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StepOutcome {
    /// The step's commit (the previous tip when skipped).
    pub commit: String,
    /// The shadow branch.
    pub branch: String,
    /// Whether nothing changed since the last step (no commit made).
    pub skipped: bool,
    /// Named paths left out because git ignores them.
    pub left_out: Vec<String>,
    /// Files git does not track yet left out for their size (over 100
    /// MiB: datasets, build output), never read.
    pub too_large: Vec<LargeFile>,
}

/// A file a step left out for its size.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LargeFile {
    /// The path, relative to the root.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
}

impl ToolOutput for StepOutcome {
    fn summary(&self) -> String {
        if self.skipped {
            format!(
                "Nothing changed since the last step on {}; no commit made.",
                self.branch
            )
        } else {
            format!(
                "Recorded step {} on {}; shadow_rewind can bring the tree back to it.",
                self.commit, self.branch
            )
        }
    }
}

/// Arguments of `shadow_log`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LogArgs {
    /// Only this session's steps (default: the server's session; "*" for all).
    #[serde(default)]
    pub session_id: String,
    /// At most this many steps, newest first.
    #[serde(default = "twenty")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: usize,
}

fn twenty() -> usize {
    20
}

/// One step of a shadow branch.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct StepEntry {
    /// The step's commit.
    pub commit: String,
    /// The first line of its message.
    pub message: String,
    /// Its session.
    pub session_id: String,
    /// When it was recorded (RFC 3339).
    pub time: String,
}

/// Result of `shadow_log`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LogOutcome {
    /// The steps, newest first.
    pub steps: Vec<StepEntry>,
}

impl ToolOutput for LogOutcome {
    fn summary(&self) -> String {
        let mut text = format!("{} step(s), newest first.", self.steps.len());
        for s in &self.steps {
            text.push_str(&format!("\n{} {} {}", s.commit, s.time, s.message));
        }
        text
    }
}

/// Arguments of `shadow_rewind_plan` and `shadow_rewind`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RewindArgs {
    /// The step's commit (from `shadow_log` or `shadow_step`).
    pub commit: String,
}

/// The root's directory relative to the top of the working tree (`""`
/// when it is the top), `/`-separated: the scope of every shadow call.
fn scope(state: &State, store: &Store) -> Result<String, Error> {
    let outside = || Error::NotARepository {
        path: state.root_dir.display().to_string(),
        reason: "the server's root is not inside the repository's working tree".into(),
    };
    let workdir = store.work_dir().ok_or_else(outside)?;
    let workdir = std::fs::canonicalize(&workdir).unwrap_or(workdir);
    let inside = state
        .root_dir
        .strip_prefix(&workdir)
        .map_err(|_| outside())?;
    let mut parts = Vec::new();
    for component in inside.components() {
        match component {
            std::path::Component::Normal(name) => {
                parts.push(name.to_str().ok_or_else(|| {
                    Error::invalid_path(inside.display().to_string(), "not UTF-8")
                })?)
            }
            _ => return Err(outside()),
        }
    }
    Ok(parts.join("/"))
}

fn step(state: &State, args: StepArgs) -> Result<StepOutcome, Error> {
    let store = state.keeper.store()?;
    let scope = scope(state, store)?;
    let session = match args.session_id.as_str() {
        "" => state.session_id.clone(),
        id => id.to_owned(),
    };
    let message = match args.message.as_str() {
        "" => "Step".to_owned(),
        m => m.to_owned(),
    };
    let step = ShadowStep::new(session)
        .files(args.files)
        .deleted(args.deleted)
        .message(message)
        .scope(scope);
    let done = store.shadow_step(&step)?;
    Ok(StepOutcome {
        commit: done.commit,
        branch: done.branch,
        skipped: done.skipped,
        left_out: done.left_out,
        too_large: done
            .too_large
            .into_iter()
            .map(|f| LargeFile {
                path: f.path,
                size: f.size,
            })
            .collect(),
    })
}

fn log(state: &State, args: LogArgs) -> Result<LogOutcome, Error> {
    if !(1..=1000).contains(&args.limit) {
        return Err(Error::invalid_argument("limit", "must be 1 to 1000"));
    }
    let store = state.keeper.store()?;
    let mut query = ShadowLogQuery::new().limit(args.limit);
    match args.session_id.as_str() {
        "*" => {}
        "" => query = query.session(state.session_id.clone()),
        id => query = query.session(id),
    }
    let steps = store
        .shadow_log(&query)?
        .into_iter()
        .map(|s| StepEntry {
            commit: s.commit,
            message: s.message,
            session_id: s.session_id,
            time: s.timestamp.to_string(),
        })
        .collect();
    Ok(LogOutcome { steps })
}

fn rewind_plan(state: &State, args: RewindArgs) -> Result<PlanResult, Error> {
    let store = state.keeper.store()?;
    let plan = store.shadow_rewind_plan_scoped(
        &args.commit,
        &scope(state, store)?,
        &state.root_dir,
        &preview_options(true),
    )?;
    Ok(plan_result(args.commit, plan))
}

fn rewind(state: &State, args: RewindArgs) -> Result<RollbackResult, Error> {
    // One call holding files at a time: the redo holds up to the limit.
    let _holding = state.within_the_limit();
    let store = state.keeper.store()?;
    let report = store.shadow_rewind_scoped(
        &args.commit,
        &scope(state, store)?,
        &state.root_dir,
        // Each file of the redo within the per-call limit (the paths are
        // the store's to find, so the total is not judged here).
        &RollbackOptions::default().with_max_file_bytes(
            state
                .max_capture_bytes
                .min(agent_checkpoint::DEFAULT_MAX_FILE_BYTES),
        ),
    )?;
    rollback_result(state, args.commit, report)
}

#[tool_router(router = shadow_tools, vis = "pub(crate)")]
impl CheckpointServer {
    #[tool(
        name = "shadow_step",
        description = "Record the working tree as one commit on the session's shadow branch (a local git branch, never pushed), after each step of edits, so the session can go back to any step. Pass the files the step changed or created and the ones it deleted. Needs the root to be a git working tree; files git ignores are never recorded.",
        input_schema = input_schema::<StepArgs>(),
        output_schema = output_schema::<StepOutcome>(),
        annotations(
            title = "Record a step",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn shadow_step(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(blocking(move || step(&state, parse_args(arguments)?)).await)
    }

    #[tool(
        name = "shadow_log",
        description = "List the steps recorded on the shadow branch, newest first, with their commits and messages (the session's steps by default).",
        input_schema = input_schema::<LogArgs>(),
        output_schema = output_schema::<LogOutcome>(),
        annotations(title = "List steps", read_only_hint = true, open_world_hint = false)
    )]
    async fn shadow_log(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(blocking(move || log(&state, parse_args(arguments)?)).await)
    }

    #[tool(
        name = "shadow_rewind_plan",
        description = "Preview going back to a recorded step: path by path what shadow_rewind would write or remove, with a unified diff of each change, changing nothing.",
        input_schema = input_schema::<RewindArgs>(),
        output_schema = output_schema::<PlanResult>(),
        annotations(title = "Preview a rewind", read_only_hint = true, open_world_hint = false)
    )]
    async fn shadow_rewind_plan(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(blocking(move || rewind_plan(&state, parse_args(arguments)?)).await)
    }

    #[tool(
        name = "shadow_rewind",
        description = "Bring the working tree back to a recorded step: the files the session touched come back as they were then (atomically per file); files it created later are removed; untracked and ignored files are never touched. The state before is kept as a redo checkpoint.",
        input_schema = input_schema::<RewindArgs>(),
        output_schema = output_schema::<RollbackResult>(),
        annotations(
            title = "Rewind to a step",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn shadow_rewind(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(blocking(move || rewind(&state, parse_args(arguments)?)).await)
    }
}
