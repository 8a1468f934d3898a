//! A session write (STORE.md §2): everything that depends only on the input
//! (redaction, blobs, the session's `metadata.json`) is prepared once; each
//! compare-and-swap attempt then applies it to the fresh checkpoint tree:
//! find the slot, replace it whole (stale files go), write the task file,
//! recompute the root summary.

use gix::ObjectId;
use serde_json::value::RawValue;

use crate::checkpoint::CheckpointDir;
use crate::documents::{
    CheckpointSummary, Document, Metadata, RawJson, SessionFilePaths, TaskCheckpoint,
};
use crate::layout::{
    chunk, chunk_name, content_hash, CONTENT_HASH_FILE, METADATA_FILE, PROMPT_FILE, TASKS_DIR,
    TRANSCRIPT_FILE,
};
use crate::message::session_message;
use crate::objects::{self, FileMode, FlatTree};
use crate::redaction::{redact_summary, Redact};
use crate::session::{validate_segment_id, SessionWrite, DEFAULT_STRATEGY};
use crate::snapshots::snapshot_sha256;
use crate::timestamp::Timestamp;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::prompts::join_prompts;

/// Checks the identifiers of a write that become paths or trailers.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the bad one; nothing has been written.
pub(crate) fn validate(write: &SessionWrite) -> Result<()> {
    validate_segment_id("session_id", &write.session_id)?;
    if let Some(task) = &write.task {
        validate_segment_id("tool_use_id", &task.tool_use_id)?;
        if !task.agent_id.is_empty() {
            validate_segment_id("agent_id", &task.agent_id)?;
        }
    }
    for (name, value) in [
        (
            "strategy",
            write.strategy.as_deref().unwrap_or(DEFAULT_STRATEGY),
        ),
        ("agent", write.agent.as_str()),
        ("ephemeral_branch", write.ephemeral_branch.as_str()),
    ] {
        if value.chars().any(char::is_control) {
            return Err(Error::invalid_argument(
                name,
                format!("{value:?} has control characters"),
            ));
        }
    }
    Ok(())
}

/// The root-summary fields a write may set.
struct RootFields {
    branch: String,
    commit_sha: String,
    has_review: Option<bool>,
    has_investigation: Option<bool>,
    imported: Option<bool>,
    combined_attribution: Option<crate::documents::Attribution>,
}

/// A session write with its blobs already in the object database.
pub(crate) struct PreparedSession {
    metadata: Metadata,
    metadata_blob: ObjectId,
    transcript: Option<(Vec<ObjectId>, ObjectId)>,
    prompt_blob: Option<ObjectId>,
    task: Option<(String, ObjectId)>,
    agent: String,
    ephemeral_branch: String,
    root: RootFields,
}

