//! `CheckpointStore.du / gc`: what the checkpoints take on disk and getting
//! it back (the store's `storage` module). Each has an `…Async` twin that
//! runs the git work on the libuv thread pool (through [`crate::task`]).
//! Byte counts are JS numbers (exact below 2^53 bytes).

use std::sync::Arc;
use std::time::Duration;

use agent_checkpoint_store as store;
use agent_checkpoint_store::storage::{self, DEFAULT_DU_TOP};
use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;

use crate::error::OrThrow;
use crate::store::CheckpointStore;
use crate::task::{spawn_then, Work};

/// The refs of one kind of storage and the bytes only they hold.
#[napi(object)]
pub struct StorageUsage {
    /// How many refs.
    pub refs: u32,
    /// Bytes of the objects these refs reach and no ref of another kind
    /// (nor a user's ref) does; for snapshots plus their files.
    pub bytes: f64,
}

/// One of the store's refs and the bytes only it holds.
#[napi(object)]
pub struct DuEntry {
    /// What it is.
    #[napi(ts_type = "'checkpoint' | 'checkpoint_branch' | 'snapshot' | 'shadow_branch'")]
    pub kind: String,
    /// The checkpoint ID (checkpoints, snapshots) or branch name.
    pub name: String,
    /// The full ref name.
    pub ref_name: String,
    /// The session of a snapshot's tip (`null` for other kinds).
    pub session_id: Option<String>,
    /// Bytes of the objects only this ref reaches (a snapshot's file too).
    pub bytes: f64,
}

/// The undo snapshots of one session.
#[napi(object)]
pub struct SessionUsage {
    /// The session ID (empty for snapshots without one).
    pub session_id: String,
    /// How many snapshot refs.
    pub snapshots: u32,
    /// The sum of their entries' bytes.
    pub bytes: f64,
}

/// What `du` found.
#[napi(object)]
pub struct DuReport {
    /// `objectBytes` plus `snapshotFileBytes`.
    pub total_bytes: f64,
    /// Bytes on disk of the git objects only the store's refs reach (what
    /// `git rev-list --objects --disk-usage` prints for them).
    pub object_bytes: f64,
    /// How many such objects.
    pub objects: u32,
    /// Bytes of the undo snapshots' files a snapshot ref names.
    pub snapshot_file_bytes: f64,
    /// Persistent checkpoints (their refs and the `entire/checkpoints/v1`
    /// branch).
    pub checkpoints: StorageUsage,
    /// Undo snapshots.
    pub snapshots: StorageUsage,
    /// Shadow branches.
    pub shadow_branches: StorageUsage,
    /// Bytes reached by refs of more than one kind (counted in none).
    pub shared_bytes: f64,
    /// The largest entries, largest first.
    pub largest: Vec<DuEntry>,
    /// The sessions whose undo snapshots take the most, largest first.
    pub sessions: Vec<SessionUsage>,
}

/// How `du` runs.
#[napi(object)]
pub struct DuOptions {
    /// How many of the largest entries and sessions to name (default 10).
    pub top: Option<u32>,
}

/// What `gc` removes.
#[napi(object)]
pub struct GcOptions {
    /// Undo snapshots kept per session (`0`: every one); default: git config
    /// `entire.snapshotRetention`, else 100.
    pub keep: Option<u32>,
    /// Undo snapshots older than this go (`'30d'`, `'12h'`, `'2w'`, `'90m'`,
    /// `'never'`); default: git config `entire.snapshotMaxAge`, else 30 days.
    pub older_than: Option<String>,
    /// Also remove persistent checkpoints (git-refs) older than the age
    /// limit; without it they are kept forever.
    pub include_checkpoints: Option<bool>,
    /// Report what would go; change nothing.
    pub dry_run: Option<bool>,
}

/// An undo-snapshot ref `gc` removed (or, dry, would remove).
#[napi(object)]
pub struct RemovedSnapshot {
    /// The full ref name.
    pub ref_name: String,
    /// Its checkpoint.
    pub checkpoint_id: String,
    /// The session of its tip.
    pub session_id: String,
    /// Its tip.
    pub tip: String,
    /// Why it went.
    #[napi(ts_type = "'beyond_retention' | 'older_than' | 'checkpoint_removed'")]
    pub reason: String,
}

/// A shadow branch `gc` removed (or, dry, would remove).
#[napi(object)]
pub struct RemovedBranch {
    /// The branch name.
    pub branch: String,
    /// Its tip when it went.
    pub tip: String,
    /// Why it went.
    #[napi(ts_type = "'base_commit_gone' | 'sessions_condensed'")]
    pub reason: String,
}

/// A persistent checkpoint ref `gc` removed (only with
/// `includeCheckpoints`).
#[napi(object)]
pub struct RemovedCheckpoint {
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// The full ref name.
    pub ref_name: String,
    /// Its tip.
    pub tip: String,
}

