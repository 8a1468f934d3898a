//! What a session write carries: [`SessionWrite`], built with chained
//! setters, and the checks on the identifiers that become tree paths.

use serde::Deserialize;

use crate::documents::{Attribution, SessionMetrics, Summary, TokenUsage};
use crate::git_names::EntryAs;
use crate::timestamp::Timestamp;
use agent_checkpoint::{Error, Result};

/// The strategy written when none is given.
pub const DEFAULT_STRATEGY: &str = "manual-commit";

/// Who a commit is by.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Author {
    /// The name.
    pub name: String,
    /// The e-mail address.
    pub email: String,
}

impl Author {
    /// An author.
    pub fn new(name: impl Into<String>, email: impl Into<String>) -> Author {
        Author {
            name: name.into(),
            email: email.into(),
        }
    }
}

/// A subagent task checkpoint: written as `tasks/<tool_use_id>/checkpoint.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TaskInfo {
    /// The task tool call's ID (a tree path segment: no `/`, `..` or
    /// control characters).
    pub tool_use_id: String,
    /// UUID used to truncate the transcript when rewinding.
    pub checkpoint_uuid: String,
    /// The subagent's ID (same rules as `tool_use_id`; may be empty).
    pub agent_id: String,
}

impl TaskInfo {
    /// A task checkpoint for the tool call `tool_use_id`.
    pub fn new(tool_use_id: impl Into<String>) -> TaskInfo {
        TaskInfo {
            tool_use_id: tool_use_id.into(),
            ..TaskInfo::default()
        }
    }
}

/// One session written into a checkpoint: [`crate::Store::write_session`]'s input.
///
/// Only the checkpoint and session IDs are required; every setter returns
/// the value so calls chain:
///
/// ```
/// use agent_checkpoint_store::SessionWrite;
/// let write = SessionWrite::new("01KVBJCWYA4YW6J5M9GP655HZN", "session-1")
///     .agent("Claude Code")
///     .prompt("fix the bug")
///     .transcript(b"{\"type\":\"user\"}\n".to_vec())
///     .files_touched(["src/lib.rs"]);
/// assert_eq!(write.prompts, ["fix the bug"]);
/// ```
///
/// [`SessionWrite::from_json`] reads one from a JSON object whose keys are
/// these field names (what the bindings' keyword arguments become; the
/// transcript is text there).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct SessionWrite {
    /// The checkpoint ID (legacy 12-hex or ULID).
    pub checkpoint_id: String,
    /// The session ID (a tree path segment: no `/`, `..` or control characters).
    pub session_id: String,
    /// The strategy (default [`DEFAULT_STRATEGY`]).
    pub strategy: Option<String>,
    /// The agent (`Claude Code`, ...).
    pub agent: String,
    /// The model; written even when empty.
    pub model: String,
    /// The user's prompts, in order (redacted, joined into `prompt.txt`).
    pub prompts: Vec<String>,
    /// The transcript (JSONL, UTF-8; redacted, chunked over 50 MiB).
    #[serde(deserialize_with = "transcript_text")]
    pub transcript: Option<Vec<u8>>,
    /// Files the session touched; `None` is written as `null`.
    pub files_touched: Option<Vec<String>>,
    /// The core's capture snapshot of the batch, kept byte for byte under
    /// the local-only snapshot ref, never in the checkpoint tree.
    pub snapshot: Option<String>,
    /// Makes this a subagent task checkpoint.
    pub task: Option<TaskInfo>,
    /// Commit author (default: the repository's `user.name` / `user.email`,
    /// else `Unknown` / `unknown@local`).
    pub author: Option<Author>,
    /// When the checkpoint was created (default: now).
    pub created_at: Option<Timestamp>,
    /// The session's token usage.
    pub token_usage: Option<TokenUsage>,
    /// The branch the work was done on.
    pub branch: String,
    /// Anchor commit of an imported checkpoint.
    pub commit_sha: String,
    /// The writing tool's version (default: this crate's version).
    pub cli_version: Option<String>,
    /// Displayed step count (default: the number of prompts, at least 1).
    pub checkpoints_count: Option<i64>,
    /// Shadow-branch steps recorded.
    pub save_step_count: i64,
    /// Correlates checkpoints of one agent turn.
    pub turn_id: String,
    /// Last transcript identifier when the checkpoint started.
    pub transcript_identifier_at_start: String,
    /// Transcript line offset where this checkpoint's data starts.
    pub checkpoint_transcript_start: i64,
    /// Line offset in a compact transcript.
    pub compact_transcript_start: Option<i64>,
    /// Hook-provided metrics.
    pub session_metrics: Option<SessionMetrics>,
    /// AI-written summary (redacted).
    pub summary: Option<Summary>,
    /// Line attribution at commit time.
    pub initial_attribution: Option<Attribution>,
    /// Raw per-prompt attribution JSON (redacted as JSON).
    pub prompt_attributions: Option<String>,
    /// Raw skill events JSON list (redacted as JSON).
    pub skill_events: Option<String>,
    /// Version of the skill events.
    pub skill_events_version: i64,
    /// Session purpose (`agent_review`, `agent_investigate`, `imported`).
    pub kind: String,
    /// Review skills run.
    pub review_skills: Option<Vec<String>>,
    /// The review request (redacted).
    pub review_prompt: String,
    /// The parent investigation run.
    pub investigate_run_id: String,
    /// The investigation topic (redacted).
    pub investigate_topic: String,
    /// Marks the checkpoint reviewed (default: kept, or set by kind `agent_review`).
    pub has_review: Option<bool>,
    /// Marks the checkpoint investigated (default: kept, or set by kind `agent_investigate`).
    pub has_investigation: Option<bool>,
    /// Marks the checkpoint imported (default: kept, or set by kind `imported`).
    pub imported: Option<bool>,
    /// Attribution across all sessions (default: kept).
    pub combined_attribution: Option<Attribution>,
    /// The shadow branch the session came from (`Ephemeral-branch` trailer).
    pub ephemeral_branch: String,
}