impl PreparedSession {
    /// Redacts what the write carries and writes its blobs.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a transcript that is not UTF-8 or raw
    /// JSON fields that are not JSON (before or after redaction).
    pub(crate) fn new(
        repo: &gix::Repository,
        write: &SessionWrite,
        redactor: &dyn Redact,
        chunk_limit: usize,
    ) -> Result<PreparedSession> {
        // Everything that can refuse the input runs before the first blob is
        // written, so a refused write leaves no object behind.
        let transcript_text = match write.transcript.as_deref().filter(|t| !t.is_empty()) {
            None => None,
            Some(bytes) => Some(
                std::str::from_utf8(bytes)
                    .map_err(|_| Error::invalid_argument("transcript", "is not UTF-8"))?,
            ),
        };
        let metadata = build_metadata(write, redactor)?;
        let metadata_text = metadata.to_go_json()?;
        let transcript = match transcript_text {
            None => None,
            Some(text) => {
                let redacted = redactor.json(text);
                let stored = redacted.as_bytes();
                let chunks = chunk(stored, chunk_limit)
                    .into_iter()
                    .map(|c| objects::write_blob(repo, c))
                    .collect::<Result<Vec<_>>>()?;
                let hash = objects::write_blob(repo, content_hash(stored).as_bytes())?;
                Some((chunks, hash))
            }
        };
        let prompt_blob = if write.prompts.is_empty() {
            None
        } else {
            let joined = join_prompts(&write.prompts);
            Some(objects::write_blob(
                repo,
                redactor.text(&joined).as_bytes(),
            )?)
        };
        let metadata_blob = objects::write_blob(repo, metadata_text.as_bytes())?;
        let task = match &write.task {
            None => None,
            Some(task) => {
                let doc = TaskCheckpoint {
                    session_id: write.session_id.clone(),
                    tool_use_id: task.tool_use_id.clone(),
                    checkpoint_uuid: task.checkpoint_uuid.clone(),
                    agent_id: task.agent_id.clone(),
                };
                let blob = objects::write_blob(repo, doc.to_go_json()?.as_bytes())?;
                Some((task.tool_use_id.clone(), blob))
            }
        };
        Ok(PreparedSession {
            metadata,
            metadata_blob,
            transcript,
            prompt_blob,
            task,
            agent: write.agent.clone(),
            ephemeral_branch: write.ephemeral_branch.clone(),
            root: RootFields {
                branch: write.branch.clone(),
                commit_sha: write.commit_sha.clone(),
                has_review: write.has_review,
                has_investigation: write.has_investigation,
                imported: write.imported,
                combined_attribution: write.combined_attribution.clone(),
            },
        })
    }

    /// The session metadata this write stores.
    pub(crate) fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The commit message, for a checkpoint whose directory is `prefix`.
    pub(crate) fn message(&self, prefix: &str) -> String {
        let task = self
            .task
            .as_ref()
            .map(|(id, _)| format!("{prefix}{TASKS_DIR}/{id}"));
        session_message(
            &self.metadata.checkpoint_id,
            &self.metadata.session_id,
            &self.metadata.strategy,
            &self.agent,
            &self.ephemeral_branch,
            task.as_deref(),
        )
    }

    /// Applies the write to the checkpoint directory `dir` (at `prefix` in
    /// its commit's tree) and returns the new checkpoint tree and the slot.
    pub(crate) fn apply(
        &self,
        repo: &gix::Repository,
        mut dir: CheckpointDir,
        prefix: &str,
    ) -> Result<(ObjectId, usize)> {
        let slot = dir.slot_for(repo, &self.metadata.session_id)?;
        let base = format!("/{prefix}{slot}/");
        let mut files = FlatTree::default();
        let mut paths = SessionFilePaths {
            metadata: format!("{base}{METADATA_FILE}"),
            ..SessionFilePaths::default()
        };
        if let Some((chunks, hash)) = &self.transcript {
            for (i, blob) in chunks.iter().enumerate() {
                files.insert(&chunk_name(i), FileMode::Regular, *blob)?;
            }
            files.insert(CONTENT_HASH_FILE, FileMode::Regular, *hash)?;
            paths.transcript = format!("{base}{TRANSCRIPT_FILE}");
            paths.content_hash = format!("{base}{CONTENT_HASH_FILE}");
        }
        if let Some(blob) = self.prompt_blob {
            files.insert(PROMPT_FILE, FileMode::Regular, blob)?;
            paths.prompt = format!("{base}{PROMPT_FILE}");
        }
        files.insert(METADATA_FILE, FileMode::Regular, self.metadata_blob)?;
        let slot_tree = files.write(repo)?;
        if let Some((tool_use_id, blob)) = &self.task {
            dir.set_task(repo, tool_use_id, *blob)?;
        }
        let old = dir.summary.take().unwrap_or_default();
        let mut sessions = old.sessions.clone().unwrap_or_default();
        if sessions.len() <= slot {
            sessions.resize(slot + 1, SessionFilePaths::default());
        }
        sessions[slot] = paths;
        dir.set_slot(slot, slot_tree, Some(self.metadata.clone()));
        let (checkpoints_count, files_touched, token_usage) =
            dir.aggregate(repo, sessions.len())?;
        let kind = self.metadata.kind.as_str();
        let root = &self.root;
        let summary = CheckpointSummary {
            cli_version: self.metadata.cli_version.clone(),
            checkpoint_id: self.metadata.checkpoint_id.clone(),
            strategy: self.metadata.strategy.clone(),
            branch: root.branch.clone(),
            commit_sha: root.commit_sha.clone(),
            checkpoints_count,
            files_touched,
            sessions: Some(sessions),
            token_usage,
            combined_attribution: root
                .combined_attribution
                .clone()
                .or(old.combined_attribution),
            has_review: root
                .has_review
                .unwrap_or(old.has_review || kind == "agent_review"),
            has_investigation: root
                .has_investigation
                .unwrap_or(old.has_investigation || kind == "agent_investigate"),
            imported: root.imported.unwrap_or(old.imported || kind == "imported"),
        };
        Ok((dir.write(repo, &summary)?, slot))
    }
}

