//! `record_applied`: remember the state a batch left each captured path
//! in, so that a later rollback with `on_conflict: skip` can tell a
//! person's edits (made after the batch) from the batch's own.

use agent_checkpoint::{Error, ParseOptions, RecordOptions, Snapshot};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::Serialize;

use crate::outcome::{blocking, parse_args, tool_result, ToolOutput};
use crate::schema::{input_schema, output_schema};
use crate::server::{CheckpointServer, State};
use crate::tools::capture::CheckpointArgs;

/// Result of `record_applied`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RecordResult {
    /// The checkpoint.
    pub checkpoint_id: String,
    /// The paths whose post-batch state is now recorded, sorted.
    pub recorded: Vec<String>,
}

impl ToolOutput for RecordResult {
    fn summary(&self) -> String {
        format!(
            "Recorded the post-batch state of {} path(s) in checkpoint {}: a rollback with on_conflict=skip now leaves alone the ones changed since.",
            self.recorded.len(),
            self.checkpoint_id
        )
    }
}

fn record(state: &State, args: CheckpointArgs) -> Result<RecordResult, Error> {
    let id = args.checkpoint_id;
    let snapshot = Snapshot::parse(&state.keeper.snapshot(&id)?, &ParseOptions::default())?;
    let recorded =
        agent_checkpoint::record_applied(&state.root, &snapshot, &RecordOptions::default())?;
    state.keeper.replace_snapshot(&id, recorded.as_str())?;
    Ok(RecordResult {
        checkpoint_id: id,
        recorded: snapshot.paths(),
    })
}

#[tool_router(router = applied_tools, vis = "pub(crate)")]
impl CheckpointServer {
    #[tool(
        name = "record_applied",
        description = "Call right AFTER applying a batch you captured: records the state your edits left each captured path in, so that a later rollback_checkpoint with on_conflict=skip leaves alone files a person changed since. Optional; rollback works without it.",
        input_schema = input_schema::<CheckpointArgs>(),
        output_schema = output_schema::<RecordResult>(),
        annotations(
            title = "Record the batch as applied",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn record_applied(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(
            blocking(move || {
                let args: CheckpointArgs = parse_args(arguments)?;
                record(&state, args)
            })
            .await,
        )
    }
}
