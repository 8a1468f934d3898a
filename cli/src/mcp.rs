//! `agent-checkpoint mcp`: serve the root over the Model Context Protocol
//! on stdin / stdout (see the `agent-checkpoint-mcp` crate).

use std::path::PathBuf;
use std::process::ExitCode;

use agent_checkpoint::Error;
use agent_checkpoint_mcp::{ServerOptions, DEFAULT_MAX_MESSAGE_BYTES};

/// The arguments of `mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The project root: the only directory the server touches (default: the current directory).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// The largest message read from the client, in bytes; longer ones are dropped and answered with an error.
    #[arg(long, default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    max_message_bytes: usize,
    /// The session ID recorded with checkpoints when a call names none (default: mcp-<new ULID>).
    #[arg(long)]
    session_id: Option<String>,
}

/// `mcp`: serves until stdin ends. Stdout carries protocol messages only.
pub fn run(args: McpArgs) -> Result<ExitCode, Error> {
    let options = ServerOptions::default()
        .with_max_message_bytes(args.max_message_bytes)
        .with_session_id(args.session_id);
    agent_checkpoint_mcp::serve_stdio(&args.root, &options)?;
    Ok(ExitCode::SUCCESS)
}
