//! GitHub Copilot CLI's hook events.
//!
//! Shape: <https://docs.github.com/en/copilot/reference/hooks-reference>
//! ("Hook event input payloads"). Registered under the PascalCase event
//! names (`SessionStart`, `UserPromptSubmit`, `PreToolUse`, `PostToolUse`,
//! `Stop`, `SessionEnd`), Copilot sends the VS Code compatible payload:
//! `hook_event_name`, `session_id`, `cwd`, `timestamp`, `prompt`,
//! `tool_name` (the Claude tool name: `Bash` for `bash` / `powershell`,
//! `Write` for `create`, `Edit` for `edit`, `str_replace_editor` and
//! `apply_patch`), `tool_input` (`path` or `file_path`; a patch for
//! `apply_patch`), and `transcript_path` on `Stop`. The camelCase payloads
//! (`sessionId`, `toolName`, `toolArgs` (possibly a JSON string),
//! `transcriptPath`; no event name) are read too, the event told by the
//! fields it carries. Empty stdout leaves every decision to Copilot.

use serde_json::Value;

use super::codex::patch_paths;
use super::event::{first_string, paths, string, tool_input, Event, EventKind, Tool, ToolKind};
use super::Parsed;

/// Parses one Copilot CLI event.
pub(crate) fn parse(doc: &Value) -> Result<Parsed, String> {
    let name = first_string(doc, &["hook_event_name", "hookEventName"])
        .or_else(|| camel_case_event(doc).map(str::to_owned))
        .ok_or("no hook_event_name, and no camelCase event fields")?;
    let kind = match name.as_str() {
        "SessionStart" | "sessionStart" => EventKind::SessionStart,
        "UserPromptSubmit" | "userPromptSubmitted" => {
            EventKind::Prompt(string(doc, "prompt").unwrap_or_default())
        }
        "PreToolUse" | "preToolUse" => EventKind::BeforeTool(tool(doc)),
        "PostToolUse" | "postToolUse" | "PostToolUseFailure" | "postToolUseFailure" => {
            EventKind::AfterTool(tool(doc))
        }
        "Stop" | "agentStop" => EventKind::TurnEnd,
        "SessionEnd" | "sessionEnd" => EventKind::SessionEnd,
        "SubagentStart"
        | "subagentStart"
        | "SubagentStop"
        | "subagentStop"
        | "PreCompact"
        | "preCompact"
        | "ErrorOccurred"
        | "errorOccurred"
        | "Notification"
        | "notification"
        | "PermissionRequest"
        | "permissionRequest"
        | "userPromptTransformed" => EventKind::Ignored,
        other => return Err(format!("unknown event {other:?}")),
    };
    Ok(Parsed::silent(Event {
        kind,
        session_id: first_string(doc, &["session_id", "sessionId"]).ok_or("no session_id")?,
        cwd: string(doc, "cwd").map(Into::into),
        transcript_path: first_string(doc, &["transcript_path", "transcriptPath"]).map(Into::into),
    }))
}

/// The camelCase event a payload without an event name is, by its fields.
fn camel_case_event(doc: &Value) -> Option<&'static str> {
    let has = |key: &str| doc.get(key).is_some();
    Some(if has("toolName") {
        if has("toolResult") || has("error") {
            "postToolUse"
        } else {
            "preToolUse"
        }
    } else if has("prompt") {
        "userPromptSubmitted"
    } else if has("stopReason") || has("stop_hook_active") {
        "agentStop"
    } else if has("reason") {
        "sessionEnd"
    } else if has("source") {
        "sessionStart"
    } else {
        return None;
    })
}

fn tool(doc: &Value) -> Tool {
    let name = first_string(doc, &["tool_name", "toolName"]).unwrap_or_default();
    let input = match doc.get("tool_input") {
        Some(_) => tool_input(doc, "tool_input"),
        None => tool_input(doc, "toolArgs"),
    };
    let kind = match name.as_str() {
        "Bash" | "bash" | "powershell" => {
            ToolKind::Shell(string(&input, "command").unwrap_or_default())
        }
        "Write" | "Edit" | "create" | "edit" | "str_replace_editor" | "apply_patch" => {
            let mut files = paths(&input, &["path", "file_path", "filePath"]);
            for key in ["input", "patch", "command"] {
                if let Some(text) = input.get(key).and_then(Value::as_str) {
                    files.extend(patch_paths(text));
                }
            }
            if let Some(text) = input.as_str() {
                files.extend(patch_paths(text));
            }
            ToolKind::Files(files)
        }
        _ => ToolKind::Other,
    };
    Tool::new(
        &name,
        first_string(doc, &["tool_use_id", "toolUseId"]),
        kind,
    )
}
