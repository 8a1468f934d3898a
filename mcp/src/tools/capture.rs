//! Tools that make and show checkpoints: `capture_checkpoint`,
//! `inspect_checkpoint`, `list_checkpoints`.

use agent_checkpoint::{CaptureOptions, CapturedKind, CapturedPath, Error, ParseOptions, Snapshot};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::keeper::CheckpointEntry;
use crate::outcome::{blocking, parse_args, tool_result, ToolOutput};
use crate::schema::{input_schema, output_schema};
use crate::server::{CheckpointServer, State};

/// The most checkpoints `list_checkpoints` returns at once.
const MAX_LIST: usize = 1000;

/// Arguments of `capture_checkpoint`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CaptureArgs {
    /// Every file the batch will create, modify or delete, relative to the
    /// project root (or absolute inside it). Files only, not directories;
    /// a path that does not exist yet is recorded as new (rollback removes it).
    pub paths: Vec<String>,
    /// The agent session this batch belongs to (default: the server's session).
    #[serde(default)]
    pub session_id: String,
    /// The agent's name, recorded with the checkpoint (e.g. "Claude Code").
    #[serde(default)]
    pub agent: String,
}

/// One captured path.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PathInfo {
    /// The canonical path, relative to the root.
    pub path: String,
    /// `file` (existed, bytes kept), `new` (did not exist) or `link` (a symlink).
    pub kind: String,
    /// Size of the kept bytes (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Permission bits (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// The link's target text (links only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_target: Option<String>,
    /// SHA-256 of the kept bytes, lowercase hex (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

impl From<CapturedPath> for PathInfo {
    fn from(p: CapturedPath) -> PathInfo {
        PathInfo {
            kind: p.kind.as_str().to_owned(),
            path: p.path,
            size: p.size,
            mode: p.mode,
            link_target: p.link_target,
            sha256: p.digest,
        }
    }
}

/// Result of `capture_checkpoint`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct CaptureResult {
    /// The new checkpoint: pass it to `plan_rollback` / `rollback_checkpoint`.
    pub checkpoint_id: String,
    /// Where the snapshot is kept: `git` (a local-only ref, survives a
    /// restart) or `memory` (for the server's life).
    pub storage: String,
    /// The local-only git ref holding the snapshot (git storage only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot_ref: Option<String>,
    /// The captured paths, canonical, sorted.
    pub paths: Vec<PathInfo>,
}

impl ToolOutput for CaptureResult {
    fn summary(&self) -> String {
        let count = |k: &str| self.paths.iter().filter(|p| p.kind == k).count();
        format!(
            "Captured {} path(s) ({} file(s), {} new, {} link(s)) as checkpoint {}, kept in {}.",
            self.paths.len(),
            count(CapturedKind::File.as_str()),
            count(CapturedKind::New.as_str()),
            count(CapturedKind::Link.as_str()),
            self.checkpoint_id,
            self.storage
        )
    }
}

/// Arguments of the tools that name one checkpoint.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckpointArgs {
    /// The checkpoint ID (from `capture_checkpoint` or `list_checkpoints`).
    pub checkpoint_id: String,
}

/// Result of `inspect_checkpoint` (and the text of a `checkpoint://` resource).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct InspectResult {
    /// The checkpoint.
    #[serde(flatten)]
    pub checkpoint: CheckpointEntry,
    /// Where it is kept: `git` or `memory`.
    pub storage: String,
    /// What its undo snapshot holds, one item per path (empty without a snapshot).
    pub paths: Vec<PathInfo>,
}

impl ToolOutput for InspectResult {
    fn summary(&self) -> String {
        format!(
            "Checkpoint {}: {} captured path(s){}.",
            self.checkpoint.checkpoint_id,
            self.paths.len(),
            if self.checkpoint.has_snapshot {
                ""
            } else {
                ", no undo snapshot (it cannot be rolled back to)"
            }
        )
    }
}

/// Arguments of `list_checkpoints`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListArgs {
    /// How many checkpoints to return, newest first (at most 1000).
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: u32,
}

fn default_limit() -> u32 {
    20
}

/// Result of `list_checkpoints`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ListResult {
    /// Where checkpoints are kept: `git` or `memory`.
    pub storage: String,
    /// How many checkpoints there are in all.
    pub total: usize,
    /// The newest ones, newest first.
    pub checkpoints: Vec<CheckpointEntry>,
}

