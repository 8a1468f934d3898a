//! `create_checkpoint`, `rollback`, `plan_rollback` and `record_applied` on a
//! real directory, with `RollbackResult` and `PlanItem`.
//!
//! The root is opened and all file I/O and hashing run with the interpreter
//! detached (the GIL released), so other Python threads keep running.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, PlanItem as CorePlanItem, RollbackReport};
use pyo3::prelude::*;

use crate::args::operation_paths;
use crate::errors::IntoPyResult;
use crate::options::{key_arg, rollback_options};

fn open(root: &PathBuf) -> agent_checkpoint::Result<CapRoot> {
    CapRoot::open(root, ambient_authority())
}

/// Snapshots every path `operations` will touch under `root`, before they
/// are applied, and returns the snapshot's JSON text (sealed with an
/// HMAC-SHA256 when `key` is given).
#[pyfunction]
#[pyo3(signature = (root, operations, *, allow_git_dir = false, max_file_bytes = None, key = None))]
pub fn create_checkpoint(
    py: Python<'_>,
    root: PathBuf,
    operations: &Bound<'_, PyAny>,
    allow_git_dir: bool,
    max_file_bytes: Option<u64>,
    key: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let paths = operation_paths(operations)?;
    let mut options = CaptureOptions::default();
    options.allow_git_dir = allow_git_dir;
    options.max_file_bytes = max_file_bytes;
    options.key = key_arg(key)?;
    py.detach(move || agent_checkpoint::capture(&open(&root)?, &paths, &options))
        .into_py_result(py)
}

/// Restores exactly the paths captured by `checkpoint` under `root`.
///
/// Never raises for a malformed (or, with `key`, unauthenticated) snapshot:
/// the result says `valid=False`. Raises only when the root itself cannot be
/// opened, or for a bad `on_conflict` or `key` argument.
#[pyfunction]
#[pyo3(signature = (
    root, checkpoint, *, durable = true, allow_git_dir = false,
    on_conflict = "overwrite", key = None, redo = true,
))]
#[allow(clippy::too_many_arguments, reason = "the Python keyword arguments")]
pub fn rollback(
    py: Python<'_>,
    root: PathBuf,
    checkpoint: String,
    durable: bool,
    allow_git_dir: bool,
    on_conflict: &str,
    key: Option<&Bound<'_, PyAny>>,
    redo: bool,
) -> PyResult<RollbackResult> {
    let options = rollback_options(durable, allow_git_dir, on_conflict, key, redo)?;
    py.detach(move || {
        Ok(agent_checkpoint::rollback(
            &open(&root)?,
            &checkpoint,
            &options,
        ))
    })
    .into_py_result(py)
    .map(RollbackResult::from)
}