/// What `gc` did (or, dry, would do).
#[napi(object)]
pub struct GcReport {
    /// Whether nothing was changed.
    pub dry_run: bool,
    /// The snapshots kept per session (`null`: every one).
    pub keep: Option<u32>,
    /// The age limit in seconds (`null`: none).
    pub older_than_seconds: Option<f64>,
    /// The undo-snapshot refs removed.
    pub removed_snapshots: Vec<RemovedSnapshot>,
    /// The shadow branches removed.
    pub removed_branches: Vec<RemovedBranch>,
    /// The persistent checkpoints removed.
    pub removed_checkpoints: Vec<RemovedCheckpoint>,
    /// Git objects deleted.
    pub objects_removed: u32,
    /// Their bytes on disk.
    pub object_bytes_freed: f64,
    /// Snapshot files removed.
    pub snapshot_files_removed: u32,
    /// Their bytes.
    pub snapshot_file_bytes_freed: f64,
    /// Whether git repacked (some of the objects were packed).
    pub repacked: bool,
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn usage(u: storage::Usage) -> StorageUsage {
    StorageUsage {
        refs: count(u.refs),
        bytes: u.bytes as f64,
    }
}

fn du_report(r: storage::DuReport) -> agent_checkpoint::Result<DuReport> {
    Ok(DuReport {
        total_bytes: r.total_bytes as f64,
        object_bytes: r.object_bytes as f64,
        objects: count(r.objects),
        snapshot_file_bytes: r.snapshot_file_bytes as f64,
        checkpoints: usage(r.checkpoints),
        snapshots: usage(r.snapshots),
        shadow_branches: usage(r.shadow_branches),
        shared_bytes: r.shared_bytes as f64,
        largest: r
            .largest
            .into_iter()
            .map(|e| DuEntry {
                kind: e.kind.as_str().to_owned(),
                name: e.name,
                ref_name: e.ref_name,
                session_id: e.session_id,
                bytes: e.bytes as f64,
            })
            .collect(),
        sessions: r
            .sessions
            .into_iter()
            .map(|s| SessionUsage {
                session_id: s.session_id,
                snapshots: count(s.snapshots),
                bytes: s.bytes as f64,
            })
            .collect(),
    })
}

fn gc_report(r: storage::GcReport) -> agent_checkpoint::Result<GcReport> {
    Ok(GcReport {
        dry_run: r.dry_run,
        keep: r.keep.map(count),
        older_than_seconds: r.older_than_seconds.map(|s| s as f64),
        removed_snapshots: r
            .removed_snapshots
            .into_iter()
            .map(|s| RemovedSnapshot {
                ref_name: s.ref_name,
                checkpoint_id: s.checkpoint_id,
                session_id: s.session_id,
                tip: s.tip,
                reason: s.reason,
            })
            .collect(),
        removed_branches: r
            .removed_branches
            .into_iter()
            .map(|b| RemovedBranch {
                branch: b.branch,
                tip: b.tip,
                reason: b.reason,
            })
            .collect(),
        removed_checkpoints: r
            .removed_checkpoints
            .into_iter()
            .map(|c| RemovedCheckpoint {
                checkpoint_id: c.checkpoint_id,
                ref_name: c.ref_name,
                tip: c.tip,
            })
            .collect(),
        objects_removed: count(r.objects_removed),
        object_bytes_freed: r.object_bytes_freed as f64,
        snapshot_files_removed: count(r.snapshot_files_removed),
        snapshot_file_bytes_freed: r.snapshot_file_bytes_freed as f64,
        repacked: r.repacked,
    })
}

fn du_top(options: Option<DuOptions>) -> usize {
    options
        .and_then(|o| o.top)
        .map_or(DEFAULT_DU_TOP, |top| top as usize)
}

/// The store's options from the JS ones; `invalid_argument` for an
/// `olderThan` that is not an age.
fn gc_options(options: Option<GcOptions>) -> agent_checkpoint::Result<store::GcOptions> {
    let Some(o) = options else {
        return Ok(store::GcOptions::new());
    };
    let mut out = store::GcOptions::new()
        .include_checkpoints(o.include_checkpoints.unwrap_or(false))
        .dry_run(o.dry_run.unwrap_or(false));
    out.keep = o.keep.map(|k| k as usize);
    if let Some(text) = o.older_than {
        let age = storage::parse_age(&text)
            .map_err(|r| agent_checkpoint::Error::invalid_argument("olderThan", r))?;
        out.older_than = Some(age.unwrap_or(Duration::ZERO));
    }
    Ok(out)
}

#[napi]
impl CheckpointStore {
    /// The bytes the checkpoints take (persistent checkpoints, undo
    /// snapshots, shadow branches), counted as git counts them, with the
    /// largest entries and sessions named (`top`, default 10).
    #[napi]
    pub fn du(&self, env: Env, options: Option<DuOptions>) -> napi::Result<DuReport> {
        self.inner
            .du(du_top(options))
            .and_then(du_report)
            .or_throw(&env)
    }

    /// `du` off the JS thread.
    #[napi(ts_return_type = "Promise<DuReport>")]
    pub fn du_async(
        &self,
        options: Option<DuOptions>,
    ) -> AsyncTask<Work<storage::DuReport, DuReport>> {
        let store = Arc::clone(&self.inner);
        let top = du_top(options);
        spawn_then(move || store.du(top), du_report)
    }

    /// Removes undo snapshots beyond the retention, the shadow branches no
    /// session needs and (only with `includeCheckpoints`) old persistent
    /// checkpoints, then frees the objects only they reached. The user's
    /// refs, stashes and objects are never touched. Throws
    /// `invalid_argument` for a bad `olderThan` (nothing touched).
    #[napi]
    pub fn gc(&self, env: Env, options: Option<GcOptions>) -> napi::Result<GcReport> {
        gc_options(options)
            .and_then(|o| self.inner.gc(&o))
            .and_then(gc_report)
            .or_throw(&env)
    }

    /// `gc` off the JS thread.
    #[napi(ts_return_type = "Promise<GcReport>")]
    pub fn gc_async(
        &self,
        options: Option<GcOptions>,
    ) -> AsyncTask<Work<storage::GcReport, GcReport>> {
        let store = Arc::clone(&self.inner);
        let options = gc_options(options);
        spawn_then(move || options.and_then(|o| store.gc(&o)), gc_report)
    }
}
