//! What an agent's hook configuration registers: the agents, the events
//! each one's hook is registered for (with their tool matchers), and the
//! command every one of them runs. `agent-checkpoint install` writes them
//! into the agent's configuration; the hook itself only needs [`Agent`].
#![cfg_attr(not(test), allow(dead_code))] // the rest is for `install`

/// A coding agent whose hooks `agent-checkpoint hook` speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Agent {
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
    /// GitHub Copilot CLI.
    Copilot,
    /// The Cursor editor's agent.
    Cursor,
}

impl Agent {
    /// Every agent, in the order the README documents them.
    pub(crate) const ALL: [Agent; 5] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Gemini,
        Agent::Copilot,
        Agent::Cursor,
    ];

    /// The name on the command line: `claude-code`, `codex`, `gemini`,
    /// `copilot`, `cursor`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
            Agent::Cursor => "cursor",
        }
    }

    /// The agent's product name (recorded as a checkpoint's `agent`).
    pub(crate) fn display_name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Copilot => "GitHub Copilot CLI",
            Agent::Cursor => "Cursor",
        }
    }

    /// The agent named `name` (see [`Agent::name`]).
    pub(crate) fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// One event an agent's hook is registered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HookEvent {
    /// The event's name as the agent's configuration spells it
    /// (`PreToolUse`, `BeforeTool`, `preToolUse`, `beforeShellExecution`...).
    pub name: &'static str,
    /// The tool-name matcher to register it with, for the events that take
    /// one (`None`: no matcher, every occurrence).
    pub matcher: Option<&'static str>,
}

const fn event(name: &'static str) -> HookEvent {
    HookEvent {
        name,
        matcher: None,
    }
}

const fn tool_event(name: &'static str, matcher: &'static str) -> HookEvent {
    HookEvent {
        name,
        matcher: Some(matcher),
    }
}

/// Claude Code's file-editing and shell tools.
const CLAUDE_TOOLS: &str = "Edit|Write|MultiEdit|NotebookEdit|Bash";
/// Codex's patch and shell tools.
const CODEX_TOOLS: &str = "apply_patch|Bash";
/// Gemini CLI's file-editing and shell tools.
const GEMINI_TOOLS: &str = "write_file|replace|run_shell_command";
/// Copilot CLI's file-editing and shell tools, by their Claude names.
const COPILOT_TOOLS: &str = "Write|Edit|Bash";
/// Cursor's file-editing tools (its shell has events of its own).
const CURSOR_FILE_TOOLS: &str = "Write|StrReplace|Edit|MultiEdit|Delete";

/// The events `agent`'s hook must be registered for, each with its matcher.
/// Every one of them runs the same command ([`hook_command_line`]); the
/// hook tells them apart by the event name in its stdin JSON.
pub(crate) fn hook_events(agent: Agent) -> &'static [HookEvent] {
    match agent {
        Agent::ClaudeCode => CLAUDE_EVENTS,
        Agent::Codex => CODEX_EVENTS,
        Agent::Gemini => GEMINI_EVENTS,
        Agent::Copilot => COPILOT_EVENTS,
        Agent::Cursor => CURSOR_EVENTS,
    }
}

const CLAUDE_EVENTS: &[HookEvent] = &[
    event("SessionStart"),
    event("UserPromptSubmit"),
    tool_event("PreToolUse", CLAUDE_TOOLS),
    tool_event("PostToolUse", CLAUDE_TOOLS),
    event("Stop"),
    event("SessionEnd"),
];

const CODEX_EVENTS: &[HookEvent] = &[
    event("SessionStart"),
    event("UserPromptSubmit"),
    tool_event("PreToolUse", CODEX_TOOLS),
    tool_event("PostToolUse", CODEX_TOOLS),
    event("Stop"),
];

const GEMINI_EVENTS: &[HookEvent] = &[
    event("SessionStart"),
    event("BeforeAgent"),
    tool_event("BeforeTool", GEMINI_TOOLS),
    tool_event("AfterTool", GEMINI_TOOLS),
    event("AfterAgent"),
    event("SessionEnd"),
];

// The PascalCase names: Copilot then sends the VS Code compatible payload,
// which names its event and uses the Claude tool names.
const COPILOT_EVENTS: &[HookEvent] = &[
    event("SessionStart"),
    event("UserPromptSubmit"),
    tool_event("PreToolUse", COPILOT_TOOLS),
    tool_event("PostToolUse", COPILOT_TOOLS),
    event("Stop"),
    event("SessionEnd"),
];

const CURSOR_EVENTS: &[HookEvent] = &[
    event("sessionStart"),
    event("beforeSubmitPrompt"),
    tool_event("preToolUse", CURSOR_FILE_TOOLS),
    event("afterFileEdit"),
    event("beforeShellExecution"),
    event("afterShellExecution"),
    event("stop"),
    event("sessionEnd"),
];

/// The program the hook configuration runs.
pub(crate) const HOOK_PROGRAM: &str = "agent-checkpoint";

/// The arguments after [`HOOK_PROGRAM`]: `hook <agent>` (for configurations
/// that take an executable and an argument list, like Copilot's `exec`).
pub(crate) fn hook_arguments(agent: Agent) -> [&'static str; 2] {
    ["hook", agent.name()]
}

/// The command line an agent's hook configuration runs for every event:
/// `agent-checkpoint hook <agent>`.
pub(crate) fn hook_command_line(agent: Agent) -> String {
    format!("{HOOK_PROGRAM} hook {}", agent.name())
}

/// Whether `command` (a hook command found in a configuration file) is one
/// of ours: it runs `agent-checkpoint hook` (by any path to the program).
pub(crate) fn is_our_command(command: &str) -> bool {
    let mut words = command.split_whitespace();
    while let Some(word) = words.next() {
        let program = word.rsplit(['/', '\\']).next().unwrap_or(word);
        let program = program.strip_suffix(".exe").unwrap_or(program);
        if program == HOOK_PROGRAM {
            return words.next() == Some("hook");
        }
    }
    false
}

/// The timeout to register the hook with, in seconds: a hook gives up on
/// its own well before (its lock waits are bounded), so this only guards
/// against a machine that stalls.
pub(crate) const HOOK_TIMEOUT_SECONDS: u32 = 30;

// Well above the hook's own bounded waits (2 s per lock, a few tries).
const _: () = assert!(HOOK_TIMEOUT_SECONDS >= 10);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_commands_are_recognised() {
        for agent in Agent::ALL {
            assert_eq!(Agent::from_name(agent.name()), Some(agent));
            assert!(is_our_command(&hook_command_line(agent)));
            assert!(!hook_events(agent).is_empty());
            let [hook, name] = hook_arguments(agent);
            assert_eq!(
                format!("{HOOK_PROGRAM} {hook} {name}"),
                hook_command_line(agent)
            );
        }
        assert_eq!(Agent::from_name("vim"), None);
        assert_eq!(
            hook_command_line(Agent::ClaudeCode),
            "agent-checkpoint hook claude-code"
        );
        assert!(is_our_command("/usr/local/bin/agent-checkpoint hook codex"));
        assert!(is_our_command(r"C:\bin\agent-checkpoint.exe hook cursor"));
        assert!(!is_our_command("agent-checkpoint rewind --list"));
        assert!(!is_our_command("my-agent-checkpoint-wrapper hook"));
        assert!(!is_our_command("prettier --write"));
    }
}
