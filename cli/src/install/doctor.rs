//! `agent-checkpoint doctor`: for each agent and scope, whether our hooks
//! are installed and the same as `install` would write them, and whether
//! the `agent-checkpoint` the hooks run (the first on `PATH`) is this one.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_checkpoint::Error;
use serde::Serialize;

use super::agents::{config_path, format_of};
use super::codex_feature::FlagState;
use super::config_file::read_optional;
use super::json_config::JsonConfig;
use super::places::{Places, Scope};
use super::plan::{codex_flag, compare};
use crate::hook::{Agent, HOOK_PROGRAM};
use crate::output;

/// The state of one agent's hooks in one scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum State {
    /// No hook of ours in the file (or no file).
    NotInstalled,
    /// Ours are there, exactly as `install` writes them.
    Current,
    /// Ours are there but differ from what `install` would write (run
    /// `install` again to bring them back).
    Drifted,
    /// The file cannot be read or parsed.
    Unreadable,
}

impl State {
    fn text(self) -> &'static str {
        match self {
            State::NotInstalled => "not installed",
            State::Current => "installed and current",
            State::Drifted => "DRIFTED",
            State::Unreadable => "UNREADABLE",
        }
    }
}

/// One row of the report.
#[derive(Debug, Serialize)]
pub(crate) struct AgentStatus {
    agent: &'static str,
    scope: &'static str,
    /// The configuration file (absent when the scope's directory is not
    /// known, e.g. no `HOME`).
    path: Option<PathBuf>,
    state: State,
    /// Why, for a drifted or unreadable configuration.
    detail: Option<String>,
}

/// The `agent-checkpoint` found on `PATH`.
#[derive(Debug, Serialize)]
pub(crate) struct ProgramStatus {
    /// Its path, when there is one.
    path: Option<PathBuf>,
    /// What its `--version` printed (first line).
    version: Option<String>,
    /// It reports this build's name and version.
    ours: bool,
}

#[derive(Debug, Serialize)]
struct Report {
    agents: Vec<AgentStatus>,
    program: ProgramStatus,
}

/// Prints the report; exits 1 when a configuration is drifted or
/// unreadable, or when hooks are installed and `PATH` does not lead to
/// this `agent-checkpoint`.
pub(crate) fn run(places: &Places, json: bool) -> Result<ExitCode, Error> {
    let mut agents = Vec::new();
    for agent in Agent::ALL {
        for scope in Scope::ALL {
            agents.push(status(agent, scope, places));
        }
    }
    let program = program_on_path();
    let installed = agents.iter().any(|a| a.state != State::NotInstalled);
    let bad = agents
        .iter()
        .any(|a| matches!(a.state, State::Drifted | State::Unreadable))
        || (installed && !program.ours);
    let report = Report { agents, program };
    if json {
        output::print_json(&report)?;
    } else {
        output::print_text(&text(&report))?;
    }
    Ok(if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The state of `agent`'s hooks in `scope`.
pub(crate) fn status(agent: Agent, scope: Scope, places: &Places) -> AgentStatus {
    let row = |path, state, detail| AgentStatus {
        agent: agent.name(),
        scope: scope.name(),
        path,
        state,
        detail,
    };
    let path = match config_path(agent, scope, places) {
        Ok(path) => path,
        Err(e) => return row(None, State::Unreadable, Some(e.to_string())),
    };
    match assess(agent, &path) {
        Ok((state, detail)) => row(Some(path), state, detail),
        Err(e) => row(Some(path), State::Unreadable, Some(e.to_string())),
    }
}

fn assess(agent: Agent, path: &Path) -> Result<(State, Option<String>), Error> {
    let format = format_of(agent);
    let Some(text) = read_optional(path)? else {
        return Ok((State::NotInstalled, None));
    };
    let document = JsonConfig::parse(path, Some(&text), format.dialect)?.value();
    let comparison = compare(&format, &document);
    if comparison.found == 0 {
        return Ok((State::NotInstalled, None));
    }
    let mut problems = Vec::new();
    if !comparison.missing.is_empty() {
        problems.push(format!(
            "missing or changed: {}",
            comparison.missing.join(", ")
        ));
    }
    if !comparison.unexpected.is_empty() {
        problems.push(format!(
            "not written by this version: {}",
            comparison.unexpected.join(", ")
        ));
    }
    if let Some((object, key)) = format.switch {
        if document.get(object).and_then(|o| o.get(key)) != Some(&serde_json::Value::Bool(true)) {
            problems.push(format!("{object}.{key} is not true"));
        }
    }
    if agent == Agent::Codex {
        match codex_flag(path)? {
            FlagState::On => {}
            FlagState::Off(key) => {
                problems.push(format!("config.toml sets [features].{key} = false"))
            }
            FlagState::Absent => {
                problems.push("config.toml does not set [features].codex_hooks".to_owned())
            }
        }
    }
    if problems.is_empty() {
        Ok((State::Current, None))
    } else {
        Ok((State::Drifted, Some(problems.join("; "))))
    }
}

/// The first `agent-checkpoint` on `PATH`, and what its `--version` says.
fn program_on_path() -> ProgramStatus {
    let Some(path) = find_on_path(HOOK_PROGRAM) else {
        return ProgramStatus {
            path: None,
            version: None,
            ours: false,
        };
    };
    let version = std::process::Command::new(&path)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .map(|line| line.trim().to_owned())
        });
    let ours = version.as_deref() == Some(this_version().as_str());
    ProgramStatus {
        path: Some(path),
        version,
        ours,
    }
}

/// What this build's `--version` prints.
fn this_version() -> String {
    format!("{HOOK_PROGRAM} {}", env!("CARGO_PKG_VERSION"))
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let names: Vec<String> = if cfg!(windows) {
        vec![format!("{program}.exe"), program.to_owned()]
    } else {
        vec![program.to_owned()]
    };
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

fn text(report: &Report) -> String {
    let mut out = String::new();
    for row in &report.agents {
        let path = row
            .path
            .as_ref()
            .map_or_else(|| "-".to_owned(), |p| p.display().to_string());
        out.push_str(&format!(
            "{:<12} {:<8} {:<22} {path}",
            row.agent,
            row.scope,
            row.state.text()
        ));
        if let Some(detail) = &row.detail {
            out.push_str(&format!("  ({detail})"));
        }
        out.push('\n');
    }
    let program = &report.program;
    match (&program.path, &program.version) {
        (None, _) => out.push_str(&format!(
            "{HOOK_PROGRAM} is NOT on PATH: installed hooks cannot start it\n"
        )),
        (Some(path), version) => {
            let says = version.as_deref().unwrap_or("no version");
            let verdict = if program.ours {
                "this version".to_owned()
            } else {
                format!("NOT this version ({})", this_version())
            };
            out.push_str(&format!(
                "{HOOK_PROGRAM} on PATH: {} ({says}): {verdict}\n",
                path.display()
            ));
        }
    }
    out
}
