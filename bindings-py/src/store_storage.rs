//! `CheckpointStore.du / gc`: what the checkpoints take on disk and getting
//! it back (the store's `storage` module). The git work runs with the
//! interpreter detached; results come back as small frozen classes.

use std::time::Duration;

use agent_checkpoint_store::storage::{self, DEFAULT_DU_TOP};
use agent_checkpoint_store::GcOptions;
use pyo3::prelude::*;

use crate::errors::IntoPyResult;
use crate::store::CheckpointStore;

// `du`'s text signature (what `inspect` and the stub show) spells it out.
const _: () = assert!(DEFAULT_DU_TOP == 10);

/// The refs of one kind of storage and the bytes only they hold: `refs`,
/// `bytes` (objects these refs reach and no ref of another kind, nor a
/// user's ref, does; for snapshots plus their files).
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct StorageUsage {
    refs: usize,
    bytes: u64,
}

impl From<storage::Usage> for StorageUsage {
    fn from(u: storage::Usage) -> StorageUsage {
        StorageUsage {
            refs: u.refs,
            bytes: u.bytes,
        }
    }
}

#[pymethods]
impl StorageUsage {
    fn __repr__(&self) -> String {
        format!("StorageUsage(refs={}, bytes={})", self.refs, self.bytes)
    }
}

/// One of the store's refs and the bytes only it holds: `kind`
/// (`"checkpoint"`, `"checkpoint_branch"`, `"snapshot"`,
/// `"shadow_branch"`), `name` (checkpoint ID or branch), `ref_name`,
/// `session_id` (a snapshot's session, else `None`), `bytes`.
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct DuEntry {
    kind: &'static str,
    name: String,
    ref_name: String,
    session_id: Option<String>,
    bytes: u64,
}

#[pymethods]
impl DuEntry {
    fn __repr__(&self) -> String {
        format!(
            "DuEntry(kind={:?}, name={:?}, bytes={})",
            self.kind, self.name, self.bytes
        )
    }
}

/// The undo snapshots of one session: `session_id`, `snapshots` (refs),
/// `bytes`.
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct SessionUsage {
    session_id: String,
    snapshots: usize,
    bytes: u64,
}

#[pymethods]
impl SessionUsage {
    fn __repr__(&self) -> String {
        format!(
            "SessionUsage(session_id={:?}, snapshots={}, bytes={})",
            self.session_id, self.snapshots, self.bytes
        )
    }
}

/// What `du` found: `total_bytes` (`object_bytes` + `snapshot_file_bytes`),
/// `object_bytes` / `objects` (git objects only the store's refs reach, as
/// `git rev-list --objects --disk-usage` counts them), `snapshot_file_bytes`,
/// `checkpoints` / `snapshots` / `shadow_branches` (`StorageUsage`),
/// `shared_bytes` (reached by more than one kind), `largest` (`DuEntry`s)
/// and `sessions` (`SessionUsage`s), largest first.
#[pyclass(frozen, get_all, module = "agent_checkpoint")]
pub struct DuReport {
    total_bytes: u64,
    object_bytes: u64,
    objects: usize,
    snapshot_file_bytes: u64,
    checkpoints: StorageUsage,
    snapshots: StorageUsage,
    shadow_branches: StorageUsage,
    shared_bytes: u64,
    largest: Vec<DuEntry>,
    sessions: Vec<SessionUsage>,
}

impl From<storage::DuReport> for DuReport {
    fn from(r: storage::DuReport) -> DuReport {
        DuReport {
            total_bytes: r.total_bytes,
            object_bytes: r.object_bytes,
            objects: r.objects,
            snapshot_file_bytes: r.snapshot_file_bytes,
            checkpoints: r.checkpoints.into(),
            snapshots: r.snapshots.into(),
            shadow_branches: r.shadow_branches.into(),
            shared_bytes: r.shared_bytes,
            largest: r
                .largest
                .into_iter()
                .map(|e| DuEntry {
                    kind: e.kind.as_str(),
                    name: e.name,
                    ref_name: e.ref_name,
                    session_id: e.session_id,
                    bytes: e.bytes,
                })
                .collect(),
            sessions: r
                .sessions
                .into_iter()
                .map(|s| SessionUsage {
                    session_id: s.session_id,
                    snapshots: s.snapshots,
                    bytes: s.bytes,
                })
                .collect(),
        }
    }
}

#[pymethods]
impl DuReport {
    fn __repr__(&self) -> String {
        format!(
            "DuReport(total_bytes={}, objects={}, largest={})",
            self.total_bytes,
            self.objects,
            self.largest.len()
        )
    }
}

/// An undo-snapshot ref `gc` removed (or, dry, would remove): `ref_name`,
/// `checkpoint_id`, `session_id`, `tip`, `reason` (`"beyond_retention"`,
/// `"older_than"`, `"checkpoint_removed"`).
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct RemovedSnapshot {
    ref_name: String,
    checkpoint_id: String,
    session_id: String,
    tip: String,
    reason: String,
}

#[pymethods]
impl RemovedSnapshot {
    fn __repr__(&self) -> String {
        format!(
            "RemovedSnapshot(ref_name={:?}, reason={:?})",
            self.ref_name, self.reason
        )
    }
}

/// A shadow branch `gc` removed (or, dry, would remove): `branch`, `tip`,
/// `reason` (`"base_commit_gone"`, `"sessions_condensed"`).
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct RemovedBranch {
    branch: String,
    tip: String,
    reason: String,
}

