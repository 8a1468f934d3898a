//! `CheckpointStore.push / fetch / fetchAll / listRemote`: sharing
//! checkpoints through a git remote (a remote name or URL, default
//! `'origin'`). Each has an `…Async` twin that runs the `git` work on the
//! libuv thread pool (through [`crate::task`]).

use std::sync::Arc;

use agent_checkpoint_store as store;
use napi::bindgen_prelude::{AsyncTask, Either};
use napi::Env;
use napi_derive::napi;

use crate::error::OrThrow;
use crate::store::CheckpointStore;
use crate::task::{spawn_then, Work};

/// A ref a push or fetch did not get through.
#[napi(object)]
pub struct RefFailure {
    /// The ref.
    pub ref_name: String,
    /// `'rejected'` (the remote refused it), `'conflict'` (one session
    /// written differently on both sides; the local checkpoint untouched)
    /// or `'remote_unreachable'` (a push of it alone failed whole).
    #[napi(ts_type = "'rejected' | 'conflict' | 'remote_unreachable'")]
    pub code: String,
    /// The remote's one-line reason, or what conflicts.
    pub reason: String,
}

/// What `push` did.
#[napi(object)]
pub struct PushResult {
    /// The remote, as given.
    pub remote: String,
    /// Refs the remote confirmed (they left the queue).
    pub pushed: Vec<String>,
    /// Refs still queued, with their code and reason.
    pub queued: Vec<RefFailure>,
    /// Queue entries dropped: not checkpoint refs, or gone locally.
    pub dropped: Vec<String>,
    /// Whether every ref went through.
    pub ok: bool,
}

/// How `push` runs.
#[napi(object)]
pub struct PushOptions {
    /// List what the push would send (a `PushPlan`); push and change
    /// nothing. The remote is asked which checkpoint refs it holds.
    pub dry_run: Option<bool>,
}

/// Why an outgoing checkpoint cannot be described.
#[napi(object)]
pub struct OutgoingDamage {
    /// The stable error code a read of it gives.
    pub code: String,
    /// The error's message.
    pub reason: String,
}

/// One ref a push would send, as `push(remote, { dryRun: true })` lists it.
#[napi(object)]
pub struct OutgoingCheckpoint {
    /// The ref.
    pub ref_name: String,
    /// The checkpoint ID; `null` for the v1 branch.
    pub checkpoint_id: Option<String>,
    /// The local tip that would be pushed (hex).
    pub commit: String,
    /// In the push queue (`false`: found because the remote was not seen
    /// holding it).
    pub queued: bool,
    /// The session IDs, by slot.
    pub session_ids: Vec<String>,
    /// The last session's agent.
    pub agent: String,
    /// The summary's files touched.
    pub files_touched: Vec<String>,
    /// The uncompressed size of its objects the remote lacks (an upper
    /// bound on what git sends for it).
    pub upload_bytes: f64,
    /// The remote holds it at `commit` already.
    pub on_remote: bool,
    /// The remote's other tip of it, if it holds one.
    pub remote_commit: Option<String>,
    /// Why it cannot be described, when it cannot.
    pub damaged: Option<OutgoingDamage>,
}

/// What `push(remote, { dryRun: true })` found a push would send.
#[napi(object)]
pub struct PushPlan {
    /// The remote, as given.
    pub remote: String,
    /// Every ref the push would send, in push order.
    pub checkpoints: Vec<OutgoingCheckpoint>,
    /// Queue entries the push would drop.
    pub dropped: Vec<String>,
    /// The bytes that would be uploaded in all, each object once.
    pub upload_bytes: f64,
    /// The refs the remote would receive (those not on it already).
    pub to_send: Vec<String>,
}

/// One ref a fetch brought in.
#[napi(object)]
pub struct FetchedRef {
    /// The ref.
    pub ref_name: String,
    /// What happened to the local ref.
    #[napi(ts_type = "'created' | 'fast_forwarded' | 'up_to_date' | 'local_ahead' | 'replayed'")]
    pub outcome: String,
    /// The local tip after (hex).
    pub commit: String,
}

/// What `fetchAll` did.
#[napi(object)]
pub struct FetchResult {
    /// The remote, as given.
    pub remote: String,
    /// Every remote ref, and what it did here.
    pub fetched: Vec<FetchedRef>,
    /// Refs that could not be brought in.
    pub failed: Vec<RefFailure>,
    /// Whether every ref was brought in.
    pub ok: bool,
}

