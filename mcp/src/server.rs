//! [`CheckpointServer`]: the MCP server's state and its protocol handler
//! (tools, resources, server info).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, Error, Result};
use agent_checkpoint_naming::id::new_ulid;
use agent_checkpoint_redact::Redactor;
use rmcp::handler::server::tool::{ToolCallContext, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::framing::DEFAULT_MAX_MESSAGE_BYTES;
use crate::keeper::Keeper;
use crate::outcome::failure;
use crate::resources;

/// What the server tells a client about itself when it connects.
const INSTRUCTIONS: &str = "Checkpoints for file edits under one project root. \
Before a batch of edits, call capture_checkpoint with every path the batch will create, \
modify or delete; keep the checkpoint_id it returns. To undo the batch, call plan_rollback \
to preview, then rollback_checkpoint (right after a batch, record_applied lets a rollback with \
on_conflict=skip spare files a person changed since). list_checkpoints and inspect_checkpoint show what is \
kept; save_session records the prompts and transcript of the session (redacted) with a \
checkpoint in git; in a git working tree, shadow_step records each step of a session on a \
local shadow branch and shadow_rewind_plan / shadow_rewind go back to one; redact_text removes \
secrets from a text. Paths outside the root are refused.";

/// How the server runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// The largest message read from the client, in bytes (default
    /// [`DEFAULT_MAX_MESSAGE_BYTES`]); a longer one is dropped unread and
    /// answered with a JSON-RPC `-32600` error.
    pub max_message_bytes: usize,
    /// The session ID recorded with checkpoints when a tool call names
    /// none (default: `mcp-` and a new ULID per server start).
    pub session_id: Option<String>,
    /// The most bytes one `capture_checkpoint` call may capture, all its
    /// files together (default [`DEFAULT_MAX_CAPTURE_BYTES`]): checked
    /// from the files' sizes before any is read; a call over it is the
    /// tool error `too_large` and reads nothing.
    pub max_capture_bytes: u64,
}

/// The default [`ServerOptions::max_capture_bytes`]: 512 MiB per call.
pub const DEFAULT_MAX_CAPTURE_BYTES: u64 = 512 << 20;

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            session_id: None,
            max_capture_bytes: DEFAULT_MAX_CAPTURE_BYTES,
        }
    }
}

impl ServerOptions {
    /// Sets [`ServerOptions::max_message_bytes`].
    pub fn with_max_message_bytes(mut self, bytes: usize) -> ServerOptions {
        self.max_message_bytes = bytes;
        self
    }

    /// Sets [`ServerOptions::max_capture_bytes`].
    pub fn with_max_capture_bytes(mut self, bytes: u64) -> ServerOptions {
        self.max_capture_bytes = bytes;
        self
    }

    /// Sets [`ServerOptions::session_id`].
    pub fn with_session_id(mut self, session_id: Option<String>) -> ServerOptions {
        self.session_id = session_id;
        self
    }
}

/// What every tool call shares.
pub(crate) struct State {
    /// The root, as opened: the only directory any tool touches.
    pub root: CapRoot,
    /// The root's path (canonical when it can be resolved).
    pub root_dir: PathBuf,
    /// Where snapshots are kept.
    pub keeper: Keeper,
    /// The session ID used when a call names none.
    pub session_id: String,
    /// The store's default redactor, for `redact_text`.
    pub redactor: Redactor,
    /// [`ServerOptions::max_capture_bytes`].
    pub max_capture_bytes: u64,
    /// Held by every call that holds files within `max_capture_bytes`
    /// (see [`State::within_the_limit`]).
    pub holding_files: Mutex<()>,
}

impl State {
    /// Waits until no other call holds files within `max_capture_bytes`
    /// (a capture, a rollback and its redo, a rewind and its redo), and
    /// holds that until the guard is dropped: the SDK runs each request as
    /// a task of its own, so without it calls sent together would hold the
    /// limit each, many times over in all.
    pub fn within_the_limit(&self) -> MutexGuard<'_, ()> {
        // A call that panicked held nothing past its end.
        self.holding_files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// An MCP server for one root directory: the tools (capture, plan,
/// rollback, record applied, inspect, list, save a session, redact, shadow
/// step, log and rewind) and the
/// `checkpoint://<id>` resources. Serve it with [`crate::serve`].
#[derive(Clone)]
pub struct CheckpointServer {
    pub(crate) state: Arc<State>,
    tools: ToolRouter<CheckpointServer>,
}

impl std::fmt::Debug for CheckpointServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointServer")
            .field("root", &self.state.root_dir)
            .field("storage", &self.state.keeper.storage())
            .finish_non_exhaustive()
    }
}

impl CheckpointServer {
    /// Opens `root` (the one place ambient authority is used): checkpoints
    /// go to the git store when `root` is inside a repository with a
    /// working tree, else to memory.
    ///
    /// # Errors
    /// An I/O error when `root` cannot be opened as a directory;
    /// `invalid_argument` for an unusable session ID.
    pub fn open(root: impl AsRef<Path>, options: &ServerOptions) -> Result<CheckpointServer> {
        let root = root.as_ref();
        let cap = CapRoot::open(root, ambient_authority())?;
        let root_dir = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let session_id = match &options.session_id {
            Some(id) => {
                agent_checkpoint_store::validate_segment_id("session_id", id)?;
                id.clone()
            }
            None => format!("mcp-{}", new_ulid(None)?.as_str()),
        };
        Ok(CheckpointServer {
            state: Arc::new(State {
                root: cap,
                keeper: Keeper::open(&root_dir),
                root_dir,
                session_id,
                redactor: Redactor::default(),
                max_capture_bytes: options.max_capture_bytes,
                holding_files: Mutex::new(()),
            }),
            tools: crate::tools::all(),
        })
    }

    /// Where checkpoints are kept: `git` or `memory`.
    pub fn storage(&self) -> &'static str {
        self.state.keeper.storage()
    }

    /// The root directory the server serves.
    pub fn root(&self) -> &Path {
        &self.state.root_dir
    }

    /// The tool list as `tools/list` returns it (name, description,
    /// input and output schema, annotations), as JSON.
    pub fn tool_list_json(&self) -> serde_json::Value {
        serde_json::to_value(self.tools.list_all()).unwrap_or_default()
    }

    fn tool_names(&self) -> Vec<String> {
        self.tools
            .list_all()
            .into_iter()
            .map(|t: Tool| t.name.into_owned())
            .collect()
    }
}

impl ServerHandler for CheckpointServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new(
            "agent-checkpoint",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(INSTRUCTIONS.to_owned())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.list_all()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        if !self.tools.has_route(&request.name) {
            // A tool error, not a protocol error: the model reads it (and
            // the list of tools) and can pick the right one.
            let mut result = failure(&Error::NotFound {
                what: format!("tool {:?}", request.name),
            });
            result.content.push(ContentBlock::text(format!(
                "The tools are: {}.",
                self.tool_names().join(", ")
            )));
            return Ok(result.into());
        }
        let call = ToolCallContext::new(self, request, context);
        self.tools.call(call).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        resources::list(self).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            resources::template(),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        resources::read(self, &request.uri).await.map(Into::into)
    }
}