fn build_metadata(write: &SessionWrite, r: &dyn Redact) -> Result<Metadata> {
    let task = write.task.as_ref();
    let prompts = i64::try_from(write.prompts.len()).unwrap_or(i64::MAX);
    Ok(Metadata {
        cli_version: write
            .cli_version
            .clone()
            .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned()),
        checkpoint_id: write.checkpoint_id.clone(),
        session_id: write.session_id.clone(),
        strategy: write
            .strategy
            .clone()
            .unwrap_or_else(|| DEFAULT_STRATEGY.to_owned()),
        created_at: write
            .created_at
            .map_or_else(Timestamp::now, Timestamp::to_utc),
        branch: write.branch.clone(),
        commit_sha: write.commit_sha.clone(),
        checkpoints_count: write.checkpoints_count.unwrap_or(prompts.max(1)),
        save_step_count: write.save_step_count,
        files_touched: write.files_touched.clone(),
        agent: write.agent.clone(),
        model: write.model.clone(),
        turn_id: write.turn_id.clone(),
        is_task: task.is_some(),
        tool_use_id: task.map(|t| t.tool_use_id.clone()).unwrap_or_default(),
        transcript_identifier_at_start: write.transcript_identifier_at_start.clone(),
        checkpoint_transcript_start: write.checkpoint_transcript_start,
        transcript_lines_at_start: write.checkpoint_transcript_start,
        compact_transcript_start: write.compact_transcript_start,
        token_usage: write.token_usage.clone(),
        skill_events_version: write.skill_events_version,
        skill_events: redacted_raw(r, "skill_events", write.skill_events.as_deref(), true)?,
        session_metrics: write.session_metrics.clone(),
        summary: write.summary.as_ref().map(|s| redact_summary(r, s)),
        initial_attribution: write.initial_attribution.clone(),
        prompt_attributions: redacted_raw(
            r,
            "prompt_attributions",
            write.prompt_attributions.as_deref(),
            false,
        )?,
        kind: write.kind.clone(),
        review_skills: write.review_skills.clone(),
        review_prompt: r.text(&write.review_prompt).into_owned(),
        investigate_run_id: write.investigate_run_id.clone(),
        investigate_topic: r.text(&write.investigate_topic).into_owned(),
        snapshot_sha256: write
            .snapshot
            .as_deref()
            .map(snapshot_sha256)
            .unwrap_or_default(),
    })
}

/// A raw JSON field, checked, redacted as JSON and checked again.
fn redacted_raw(
    r: &dyn Redact,
    field: &str,
    text: Option<&str>,
    list: bool,
) -> Result<Option<RawJson>> {
    let Some(text) = text else { return Ok(None) };
    let check = |t: &str| -> Result<RawJson> {
        let raw = RawJson::new(field, t)?;
        if list && serde_json::from_str::<Option<Vec<&RawValue>>>(raw.get()).is_err() {
            return Err(Error::invalid_argument(field, "must be a JSON list"));
        }
        Ok(raw)
    };
    check(text)?;
    check(&r.json(text)).map(Some)
}
