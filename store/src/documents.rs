//! The JSON documents of a checkpoint (STORE.md §6): one Rust struct per Go
//! struct, fields in Go declaration order, `omitempty` as
//! `skip_serializing_if`, a nil Go slice as `None` (written `null`).
//!
//! [`Document::to_go_json`] writes the bytes Go's encoder writes;
//! [`Document::from_json`] reads as leniently as Go's decoder (unknown
//! fields ignored, keys matched case-insensitively, `null` and `[]` both
//! accepted, the legacy `checkpoint_version` tolerated).

pub mod encode;
pub mod lenient;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::timestamp::Timestamp;
use agent_checkpoint::{Error, Result};
use lenient::{Kind, Shape};

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

fn is_none_or_empty<T>(v: &Option<Vec<T>>) -> bool {
    v.as_ref().is_none_or(Vec::is_empty)
}

fn raw_keeping_null<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Option<RawJson>, D::Error> {
    Box::<RawValue>::deserialize(deserializer).map(|r| Some(RawJson(r)))
}

fn raw_list_is_empty(v: &Option<RawJson>) -> bool {
    v.as_ref().is_none_or(|r| {
        let t = r.get().trim();
        t == "null"
            || t.strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .is_some_and(|t| t.trim().is_empty())
    })
}

/// A document type of the checkpoint tree.
pub trait Document: Serialize + DeserializeOwned {
    /// The lenient reader's description of the type.
    const SHAPE: &'static Shape;

    /// The document's bytes as Go's JSON encoder writes them (two-space
    /// indent, `<>&` escaped, trailing `\n`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a value JSON cannot hold (a float
    /// that is not finite, a raw field that is not JSON).
    fn to_go_json(&self) -> Result<String> {
        encode::to_go_json(self)
    }

    /// Reads a document as leniently as Go does.
    ///
    /// # Errors
    /// [`Error::CorruptObject`] naming `what` when the text is not such a
    /// document (not JSON, or a value of the wrong type).
    fn from_json(text: &str, what: &str) -> Result<Self> {
        let canonical = lenient::normalize(text, Self::SHAPE).map_err(|e| corrupt(what, &e.0))?;
        serde_json::from_str(&canonical).map_err(|e| corrupt(what, &e.to_string()))
    }
}

fn corrupt(what: &str, reason: &str) -> Error {
    Error::CorruptObject {
        what: what.to_owned(),
        reason: format!("not a valid document: {reason}"),
    }
}

/// The root `metadata.json` of a checkpoint: the sessions and their
/// aggregate (Go `CheckpointSummary`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct CheckpointSummary {
    /// Version of the tool that wrote it (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cli_version: String,
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// The strategy of the last write (`manual-commit`).
    pub strategy: String,
    /// The branch the last write was made on (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub branch: String,
    /// The commit an imported checkpoint is anchored to (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub commit_sha: String,
    /// Sum of the sessions' `checkpoints_count`.
    pub checkpoints_count: i64,
    /// Sorted union of the sessions' files (`null` when none).
    pub files_touched: Option<Vec<String>>,
    /// Where each session's files are, by slot.
    pub sessions: Option<Vec<SessionFilePaths>>,
    /// Field-wise sum of the sessions' token usage (omitted when none has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_usage: Option<TokenUsage>,
    /// Attribution across all sessions (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub combined_attribution: Option<Attribution>,
    /// Whether any session is a review.
    #[serde(skip_serializing_if = "is_false")]
    pub has_review: bool,
    /// Whether any session is an investigation.
    #[serde(skip_serializing_if = "is_false")]
    pub has_investigation: bool,
    /// Whether the checkpoint was imported from earlier agent history.
    #[serde(skip_serializing_if = "is_false")]
    pub imported: bool,
}

impl Document for CheckpointSummary {
    const SHAPE: &'static Shape = &SUMMARY_SHAPE;
}

static SUMMARY_SHAPE: Shape = Shape {
    fields: &[
        ("cli_version", Kind::Plain),
        ("checkpoint_id", Kind::Plain),
        ("strategy", Kind::Plain),
        ("branch", Kind::Plain),
        ("commit_sha", Kind::Plain),
        ("checkpoints_count", Kind::Plain),
        ("files_touched", Kind::Strings),
        ("sessions", Kind::List(&PATHS_SHAPE)),
        ("token_usage", Kind::Object(&TOKEN_USAGE_SHAPE)),
        ("combined_attribution", Kind::Object(&ATTRIBUTION_SHAPE)),
        ("has_review", Kind::Plain),
        ("has_investigation", Kind::Plain),
        ("imported", Kind::Plain),
    ],
};