impl ToolOutput for ListResult {
    fn summary(&self) -> String {
        format!(
            "{} checkpoint(s) in {}, showing {}.",
            self.total,
            self.storage,
            self.checkpoints.len()
        )
    }
}

/// Describes checkpoint `id` and what its snapshot holds.
pub(crate) fn inspect(state: &State, id: &str) -> Result<InspectResult, Error> {
    let checkpoint = state.keeper.describe(id)?;
    let paths = if checkpoint.has_snapshot {
        agent_checkpoint::inspect_snapshot(&state.keeper.snapshot(id)?)?
            .into_iter()
            .map(PathInfo::from)
            .collect()
    } else {
        Vec::new()
    };
    Ok(InspectResult {
        checkpoint,
        storage: state.keeper.storage().to_owned(),
        paths,
    })
}

fn capture(state: &State, args: CaptureArgs) -> Result<CaptureResult, Error> {
    if args.paths.is_empty() {
        return Err(Error::invalid_argument(
            "paths",
            "list at least one path the batch will touch",
        ));
    }
    let json = agent_checkpoint::capture(&state.root, &args.paths, &CaptureOptions::default())?;
    let snapshot = Snapshot::parse(json.as_str(), &ParseOptions::default())?;
    let session = if args.session_id.is_empty() {
        &state.session_id
    } else {
        &args.session_id
    };
    let stored = state
        .keeper
        .keep(json.as_str(), &snapshot.paths(), session, &args.agent)?;
    Ok(CaptureResult {
        checkpoint_id: stored.checkpoint_id,
        storage: state.keeper.storage().to_owned(),
        snapshot_ref: stored.snapshot_ref,
        paths: snapshot.inspect().into_iter().map(PathInfo::from).collect(),
    })
}

fn list(state: &State, args: ListArgs) -> Result<ListResult, Error> {
    let limit = args.limit as usize;
    if limit == 0 || limit > MAX_LIST {
        return Err(Error::invalid_argument(
            "limit",
            format!("{limit} is not between 1 and {MAX_LIST}"),
        ));
    }
    let (checkpoints, total) = state.keeper.list(limit, true)?;
    Ok(ListResult {
        storage: state.keeper.storage().to_owned(),
        total,
        checkpoints,
    })
}

#[tool_router(router = capture_tools, vis = "pub(crate)")]
impl CheckpointServer {
    #[tool(
        name = "capture_checkpoint",
        description = "Snapshot files BEFORE you edit them, so the edit can be undone exactly. Call it before every batch of file edits with all the paths the batch will create, modify or delete (files, relative to the project root). Returns a checkpoint_id for plan_rollback / rollback_checkpoint. Paths outside the project root are refused.",
        input_schema = input_schema::<CaptureArgs>(),
        output_schema = output_schema::<CaptureResult>(),
        annotations(
            title = "Capture a checkpoint",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn capture_checkpoint(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(
            blocking(move || {
                let args: CaptureArgs = parse_args(arguments)?;
                capture(&state, args)
            })
            .await,
        )
    }

    #[tool(
        name = "inspect_checkpoint",
        description = "Show what a checkpoint holds: each captured path (file, new or link; size, mode, sha256), its sessions and whether it can be rolled back to. Use it to check what a rollback would cover.",
        input_schema = input_schema::<CheckpointArgs>(),
        output_schema = output_schema::<InspectResult>(),
        annotations(
            title = "Inspect a checkpoint",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn inspect_checkpoint(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(
            blocking(move || {
                let args: CheckpointArgs = parse_args(arguments)?;
                inspect(&state, &args.checkpoint_id)
            })
            .await,
        )
    }

    #[tool(
        name = "list_checkpoints",
        description = "List this project's checkpoints, newest first (ID, time, agent, files, whether it can be rolled back to). Use it to find a checkpoint_id you no longer have.",
        input_schema = input_schema::<ListArgs>(),
        output_schema = output_schema::<ListResult>(),
        annotations(
            title = "List checkpoints",
            read_only_hint = true,
            open_world_hint = false
        )
    )]
    async fn list_checkpoints(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(
            blocking(move || {
                let args: ListArgs = parse_args(arguments)?;
                list(&state, args)
            })
            .await,
        )
    }
}
