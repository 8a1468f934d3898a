//! `CheckpointStore`: checkpoints kept in git (the `agent-checkpoint-store`
//! crate). Each method converts its arguments, calls the store and maps the
//! result; each has an `…Async` twin that runs the git work on the libuv
//! thread pool. Documents (summaries, session metadata) come back with the
//! stored JSON's own snake_case field names.

use std::sync::Arc;

use agent_checkpoint_store::{
    Attribution, Backend, Document, SessionWrite, Store, StoreOptions, Summary,
};
use napi::bindgen_prelude::{AsyncTask, Either, Null, Uint8Array, Unknown};
use napi::{Env, ScopedTask};
use napi_derive::napi;

use crate::async_options::{
    plan_async_options, rollback_async_options, PlanAsyncOptions, RollbackAsyncOptions,
};
use crate::checkpoint::rollback_at;
use crate::error::{to_js, OrThrow};
use crate::options::{plan_options, rollback_options, PlanOptions, RollbackOptions};
use crate::plan::PlanItem;
use crate::progress::reporting;
use crate::snapshot::RollbackReport;
use crate::task::{spawn, spawn_then, Job, Work};

/// What `writeSession` did.
#[napi(object, use_nullable = true)]
pub struct WriteResult {
    /// The new commit (hex).
    pub commit: String,
    /// The ref that now points at it.
    pub ref_name: String,
    /// The session's slot in the checkpoint.
    pub session_index: u32,
    /// The undo-snapshot commit, when the write carried a snapshot.
    pub snapshot_commit: Option<String>,
}

/// One checkpoint as `list` shows it.
#[napi(object)]
pub struct CheckpointInfo {
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// `'git-refs'` or `'git-branch'`.
    #[napi(ts_type = "'git-refs' | 'git-branch'")]
    pub backend: String,
    /// The session IDs, by slot.
    pub session_ids: Vec<String>,
    /// The last session's creation time (RFC 3339).
    pub created_at: String,
    /// The last session's agent.
    pub agent: String,
    /// Whether the last session is a subagent task.
    pub is_task: bool,
    /// The last session's tool-use ID.
    pub tool_use_id: String,
    /// The summary's step count.
    pub checkpoints_count: i64,
    /// The summary's files touched.
    pub files_touched: Vec<String>,
    /// Whether the checkpoint was imported.
    pub imported: bool,
    /// Why it cannot be read, for one that cannot (listed after the sound
    /// ones; then only `checkpointId` and `backend` say anything); `null`
    /// for a sound checkpoint.
    pub damaged: Option<Damage>,
}

/// Why a listed checkpoint cannot be read.
#[napi(object)]
pub struct Damage {
    /// The stable error code a read of it gives (`corrupt_object`, ...).
    pub code: String,
    /// The error's message.
    pub reason: String,
}

/// One session's content.
#[napi(object)]
pub struct SessionContent {
    /// The session's `metadata.json` (snake_case, as stored).
    #[napi(ts_type = "Record<string, any>")]
    pub metadata: serde_json::Value,
    /// The prompts.
    pub prompts: Vec<String>,
    /// The transcript, chunks joined; `null` for a session written without one.
    #[napi(ts_type = "Uint8Array | null")]
    pub transcript: Either<Uint8Array, Null>,
}

