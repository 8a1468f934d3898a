//! One hook event, as every agent's parser hands it to the common actions:
//! what happened, in which session and directory, with which tool.

use std::path::PathBuf;

use serde_json::Value;

/// A hook event, whatever the agent that sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The agent's session (or conversation) id, as it sent it.
    pub session_id: String,
    /// The directory the agent works in (the event's `cwd`, else the
    /// hook's own working directory).
    pub cwd: Option<PathBuf>,
    /// The session's transcript, when the event names one.
    pub transcript_path: Option<PathBuf>,
}

/// What an event is, mapped onto the actions the hook has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// A session begins: its baseline step.
    SessionStart,
    /// The user submitted a prompt: a turn boundary.
    Prompt(String),
    /// A tool is about to run.
    BeforeTool(Tool),
    /// A tool ran.
    AfterTool(Tool),
    /// The agent finished its turn.
    TurnEnd,
    /// The session ends: a step and the condensed checkpoint.
    SessionEnd,
    /// An event of the protocol the hook has nothing to do for.
    Ignored,
}

/// A tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tool {
    /// The tool's name as the agent calls it (`Edit`, `run_shell_command`...).
    pub name: String,
    /// The tool call's id, when the agent gives one (else the hook derives
    /// one from the call's input, the same before and after the call).
    pub id: Option<String>,
    /// What the tool does to files.
    pub kind: ToolKind,
}

/// What a tool does to the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolKind {
    /// Edits the files named in its input (absolute, or relative to `cwd`).
    Files(Vec<String>),
    /// Runs a shell command: it may change any file.
    Shell(String),
    /// Reads, searches, fetches...: changes no file.
    Other,
}

impl Tool {
    /// A tool call of `name` with `kind`, its id as given.
    pub(crate) fn new(name: &str, id: Option<String>, kind: ToolKind) -> Tool {
        Tool {
            name: name.to_owned(),
            id,
            kind,
        }
    }
}

/// The event of an agent whose hooks send the common fields in snake_case
/// (`session_id`, `cwd`, `transcript_path`: Claude Code, Codex, Gemini CLI).
pub(crate) fn snake_case_event(doc: &Value, kind: EventKind) -> Result<Event, String> {
    Ok(Event {
        kind,
        session_id: string(doc, "session_id").ok_or("no session_id")?,
        cwd: string(doc, "cwd").map(Into::into),
        transcript_path: string(doc, "transcript_path").map(Into::into),
    })
}

/// A tool call's name (`tool_name`) and its input object (`tool_input`,
/// `null` when absent), as Claude Code, Codex and Gemini CLI send them.
pub(crate) fn named_input(doc: &Value) -> (String, Value) {
    let name = string(doc, "tool_name").unwrap_or_default();
    let input = doc.get("tool_input").cloned().unwrap_or(Value::Null);
    (name, input)
}

/// The string at `key` of `doc`, when it is a non-empty string.
pub(crate) fn string(doc: &Value, key: &str) -> Option<String> {
    doc.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The first of `keys` that holds a non-empty string.
pub(crate) fn first_string(doc: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| string(doc, k))
}

/// A tool's input: the object at `key`, or a JSON text at `key` holding
/// one (Copilot's `toolArgs` and Cursor's MCP `tool_input` are strings).
pub(crate) fn tool_input(doc: &Value, key: &str) -> Value {
    match doc.get(key) {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
        Some(value) => value.clone(),
        None => Value::Null,
    }
}

/// The file paths of a tool input, from the first of `keys` present
/// (strings, or arrays of strings).
pub(crate) fn paths(input: &Value, keys: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for key in keys {
        match input.get(key) {
            Some(Value::String(s)) if !s.is_empty() => out.push(s.clone()),
            Some(Value::Array(items)) => out.extend(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            ),
            _ => {}
        }
    }
    out
}