/// One checkpoint a remote holds.
#[napi(object)]
pub struct RemoteCheckpoint {
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// Where the remote keeps it.
    #[napi(ts_type = "'git-refs' | 'git-branch'")]
    pub backend: String,
    /// The remote ref holding it.
    pub ref_name: String,
    /// That ref's tip on the remote (hex).
    pub commit: String,
    /// How the local copy compares.
    #[napi(ts_type = "'absent' | 'same' | 'different'")]
    pub local: String,
}

fn failure(f: store::RefFailure) -> RefFailure {
    RefFailure {
        code: f.code.as_str().to_owned(),
        ref_name: f.ref_name,
        reason: f.reason,
    }
}

fn pushed(r: store::PushReport) -> agent_checkpoint::Result<PushResult> {
    Ok(PushResult {
        ok: r.all_pushed(),
        remote: r.remote,
        pushed: r.pushed,
        queued: r.queued.into_iter().map(failure).collect(),
        dropped: r.dropped,
    })
}

fn planned(p: store::PushPlan) -> PushPlan {
    PushPlan {
        to_send: p.to_send().into_iter().map(str::to_owned).collect(),
        remote: p.remote,
        checkpoints: p
            .checkpoints
            .into_iter()
            .map(|c| OutgoingCheckpoint {
                ref_name: c.ref_name,
                checkpoint_id: c.checkpoint_id,
                commit: c.commit,
                queued: c.queued,
                session_ids: c.session_ids,
                agent: c.agent,
                files_touched: c.files_touched,
                upload_bytes: c.upload_bytes as f64,
                on_remote: c.on_remote,
                remote_commit: c.remote_commit,
                damaged: c.damaged.map(|d| OutgoingDamage {
                    code: d.code.as_str().to_owned(),
                    reason: d.reason,
                }),
            })
            .collect(),
        dropped: p.dropped,
        upload_bytes: p.upload_bytes as f64,
    }
}

/// A push, or its dry run.
pub enum Pushing {
    /// What the push did.
    Done(store::PushReport),
    /// What it would send.
    Plan(store::PushPlan),
}

fn push_or_plan(
    store: &store::Store,
    remote: &str,
    dry_run: bool,
) -> agent_checkpoint::Result<Pushing> {
    if dry_run {
        store.push_plan(remote).map(Pushing::Plan)
    } else {
        store.push(remote).map(Pushing::Done)
    }
}

fn pushing(p: Pushing) -> agent_checkpoint::Result<Either<PushResult, PushPlan>> {
    match p {
        Pushing::Done(r) => pushed(r).map(Either::A),
        Pushing::Plan(p) => Ok(Either::B(planned(p))),
    }
}

fn dry_run(options: Option<PushOptions>) -> bool {
    options.and_then(|o| o.dry_run).unwrap_or(false)
}

fn fetched(f: store::FetchedRef) -> agent_checkpoint::Result<FetchedRef> {
    Ok(FetchedRef {
        outcome: f.outcome.as_str().to_owned(),
        ref_name: f.ref_name,
        commit: f.commit,
    })
}

fn fetched_all(r: store::FetchReport) -> agent_checkpoint::Result<FetchResult> {
    Ok(FetchResult {
        ok: r.failed.is_empty(),
        remote: r.remote,
        fetched: r
            .fetched
            .into_iter()
            .map(fetched)
            .collect::<agent_checkpoint::Result<_>>()?,
        failed: r.failed.into_iter().map(failure).collect(),
    })
}

fn listed(l: Vec<store::RemoteCheckpoint>) -> agent_checkpoint::Result<Vec<RemoteCheckpoint>> {
    Ok(l.into_iter()
        .map(|c| RemoteCheckpoint {
            backend: c.backend.as_str().to_owned(),
            local: c.local.as_str().to_owned(),
            checkpoint_id: c.checkpoint_id,
            ref_name: c.ref_name,
            commit: c.commit,
        })
        .collect())
}

fn remote_or_origin(remote: Option<String>) -> String {
    remote.unwrap_or_else(|| "origin".to_owned())
}

