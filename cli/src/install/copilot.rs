//! GitHub Copilot CLI's hooks: a file of our own,
//! `.github/hooks/agent-checkpoint.json` (project; Copilot CLI loads every
//! `.github/hooks/*.json`) or `~/.copilot/hooks/agent-checkpoint.json`
//! (user; `$COPILOT_HOME/hooks/` when that is set), holding
//! `{"version": 1, "hooks": {"<event>": [{"type": "command", "bash",
//! "powershell", "timeoutSec"}]}}`: each event a list of handlers.
//! `uninstall` deletes the file once our hooks are gone from it (whatever
//! else a user added to it is kept, and then so is the file).
//!
//! Reference: <https://docs.github.com/en/copilot/reference/hooks-reference>.
//!
//! Our hook is registered for the events of [`crate::hook::hook_events`]
//! under Copilot's names, each running `agent-checkpoint hook copilot`
//! (through `bash` on Unix and `powershell` on Windows) with no further
//! argument and no matcher (Copilot filters by tool name only for some
//! events; the hook ignores tools that change no file). Which payload
//! Copilot sends depends on how the event is spelled: a camelCase name
//! (`preToolUse`) gets camelCase fields and no event name on stdin, a
//! PascalCase one (`PreToolUse`) gets `hook_event_name` and snake_case
//! fields, as Claude Code's do; the table uses the PascalCase names, so
//! every payload names its event.

use std::path::PathBuf;

use agent_checkpoint::Error;
use jsonc_parser::cst::CstInputValue;

use super::hook_format::HookFormat;
use super::json_config::{object, Dialect, Shape};
use super::places::{Places, Scope};
use crate::hook::{hook_command_line, Agent, HookEvent, HOOK_TIMEOUT_SECONDS};

/// Copilot CLI's configuration format.
pub(crate) const FORMAT: HookFormat = HookFormat {
    agent: Agent::Copilot,
    dialect: Dialect::Json,
    shape: Shape::Flat,
    entry,
    required_member: Some(("version", 1)),
    switch: None,
    file_is_ours: true,
};

fn entry(event: &HookEvent) -> CstInputValue {
    let command = hook_command_line(Agent::Copilot);
    let mut members = vec![
        ("type", CstInputValue::from("command")),
        ("bash", command.clone().into()),
        ("powershell", command.into()),
    ];
    if let Some(matcher) = event.matcher {
        members.push(("matcher", matcher.into()));
    }
    members.push(("timeoutSec", HOOK_TIMEOUT_SECONDS.into()));
    object(members)
}

/// Our hooks file of `scope`.
pub(crate) fn config_path(scope: Scope, places: &Places) -> Result<PathBuf, Error> {
    let dir = match scope {
        Scope::Project => places.project.join(".github").join("hooks"),
        Scope::User => places.agent_home("COPILOT_HOME", ".copilot")?.join("hooks"),
    };
    Ok(dir.join("agent-checkpoint.json"))
}