/// The fields of a session write (declared for TypeScript; `writeSession`
/// reads them as JSON, camelCase keys turned into the store's snake_case
/// field names). Nested documents use the stored snake_case names.
#[napi(object)]
pub struct SessionFields {
    /// The strategy (default `manual-commit`).
    pub strategy: Option<String>,
    /// The agent.
    pub agent: Option<String>,
    /// The model (written even when empty).
    pub model: Option<String>,
    /// The prompts, in order.
    pub prompts: Option<Vec<String>>,
    /// The transcript (JSONL text).
    pub transcript: Option<String>,
    /// Files the session touched (absent: written as `null`).
    pub files_touched: Option<Vec<String>>,
    /// The capture snapshot of the batch, kept locally for rollback.
    pub snapshot: Option<String>,
    /// Makes this a subagent task checkpoint.
    #[napi(ts_type = "{ tool_use_id: string, checkpoint_uuid?: string, agent_id?: string }")]
    pub task: Option<serde_json::Value>,
    /// The commit author.
    #[napi(ts_type = "{ name: string, email: string }")]
    pub author: Option<serde_json::Value>,
    /// When the checkpoint was created (RFC 3339; default now).
    pub created_at: Option<String>,
    /// Token usage (a TokenUsage document).
    #[napi(ts_type = "Record<string, any>")]
    pub token_usage: Option<serde_json::Value>,
    /// The branch.
    pub branch: Option<String>,
    /// Anchor commit of an imported checkpoint.
    pub commit_sha: Option<String>,
    /// The writing tool's version.
    pub cli_version: Option<String>,
    /// Displayed step count.
    pub checkpoints_count: Option<i64>,
    /// Shadow-branch steps recorded.
    pub save_step_count: Option<i64>,
    /// Correlates checkpoints of one agent turn.
    pub turn_id: Option<String>,
    /// Last transcript identifier when the checkpoint started.
    pub transcript_identifier_at_start: Option<String>,
    /// Transcript line offset where this checkpoint's data starts.
    pub checkpoint_transcript_start: Option<i64>,
    /// Line offset in a compact transcript.
    pub compact_transcript_start: Option<i64>,
    /// Session metrics (a SessionMetrics document).
    #[napi(ts_type = "Record<string, any>")]
    pub session_metrics: Option<serde_json::Value>,
    /// AI summary (a Summary document).
    #[napi(ts_type = "Record<string, any>")]
    pub summary: Option<serde_json::Value>,
    /// Line attribution (an Attribution document).
    #[napi(ts_type = "Record<string, any>")]
    pub initial_attribution: Option<serde_json::Value>,
    /// Raw per-prompt attribution JSON text.
    pub prompt_attributions: Option<String>,
    /// Raw skill events JSON list text.
    pub skill_events: Option<String>,
    /// Skill events version.
    pub skill_events_version: Option<i64>,
    /// Session purpose (`agent_review`, `agent_investigate`, `imported`).
    pub kind: Option<String>,
    /// Review skills run.
    pub review_skills: Option<Vec<String>>,
    /// The review request.
    pub review_prompt: Option<String>,
    /// The parent investigation run.
    pub investigate_run_id: Option<String>,
    /// The investigation topic.
    pub investigate_topic: Option<String>,
    /// Marks the checkpoint reviewed.
    pub has_review: Option<bool>,
    /// Marks the checkpoint investigated.
    pub has_investigation: Option<bool>,
    /// Marks the checkpoint imported.
    pub imported: Option<bool>,
    /// Attribution across all sessions (an Attribution document).
    #[napi(ts_type = "Record<string, any>")]
    pub combined_attribution: Option<serde_json::Value>,
    /// The shadow branch the session came from.
    pub ephemeral_branch: Option<String>,
}

/// `filesTouched` -> `files_touched`; snake_case keys stay as they are.
fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

pub(crate) fn session_write(
    checkpoint_id: String,
    session_id: String,
    fields: Option<serde_json::Value>,
) -> napi::Result<String> {
    let mut doc = serde_json::Map::new();
    match fields {
        None | Some(serde_json::Value::Null) => {}
        Some(serde_json::Value::Object(map)) => {
            for (k, v) in map {
                doc.insert(snake(&k), v);
            }
        }
        Some(_) => return Err(invalid_arg("fields must be an object")),
    }
    doc.insert("checkpoint_id".into(), checkpoint_id.into());
    doc.insert("session_id".into(), session_id.into());
    Ok(serde_json::Value::Object(doc).to_string())
}

/// A plain `Error` with status `InvalidArg` (a wrong argument shape, or a
/// task run twice).
fn invalid_arg(message: &str) -> napi::Error {
    napi::Error::new(napi::Status::InvalidArg, message)
}

fn json_error(e: serde_json::Error) -> agent_checkpoint::Error {
    agent_checkpoint::Error::invalid_argument("document", e.to_string())
}