/// Absolute in-tree paths of one session's files (Go `SessionFilePaths`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SessionFilePaths {
    /// `/<slot>/metadata.json` (with the checkpoint path on the branch).
    pub metadata: String,
    /// The transcript, when there is one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub transcript: String,
    /// A compact transcript, when one was written (by the Go tool).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub compact_transcript: String,
    /// The transcript's `content_hash.txt`, when there is a transcript.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub content_hash: String,
    /// `prompt.txt`; always written, `""` without prompts.
    pub prompt: String,
}

static PATHS_SHAPE: Shape = Shape {
    fields: &[
        ("metadata", Kind::Plain),
        ("transcript", Kind::Plain),
        ("compact_transcript", Kind::Plain),
        ("content_hash", Kind::Plain),
        ("prompt", Kind::Plain),
    ],
};

/// A session's `metadata.json` (Go `Metadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Metadata {
    /// Version of the tool that wrote it (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cli_version: String,
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// The session ID.
    pub session_id: String,
    /// The strategy (`manual-commit`).
    pub strategy: String,
    /// When the checkpoint was created.
    pub created_at: Timestamp,
    /// The branch (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub branch: String,
    /// The anchor commit of an imported checkpoint (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub commit_sha: String,
    /// Displayed step count of the session.
    pub checkpoints_count: i64,
    /// Shadow-branch steps recorded (omitted when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub save_step_count: i64,
    /// Files the session touched (`null` when none were given).
    pub files_touched: Option<Vec<String>>,
    /// The agent (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub agent: String,
    /// The model; always written, `""` when unknown.
    pub model: String,
    /// Correlates checkpoints of one agent turn (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub turn_id: String,
    /// Whether this is a subagent task checkpoint.
    #[serde(skip_serializing_if = "is_false")]
    pub is_task: bool,
    /// The task's tool-use ID (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tool_use_id: String,
    /// Last transcript identifier when the checkpoint started.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub transcript_identifier_at_start: String,
    /// Transcript line offset where this checkpoint's data starts.
    #[serde(skip_serializing_if = "is_zero")]
    pub checkpoint_transcript_start: i64,
    /// Deprecated copy of `checkpoint_transcript_start`.
    #[serde(skip_serializing_if = "is_zero")]
    pub transcript_lines_at_start: i64,
    /// Line offset in the compact transcript; absent differs from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_transcript_start: Option<i64>,
    /// Token usage of the session (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_usage: Option<TokenUsage>,
    /// Version of `skill_events` (omitted when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub skill_events_version: i64,
    /// Native skill signals, as raw JSON (omitted when empty).
    #[serde(skip_serializing_if = "raw_list_is_empty")]
    pub skill_events: Option<RawJson>,
    /// Hook-provided session metrics (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_metrics: Option<SessionMetrics>,
    /// AI-written summary (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// Line attribution at commit time (omitted when unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_attribution: Option<Attribution>,
    /// Raw per-prompt attribution data (omitted when unset; a stored
    /// `null` is kept, as Go's `json.RawMessage` keeps it).
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "raw_keeping_null"
    )]
    pub prompt_attributions: Option<RawJson>,
    /// Session purpose (`agent_review`, ...; omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Review skills run (omitted when empty).
    #[serde(skip_serializing_if = "is_none_or_empty")]
    pub review_skills: Option<Vec<String>>,
    /// The review request text (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub review_prompt: String,
    /// The parent investigation run (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub investigate_run_id: String,
    /// The investigation topic (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub investigate_topic: String,
    /// **\[ours\]** SHA-256 (lowercase hex) of the undo snapshot this write
    /// stored under `refs/entire/snapshots/` (omitted when none). The Go
    /// tool ignores it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub snapshot_sha256: String,
}

impl Document for Metadata {
    const SHAPE: &'static Shape = &METADATA_SHAPE;
}

static METADATA_SHAPE: Shape = Shape {
    fields: &[
        ("cli_version", Kind::Plain),
        ("checkpoint_id", Kind::Plain),
        ("session_id", Kind::Plain),
        ("strategy", Kind::Plain),
        ("created_at", Kind::Plain),
        ("branch", Kind::Plain),
        ("commit_sha", Kind::Plain),
        ("checkpoints_count", Kind::Plain),
        ("save_step_count", Kind::Plain),
        ("files_touched", Kind::Strings),
        ("agent", Kind::Plain),
        ("model", Kind::Plain),
        ("turn_id", Kind::Plain),
        ("is_task", Kind::Plain),
        ("tool_use_id", Kind::Plain),
        ("transcript_identifier_at_start", Kind::Plain),
        ("checkpoint_transcript_start", Kind::Plain),
        ("transcript_lines_at_start", Kind::Plain),
        ("compact_transcript_start", Kind::Plain),
        ("token_usage", Kind::Object(&TOKEN_USAGE_SHAPE)),
        ("skill_events_version", Kind::Plain),
        ("skill_events", Kind::RawList),
        ("session_metrics", Kind::Object(&METRICS_SHAPE)),
        ("summary", Kind::Object(&SESSION_SUMMARY_SHAPE)),
        ("initial_attribution", Kind::Object(&ATTRIBUTION_SHAPE)),
        ("prompt_attributions", Kind::Raw),
        ("kind", Kind::Plain),
        ("review_skills", Kind::Strings),
        ("review_prompt", Kind::Plain),
        ("investigate_run_id", Kind::Plain),
        ("investigate_topic", Kind::Plain),
        ("snapshot_sha256", Kind::Plain),
    ],
};

