//! An MCP (Model Context Protocol) server for agent-checkpoint: any agent
//! that speaks MCP gets checkpoints, rollback, the git store and redaction
//! by adding one server to its configuration:
//!
//! ```json
//! {"command": "agent-checkpoint", "args": ["mcp", "--root", "."]}
//! ```
//!
//! Built on the official Rust SDK (`rmcp`), served over stdio
//! (newline-delimited JSON-RPC; stdout carries protocol messages only, logs
//! go to stderr). The root is the core's capability root: every path
//! argument is confined to it exactly as in the library, and a path that
//! escapes is a tool error with the code `path_escapes_root`.
//!
//! Tools: `capture_checkpoint`, `plan_rollback`, `rollback_checkpoint`,
//! `record_applied`, `inspect_checkpoint`, `list_checkpoints`, `save_session`, `redact_text`,
//! `shadow_step`, `shadow_log`, `shadow_rewind_plan`, `shadow_rewind`.
//! Resources: `checkpoint://<id>`. Snapshots live in the git store's
//! local-only snapshot refs when the root is inside a git repository, else
//! in memory for the server's life. A failed tool call is a result with
//! `isError: true` and `{"error": {"code", "category", "message", "path"}}`
//! as its structured content; malformed JSON-RPC gets a JSON-RPC error; a
//! message over [`DEFAULT_MAX_MESSAGE_BYTES`] is dropped unread and
//! answered with an error, and so is one nested deeper than [`MAX_DEPTH`]
//! levels (with its `id`). Nothing a client sends ends the server but the
//! end of its input.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod budget;
mod framing;
mod keeper;
mod outcome;
mod records;
mod resources;
mod schema;
mod server;
mod tools;
mod transport;

use std::path::Path;

use agent_checkpoint::{Error, Result};
use rmcp::ServiceExt as _;
use tokio::io::{AsyncRead, AsyncWrite};

#[doc(hidden)]
pub use framing::{screen_forwards, screen_line};
pub use framing::{DEFAULT_MAX_MESSAGE_BYTES, MAX_DEPTH};
pub use server::{CheckpointServer, ServerOptions, DEFAULT_MAX_CAPTURE_BYTES};

/// Serves `server` on `input` / `output` (newline-delimited JSON-RPC)
/// until the input ends. Messages over `max_message_bytes` are dropped
/// unread and answered with an error.
///
/// # Errors
/// An I/O error only when the transport itself fails; a client that goes
/// away before or during the session is a normal end.
pub async fn serve<R, W>(
    server: CheckpointServer,
    input: R,
    output: W,
    max_message_bytes: usize,
) -> Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let transport = framing::screened(input, output, max_message_bytes);
    match server.serve(transport).await {
        Ok(running) => {
            running
                .waiting()
                .await
                .map_err(|e| Error::io("<mcp>", std::io::Error::other(e.to_string())))?;
            Ok(())
        }
        Err(e) => {
            // The client left (or never initialised): nothing to serve.
            eprintln!("agent-checkpoint mcp: session not started: {e}");
            Ok(())
        }
    }
}

/// Opens `root` and serves it on this process's stdin / stdout until
/// stdin ends (what `agent-checkpoint mcp --root DIR` runs). One line on
/// stderr says what is served and where checkpoints are kept.
///
/// # Errors
/// An I/O error when `root` cannot be opened or the runtime cannot start.
pub fn serve_stdio(root: impl AsRef<Path>, options: &ServerOptions) -> Result<()> {
    let server = CheckpointServer::open(root, options)?;
    eprintln!(
        "agent-checkpoint mcp: serving {} (checkpoints kept in {}; messages up to {} bytes)",
        server.root().display(),
        server.storage(),
        options.max_message_bytes
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("<runtime>", e))?;
    runtime.block_on(serve(
        server,
        tokio::io::stdin(),
        tokio::io::stdout(),
        options.max_message_bytes,
    ))
}
