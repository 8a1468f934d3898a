//! What differs between the agents' hook configurations, as data: the
//! file's dialect and shape, our entry for one event, and what else the
//! file must say for the agent to run hooks at all. Each agent's module
//! (`claude_code`, `codex`, `gemini`, `copilot`, `cursor`) gives one
//! [`HookFormat`] and the path of its file for a scope.

use jsonc_parser::cst::CstInputValue;
use serde_json::Value;

use super::json_config::{object, to_value, Dialect, Shape};
use crate::hook::{hook_command_line, hook_events, Agent, HookEvent};

/// How one agent's hook configuration file is written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookFormat {
    /// The agent.
    pub agent: Agent,
    /// What the file may contain beyond JSON.
    pub dialect: Dialect,
    /// How hooks are laid out under `hooks`.
    pub shape: Shape,
    /// Our entry for one event: a group (with our one handler) or a handler.
    pub entry: fn(&HookEvent) -> CstInputValue,
    /// A top-level member the file must have, written when absent (Cursor's
    /// and Copilot's `"version": 1`).
    pub required_member: Option<(&'static str, u32)>,
    /// A switch of the same file that must be `true` for the agent to run
    /// any hook: `(object, key)` (Gemini CLI's `hooksConfig.enabled`).
    pub switch: Option<(&'static str, &'static str)>,
    /// The file holds our hooks only (Copilot's `agent-checkpoint.json`):
    /// `uninstall` deletes it once they are gone.
    pub file_is_ours: bool,
}

impl HookFormat {
    /// What `install` writes: each event's name with our entry for it.
    pub(crate) fn entries(&self) -> Vec<(&'static str, CstInputValue)> {
        hook_events(self.agent)
            .iter()
            .map(|event| (event.name, (self.entry)(event)))
            .collect()
    }

    /// [`HookFormat::entries`] as JSON values, to compare with a file's.
    pub(crate) fn expected(&self) -> Vec<(String, Value)> {
        self.entries()
            .iter()
            .map(|(event, entry)| ((*event).to_owned(), to_value(entry)))
            .collect()
    }
}

/// A group `{"matcher"?, "hooks": [handler]}` (Claude Code, Codex, Gemini).
pub(crate) fn group(event: &HookEvent, handler: CstInputValue) -> CstInputValue {
    let mut members = Vec::new();
    if let Some(matcher) = event.matcher {
        members.push(("matcher", CstInputValue::from(matcher)));
    }
    members.push(("hooks", CstInputValue::Array(vec![handler])));
    object(members)
}

/// The handler Claude Code and Codex share: `{"type": "command",
/// "command": "agent-checkpoint hook <agent>", "timeout": <seconds>}`.
pub(crate) fn command_handler(agent: Agent, timeout_seconds: u32) -> CstInputValue {
    object(vec![
        ("type", "command".into()),
        ("command", hook_command_line(agent).into()),
        ("timeout", timeout_seconds.into()),
    ])
}
