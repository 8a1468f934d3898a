//! `CheckpointStore.push / fetch / fetchAll / listRemote`: sharing
//! checkpoints through a git remote (a remote name or URL, default
//! `'origin'`). Each has an `…Async` twin that runs the `git` work on the
//! libuv thread pool (through [`crate::task`]).

use std::sync::Arc;

use agent_checkpoint_store as store;
use napi::bindgen_prelude::AsyncTask;
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
    /// (default `'origin'`), at most 200 refs per `git push`. Refs the
    /// remote confirmed leave the queue; refused or conflicting ones stay
    /// queued and are listed in `queued`. Throws `remote_unreachable` /
    /// `auth_failed` (the unconfirmed refs stay queued).
    #[napi]
    pub fn push(&self, env: Env, remote: Option<String>) -> napi::Result<PushResult> {
        self.inner
            .push(&remote_or_origin(remote))
            .and_then(pushed)
            .or_throw(&env)
    }

    /// `push` off the JS thread.
    #[napi(ts_return_type = "Promise<PushResult>")]
    pub fn push_async(
        &self,
        remote: Option<String>,
    ) -> AsyncTask<Work<store::PushReport, PushResult>> {
        let store = Arc::clone(&self.inner);
        let remote = remote_or_origin(remote);
        spawn_then(move || store.push(&remote), pushed)
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
