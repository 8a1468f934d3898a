//! Codex's hooks: `hooks.<Event>` in `.codex/hooks.json` (project) or
//! `~/.codex/hooks.json` (user; `$CODEX_HOME/hooks.json` when that is set),
//! the same shape as Claude Code's (groups of `{"type": "command",
//! "command", "timeout"}`, the timeout in seconds), and the feature flag
//! `[features] codex_hooks = true` in the `config.toml` beside it (see
//! [`super::codex_feature`]).
//!
//! Reference: <https://developers.openai.com/codex/hooks>.
//!
//! Our hook is registered for `SessionStart`, `UserPromptSubmit`,
//! `PreToolUse` and `PostToolUse` (matcher `apply_patch|Bash`) and `Stop`,
//! each running `agent-checkpoint hook codex` with no further argument:
//! every event's stdin JSON names it in `hook_event_name`. Codex runs a new
//! or changed hook only once the user has trusted it (`/hooks` in Codex);
//! `install` says so.

use std::path::{Path, PathBuf};

use agent_checkpoint::Error;
use jsonc_parser::cst::CstInputValue;

use super::hook_format::{command_handler, group, HookFormat};
use super::json_config::{Dialect, Shape};
use super::places::{Places, Scope};
use crate::hook::{Agent, HookEvent, HOOK_TIMEOUT_SECONDS};

/// Codex's `hooks.json` format.
pub(crate) const FORMAT: HookFormat = HookFormat {
    agent: Agent::Codex,
    dialect: Dialect::Json,
    shape: Shape::Grouped,
    entry,
    required_member: None,
    switch: None,
    file_is_ours: false,
};

fn entry(event: &HookEvent) -> CstInputValue {
    group(event, command_handler(Agent::Codex, HOOK_TIMEOUT_SECONDS))
}

/// The `hooks.json` of `scope`.
pub(crate) fn config_path(scope: Scope, places: &Places) -> Result<PathBuf, Error> {
    Ok(codex_dir(scope, places)?.join("hooks.json"))
}

/// The `config.toml` beside a `hooks.json`, which holds the feature flag.
pub(crate) fn feature_config_path(hooks_json: &Path) -> PathBuf {
    hooks_json.with_file_name("config.toml")
}

fn codex_dir(scope: Scope, places: &Places) -> Result<PathBuf, Error> {
    match scope {
        Scope::Project => Ok(places.project.join(".codex")),
        Scope::User => places.agent_home("CODEX_HOME", ".codex"),
    }
}

/// What `install` tells the user after writing Codex's hooks.
pub(crate) const TRUST_NOTE: &str =
    "Codex runs a new or changed hook only once you trust it: open /hooks in Codex and trust agent-checkpoint's";
