//! `agent-checkpoint install <agent>`, `uninstall <agent>` and `doctor`:
//! writing, removing and checking the hook configuration of Claude Code,
//! Codex, Gemini CLI, Copilot CLI and Cursor, so that each runs
//! `agent-checkpoint hook <agent>` at the events of
//! [`crate::hook::hook_events`].
//!
//! Every other hook and setting in those files is kept, byte for byte
//! outside our entries; installing twice writes ours once; a file that
//! changes is first copied to `<file>.agent-checkpoint.bak` and is then
//! replaced atomically with its mode kept; `--dry-run` prints the unified
//! diff and writes nothing; a file that is not valid JSON (or TOML) is
//! refused with `invalid_argument` and left as it is.

mod agents;
mod apply;
mod claude_code;
mod codex;
mod codex_feature;
mod config_file;
mod copilot;
mod cursor;
mod doctor;
mod gemini;
mod hook_format;
mod json_config;
mod places;
mod plan;
mod unified_diff;

use std::process::ExitCode;

use agent_checkpoint::Error;

use crate::hook::Agent;
use places::{Places, Scope};

/// The arguments of `install` and `uninstall`.
#[derive(Debug, clap::Args)]
pub(crate) struct HookConfigArgs {
    /// The agent: claude-code, codex, gemini, copilot or cursor.
    #[arg(value_parser = parse_agent)]
    agent: Agent,
    /// The project's configuration (under the repository's top directory)
    /// or the user's (under the home directory).
    #[arg(long, value_enum, default_value = "project")]
    scope: Scope,
    /// Print the change as a unified diff and write nothing.
    #[arg(long)]
    dry_run: bool,
}

fn parse_agent(name: &str) -> Result<Agent, String> {
    Agent::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
        format!("unknown agent {name:?}: one of {}", names.join(", "))
    })
}

/// `install`: writes the agent's hook configuration.
pub(crate) fn install(args: &HookConfigArgs, json: bool) -> Result<ExitCode, Error> {
    let places = Places::from_environment()?;
    let plan = plan::install_plan(args.agent, args.scope, &places)?;
    apply::apply(plan, apply::Command::Install, args.dry_run, json)?;
    Ok(ExitCode::SUCCESS)
}

/// `uninstall`: removes our hooks from the agent's configuration.
pub(crate) fn uninstall(args: &HookConfigArgs, json: bool) -> Result<ExitCode, Error> {
    let places = Places::from_environment()?;
    let plan = plan::uninstall_plan(args.agent, args.scope, &places)?;
    apply::apply(plan, apply::Command::Uninstall, args.dry_run, json)?;
    Ok(ExitCode::SUCCESS)
}

/// `doctor`: the state of every agent's hooks, and of the program on `PATH`.
pub(crate) fn doctor(json: bool) -> Result<ExitCode, Error> {
    let places = Places::from_environment()?;
    doctor::run(&places, json)
}