/// An AI-written session summary (Go `Summary`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Summary {
    /// What the user wanted.
    pub intent: String,
    /// What was achieved.
    pub outcome: String,
    /// Learnings by scope.
    pub learnings: LearningsSummary,
    /// Problems met.
    pub friction: Option<Vec<String>>,
    /// Unfinished work.
    pub open_items: Option<Vec<String>>,
}

static SESSION_SUMMARY_SHAPE: Shape = Shape {
    fields: &[
        ("intent", Kind::Plain),
        ("outcome", Kind::Plain),
        ("learnings", Kind::Object(&LEARNINGS_SHAPE)),
        ("friction", Kind::Strings),
        ("open_items", Kind::Strings),
    ],
};

impl Summary {
    /// A summary with this intent and outcome and nothing else.
    pub fn new(intent: impl Into<String>, outcome: impl Into<String>) -> Summary {
        Summary {
            intent: intent.into(),
            outcome: outcome.into(),
            ..Summary::default()
        }
    }
}

/// Learnings grouped by scope (Go `LearningsSummary`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct LearningsSummary {
    /// About this codebase.
    pub repo: Option<Vec<String>>,
    /// About specific code locations.
    pub code: Option<Vec<CodeLearning>>,
    /// About the way of working.
    pub workflow: Option<Vec<String>>,
}

static LEARNINGS_SHAPE: Shape = Shape {
    fields: &[
        ("repo", Kind::Strings),
        ("code", Kind::List(&CODE_LEARNING_SHAPE)),
        ("workflow", Kind::Strings),
    ],
};

/// A learning tied to a code location (Go `CodeLearning`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct CodeLearning {
    /// The file.
    pub path: String,
    /// First line (omitted when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub line: i64,
    /// Last line of a range (omitted when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub end_line: i64,
    /// What was learned.
    pub finding: String,
}

impl CodeLearning {
    /// A learning about `path`.
    pub fn new(path: impl Into<String>, finding: impl Into<String>) -> CodeLearning {
        CodeLearning {
            path: path.into(),
            finding: finding.into(),
            ..CodeLearning::default()
        }
    }
}

static CODE_LEARNING_SHAPE: Shape = Shape {
    fields: &[
        ("path", Kind::Plain),
        ("line", Kind::Plain),
        ("end_line", Kind::Plain),
        ("finding", Kind::Plain),
    ],
};

/// Token usage (Go `TokenUsage`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct TokenUsage {
    /// Fresh input tokens.
    pub input_tokens: i64,
    /// Tokens written to cache.
    pub cache_creation_tokens: i64,
    /// Tokens read from cache.
    pub cache_read_tokens: i64,
    /// Output tokens.
    pub output_tokens: i64,
    /// API calls made.
    pub api_call_count: i64,
    /// Usage of spawned subagents (omitted when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_tokens: Option<Box<TokenUsage>>,
}

static TOKEN_USAGE_SHAPE: Shape = Shape {
    fields: &[
        ("input_tokens", Kind::Plain),
        ("cache_creation_tokens", Kind::Plain),
        ("cache_read_tokens", Kind::Plain),
        ("output_tokens", Kind::Plain),
        ("api_call_count", Kind::Plain),
        ("subagent_tokens", Kind::Object(&TOKEN_USAGE_SHAPE)),
    ],
};

/// How deep a `subagent_tokens` chain is followed when summing; deeper
/// links are dropped (real chains are one deep; a hostile chain must not
/// blow up the root summary).
pub const MAX_SUBAGENT_DEPTH: usize = 8;

impl TokenUsage {
    /// Usage with these four counts and `api_call_count`.
    pub fn new(
        input: i64,
        cache_creation: i64,
        cache_read: i64,
        output: i64,
        api_calls: i64,
    ) -> TokenUsage {
        TokenUsage {
            input_tokens: input,
            cache_creation_tokens: cache_creation,
            cache_read_tokens: cache_read,
            output_tokens: output,
            api_call_count: api_calls,
            subagent_tokens: None,
        }
    }

