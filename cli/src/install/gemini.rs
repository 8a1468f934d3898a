//! Gemini CLI's hooks: `hooks.<Event>` in `.gemini/settings.json` (project)
//! or `~/.gemini/settings.json` (user), groups of `{"matcher", "hooks":
//! [{"name", "type": "command", "command", "timeout"}]}`, the timeout in
//! milliseconds, and `hooksConfig.enabled: true`, without which Gemini CLI
//! runs no hook. The file may hold comments (Gemini CLI strips them before
//! parsing): they are kept.
//!
//! Reference: <https://geminicli.com/docs/hooks/reference> and
//! <https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/index.md>.
//!
//! Our hook is registered for `SessionStart`, `BeforeAgent` (the prompt),
//! `BeforeTool` and `AfterTool` (matcher `write_file|replace|run_shell_command`),
//! `AfterAgent` (end of turn) and `SessionEnd`, each running
//! `agent-checkpoint hook gemini` with no further argument: every event's
//! stdin JSON names it in `hook_event_name`. Each handler is named
//! `agent-checkpoint-<Event>`, for `/hooks disable`.

use std::path::PathBuf;

use agent_checkpoint::Error;
use jsonc_parser::cst::CstInputValue;

use super::hook_format::{group, HookFormat};
use super::json_config::{object, Dialect, Shape};
use super::places::{Places, Scope};
use crate::hook::{hook_command_line, Agent, HookEvent, HOOK_TIMEOUT_SECONDS};

/// Gemini CLI's configuration format.
pub(crate) const FORMAT: HookFormat = HookFormat {
    agent: Agent::Gemini,
    dialect: Dialect::JsonWithComments,
    shape: Shape::Grouped,
    entry,
    required_member: None,
    switch: Some(("hooksConfig", "enabled")),
    file_is_ours: false,
};

fn entry(event: &HookEvent) -> CstInputValue {
    let handler = object(vec![
        ("name", format!("agent-checkpoint-{}", event.name).into()),
        ("type", "command".into()),
        ("command", hook_command_line(Agent::Gemini).into()),
        ("timeout", (u64::from(HOOK_TIMEOUT_SECONDS) * 1000).into()),
    ]);
    group(event, handler)
}

/// The settings file of `scope`.
pub(crate) fn config_path(scope: Scope, places: &Places) -> Result<PathBuf, Error> {
    Ok(match scope {
        Scope::Project => places.project.join(".gemini").join("settings.json"),
        Scope::User => places.home()?.join(".gemini").join("settings.json"),
    })
}
