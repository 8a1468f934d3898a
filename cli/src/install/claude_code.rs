//! Claude Code's hooks: `hooks.<Event>` in `.claude/settings.json` (project)
//! or `~/.claude/settings.json` (user; `$CLAUDE_CONFIG_DIR/settings.json`
//! when that is set), each event a list of groups
//! `{"matcher", "hooks": [{"type": "command", "command", "timeout"}]}`,
//! the timeout in seconds.
//!
//! Reference: <https://docs.claude.com/en/docs/claude-code/hooks>.
//!
//! Our hook is registered for `SessionStart`, `UserPromptSubmit`,
//! `PreToolUse` and `PostToolUse` (matcher `Edit|Write|MultiEdit|NotebookEdit|Bash`),
//! `Stop` and `SessionEnd`, each running `agent-checkpoint hook claude-code`
//! with no further argument: every event's stdin JSON names it in
//! `hook_event_name`.

use std::path::PathBuf;

use agent_checkpoint::Error;
use jsonc_parser::cst::CstInputValue;

use super::hook_format::{command_handler, group, HookFormat};
use super::json_config::{Dialect, Shape};
use super::places::{Places, Scope};
use crate::hook::{Agent, HookEvent, HOOK_TIMEOUT_SECONDS};

/// Claude Code's configuration format.
pub(crate) const FORMAT: HookFormat = HookFormat {
    agent: Agent::ClaudeCode,
    dialect: Dialect::Json,
    shape: Shape::Grouped,
    entry,
    required_member: None,
    switch: None,
    file_is_ours: false,
};

fn entry(event: &HookEvent) -> CstInputValue {
    group(
        event,
        command_handler(Agent::ClaudeCode, HOOK_TIMEOUT_SECONDS),
    )
}

/// The settings file of `scope`.
pub(crate) fn config_path(scope: Scope, places: &Places) -> Result<PathBuf, Error> {
    Ok(match scope {
        Scope::Project => places.project.join(".claude").join("settings.json"),
        Scope::User => places
            .agent_home("CLAUDE_CONFIG_DIR", ".claude")?
            .join("settings.json"),
    })
}