    /// Field-wise sum of two optional usages, subagent chains included (up
    /// to [`MAX_SUBAGENT_DEPTH`]); `None` only when both are.
    pub fn sum(a: Option<&TokenUsage>, b: Option<&TokenUsage>) -> Option<TokenUsage> {
        sum_at(a, b, 0)
    }
}

fn sum_at(a: Option<&TokenUsage>, b: Option<&TokenUsage>, depth: usize) -> Option<TokenUsage> {
    if (a.is_none() && b.is_none()) || depth > MAX_SUBAGENT_DEPTH {
        return None;
    }
    let zero = TokenUsage::default();
    let (x, y) = (a.unwrap_or(&zero), b.unwrap_or(&zero));
    Some(TokenUsage {
        input_tokens: x.input_tokens.saturating_add(y.input_tokens),
        cache_creation_tokens: x
            .cache_creation_tokens
            .saturating_add(y.cache_creation_tokens),
        cache_read_tokens: x.cache_read_tokens.saturating_add(y.cache_read_tokens),
        output_tokens: x.output_tokens.saturating_add(y.output_tokens),
        api_call_count: x.api_call_count.saturating_add(y.api_call_count),
        subagent_tokens: sum_at(
            x.subagent_tokens.as_deref(),
            y.subagent_tokens.as_deref(),
            depth + 1,
        )
        .map(Box::new),
    })
}

/// Hook-provided session metrics (Go `SessionMetrics`, every field omitted
/// when 0).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct SessionMetrics {
    /// Session duration in milliseconds.
    #[serde(skip_serializing_if = "is_zero")]
    pub duration_ms: i64,
    /// Turns taken.
    #[serde(skip_serializing_if = "is_zero")]
    pub turn_count: i64,
    /// Context tokens used.
    #[serde(skip_serializing_if = "is_zero")]
    pub context_tokens: i64,
    /// Size of the context window.
    #[serde(skip_serializing_if = "is_zero")]
    pub context_window_size: i64,
}

static METRICS_SHAPE: Shape = Shape {
    fields: &[
        ("duration_ms", Kind::Plain),
        ("turn_count", Kind::Plain),
        ("context_tokens", Kind::Plain),
        ("context_window_size", Kind::Plain),
    ],
};

/// Line-level attribution at commit time (Go `Attribution`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Attribution {
    /// When it was computed.
    pub calculated_at: Timestamp,
    /// Lines the agent added that remain.
    pub agent_lines: i64,
    /// Lines the agent removed that stay removed.
    pub agent_removed: i64,
    /// Lines a human added.
    pub human_added: i64,
    /// Lines a human modified.
    pub human_modified: i64,
    /// Lines a human removed.
    pub human_removed: i64,
    /// Net additions in the commit.
    pub total_committed: i64,
    /// All committed line changes.
    pub total_lines_changed: i64,
    /// Share of changed lines that came from the agent, in percent.
    #[serde(serialize_with = "encode::serialize_go_float")]
    pub agent_percentage: f64,
    /// Metric version (omitted when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub metric_version: i64,
}

static ATTRIBUTION_SHAPE: Shape = Shape {
    fields: &[
        ("calculated_at", Kind::Plain),
        ("agent_lines", Kind::Plain),
        ("agent_removed", Kind::Plain),
        ("human_added", Kind::Plain),
        ("human_modified", Kind::Plain),
        ("human_removed", Kind::Plain),
        ("total_committed", Kind::Plain),
        ("total_lines_changed", Kind::Plain),
        ("agent_percentage", Kind::Plain),
        ("metric_version", Kind::Plain),
    ],
};

/// `tasks/<toolUseID>/checkpoint.json` of a subagent task checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct TaskCheckpoint {
    /// The session ID.
    pub session_id: String,
    /// The task's tool-use ID.
    pub tool_use_id: String,
    /// UUID used to truncate the transcript when rewinding.
    pub checkpoint_uuid: String,
    /// The subagent (omitted when empty).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub agent_id: String,
}

impl Document for TaskCheckpoint {
    const SHAPE: &'static Shape = &TASK_SHAPE;
}

static TASK_SHAPE: Shape = Shape {
    fields: &[
        ("session_id", Kind::Plain),
        ("tool_use_id", Kind::Plain),
        ("checkpoint_uuid", Kind::Plain),
        ("agent_id", Kind::Plain),
    ],
};

/// A JSON value kept as its text (Go `json.RawMessage`); written compacted
/// and HTML-escaped, as Go writes it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// Checks `text` is one JSON value and keeps it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `field` when it is not JSON.
    pub fn new(field: &str, text: &str) -> Result<RawJson> {
        RawValue::from_string(text.to_owned())
            .map(RawJson)
            .map_err(|e| Error::invalid_argument(field, format!("not JSON: {e}")))
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &RawJson) -> bool {
        self.get() == other.get()
    }
}
