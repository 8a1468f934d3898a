//! Sharing checkpoints through git remotes (STORE.md §5): [`Store::push`]
//! (and its dry run, [`Store::push_plan`]),
//! [`Store::fetch`], [`Store::fetch_all`], [`Store::list_remote`], and the
//! on-demand fetch of a read ([`crate::StoreOptions::fetch_missing_from`]).
//!
//! gitoxide has no push, so the network work runs the `git` program found
//! on `PATH` (without a shell, `GIT_TERMINAL_PROMPT=0`): the remote's
//! protocol, credentials and configuration are git's own. Only checkpoint
//! refs (`refs/entire/checkpoints/...`) and the v1 branch are ever pushed or
//! fetched: undo snapshots (`refs/entire/snapshots/...`) never leave the
//! machine, and nothing reachable only from them is ever sent.
//!
//! **[ours]** When both sides wrote to one checkpoint, our writes are
//! replayed on the remote's by meaning (sessions united by session ID, the
//! root summary recomputed) instead of as tree deltas; only one session
//! written differently on both sides is a `conflict`.

pub(crate) mod blobs;
mod fetch;
pub(crate) mod git_program;
mod held;
pub(crate) mod history;
mod integrate;
mod known;
mod lazy;
mod ls_refs;
mod outgoing;
mod porcelain;
mod progress;
pub(crate) mod promisor;
mod push;
mod record;
mod replay;
mod scratch;
mod tmp_refs;

use agent_checkpoint::{Error, ErrorCode};
use serde::Serialize;

use crate::backend::Backend;

pub use git_program::check_remote;
pub use integrate::{FetchOutcome, FETCH_TMP_PREFIX};
pub use lazy::MissingBlob;
pub use outgoing::{OutgoingCheckpoint, PushPlan};
pub use progress::PushProgress;
pub use promisor::PROMISOR_PREFIX;
pub use push::{MAX_PUSH_ROUNDS, MAX_SPLIT_PUSHES};

/// A ref a push or fetch did not get through, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RefFailure {
    /// The ref (`refs/entire/checkpoints/<shard>/<id>` or the v1 branch).
    pub ref_name: String,
    /// The stable code: `rejected` (the remote refused it: a hook, a
    /// policy, a tip that kept moving), `conflict` (one session written
    /// differently on both sides), or `remote_unreachable` (a push of this
    /// ref alone failed as a whole while the rest of the push went through).
    #[serde(serialize_with = "code_name")]
    pub code: ErrorCode,
    /// The remote's one-line reason, or what conflicts.
    pub reason: String,
}

fn code_name<S: serde::Serializer>(c: &ErrorCode, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(c.as_str())
}

impl RefFailure {
    /// The failure of `ref_name` with the code and reason of `error`.
    pub fn new(ref_name: String, error: &Error) -> RefFailure {
        let reason = match error {
            Error::Rejected { reason, .. }
            | Error::RemoteUnreachable { reason, .. }
            | Error::AuthFailed { reason, .. } => reason.clone(),
            Error::Conflict { what, reason } => format!("{what}: {reason}"),
            other => other.to_string(),
        };
        RefFailure {
            ref_name,
            code: error.code(),
            reason,
        }
    }
}

/// What [`Store::push`] did.
///
/// [`Store::push`]: crate::Store::push
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PushReport {
    /// The remote pushed to, as given.
    pub remote: String,
    /// Refs the remote confirmed (new, moved, or already up to date); the
    /// checkpoint refs among them left the queue.
    pub pushed: Vec<String>,
    /// Refs still queued, each with its code and reason.
    pub queued: Vec<RefFailure>,
    /// Queue entries dropped: lines that were not checkpoint refs, and
    /// refs that no longer exist here.
    pub dropped: Vec<String>,
}

impl PushReport {
    /// Whether every ref went through (nothing left queued).
    pub fn all_pushed(&self) -> bool {
        self.queued.is_empty()
    }
}

/// One ref a fetch brought in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FetchedRef {
    /// The ref.
    pub ref_name: String,
    /// What happened to the local ref.
    #[serde(serialize_with = "outcome_name")]
    pub outcome: FetchOutcome,
    /// The local ref's tip after (hex).
    pub commit: String,
}

fn outcome_name<S: serde::Serializer>(
    o: &FetchOutcome,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(o.as_str())
}

/// What [`Store::fetch_all`] did.
///
/// [`Store::fetch_all`]: crate::Store::fetch_all
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct FetchReport {
    /// The remote fetched from, as given.
    pub remote: String,
    /// Every remote ref, and what it did here.
    pub fetched: Vec<FetchedRef>,
    /// Refs that could not be brought in (`conflict`: the local ref untouched).
    pub failed: Vec<RefFailure>,
    /// Whether the fetch was treeless: the remote honoured
    /// `--filter=blob:none`, so the fetched checkpoints' transcripts and
    /// prompts stay on it until a read fetches them (their documents came).
    /// `false` after a full fetch (the remote does not serve filters, or
    /// [`FetchOptions::treeless`] was off) and when nothing new was fetched.
    pub treeless: bool,
}

/// How [`Store::fetch_all_with`] fetches.
///
/// [`Store::fetch_all_with`]: crate::Store::fetch_all_with
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FetchOptions {
    /// Fetch treeless (`--filter=blob:none`, then the documents) where the
    /// remote serves filters (default `true`); `false` fetches every blob.
    pub treeless: bool,
}

impl Default for FetchOptions {
    fn default() -> FetchOptions {
        FetchOptions { treeless: true }
    }
}

impl FetchOptions {
    /// Options that fetch every blob (no filter).
    pub fn full() -> FetchOptions {
        FetchOptions { treeless: false }
    }
}

/// How the local store's copy of a remote checkpoint compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LocalCopy {
    /// Not here: only the remote has it.
    Absent,
    /// Here, the same as the remote's.
    Same,
    /// Here, but not the same (either side may be ahead).
    Different,
}

impl LocalCopy {
    /// `absent`, `same` or `different`.
    pub const fn as_str(self) -> &'static str {
        match self {
            LocalCopy::Absent => "absent",
            LocalCopy::Same => "same",
            LocalCopy::Different => "different",
        }
    }
}

/// One checkpoint a remote holds, as [`Store::list_remote`] shows it.
///
/// [`Store::list_remote`]: crate::Store::list_remote
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RemoteCheckpoint {
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// Where the remote keeps it.
    #[serde(serialize_with = "backend_name")]
    pub backend: Backend,
    /// The remote ref holding it.
    pub ref_name: String,
    /// That ref's tip on the remote (hex).
    pub commit: String,
    /// How the local copy compares.
    #[serde(serialize_with = "local_name")]
    pub local: LocalCopy,
}

fn backend_name<S: serde::Serializer>(b: &Backend, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(b.as_str())
}

fn local_name<S: serde::Serializer>(l: &LocalCopy, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(l.as_str())
}
