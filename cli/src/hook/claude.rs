//! Claude Code's hook events.
//!
//! Shape: <https://code.claude.com/docs/en/hooks> ("Hook input"): every
//! event carries `session_id`, `transcript_path`, `cwd` and
//! `hook_event_name`; `UserPromptSubmit` adds `prompt`; `PreToolUse` /
//! `PostToolUse` add `tool_name`, `tool_input` and `tool_use_id`
//! (`PostToolUse` also `tool_response`). `Edit`, `Write` and `MultiEdit`
//! name their file in `tool_input.file_path`, `NotebookEdit` in
//! `tool_input.notebook_path`; `Bash` runs `tool_input.command`. Exit 0
//! with nothing on stdout changes nothing in Claude Code.

use serde_json::Value;

use super::event::{named_input, paths, snake_case_event, string, EventKind, Tool, ToolKind};
use super::Parsed;

/// Parses one Claude Code event.
pub(crate) fn parse(doc: &Value) -> Result<Parsed, String> {
    let name = string(doc, "hook_event_name").ok_or("no hook_event_name")?;
    let kind = match name.as_str() {
        "SessionStart" => EventKind::SessionStart,
        "UserPromptSubmit" => EventKind::Prompt(string(doc, "prompt").unwrap_or_default()),
        "PreToolUse" => EventKind::BeforeTool(tool(doc)),
        // A failed tool may have changed files all the same.
        "PostToolUse" | "PostToolUseFailure" => EventKind::AfterTool(tool(doc)),
        "Stop" => EventKind::TurnEnd,
        "SessionEnd" => EventKind::SessionEnd,
        "Notification"
        | "SubagentStart"
        | "SubagentStop"
        | "PreCompact"
        | "PostCompact"
        | "PermissionRequest"
        | "StopFailure"
        | "UserPromptExpansion"
        | "PostToolBatch"
        | "Setup"
        | "TaskCreated"
        | "TaskCompleted"
        | "TeammateIdle"
        | "Elicitation"
        | "ElicitationResult"
        | "ConfigChange"
        | "InstructionsLoaded"
        | "CwdChanged"
        | "FileChanged"
        | "WorktreeCreate"
        | "WorktreeRemove" => EventKind::Ignored,
        other => return Err(format!("unknown event {other:?}")),
    };
    Ok(Parsed::silent(snake_case_event(doc, kind)?))
}

fn tool(doc: &Value) -> Tool {
    let (name, input) = named_input(doc);
    let kind = match name.as_str() {
        "Edit" | "Write" | "MultiEdit" => ToolKind::Files(paths(&input, &["file_path"])),
        "NotebookEdit" => ToolKind::Files(paths(&input, &["notebook_path"])),
        "Bash" => ToolKind::Shell(string(&input, "command").unwrap_or_default()),
        _ => ToolKind::Other,
    };
    Tool::new(&name, string(doc, "tool_use_id"), kind)
}