/// The root to roll back (default: the working tree) and the checkpoint's
/// undo snapshot (`not_found` when it has none).
fn undo(
    store: &Store,
    checkpoint_id: &str,
    root: Option<String>,
) -> agent_checkpoint::Result<(std::path::PathBuf, String)> {
    // Without a root, the store refuses a snapshot taken under another
    // directory than the working tree (`root_mismatch`).
    store.undo_target(checkpoint_id, root.as_deref().map(std::path::Path::new))
}

/// The plan of rolling checkpoint `checkpoint_id` back under `root`, or
/// else under the working tree (the store refusing a snapshot taken under
/// another directory).
fn plan_in(
    store: &Store,
    checkpoint_id: &str,
    root: Option<String>,
    parse: &agent_checkpoint::ParseOptions,
    options: &agent_checkpoint::PlanOptions,
) -> agent_checkpoint::Result<agent_checkpoint::Plan> {
    match root {
        Some(root) => store.plan_rollback(checkpoint_id, root, parse, options),
        None => store.plan_rollback_work_tree(checkpoint_id, parse, options),
    }
}

pub(crate) fn root_or_workdir(
    store: &Store,
    root: Option<String>,
) -> agent_checkpoint::Result<std::path::PathBuf> {
    root.map(Into::into)
        .or_else(|| store.work_dir())
        .ok_or_else(|| {
            agent_checkpoint::Error::invalid_argument("root", "the repository has no working tree")
        })
}

fn info(c: agent_checkpoint_store::CheckpointInfo) -> CheckpointInfo {
    CheckpointInfo {
        backend: c.backend.as_str().to_owned(),
        created_at: c.created_at.to_string(),
        checkpoint_id: c.checkpoint_id,
        session_ids: c.session_ids,
        agent: c.agent,
        is_task: c.is_task,
        tool_use_id: c.tool_use_id,
        checkpoints_count: c.checkpoints_count,
        files_touched: c.files_touched,
        imported: c.imported,
        damaged: c.damaged.map(|d| Damage {
            code: d.code.as_str().to_owned(),
            reason: d.reason,
        }),
    }
}

fn written(w: agent_checkpoint_store::SessionWritten) -> WriteResult {
    WriteResult {
        commit: w.commit,
        ref_name: w.ref_name,
        session_index: u32::try_from(w.session_index).unwrap_or(u32::MAX),
        snapshot_commit: w.snapshot_commit,
    }
}

fn content(c: agent_checkpoint_store::SessionContent) -> agent_checkpoint::Result<SessionContent> {
    Ok(SessionContent {
        metadata: serde_json::from_str(&c.metadata_json).map_err(json_error)?,
        prompts: c.prompts,
        transcript: match c.transcript {
            Some(bytes) => Either::A(bytes.into()),
            None => Either::B(Null),
        },
    })
}

/// `readAsync`'s work: the document's JSON text, made an object in
/// `resolve` (a JSON value can only become a JavaScript one there).
pub struct DocumentTask(Option<Job<String>>);

impl<'task> ScopedTask<'task> for DocumentTask {
    type Output = agent_checkpoint::Result<String>;
    type JsValue = Unknown<'task>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        match self.0.take() {
            Some(job) => Ok(job()),
            None => Err(invalid_arg("the task already ran")),
        }
    }

    fn resolve(&mut self, env: &'task Env, output: Self::Output) -> napi::Result<Unknown<'task>> {
        let value: serde_json::Value = output
            .and_then(|t| serde_json::from_str(&t).map_err(json_error))
            .map_err(|e| to_js(env, &e))?;
        env.to_js_value(&value)
    }
}

/// A git repository opened for checkpoints (any directory of its working
/// tree), with `backend` `'git-refs'` (default) or `'git-branch'`. Prompts,
/// transcripts and summaries are redacted with the default redactor before
/// they are stored (undo snapshots never are).
#[napi]
pub struct CheckpointStore {
    pub(crate) inner: Arc<Store>,
}

