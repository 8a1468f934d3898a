//! Gemini CLI's hook events.
//!
//! Shape: <https://geminicli.com/docs/hooks/reference> ("Base input
//! schema": `session_id`, `transcript_path`, `cwd`, `hook_event_name`,
//! `timestamp`). `BeforeAgent` adds `prompt`; `BeforeTool` / `AfterTool`
//! add `tool_name` and `tool_input` (no call id: the hook derives one from
//! the input, which both events carry). `write_file` and `replace` name
//! their file in `tool_input.file_path`; `run_shell_command` runs
//! `tool_input.command`. Exit 0 with an empty stdout is "no decision".

use serde_json::Value;

use super::event::{named_input, paths, snake_case_event, string, EventKind, Tool, ToolKind};
use super::Parsed;

/// Parses one Gemini CLI event.
pub(crate) fn parse(doc: &Value) -> Result<Parsed, String> {
    let name = string(doc, "hook_event_name").ok_or("no hook_event_name")?;
    let kind = match name.as_str() {
        "SessionStart" => EventKind::SessionStart,
        "BeforeAgent" => EventKind::Prompt(string(doc, "prompt").unwrap_or_default()),
        "BeforeTool" => EventKind::BeforeTool(tool(doc)),
        "AfterTool" => EventKind::AfterTool(tool(doc)),
        "AfterAgent" => EventKind::TurnEnd,
        "SessionEnd" => EventKind::SessionEnd,
        "BeforeModel" | "AfterModel" | "BeforeToolSelection" | "Notification" | "PreCompress" => {
            EventKind::Ignored
        }
        other => return Err(format!("unknown event {other:?}")),
    };
    Ok(Parsed::silent(snake_case_event(doc, kind)?))
}

fn tool(doc: &Value) -> Tool {
    let (name, input) = named_input(doc);
    let kind = match name.as_str() {
        "write_file" | "replace" | "edit" => ToolKind::Files(paths(&input, &["file_path"])),
        "run_shell_command" => ToolKind::Shell(string(&input, "command").unwrap_or_default()),
        _ => ToolKind::Other,
    };
    Tool::new(&name, None, kind)
}