/// What `rollback` would do to every captured path and created directory,
/// touching nothing. Raises the snapshot's error when it is malformed or
/// (with `key`) unauthenticated.
#[pyfunction]
#[pyo3(signature = (root, checkpoint, *, allow_git_dir = false, on_conflict = "overwrite", key = None))]
pub fn plan_rollback(
    py: Python<'_>,
    root: PathBuf,
    checkpoint: String,
    allow_git_dir: bool,
    on_conflict: &str,
    key: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PlanItem>> {
    let options = rollback_options(true, allow_git_dir, on_conflict, key, false)?;
    let items = py
        .detach(move || agent_checkpoint::plan_rollback(&open(&root)?, &checkpoint, &options))
        .into_py_result(py)?;
    Ok(items.into_iter().map(PlanItem::from).collect())
}

/// Returns `checkpoint` with the current (post-batch) state of every
/// captured path recorded, so that `rollback(..., on_conflict="skip")` can
/// tell a later human edit from the batch's own. A sealed snapshot needs its
/// `key` and comes back sealed again.
#[pyfunction]
#[pyo3(signature = (root, checkpoint, *, allow_git_dir = false, key = None))]
pub fn record_applied(
    py: Python<'_>,
    root: PathBuf,
    checkpoint: String,
    allow_git_dir: bool,
    key: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let key = key_arg(key)?;
    py.detach(move || {
        agent_checkpoint::record_applied(&open(&root)?, &checkpoint, allow_git_dir, key.as_deref())
    })
    .into_py_result(py)
}

/// What a rollback did: the paths restored, those that could not be (with a
/// reason each), and whether the snapshot was valid at all.
#[pyclass(frozen, module = "agent_checkpoint")]
pub struct RollbackResult {
    /// Paths now as captured, sorted.
    #[pyo3(get)]
    restored: Vec<String>,
    /// Paths that could not be restored, sorted.
    #[pyo3(get)]
    unrestored: Vec<String>,
    /// Unrestored path -> reason.
    #[pyo3(get)]
    failures: BTreeMap<String, String>,
    /// Paths changed after the batch (per `record_applied`) and left alone
    /// because `on_conflict="skip"`, sorted.
    #[pyo3(get)]
    conflicts: Vec<String>,
    /// A snapshot of the captured paths as they were just before this
    /// rollback rewrote them: rolling it back redoes the batch. `None` when
    /// `redo=False` or the snapshot was refused.
    #[pyo3(get)]
    redo: Option<String>,
    /// The code of the refusal when the snapshot was malformed, else `None`.
    #[pyo3(get)]
    error_code: Option<&'static str>,
    /// The message of the refusal when the snapshot was malformed, else `None`.
    #[pyo3(get)]
    error: Option<String>,
}

impl From<RollbackReport> for RollbackResult {
    fn from(report: RollbackReport) -> RollbackResult {
        RollbackResult {
            failures: report.failures(),
            error_code: report.error_code().map(|c| c.as_str()),
            error: report.error.as_ref().map(ToString::to_string),
            unrestored: report.unrestored.into_iter().map(|u| u.path).collect(),
            restored: report.restored,
            conflicts: report.conflicts,
            redo: report.redo,
        }
    }
}

#[pymethods]
impl RollbackResult {
    /// Whether the snapshot was well-formed (and so was applied).
    #[getter]
    fn valid(&self) -> bool {
        self.error_code.is_none()
    }

    /// Valid, and every captured path restored.
    #[getter]
    fn ok(&self) -> bool {
        self.valid() && self.unrestored.is_empty()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let repr = |value: Bound<'_, PyAny>| -> PyResult<String> { Ok(value.repr()?.to_string()) };
        Ok(format!(
            "RollbackResult(ok={}, valid={}, restored={}, unrestored={}, conflicts={}, error_code={}, error={})",
            repr(self.ok().into_pyobject(py)?.to_owned().into_any())?,
            repr(self.valid().into_pyobject(py)?.to_owned().into_any())?,
            repr(self.restored.clone().into_pyobject(py)?.into_any())?,
            repr(self.unrestored.clone().into_pyobject(py)?.into_any())?,
            repr(self.conflicts.clone().into_pyobject(py)?.into_any())?,
            repr(self.error_code.into_pyobject(py)?.into_any())?,
            repr(self.error.clone().into_pyobject(py)?.into_any())?,
        ))
    }
}

/// One line of a rollback plan.
#[pyclass(frozen, eq, module = "agent_checkpoint")]
#[derive(PartialEq, Eq)]
pub struct PlanItem {
    /// The captured path or created directory.
    #[pyo3(get)]
    path: String,
    /// `"keep"`, `"write"`, `"remove"`, `"rmdir"` or `"conflict"`.
    #[pyo3(get)]
    action: &'static str,
    /// Whether the path changed after the batch (needs `record_applied`).
    #[pyo3(get)]
    conflict: bool,
}

impl From<CorePlanItem> for PlanItem {
    fn from(item: CorePlanItem) -> PlanItem {
        PlanItem {
            path: item.path,
            action: item.action.as_str(),
            conflict: item.conflict,
        }
    }
}

#[pymethods]
impl PlanItem {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "PlanItem(path={}, action={}, conflict={})",
            self.path.as_str().into_pyobject(py)?.repr()?,
            self.action.into_pyobject(py)?.repr()?,
            if self.conflict { "True" } else { "False" },
        ))
    }
}
