//! Cursor's hook events.
//!
//! Shape: <https://cursor.com/docs/agent/hooks>: every event carries
//! `hook_event_name`, `conversation_id`, `generation_id` and
//! `workspace_roots` (newer builds: `transcript_path`, `model`,
//! `cursor_version`); `sessionStart` carries `session_id`;
//! `beforeSubmitPrompt` adds `prompt`; `beforeShellExecution` /
//! `afterShellExecution` add `command` and `cwd`; `afterFileEdit` adds
//! `file_path` and `edits`; `preToolUse` adds `tool_name` and `tool_input`
//! (`file_path`, or `path`). The `before*` events expect a JSON answer on
//! stdout: `beforeSubmitPrompt` gets `{"continue":true}`, the others `{}`
//! (no decision, so Cursor asks the user as it would without the hook).

use serde_json::Value;

use super::event::{first_string, paths, string, tool_input, Event, EventKind, Tool, ToolKind};
use super::Parsed;

/// Parses one Cursor event.
pub(crate) fn parse(doc: &Value) -> Result<Parsed, String> {
    let name = string(doc, "hook_event_name").ok_or("no hook_event_name")?;
    let (kind, reply) = match name.as_str() {
        "sessionStart" => (EventKind::SessionStart, Some("{}")),
        "beforeSubmitPrompt" => (
            EventKind::Prompt(string(doc, "prompt").unwrap_or_default()),
            Some(r#"{"continue":true}"#),
        ),
        "preToolUse" => (EventKind::BeforeTool(file_tool(doc)), Some("{}")),
        "afterFileEdit" => (
            EventKind::AfterTool(Tool::new(
                "Edit",
                None,
                ToolKind::Files(paths(doc, &["file_path"])),
            )),
            None,
        ),
        "beforeShellExecution" => (EventKind::BeforeTool(shell(doc)), Some("{}")),
        "afterShellExecution" => (EventKind::AfterTool(shell(doc)), None),
        "stop" => (EventKind::TurnEnd, None),
        "sessionEnd" => (EventKind::SessionEnd, None),
        "beforeReadFile" | "beforeMCPExecution" | "beforeTabFileRead" => {
            (EventKind::Ignored, Some("{}"))
        }
        "postToolUse" | "postToolUseFailure" | "afterMCPExecution" | "afterAgentResponse"
        | "afterAgentThought" | "afterTabFileEdit" | "subagentStart" | "subagentStop"
        | "preCompact" => (EventKind::Ignored, None),
        other => return Err(format!("unknown event {other:?}")),
    };
    let cwd = string(doc, "cwd").or_else(|| {
        doc.get("workspace_roots")
            .and_then(Value::as_array)
            .and_then(|roots| roots.first())
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    Ok(Parsed {
        event: Event {
            kind,
            session_id: first_string(doc, &["conversation_id", "session_id"])
                .ok_or("no conversation_id")?,
            cwd: cwd.map(Into::into),
            transcript_path: string(doc, "transcript_path").map(Into::into),
        },
        reply,
    })
}

fn shell(doc: &Value) -> Tool {
    Tool::new(
        "Shell",
        None,
        ToolKind::Shell(string(doc, "command").unwrap_or_default()),
    )
}

fn file_tool(doc: &Value) -> Tool {
    let name = string(doc, "tool_name").unwrap_or_default();
    let input = tool_input(doc, "tool_input");
    let kind = match name.as_str() {
        "Write" | "StrReplace" | "Edit" | "MultiEdit" | "Delete" => {
            ToolKind::Files(paths(&input, &["file_path", "path", "target_file"]))
        }
        "Shell" => ToolKind::Other, // its own events carry the command
        _ => ToolKind::Other,
    };
    Tool::new(&name, string(doc, "tool_use_id"), kind)
}