#[napi]
impl CheckpointStore {
    /// Opens the repository containing `path`; throws `not_a_repository`.
    /// `options.signCommits` signs every commit the store writes (`true`),
    /// never (`false`), or as git's `commit.gpgSign` says (absent).
    #[napi(constructor)]
    pub fn new(
        env: Env,
        path: String,
        #[napi(ts_arg_type = "'git-refs' | 'git-branch'")] backend: Option<String>,
        options: Option<crate::store_options::StoreOpenOptions>,
    ) -> napi::Result<CheckpointStore> {
        let backend: Backend = backend
            .as_deref()
            .unwrap_or("git-refs")
            .parse()
            .or_throw(&env)?;
        let options =
            crate::store_options::apply(StoreOptions::default().backend(backend), options.as_ref());
        let inner = Store::open_with(&path, options).or_throw(&env)?;
        Ok(CheckpointStore {
            inner: Arc::new(inner),
        })
    }

    /// `'git-refs'` or `'git-branch'`.
    #[napi(getter, ts_return_type = "'git-refs' | 'git-branch'")]
    pub fn backend(&self) -> &'static str {
        self.inner.backend().as_str()
    }

    /// The git common dir (push queue, lock files).
    #[napi(getter)]
    pub fn common_dir(&self) -> String {
        self.inner.common_dir().to_string_lossy().into_owned()
    }

    /// The repository's working tree (where `rollback` without a root
    /// restores); `null` for a bare repository.
    #[napi(getter)]
    pub fn work_dir(&self) -> Option<String> {
        self.inner
            .work_dir()
            .map(|dir| dir.to_string_lossy().into_owned())
    }

    /// Writes one session into a checkpoint. `fields` keys are camelCase
    /// (`filesTouched`, `tokenUsage`, ...); nested documents use the stored
    /// snake_case names.
    #[napi]
    pub fn write_session(
        &self,
        env: Env,
        checkpoint_id: String,
        session_id: String,
        #[napi(ts_arg_type = "SessionFields")] fields: Option<serde_json::Value>,
    ) -> napi::Result<WriteResult> {
        let json = session_write(checkpoint_id, session_id, fields)?;
        SessionWrite::from_json(&json)
            .and_then(|w| self.inner.write_session(&w))
            .map(written)
            .or_throw(&env)
    }

    /// `writeSession` off the JS thread.
    #[napi(ts_return_type = "Promise<WriteResult>")]
    pub fn write_session_async(
        &self,
        checkpoint_id: String,
        session_id: String,
        #[napi(ts_arg_type = "SessionFields")] fields: Option<serde_json::Value>,
    ) -> napi::Result<AsyncTask<Work<agent_checkpoint_store::SessionWritten, WriteResult>>> {
        let json = session_write(checkpoint_id, session_id, fields)?;
        let store = Arc::clone(&self.inner);
        Ok(spawn_then(
            move || store.write_session(&SessionWrite::from_json(&json)?),
            |w| Ok(written(w)),
        ))
    }

    /// The root summary of a checkpoint (snake_case, as stored).
    #[napi(ts_return_type = "Record<string, any>")]
    pub fn read(&self, env: Env, checkpoint_id: String) -> napi::Result<serde_json::Value> {
        self.inner
            .read(&checkpoint_id)
            .and_then(|s| s.to_go_json())
            .and_then(|t| serde_json::from_str(&t).map_err(json_error))
            .or_throw(&env)
    }

    /// `read` off the JS thread.
    #[napi(ts_return_type = "Promise<Record<string, any>>")]
    pub fn read_async(&self, checkpoint_id: String) -> AsyncTask<DocumentTask> {
        let store = Arc::clone(&self.inner);
        AsyncTask::new(DocumentTask(Some(Box::new(move || {
            store.read(&checkpoint_id)?.to_go_json()
        }))))
    }

    /// The root `metadata.json` as stored.
    #[napi]
    pub fn read_raw(&self, env: Env, checkpoint_id: String) -> napi::Result<String> {
        self.inner.read_raw(&checkpoint_id).or_throw(&env)
    }

    /// `readRaw` off the JS thread.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn read_raw_async(&self, checkpoint_id: String) -> AsyncTask<Work<String, String>> {
        let store = Arc::clone(&self.inner);
        spawn(move || store.read_raw(&checkpoint_id))
    }

    /// Session `index` (default 0) of a checkpoint.
    #[napi]
    pub fn read_session(
        &self,
        env: Env,
        checkpoint_id: String,
        index: Option<u32>,
    ) -> napi::Result<SessionContent> {
        self.inner
            .read_session(&checkpoint_id, index.unwrap_or(0) as usize)
            .and_then(content)
            .or_throw(&env)
    }

    /// `readSession` off the JS thread.
    #[napi(ts_return_type = "Promise<SessionContent>")]
    pub fn read_session_async(
        &self,
        checkpoint_id: String,
        index: Option<u32>,
    ) -> AsyncTask<Work<agent_checkpoint_store::SessionContent, SessionContent>> {
        let store = Arc::clone(&self.inner);
        spawn_then(
            move || store.read_session(&checkpoint_id, index.unwrap_or(0) as usize),
            content,
        )
    }

    /// Every local checkpoint, newest first.
    #[napi]
    pub fn list(&self, env: Env) -> napi::Result<Vec<CheckpointInfo>> {
        self.inner
            .list()
            .map(|l| l.into_iter().map(info).collect())
            .or_throw(&env)
    }

    /// `list` off the JS thread.
    #[napi(ts_return_type = "Promise<CheckpointInfo[]>")]
    pub fn list_async(
        &self,
    ) -> AsyncTask<Work<Vec<agent_checkpoint_store::CheckpointInfo>, Vec<CheckpointInfo>>> {
        let store = Arc::clone(&self.inner);
        spawn_then(
            move || store.list(),
            |l| Ok(l.into_iter().map(info).collect()),
        )
    }

    /// The undo snapshot stored with a checkpoint, or `null`.
    #[napi]
    pub fn snapshot(&self, env: Env, checkpoint_id: String) -> napi::Result<Option<String>> {
        self.inner.snapshot(&checkpoint_id).or_throw(&env)
    }

    /// `snapshot` off the JS thread.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn snapshot_async(
        &self,
        checkpoint_id: String,
    ) -> AsyncTask<Work<Option<String>, Option<String>>> {
        let store = Arc::clone(&self.inner);
        spawn(move || store.snapshot(&checkpoint_id))
    }

    /// Rolls `root` (default: the repository's working tree) back to the
    /// checkpoint's undo snapshot, with the options of `rollback`; as there,
    /// a snapshot it refuses comes back as a report with `valid: false`.
    /// Throws `not_found` when the checkpoint has no undo snapshot, and
    /// `root_mismatch` (without `root`) when it was taken under another
    /// directory than the working tree.
    #[napi]
    pub fn rollback(
        &self,
        env: Env,
        checkpoint_id: String,
        root: Option<String>,
        options: Option<RollbackOptions>,
    ) -> napi::Result<RollbackReport> {
        let options = rollback_options(&env, options)?;
        undo(&self.inner, &checkpoint_id, root)
            .and_then(|(root, text)| rollback_at(root, &text, &options))
            .or_throw(&env)
    }

    /// `rollback` off the JS thread, with `onProgress` as in `rollbackAsync`.
    #[napi(ts_return_type = "Promise<RollbackReport>")]
    pub fn rollback_async(
        &self,
        env: &Env,
        checkpoint_id: String,
        root: Option<String>,
        options: Option<RollbackAsyncOptions>,
    ) -> napi::Result<AsyncTask<Work<RollbackReport, RollbackReport>>> {
        let (options, progress) = rollback_async_options(env, options)?;
        let store = Arc::clone(&self.inner);
        Ok(spawn(move || {
            reporting(progress, || {
                let (root, text) = undo(&store, &checkpoint_id, root)?;
                rollback_at(root, &text, &options)
            })
        }))
    }

    /// What `rollback` would do, touching nothing.
    #[napi]
    pub fn plan_rollback(
        &self,
        env: Env,
        checkpoint_id: String,
        root: Option<String>,
        options: Option<PlanOptions>,
    ) -> napi::Result<Vec<PlanItem>> {
        let (parse, options) = plan_options(&env, options)?;
        plan_in(&self.inner, &checkpoint_id, root, &parse, &options)
            .map(|p| p.items.into_iter().map(PlanItem::from).collect())
            .or_throw(&env)
    }

    /// `planRollback` off the JS thread, with `onProgress` as in
    /// `planRollbackAsync`.
    #[napi(ts_return_type = "Promise<PlanItem[]>")]
    pub fn plan_rollback_async(
        &self,
        env: &Env,
        checkpoint_id: String,
        root: Option<String>,
        options: Option<PlanAsyncOptions>,
    ) -> napi::Result<AsyncTask<Work<agent_checkpoint::Plan, Vec<PlanItem>>>> {
        let ((parse, options), progress) = plan_async_options(env, options)?;
        let store = Arc::clone(&self.inner);
        Ok(spawn_then(
            move || {
                reporting(progress, || {
                    plan_in(&store, &checkpoint_id, root, &parse, &options)
                })
            },
            |p| Ok(p.items.into_iter().map(PlanItem::from).collect()),
        ))
    }

    /// Replaces a session's transcript (and prompts, when given); returns the commit.
    #[napi]
    pub fn backfill_transcript(
        &self,
        env: Env,
        checkpoint_id: String,
        session_id: String,
        transcript: Either<String, Uint8Array>,
        prompts: Option<Vec<String>>,
    ) -> napi::Result<String> {
        let bytes = transcript_bytes(transcript);
        self.inner
            .backfill_transcript(&checkpoint_id, &session_id, &bytes, prompts.as_deref())
            .or_throw(&env)
    }

    /// `backfillTranscript` off the JS thread.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn backfill_transcript_async(
        &self,
        checkpoint_id: String,
        session_id: String,
        transcript: Either<String, Uint8Array>,
        prompts: Option<Vec<String>>,
    ) -> AsyncTask<Work<String, String>> {
        let bytes = transcript_bytes(transcript);
        let store = Arc::clone(&self.inner);
        spawn(move || {
            store.backfill_transcript(&checkpoint_id, &session_id, &bytes, prompts.as_deref())
        })
    }

    /// Sets a session's summary (a Summary document); returns the commit.
    #[napi]
    pub fn backfill_summary(
        &self,
        env: Env,
        checkpoint_id: String,
        session_id: String,
        #[napi(ts_arg_type = "Record<string, any>")] summary: serde_json::Value,
    ) -> napi::Result<String> {
        serde_json::from_value::<Summary>(summary)
            .map_err(json_error)
            .and_then(|s| self.inner.backfill_summary(&checkpoint_id, &session_id, &s))
            .or_throw(&env)
    }

    /// `backfillSummary` off the JS thread.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn backfill_summary_async(
        &self,
        checkpoint_id: String,
        session_id: String,
        #[napi(ts_arg_type = "Record<string, any>")] summary: serde_json::Value,
    ) -> AsyncTask<Work<String, String>> {
        let store = Arc::clone(&self.inner);
        spawn(move || {
            let summary: Summary = serde_json::from_value(summary).map_err(json_error)?;
            store.backfill_summary(&checkpoint_id, &session_id, &summary)
        })
    }

    /// Sets the checkpoint's combined attribution (an Attribution document);
    /// returns the commit.
    #[napi]
    pub fn backfill_attribution(
        &self,
        env: Env,
        checkpoint_id: String,
        #[napi(ts_arg_type = "Record<string, any>")] attribution: serde_json::Value,
    ) -> napi::Result<String> {
        serde_json::from_value::<Attribution>(attribution)
            .map_err(json_error)
            .and_then(|a| self.inner.backfill_attribution(&checkpoint_id, &a))
            .or_throw(&env)
    }

    /// `backfillAttribution` off the JS thread.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn backfill_attribution_async(
        &self,
        checkpoint_id: String,
        #[napi(ts_arg_type = "Record<string, any>")] attribution: serde_json::Value,
    ) -> AsyncTask<Work<String, String>> {
        let store = Arc::clone(&self.inner);
        spawn(move || {
            let attribution: Attribution =
                serde_json::from_value(attribution).map_err(json_error)?;
            store.backfill_attribution(&checkpoint_id, &attribution)
        })
    }
}

fn transcript_bytes(transcript: Either<String, Uint8Array>) -> Vec<u8> {
    match transcript {
        Either::A(text) => text.into_bytes(),
        Either::B(bytes) => bytes.to_vec(),
    }
}
