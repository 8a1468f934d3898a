//! `save_session`: write an agent session (prompts, transcript, metadata)
//! into a checkpoint of the git store, redacted by the store's default
//! redactor before anything becomes a blob.

use agent_checkpoint::Error;
use agent_checkpoint_naming::id::new_ulid;
use agent_checkpoint_store::{SessionWrite, Store};
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::outcome::{blocking, parse_args, tool_result, ToolOutput};
use crate::schema::{input_schema, output_schema};
use crate::server::{CheckpointServer, State};

/// The fields of a session write that have their own argument.
const OWN_ARGUMENTS: [&str; 8] = [
    "checkpoint_id",
    "session_id",
    "prompts",
    "transcript",
    "agent",
    "model",
    "files_touched",
    "snapshot",
];

/// Arguments of `save_session`. Empty strings and lists mean "not given".
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SaveSessionArgs {
    /// The checkpoint to write into, e.g. the one `capture_checkpoint`
    /// returned (default: a new checkpoint).
    #[serde(default)]
    pub checkpoint_id: String,
    /// The session (default: the server's session). Saving the same session
    /// again replaces it.
    #[serde(default)]
    pub session_id: String,
    /// The user's prompts, in order.
    #[serde(default)]
    pub prompts: Vec<String>,
    /// The session transcript (JSONL text).
    #[serde(default)]
    pub transcript: String,
    /// The agent's name, e.g. "Claude Code" (default: the one the capture recorded).
    #[serde(default)]
    pub agent: String,
    /// The model's name.
    #[serde(default)]
    pub model: String,
    /// Files the session touched (default: the paths the checkpoint captured).
    #[serde(default)]
    pub files_touched: Vec<String>,
    /// Further session metadata, by the store's field names: `branch`,
    /// `turn_id`, `token_usage` {input_tokens, output_tokens, ...},
    /// `summary` {intent, outcome, ...}, `created_at` (RFC 3339), `kind`, ...
    #[serde(default)]
    pub metadata: JsonObject,
}

/// Result of `save_session`.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct SaveSessionResult {
    /// The checkpoint written.
    pub checkpoint_id: String,
    /// The session written.
    pub session_id: String,
    /// The session's slot in the checkpoint (0-based).
    pub session_index: usize,
    /// The git ref of the checkpoint.
    pub ref_name: String,
    /// The new commit.
    pub commit: String,
}

impl ToolOutput for SaveSessionResult {
    fn summary(&self) -> String {
        format!(
            "Saved session {} into checkpoint {} (slot {}, {}); prompts and transcript were redacted before storage.",
            self.session_id, self.checkpoint_id, self.session_index, self.ref_name
        )
    }
}

/// What the same session already holds in checkpoint `id`, if anything.
fn existing_session(
    store: &Store,
    id: &str,
    session_id: &str,
) -> Result<Option<agent_checkpoint_store::Metadata>, Error> {
    let summary = match store.read(id) {
        Ok(summary) => summary,
        Err(e) if e.code() == agent_checkpoint::ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    for slot in 0..summary.sessions.as_ref().map_or(0, Vec::len) {
        let meta = store.read_session_metadata(id, slot)?;
        if meta.session_id == session_id {
            return Ok(Some(meta));
        }
    }
    Ok(None)
}

fn save(state: &State, args: SaveSessionArgs) -> Result<SaveSessionResult, Error> {
    let store = state.keeper.store()?;
    let checkpoint_id = match args.checkpoint_id.as_str() {
        "" => new_ulid(None)?.into_string(),
        id => id.to_owned(),
    };
    let session_id = match args.session_id.as_str() {
        "" => state.session_id.clone(),
        id => id.to_owned(),
    };
    let mut fields = args.metadata;
    if let Some(own) = OWN_ARGUMENTS.iter().find(|k| fields.contains_key(**k)) {
        return Err(Error::invalid_argument(
            "metadata",
            format!("{own:?} is not a metadata field here: give it as its own argument (snapshots are the server's)"),
        ));
    }
    fields.insert("checkpoint_id".into(), Value::from(checkpoint_id.clone()));
    fields.insert("session_id".into(), Value::from(session_id.clone()));
    let mut write = SessionWrite::from_json(&Value::Object(fields).to_string())?;
    agent_checkpoint_naming::id::validate_checkpoint_id(&checkpoint_id)?;
    agent_checkpoint_store::validate_segment_id("session_id", &session_id)?;
    // Another root's checkpoint is never written (nor said to exist).
    state.keeper.claim(&checkpoint_id)?;
    // Saving a session the server captured keeps what the capture wrote.
    let before = existing_session(store, &checkpoint_id, &session_id)?;
    let given = |s: String| (!s.is_empty()).then_some(s);
    write.prompts = args.prompts;
    write.transcript = given(args.transcript).map(String::into_bytes);
    write.agent = given(args.agent)
        .or_else(|| before.as_ref().map(|m| m.agent.clone()))
        .unwrap_or_default();
    write.model = given(args.model)
        .or_else(|| before.as_ref().map(|m| m.model.clone()))
        .unwrap_or_default();
    write.files_touched = (!args.files_touched.is_empty())
        .then_some(args.files_touched)
        .or_else(|| before.as_ref().and_then(|m| m.files_touched.clone()));
    if before
        .as_ref()
        .is_some_and(|m| !m.snapshot_sha256.is_empty())
    {
        write.snapshot = store.snapshot(&checkpoint_id)?;
    }
    let written = store.write_session(&write)?;
    Ok(SaveSessionResult {
        checkpoint_id,
        session_id,
        session_index: written.session_index,
        ref_name: written.ref_name,
        commit: written.commit,
    })
}

#[tool_router(router = session_tools, vis = "pub(crate)")]
impl CheckpointServer {
    #[tool(
        name = "save_session",
        description = "Record the agent session behind a checkpoint in the project's git store: prompts, transcript (JSONL) and metadata, with secrets redacted before storage. Call it at the end of a turn with the checkpoint_id from capture_checkpoint. Needs the project root to be in a git repository.",
        input_schema = input_schema::<SaveSessionArgs>(),
        output_schema = output_schema::<SaveSessionResult>(),
        annotations(
            title = "Save a session",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn save_session(&self, arguments: JsonObject) -> CallToolResult {
        let state = self.state.clone();
        tool_result(
            blocking(move || {
                let args: SaveSessionArgs = parse_args(arguments)?;
                save(&state, args)
            })
            .await,
        )
    }
}
