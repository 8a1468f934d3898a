//! Cursor's hooks: `.cursor/hooks.json` (project) or `~/.cursor/hooks.json`
//! (user), `{"version": 1, "hooks": {"<event>": [{"command", "matcher"?,
//! "timeout"}]}}`: each event a list of handlers, the timeout in seconds.
//!
//! Reference: <https://cursor.com/docs/agent/hooks>.
//!
//! Our hook is registered for `sessionStart`, `beforeSubmitPrompt`,
//! `preToolUse` (matcher `Write|StrReplace|Edit|MultiEdit|Delete`, the file
//! tools), `afterFileEdit`, `beforeShellExecution`, `afterShellExecution`,
//! `stop` and `sessionEnd`, each running `agent-checkpoint hook cursor`
//! with no further argument: every event's stdin JSON names it in
//! `hook_event_name`.

use std::path::PathBuf;

use agent_checkpoint::Error;
use jsonc_parser::cst::CstInputValue;

use super::hook_format::HookFormat;
use super::json_config::{object, Dialect, Shape};
use super::places::{Places, Scope};
use crate::hook::{hook_command_line, Agent, HookEvent, HOOK_TIMEOUT_SECONDS};

/// Cursor's configuration format.
pub(crate) const FORMAT: HookFormat = HookFormat {
    agent: Agent::Cursor,
    dialect: Dialect::Json,
    shape: Shape::Flat,
    entry,
    required_member: Some(("version", 1)),
    switch: None,
    file_is_ours: false,
};

fn entry(event: &HookEvent) -> CstInputValue {
    let mut members = vec![(
        "command",
        CstInputValue::from(hook_command_line(Agent::Cursor)),
    )];
    if let Some(matcher) = event.matcher {
        members.push(("matcher", matcher.into()));
    }
    members.push(("timeout", HOOK_TIMEOUT_SECONDS.into()));
    object(members)
}

/// The hooks file of `scope`.
pub(crate) fn config_path(scope: Scope, places: &Places) -> Result<PathBuf, Error> {
    Ok(match scope {
        Scope::Project => places.project.join(".cursor").join("hooks.json"),
        Scope::User => places.home()?.join(".cursor").join("hooks.json"),
    })
}