macro_rules! setters {
    ($( $(#[$doc:meta])* $name:ident : $how:ident $ty:ty ;)*) => {
        $( setters!(@one $(#[$doc])* $name $how $ty); )*
    };
    (@one $(#[$doc:meta])* $name:ident text $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: impl Into<String>) -> SessionWrite {
            self.$name = value.into();
            self
        }
    };
    (@one $(#[$doc:meta])* $name:ident some_text $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: impl Into<String>) -> SessionWrite {
            self.$name = Some(value.into());
            self
        }
    };
    (@one $(#[$doc:meta])* $name:ident some $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: $ty) -> SessionWrite {
            self.$name = Some(value);
            self
        }
    };
    (@one $(#[$doc:meta])* $name:ident value $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: $ty) -> SessionWrite {
            self.$name = value;
            self
        }
    };
}

fn transcript_text<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Vec<u8>>, D::Error> {
    Option::<String>::deserialize(d).map(|t| t.map(String::into_bytes))
}

impl SessionWrite {
    /// Reads a write from a JSON object keyed by the field names
    /// (`checkpoint_id`, `session_id`, `agent`, `prompts`, `transcript` as
    /// text, `token_usage` as an object, `created_at` as RFC 3339, ...).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a value of the wrong type or an
    /// unknown key.
    pub fn from_json(json: &str) -> Result<SessionWrite> {
        serde_json::from_str(json)
            .map_err(|e| Error::invalid_argument("session write", e.to_string()))
    }

    /// A write of session `session_id` into checkpoint `checkpoint_id`.
    pub fn new(checkpoint_id: impl Into<String>, session_id: impl Into<String>) -> SessionWrite {
        SessionWrite {
            checkpoint_id: checkpoint_id.into(),
            session_id: session_id.into(),
            ..SessionWrite::default()
        }
    }

    /// Adds one prompt.
    #[must_use]
    pub fn prompt(mut self, prompt: impl Into<String>) -> SessionWrite {
        self.prompts.push(prompt.into());
        self
    }

    /// Sets the prompts.
    #[must_use]
    pub fn prompts<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        prompts: I,
    ) -> SessionWrite {
        self.prompts = prompts.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the files touched.
    #[must_use]
    pub fn files_touched<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        files: I,
    ) -> SessionWrite {
        self.files_touched = Some(files.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the review skills.
    #[must_use]
    pub fn review_skills<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        skills: I,
    ) -> SessionWrite {
        self.review_skills = Some(skills.into_iter().map(Into::into).collect());
        self
    }

    setters! {
        /// Sets the strategy.
        strategy: some_text String;
        /// Sets the agent.
        agent: text String;
        /// Sets the model.
        model: text String;
        /// Sets the transcript bytes.
        transcript: some Vec<u8>;
        /// Attaches the core's capture snapshot (JSON text), stored byte for byte.
        snapshot: some_text String;
        /// Makes this a subagent task checkpoint.
        task: some TaskInfo;
        /// Sets the commit author.
        author: some Author;
        /// Sets the creation time.
        created_at: some Timestamp;
        /// Sets the token usage.
        token_usage: some TokenUsage;
        /// Sets the branch.
        branch: text String;
        /// Sets the anchor commit of an imported checkpoint.
        commit_sha: text String;
        /// Sets the writing tool's version.
        cli_version: some_text String;
        /// Sets the displayed step count.
        checkpoints_count: some i64;
        /// Sets the shadow-branch step count.
        save_step_count: value i64;
        /// Sets the turn ID.
        turn_id: text String;
        /// Sets the transcript identifier at start.
        transcript_identifier_at_start: text String;
        /// Sets the transcript line offset at start.
        checkpoint_transcript_start: value i64;
        /// Sets the compact transcript offset.
        compact_transcript_start: some i64;
        /// Sets the session metrics.
        session_metrics: some SessionMetrics;
        /// Sets the summary.
        summary: some Summary;
        /// Sets the initial attribution.
        initial_attribution: some Attribution;
        /// Sets the raw prompt attributions JSON.
        prompt_attributions: some_text String;
        /// Sets the raw skill events JSON list.
        skill_events: some_text String;
        /// Sets the skill events version.
        skill_events_version: value i64;
        /// Sets the session kind.
        kind: text String;
        /// Sets the review prompt.
        review_prompt: text String;
        /// Sets the investigation run.
        investigate_run_id: text String;
        /// Sets the investigation topic.
        investigate_topic: text String;
        /// Sets `has_review` on the checkpoint.
        has_review: some bool;
        /// Sets `has_investigation` on the checkpoint.
        has_investigation: some bool;
        /// Sets `imported` on the checkpoint.
        imported: some bool;
        /// Sets the combined attribution on the checkpoint.
        combined_attribution: some Attribution;
        /// Names the shadow branch the session came from.
        ephemeral_branch: text String;
    }
}

/// Checks an ID that becomes a tree path segment or a trailer value: not
/// empty, no `/` or `\`, no `..`, no control characters, and a name git
/// takes for a directory (never `.git`, `.gitmodules` or `.gitattributes`
/// in any spelling HFS+ or NTFS would open as one, at most 4,096 bytes).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `name`.
pub fn validate_segment_id(name: &str, value: &str) -> Result<()> {
    let reason = if value.is_empty() {
        "must not be empty"
    } else if value.contains(['/', '\\']) {
        "must not contain a path separator"
    } else if value.contains("..") {
        "must not contain `..`"
    } else if value.chars().any(char::is_control) {
        "must not contain control characters"
    } else if value == "." {
        "must not be `.`"
    } else if let Some(reason) = crate::git_names::refused(value.as_bytes(), EntryAs::Dir) {
        // It names a directory in a tree (`tasks/<id>/`, the shadow
        // branch's `.entire/metadata/<id>/`): git's rules apply.
        return Err(Error::invalid_argument(
            name,
            format!("{value:?} cannot name a directory in git: {reason}"),
        ));
    } else {
        return Ok(());
    };
    Err(Error::invalid_argument(name, format!("{value:?} {reason}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_ids() {
        assert!(validate_segment_id("session_id", "2026-01-02-abc_DEF.1").is_ok());
        for bad in [
            "",
            "a/b",
            "a\\b",
            "..",
            "a..b",
            "a\nb",
            "a\u{7f}",
            ".",
            "\u{0}",
            ".git",
            ".GIT ",
            "git~1",
            ".gitmodules",
            ".g\u{200c}it",
        ] {
            let e = validate_segment_id("session_id", bad).unwrap_err();
            assert_eq!(
                e.code(),
                agent_checkpoint::ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn from_json_reads_field_names() {
        let w = SessionWrite::from_json(
            r#"{"checkpoint_id":"a1b2c3d4e5f6","session_id":"s","transcript":"t\n","prompts":["p"],
                "created_at":"2026-01-02T03:04:05Z","token_usage":{"input_tokens":1},
                "task":{"tool_use_id":"x"},"author":{"name":"n","email":"e"}}"#,
        )
        .unwrap();
        assert_eq!(w.transcript.as_deref(), Some(&b"t\n"[..]));
        assert_eq!(w.token_usage.unwrap().input_tokens, 1);
        assert_eq!(w.task.unwrap().tool_use_id, "x");
        assert_eq!(w.author.unwrap().email, "e");
        let e = SessionWrite::from_json(r#"{"checkpoint_id":"a","sesion_id":"typo"}"#).unwrap_err();
        assert_eq!(e.code(), agent_checkpoint::ErrorCode::InvalidArgument);
        assert!(SessionWrite::from_json(r#"{"prompts":"not a list"}"#).is_err());
    }

    #[test]
    fn setters_chain() {
        let w = SessionWrite::new("a1b2c3d4e5f6", "s")
            .strategy("auto")
            .prompt("one")
            .prompt("two")
            .checkpoints_count(3)
            .has_review(true);
        assert_eq!(w.strategy.as_deref(), Some("auto"));
        assert_eq!(w.prompts, ["one", "two"]);
        assert_eq!(w.checkpoints_count, Some(3));
        assert_eq!(w.has_review, Some(true));
    }
}