#[napi]
impl CheckpointStore {
    /// Pushes every queued checkpoint ref (and the v1 branch) to `remote`
    /// (default `'origin'`) in one `git push`. Refs the remote confirmed
    /// leave the queue; refused or conflicting ones stay queued and are
    /// listed in `queued`. Throws `remote_unreachable` / `auth_failed` (the
    /// unconfirmed refs stay queued). With `{ dryRun: true }` nothing is
    /// pushed or changed: returns a `PushPlan` of what the push would send
    /// (typed by the options: `PushPlan` for `{ dryRun: true }`,
    /// `PushResult` without `dryRun` or with `false`).
    #[napi(
        ts_generic_types = "O extends PushOptions = {}",
        ts_args_type = "remote?: string | undefined | null, options?: O | undefined | null",
        ts_return_type = "O extends { dryRun: true } ? PushPlan : O extends { dryRun?: false | undefined | null } ? PushResult : PushResult | PushPlan"
    )]
    pub fn push(
        &self,
        env: Env,
        remote: Option<String>,
        options: Option<PushOptions>,
    ) -> napi::Result<Either<PushResult, PushPlan>> {
        push_or_plan(&self.inner, &remote_or_origin(remote), dry_run(options))
            .and_then(pushing)
            .or_throw(&env)
    }

    /// `push` off the JS thread.
    #[napi(
        ts_generic_types = "O extends PushOptions = {}",
        ts_args_type = "remote?: string | undefined | null, options?: O | undefined | null",
        ts_return_type = "Promise<O extends { dryRun: true } ? PushPlan : O extends { dryRun?: false | undefined | null } ? PushResult : PushResult | PushPlan>"
    )]
    pub fn push_async(
        &self,
        remote: Option<String>,
        options: Option<PushOptions>,
    ) -> AsyncTask<Work<Pushing, Either<PushResult, PushPlan>>> {
        let store = Arc::clone(&self.inner);
        let remote = remote_or_origin(remote);
        let dry_run = dry_run(options);
        spawn_then(move || push_or_plan(&store, &remote, dry_run), pushing)
    }

    /// Fetches one checkpoint from `remote` (default `'origin'`) and brings
    /// it in. Throws `not_found` when the remote does not have it,
    /// `conflict` when one session was written differently on both sides.
    #[napi]
    pub fn fetch(
        &self,
        env: Env,
        checkpoint_id: String,
        remote: Option<String>,
    ) -> napi::Result<FetchedRef> {
        self.inner
            .fetch(&remote_or_origin(remote), &checkpoint_id)
            .and_then(fetched)
            .or_throw(&env)
    }

    /// `fetch` off the JS thread.
    #[napi(ts_return_type = "Promise<FetchedRef>")]
    pub fn fetch_async(
        &self,
        checkpoint_id: String,
        remote: Option<String>,
    ) -> AsyncTask<Work<store::FetchedRef, FetchedRef>> {
        let store = Arc::clone(&self.inner);
        let remote = remote_or_origin(remote);
        spawn_then(move || store.fetch(&remote, &checkpoint_id), fetched)
    }

    /// Fetches every checkpoint `remote` holds that differs from the local copy.
    #[napi]
    pub fn fetch_all(&self, env: Env, remote: Option<String>) -> napi::Result<FetchResult> {
        self.inner
            .fetch_all(&remote_or_origin(remote))
            .and_then(fetched_all)
            .or_throw(&env)
    }

    /// `fetchAll` off the JS thread.
    #[napi(ts_return_type = "Promise<FetchResult>")]
    pub fn fetch_all_async(
        &self,
        remote: Option<String>,
    ) -> AsyncTask<Work<store::FetchReport, FetchResult>> {
        let store = Arc::clone(&self.inner);
        let remote = remote_or_origin(remote);
        spawn_then(move || store.fetch_all(&remote), fetched_all)
    }

    /// The checkpoints `remote` holds, sorted by ID.
    #[napi]
    pub fn list_remote(
        &self,
        env: Env,
        remote: Option<String>,
    ) -> napi::Result<Vec<RemoteCheckpoint>> {
        self.inner
            .list_remote(&remote_or_origin(remote))
            .and_then(listed)
            .or_throw(&env)
    }

    /// `listRemote` off the JS thread.
    #[napi(ts_return_type = "Promise<RemoteCheckpoint[]>")]
    pub fn list_remote_async(
        &self,
        remote: Option<String>,
    ) -> AsyncTask<Work<Vec<store::RemoteCheckpoint>, Vec<RemoteCheckpoint>>> {
        let store = Arc::clone(&self.inner);
        let remote = remote_or_origin(remote);
        spawn_then(move || store.list_remote(&remote), listed)
    }
}
