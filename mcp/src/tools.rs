//! The tool registry: one router per family of tools, added up here.
//!
//! A family is one file under `tools/` holding an
//! `#[tool_router(router = <name>, vis = "pub(crate)")] impl CheckpointServer`
//! block with its `#[tool]` methods and their argument and result types.
//! Adding a family is
//! that file, its `mod` line and one more `+` below; the golden tool list
//! (`mcp/tests/golden/tools.json`) then shows the new tools as a diff.

mod applied;
mod capture;
mod redaction;
mod rollback;
mod session;
mod shadow;

pub(crate) use capture::inspect;

use rmcp::handler::server::tool::ToolRouter;

use crate::server::CheckpointServer;

/// Every tool the server offers.
pub(crate) fn all() -> ToolRouter<CheckpointServer> {
    CheckpointServer::capture_tools()
        + CheckpointServer::rollback_tools()
        + CheckpointServer::applied_tools()
        + CheckpointServer::session_tools()
        + CheckpointServer::shadow_tools()
        + CheckpointServer::redaction_tools()
}
