//! `agent-checkpoint hook <agent>`: one event of a coding agent's hook
//! protocol, read from stdin, mapped onto shadow steps and undo snapshots
//! (see `actions`). A hook never breaks the agent: it exits 0, prints on
//! stdout only what the agent's protocol asks for, writes at most one
//! short line on stderr, and logs each failure as one line of
//! `agent-checkpoint/hook.log` in the git common dir (outside git, in the
//! user's state directory; see `state`).
//!
//! This module also holds what `agent-checkpoint install` needs to write an
//! agent's hook configuration: [`Agent`], the events each agent's hook is
//! registered for ([`hook_events`]) and the command it runs
//! ([`hook_command_line`], [`hook_arguments`]). Nothing here touches the
//! agent's configuration files: that is the install module's job.

mod actions;
mod claude;
mod codex;
mod copilot;
mod cursor;
mod event;
mod gemini;
mod registration;
pub(crate) mod state;
pub(crate) mod worktree;

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::ExitCode;

pub(crate) use actions::{open_store, repo_dir_of};
use event::Event;
#[allow(unused_imports)] // for `install`
pub(crate) use registration::{
    hook_arguments, hook_command_line, hook_events, is_our_command, Agent, HookEvent, HOOK_PROGRAM,
    HOOK_TIMEOUT_SECONDS,
};

/// The largest event read from stdin (a prompt or a tool input may be
/// long; a transcript is read from its file, never from stdin).
const MAX_EVENT_BYTES: u64 = 32 << 20;

/// An agent's event, parsed, and what to answer on stdout.
#[derive(Debug)]
pub(crate) struct Parsed {
    /// The event.
    pub event: Event,
    /// What the agent's protocol wants printed on stdout (`None`: nothing).
    pub reply: Option<&'static str>,
}

impl Parsed {
    /// An event that needs no answer.
    pub(crate) fn silent(event: Event) -> Parsed {
        Parsed { event, reply: None }
    }
}

/// Runs `agent-checkpoint hook <agent> [EVENT]`: always exit 0. `event`
/// names the event for a payload that does not (Copilot's camelCase
/// payloads carry no event name).
pub(crate) fn run(agent_name: &str, event_name: Option<&str>) -> ExitCode {
    let mut input = Vec::new();
    let read = std::io::stdin()
        .take(MAX_EVENT_BYTES)
        .read_to_end(&mut input);
    let outcome = match (Agent::from_name(agent_name), read) {
        (None, _) => Err(Failure::early(format!("unknown agent {agent_name:?}"))),
        (_, Err(e)) => Err(Failure::early(format!("reading stdin: {e}"))),
        (Some(agent), Ok(_)) => handle(agent, &input, event_name),
    };
    if let Err(failure) = outcome {
        failure.report(agent_name);
    }
    ExitCode::SUCCESS
}

/// Why an event failed, and where it was headed (for the log).
struct Failure {
    message: String,
    event: String,
    dir: Option<std::path::PathBuf>,
}

impl Failure {
    fn early(message: String) -> Failure {
        Failure {
            message,
            event: "-".to_owned(),
            dir: None,
        }
    }

    /// One line in the log; one short line on stderr.
    fn report(&self, agent: &str) {
        let dir = match &self.dir {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().unwrap_or_else(|_| ".".into()),
        };
        let repo = repo_dir_of(&dir);
        let log = repo.log_file();
        let when = agent_checkpoint_store::Timestamp::now();
        let message = self.message.replace(['\n', '\r'], " ");
        let line = format!("{when} {agent} {} {message}\n", self.event);
        let logged = append(&log, &line).is_ok();
        let mut err = std::io::stderr().lock();
        let _ = if logged {
            writeln!(err, "agent-checkpoint: hook failed ({})", log.display())
        } else {
            writeln!(err, "agent-checkpoint: hook failed: {message}")
        };
    }
}

fn append(log: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?;
    file.write_all(line.as_bytes())
}

fn handle(agent: Agent, input: &[u8], event_name: Option<&str>) -> Result<(), Failure> {
    let mut doc: serde_json::Value = serde_json::from_slice(input)
        .map_err(|e| Failure::early(format!("stdin is not a JSON event: {e}")))?;
    if let (Some(name), Some(map)) = (event_name, doc.as_object_mut()) {
        if !map.contains_key("hook_event_name") && !map.contains_key("hookEventName") {
            map.insert("hook_event_name".to_owned(), name.into());
        }
    }
    let event_label = ["hook_event_name", "hookEventName"]
        .iter()
        .find_map(|k| doc.get(k).and_then(|v| v.as_str()))
        .unwrap_or("-")
        .to_owned();
    let dir_hint = ["cwd"]
        .iter()
        .find_map(|k| doc.get(k).and_then(|v| v.as_str()))
        .map(std::path::PathBuf::from);
    let parsed = match agent {
        Agent::ClaudeCode => claude::parse(&doc),
        Agent::Codex => codex::parse(&doc),
        Agent::Gemini => gemini::parse(&doc),
        Agent::Copilot => copilot::parse(&doc),
        Agent::Cursor => cursor::parse(&doc),
    }
    .map_err(|message| Failure {
        message,
        event: event_label.clone(),
        dir: dir_hint.clone(),
    })?;
    if let Some(reply) = parsed.reply {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{reply}");
        let _ = out.flush();
    }
    let fail = |e: agent_checkpoint::Error| Failure {
        message: format!("error[{}]: {e}", e.code()),
        event: event_label.clone(),
        dir: parsed.event.cwd.clone(),
    };
    let mut context = actions::Context::open(agent, &parsed.event).map_err(fail)?;
    context.handle(&parsed.event).map_err(fail)
}

#[cfg(test)]
mod fixture_tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::event::EventKind;
    use super::*;

    /// Every recorded event under `tests/hooks/<agent>/` parses into the
    /// event it is named after.
    #[test]
    fn every_recorded_event_parses() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hooks");
        let mut seen = 0;
        for agent in Agent::ALL {
            for entry in std::fs::read_dir(dir.join(agent.name())).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|x| x != "json") {
                    continue;
                }
                let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
                let doc: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                let parsed = match agent {
                    Agent::ClaudeCode => claude::parse(&doc),
                    Agent::Codex => codex::parse(&doc),
                    Agent::Gemini => gemini::parse(&doc),
                    Agent::Copilot => copilot::parse(&doc),
                    Agent::Cursor => cursor::parse(&doc),
                }
                .unwrap_or_else(|e| panic!("{}/{name}: {e}", agent.name()));
                let kind = &parsed.event.kind;
                let ok = match kind {
                    EventKind::SessionStart => name.contains("session-start"),
                    EventKind::Prompt(p) => name.contains("prompt") && !p.is_empty(),
                    EventKind::BeforeTool(t) => {
                        name.contains("before") && t.kind != event::ToolKind::Other
                    }
                    EventKind::AfterTool(t) => {
                        name.contains("after") && t.kind != event::ToolKind::Other
                    }
                    EventKind::TurnEnd => name.contains("stop"),
                    EventKind::SessionEnd => name.contains("session-end"),
                    EventKind::Ignored => false,
                };
                assert!(ok, "{}/{name}: {kind:?}", agent.name());
                assert!(!parsed.event.session_id.is_empty());
                seen += 1;
            }
        }
        assert!(seen >= 70, "{seen} recorded events");
    }
}