#[pymethods]
impl RemovedBranch {
    fn __repr__(&self) -> String {
        format!(
            "RemovedBranch(branch={:?}, reason={:?})",
            self.branch, self.reason
        )
    }
}

/// A persistent checkpoint `gc` removed (only with
/// `include_checkpoints=True`): `checkpoint_id`, `ref_name`, `tip`.
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct RemovedCheckpoint {
    checkpoint_id: String,
    ref_name: String,
    tip: String,
}

#[pymethods]
impl RemovedCheckpoint {
    fn __repr__(&self) -> String {
        format!("RemovedCheckpoint(checkpoint_id={:?})", self.checkpoint_id)
    }
}

/// What `gc` did (or, with `dry_run`, would do): `dry_run`, `keep`
/// (snapshots kept per session, `None`: every one), `older_than_seconds`
/// (`None`: no age limit), `removed_snapshots`, `removed_branches`,
/// `removed_checkpoints`, `objects_removed` / `object_bytes_freed`,
/// `snapshot_files_removed` / `snapshot_file_bytes_freed`, `repacked`.
#[pyclass(frozen, get_all, module = "agent_checkpoint")]
pub struct GcReport {
    dry_run: bool,
    keep: Option<usize>,
    older_than_seconds: Option<u64>,
    removed_snapshots: Vec<RemovedSnapshot>,
    removed_branches: Vec<RemovedBranch>,
    removed_checkpoints: Vec<RemovedCheckpoint>,
    objects_removed: usize,
    object_bytes_freed: u64,
    snapshot_files_removed: usize,
    snapshot_file_bytes_freed: u64,
    repacked: bool,
}

impl From<storage::GcReport> for GcReport {
    fn from(r: storage::GcReport) -> GcReport {
        GcReport {
            dry_run: r.dry_run,
            keep: r.keep,
            older_than_seconds: r.older_than_seconds,
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
            objects_removed: r.objects_removed,
            object_bytes_freed: r.object_bytes_freed,
            snapshot_files_removed: r.snapshot_files_removed,
            snapshot_file_bytes_freed: r.snapshot_file_bytes_freed,
            repacked: r.repacked,
        }
    }
}

#[pymethods]
impl GcReport {
    fn __repr__(&self) -> String {
        format!(
            "GcReport(dry_run={}, removed_snapshots={}, removed_branches={}, objects_removed={})",
            if self.dry_run { "True" } else { "False" },
            self.removed_snapshots.len(),
            self.removed_branches.len(),
            self.objects_removed
        )
    }
}

/// The store's options from the keyword arguments; `invalid_argument` for
/// an `older_than` that is not an age.
fn gc_options(
    keep: Option<usize>,
    older_than: Option<&str>,
    include_checkpoints: bool,
    dry_run: bool,
) -> agent_checkpoint::Result<GcOptions> {
    let mut options = GcOptions::new()
        .include_checkpoints(include_checkpoints)
        .dry_run(dry_run);
    options.keep = keep;
    if let Some(text) = older_than {
        let age = storage::parse_age(text)
            .map_err(|r| agent_checkpoint::Error::invalid_argument("older_than", r))?;
        options.older_than = Some(age.unwrap_or(Duration::ZERO));
    }
    Ok(options)
}

#[pymethods]
impl CheckpointStore {
    /// The bytes the checkpoints take (persistent checkpoints, undo
    /// snapshots, shadow branches), counted as git counts them, with the
    /// `top` largest entries and sessions named. Returns a `DuReport`.
    #[pyo3(signature = (*, top = DEFAULT_DU_TOP), text_signature = "($self, *, top=10)")]
    fn du(&self, py: Python<'_>, top: usize) -> PyResult<DuReport> {
        let store = &self.inner;
        py.detach(move || store.du(top))
            .into_py_result(py)
            .map(Into::into)
    }

    /// Removes undo snapshots beyond the retention (`keep` per session,
    /// `0`: every one; `older_than` an age like `"30d"`, `"12h"`, `"2w"`,
    /// `"never"`; defaults: the git config `entire.snapshotRetention` /
    /// `entire.snapshotMaxAge`, else 100 and 30 days), the shadow branches
    /// no session needs and, only with `include_checkpoints`, persistent
    /// checkpoints older than the age limit; then frees the objects only
    /// they reached. The user's refs, stashes and objects are never
    /// touched. With `dry_run` nothing changes. Returns a `GcReport`;
    /// raises `InvalidArgumentError` for a bad `older_than` (nothing
    /// touched).
    #[pyo3(signature = (*, keep = None, older_than = None, include_checkpoints = false, dry_run = false))]
    fn gc(
        &self,
        py: Python<'_>,
        keep: Option<usize>,
        older_than: Option<String>,
        include_checkpoints: bool,
        dry_run: bool,
    ) -> PyResult<GcReport> {
        let store = &self.inner;
        py.detach(move || {
            gc_options(keep, older_than.as_deref(), include_checkpoints, dry_run)
                .and_then(|o| store.gc(&o))
        })
        .into_py_result(py)
        .map(Into::into)
    }
}

/// Adds the result classes to the module.
///
/// # Errors
/// When the module refuses a class.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<DuReport>()?;
    module.add_class::<DuEntry>()?;
    module.add_class::<StorageUsage>()?;
    module.add_class::<SessionUsage>()?;
    module.add_class::<GcReport>()?;
    module.add_class::<RemovedSnapshot>()?;
    module.add_class::<RemovedBranch>()?;
    module.add_class::<RemovedCheckpoint>()?;
    Ok(())
}
