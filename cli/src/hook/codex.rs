//! Codex's hook events.
//!
//! Shape: <https://developers.openai.com/codex/hooks> ("Common input
//! fields": `session_id`, `transcript_path`, `cwd`, `hook_event_name`,
//! `model`, and `turn_id` for turn-scoped events). `UserPromptSubmit` adds
//! `prompt`; `PreToolUse` / `PostToolUse` add `tool_name`, `tool_use_id`
//! and `tool_input`: `Bash` runs `tool_input.command`, and `apply_patch`
//! (Codex's file edits) carries the raw patch as `tool_input.command`
//! (`*** Add File: <path>`, `*** Update File: <path>`, `*** Delete File:
//! <path>`, `*** Move to: <path>`). Codex has no session-end event: its
//! `Stop` (end of turn) condenses the session too.

use serde_json::Value;

use super::event::{named_input, snake_case_event, string, EventKind, Tool, ToolKind};
use super::Parsed;

/// Parses one Codex event.
pub(crate) fn parse(doc: &Value) -> Result<Parsed, String> {
    let name = string(doc, "hook_event_name").ok_or("no hook_event_name")?;
    let kind = match name.as_str() {
        "SessionStart" => EventKind::SessionStart,
        "UserPromptSubmit" => EventKind::Prompt(string(doc, "prompt").unwrap_or_default()),
        "PreToolUse" => EventKind::BeforeTool(tool(doc)),
        "PostToolUse" => EventKind::AfterTool(tool(doc)),
        "Stop" => EventKind::TurnEnd,
        "PermissionRequest" | "PreCompact" | "PostCompact" | "SubagentStart" | "SubagentStop" => {
            EventKind::Ignored
        }
        other => return Err(format!("unknown event {other:?}")),
    };
    Ok(Parsed::silent(snake_case_event(doc, kind)?))
}

fn tool(doc: &Value) -> Tool {
    let (name, input) = named_input(doc);
    let command = string(&input, "command").unwrap_or_default();
    let kind = match name.as_str() {
        "apply_patch" | "Edit" | "Write" => ToolKind::Files(patch_paths(&command)),
        "Bash" | "shell" | "exec_command" => ToolKind::Shell(command),
        _ => ToolKind::Other,
    };
    Tool::new(&name, string(doc, "tool_use_id"), kind)
}

/// The paths an `apply_patch` patch adds, updates, deletes or moves to.
pub(crate) fn patch_paths(patch: &str) -> Vec<String> {
    const HEADERS: [&str; 4] = [
        "*** Add File: ",
        "*** Update File: ",
        "*** Delete File: ",
        "*** Move to: ",
    ];
    let mut out: Vec<String> = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(path) = HEADERS.iter().find_map(|h| line.strip_prefix(h)) {
            let path = path.trim();
            if !path.is_empty() && !out.iter().any(|p| p == path) {
                out.push(path.to_owned());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::patch_paths;

    #[test]
    fn patch_headers_name_the_files() {
        let patch =
            "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Move to: src/b.rs\n\
                     *** Add File: new.txt\n+hi\n*** Delete File: old.txt\n*** End Patch\n";
        assert_eq!(
            patch_paths(patch),
            ["src/a.rs", "src/b.rs", "new.txt", "old.txt"]
        );
        assert!(patch_paths("not a patch").is_empty());
    }
}
