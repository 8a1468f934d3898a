//! The agents' formats and configuration paths, by agent.

use std::path::PathBuf;

use agent_checkpoint::Error;

use super::hook_format::HookFormat;
use super::places::{Places, Scope};
use super::{claude_code, codex, copilot, cursor, gemini};
use crate::hook::Agent;

/// `agent`'s configuration format.
pub(crate) fn format_of(agent: Agent) -> HookFormat {
    match agent {
        Agent::ClaudeCode => claude_code::FORMAT,
        Agent::Codex => codex::FORMAT,
        Agent::Gemini => gemini::FORMAT,
        Agent::Copilot => copilot::FORMAT,
        Agent::Cursor => cursor::FORMAT,
    }
}

/// The file `agent`'s hooks are written to for `scope`.
pub(crate) fn config_path(agent: Agent, scope: Scope, places: &Places) -> Result<PathBuf, Error> {
    match agent {
        Agent::ClaudeCode => claude_code::config_path(scope, places),
        Agent::Codex => codex::config_path(scope, places),
        Agent::Gemini => gemini::config_path(scope, places),
        Agent::Copilot => copilot::config_path(scope, places),
        Agent::Cursor => cursor::config_path(scope, places),
    }
}
