//! `create_checkpoint`, `rollback`, `plan_rollback` and `record_applied` on a
//! real directory, with `RollbackResult` and `PlanItem`.
//!
//! The root is opened and all file I/O and hashing run with the interpreter
//! detached (the GIL released), so other Python threads keep running.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, CaptureOptions, Error, ParseOptions, PathDiff, PlanItem as CorePlanItem, PlanOptions,
    RecordOptions, Redo, RollbackOptions, RollbackOutcome, RollbackReport, Snapshot,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;

use crate::args::operation_paths;
use crate::diff::{diff_options, Hunk};
use crate::errors::{to_py, IntoPyResult};
use crate::options::{key_arg, PlanArgs};
use crate::progress::progress_arg;

fn open(root: &PathBuf) -> agent_checkpoint::Result<CapRoot> {
    CapRoot::open(root, ambient_authority())
}

/// The text of a snapshot argument, as UTF-8 held by Python: the `str`'s
/// own bytes when it is ASCII (no copy), otherwise the UTF-8 form CPython
/// makes once and keeps with the `str`. The core borrows it while the
/// interpreter is detached.
pub struct SnapshotText<'py>(&'py str);

impl<'py> SnapshotText<'py> {
    /// The text.
    pub fn as_str(&self) -> Result<&'py str, Error> {
        Ok(self.0)
    }
}

/// The text of a snapshot argument. A `str` that is not valid Unicode (a
/// lone surrogate) is not a snapshot: `malformed_snapshot`, like any other
/// bad document. Anything but a `str` is a `TypeError`.
pub fn snapshot_text<'a, 'py>(
    checkpoint: &'a Bound<'py, PyAny>,
) -> PyResult<Result<SnapshotText<'a>, Error>> {
    let text = checkpoint.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "checkpoint must be the snapshot's JSON text (str), not {}",
            checkpoint
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    Ok(match text.to_str() {
        Ok(text) => Ok(SnapshotText(text)),
        Err(_) => Err(Error::malformed(
            "the snapshot text is not valid Unicode (it holds a lone surrogate)",
        )),
    })
}

/// Snapshots every path `operations` will touch under `root`, before they
/// are applied, and returns the snapshot's JSON text (sealed with an
/// HMAC-SHA256 when `key` is given). A file over `max_file_bytes` (default
/// 100 MiB) is not read: the text lists it under `skipped` (path -> size)
/// and a rollback reports it in `not_covered`. `progress(stage, done, total)` is
/// called as files are read (see `progress`).
#[pyfunction]
#[pyo3(signature = (
    root, operations, *, allow_git_dir = false, max_file_bytes = None, key = None,
    record_root = true, progress = None,
))]
#[allow(clippy::too_many_arguments, reason = "the Python keyword arguments")]
pub fn create_checkpoint(
    py: Python<'_>,
    root: PathBuf,
    operations: &Bound<'_, PyAny>,
    allow_git_dir: bool,
    max_file_bytes: Option<u64>,
    key: Option<&Bound<'_, PyAny>>,
    record_root: bool,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let paths = operation_paths(operations)?;
    let mut options = CaptureOptions::default()
        .with_allow_git_dir(allow_git_dir)
        .with_key(key_arg(key)?)
        .with_record_root(record_root)
        .with_progress(progress_arg(progress)?);
    if let Some(max) = max_file_bytes {
        options = options.with_max_file_bytes(max);
    }
    py.detach(move || agent_checkpoint::capture(&open(&root)?, &paths, &options))
        .map(|json| json.into_string())
        .into_py_result(py)
}

/// Restores exactly the paths captured by `checkpoint` under `root`.
///
/// Never raises for a snapshot it refuses (malformed; with `key`,
/// unauthenticated; bytes that contradict their digests; a link that would
/// leave the root; another root with `strict_root`): the result says
/// `valid=False`. Raises only when the root itself cannot be opened, or for
/// a bad argument. `progress(stage, done, total)` is called as paths are
/// checked, then restored.
#[pyfunction]
#[pyo3(signature = (
    root, checkpoint, *, durable = true, allow_git_dir = false,
    on_conflict = "overwrite", key = None, redo = true, restore_setid = false,
    strict_root = false, max_file_bytes = None, progress = None,
))]
#[allow(clippy::too_many_arguments, reason = "the Python keyword arguments")]
pub fn rollback(
    py: Python<'_>,
    root: PathBuf,
    checkpoint: &Bound<'_, PyAny>,
    durable: bool,
    allow_git_dir: bool,
    on_conflict: &str,
    key: Option<&Bound<'_, PyAny>>,
    redo: bool,
    restore_setid: bool,
    strict_root: bool,
    max_file_bytes: Option<u64>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<RollbackResult> {
    let plan = PlanArgs {
        on_conflict,
        key,
        restore_setid,
        strict_root,
    };
    let options = plan
        .rollback_options(py, durable, redo, max_file_bytes)?
        .with_progress(progress_arg(progress)?);
    match snapshot_text(checkpoint)? {
        Ok(text) => run_rollback(py, root, text.as_str(), allow_git_dir, options),
        Err(e) => run_rollback(py, root, Err(e), allow_git_dir, options),
    }
}

/// Rolls the snapshot `text` back under `root` with the interpreter
/// detached: a refused snapshot comes back as `valid=False`; a root that
/// cannot be opened raises.
pub(crate) fn run_rollback(
    py: Python<'_>,
    root: PathBuf,
    text: Result<&str, Error>,
    allow_git_dir: bool,
    options: RollbackOptions,
) -> PyResult<RollbackResult> {
    let text = match text {
        Ok(text) => text,
        Err(e) => return RollbackResult::from_outcome(py, RollbackOutcome::refused(e)),
    };
    let parse = ParseOptions::allowing_git_dir(allow_git_dir).with_key(options.key.clone());
    let outcome = py.detach(move || {
        let root = open(&root)?;
        Ok(agent_checkpoint::rollback_text(
            &root, text, &parse, &options,
        ))
    });
    match outcome {
        Ok(outcome) => RollbackResult::from_outcome(py, outcome),
        Err(e) => Err(to_py(py, &e)),
    }
}

/// What `rollback` would do to every captured path and created directory,
/// touching nothing: the rollback with the same options carries out exactly
/// this plan. Raises the snapshot's error when it would refuse it.
///
/// With `diff=True` every item the rollback would change carries what the
/// change is (`diff`, `diff_summary`, `hunks`), with `diff_context` lines
/// of context and a one-line summary for files over `diff_max_bytes`.
/// `progress(stage, done, total)` is called as paths are checked.
#[pyfunction]
#[pyo3(signature = (
    root, checkpoint, *, allow_git_dir = false, on_conflict = "overwrite", key = None,
    restore_setid = false, strict_root = false, diff = false, diff_context = 3,
    diff_max_bytes = 1_048_576, progress = None,
))]
#[allow(clippy::too_many_arguments, reason = "the Python keyword arguments")]
pub fn plan_rollback(
    py: Python<'_>,
    root: PathBuf,
    checkpoint: &Bound<'_, PyAny>,
    allow_git_dir: bool,
    on_conflict: &str,
    key: Option<&Bound<'_, PyAny>>,
    restore_setid: bool,
    strict_root: bool,
    diff: bool,
    diff_context: i64,
    diff_max_bytes: i64,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<PlanItem>> {
    let options = PlanArgs {
        on_conflict,
        key,
        restore_setid,
        strict_root,
    }
    .options(py)?
    .with_diff(diff_options(py, diff, diff_context, diff_max_bytes)?)
    .with_progress(progress_arg(progress)?);
    let text = snapshot_text(checkpoint)?.into_py_result(py)?;
    run_plan(
        py,
        root,
        text.as_str().into_py_result(py)?,
        allow_git_dir,
        options,
    )
}

/// The plan of rolling the snapshot `text` back under `root`, with the
/// interpreter detached; raises the snapshot's error when it is refused.
pub(crate) fn run_plan(
    py: Python<'_>,
    root: PathBuf,
    text: &str,
    allow_git_dir: bool,
    options: PlanOptions,
) -> PyResult<Vec<PlanItem>> {
    let parse = ParseOptions::allowing_git_dir(allow_git_dir).with_key(options.key.clone());
    let plan = py
        .detach(move || {
            let root = open(&root)?;
            let snapshot = Snapshot::parse(text, &parse)?;
            agent_checkpoint::plan_rollback(&root, &snapshot, &options)
        })
        .into_py_result(py)?;
    Ok(plan.items.into_iter().map(PlanItem::from).collect())
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
    checkpoint: &Bound<'_, PyAny>,
    allow_git_dir: bool,
    key: Option<&Bound<'_, PyAny>>,
) -> PyResult<String> {
    let key = key_arg(key)?;
    let text = snapshot_text(checkpoint)?.into_py_result(py)?;
    let text = text.as_str().into_py_result(py)?;
    py.detach(move || {
        let root = open(&root)?;
        let parse = ParseOptions::allowing_git_dir(allow_git_dir).with_key(key.clone());
        let snapshot = Snapshot::parse(text, &parse)?;
        let options = RecordOptions::default().with_key(key);
        agent_checkpoint::record_applied(&root, &snapshot, &options)
    })
    .map(|json| json.into_string())
    .into_py_result(py)
}

/// What a rollback did: the paths restored, those that could not be (with a
/// reason and a code each), the plan it carried out, and whether the
/// snapshot was valid at all. Also known as `RollbackReport`, its name in
/// every other language.
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
    /// Unrestored path -> error code (`conflict`, `not_a_directory`, ...).
    #[pyo3(get)]
    failure_codes: BTreeMap<String, &'static str>,
    /// Paths changed after the batch (per `record_applied`) and left alone
    /// because `on_conflict="skip"`, sorted.
    #[pyo3(get)]
    conflicts: Vec<String>,
    /// The plan this rollback carried out (what `plan_rollback` says).
    #[pyo3(get)]
    plan: Vec<Py<PlanItem>>,
    /// The redo snapshot, its text made when `redo` is first read.
    redo: Option<Redo>,
    /// The `str` of `redo`, once read.
    redo_str: PyOnceLock<Py<PyString>>,
    /// Captured paths the redo cannot carry, each with a code and a reason.
    #[pyo3(get)]
    not_in_redo: Vec<Py<PathProblem>>,
    /// Path the capture skipped for its size (over `max_file_bytes`) ->
    /// that size: neither restored nor removed, left as it is.
    #[pyo3(get)]
    not_covered: BTreeMap<String, u64>,
    /// The root the snapshot was taken under, when it is not this one.
    #[pyo3(get)]
    other_root: Option<String>,
    /// The code of the refusal when the snapshot was refused, else `None`.
    #[pyo3(get)]
    error_code: Option<&'static str>,
    /// The message of the refusal when the snapshot was refused, else `None`.
    #[pyo3(get)]
    error: Option<String>,
}

impl RollbackResult {
    /// The result of a rollback the core carried out.
    pub(crate) fn from_report(py: Python<'_>, report: RollbackReport) -> PyResult<RollbackResult> {
        RollbackResult::from_outcome(py, RollbackOutcome::from(Ok(report)))
    }

    /// The core's outcome as Python sees it: a refused snapshot is a result
    /// with `valid=False` (the core's rule, not decided here).
    fn from_outcome(py: Python<'_>, outcome: RollbackOutcome) -> PyResult<RollbackResult> {
        let RollbackOutcome {
            report, refusal, ..
        } = outcome;
        let plan = report
            .plan
            .items
            .iter()
            .cloned()
            .map(|item| Py::new(py, PlanItem::from(item)))
            .collect::<PyResult<_>>()?;
        Ok(RollbackResult {
            failures: report.failures(),
            failure_codes: report
                .unrestored
                .iter()
                .map(|u| (u.path.clone(), u.code.as_str()))
                .collect(),
            unrestored: report.unrestored.into_iter().map(|u| u.path).collect(),
            restored: report.restored,
            conflicts: report.conflicts,
            plan,
            other_root: report.plan.other_root,
            redo: report.redo,
            redo_str: PyOnceLock::new(),
            not_in_redo: report
                .not_in_redo
                .into_iter()
                .map(|n| {
                    Py::new(
                        py,
                        PathProblem {
                            path: n.path,
                            code: n.code.as_str(),
                            reason: n.reason,
                        },
                    )
                })
                .collect::<PyResult<_>>()?,
            not_covered: report
                .not_covered
                .into_iter()
                .map(|n| (n.path, n.size))
                .collect(),
            error_code: refusal.as_ref().map(|e| e.code().as_str()),
            error: refusal.as_ref().map(ToString::to_string),
        })
    }
}

#[pymethods]
impl RollbackResult {
    /// Whether the snapshot was accepted (and so was applied).
    #[getter]
    fn valid(&self) -> bool {
        self.error_code.is_none()
    }

    /// Valid, and every captured path restored.
    #[getter]
    fn ok(&self) -> bool {
        self.valid() && self.unrestored.is_empty()
    }

    /// A snapshot of the captured paths as they were just before this
    /// rollback rewrote them: rolling it back redoes the batch. `None` when
    /// `redo=False` or the snapshot was refused. Its text is made the first
    /// time it is read (with the interpreter released), then kept.
    #[getter]
    fn redo(&self, py: Python<'_>) -> Option<Py<PyString>> {
        let redo = self.redo.as_ref()?;
        let text = self.redo_str.get_or_init(py, || {
            let json = py.detach(|| redo.to_json());
            PyString::new(py, json.as_str()).unbind()
        });
        Some(text.clone_ref(py))
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

/// One path a rollback's redo cannot carry, and why (the shape Node and
/// wasm call `PathProblem`).
#[pyclass(frozen, eq, module = "agent_checkpoint")]
#[derive(PartialEq, Eq)]
pub struct PathProblem {
    /// The canonical path.
    #[pyo3(get)]
    path: String,
    /// Why, as an error code (`too_large`, `not_a_file`, ...).
    #[pyo3(get)]
    code: &'static str,
    /// Why, in words.
    #[pyo3(get)]
    reason: String,
}

#[pymethods]
impl PathProblem {
    fn __repr__(&self) -> String {
        format!(
            "PathProblem(path={:?}, code={:?}, reason={:?})",
            self.path, self.code, self.reason
        )
    }
}

/// One line of a rollback plan.
#[pyclass(frozen, eq, module = "agent_checkpoint")]
#[derive(PartialEq, Eq)]
pub struct PlanItem {
    /// The captured path, created directory, or empty directory in the way.
    #[pyo3(get)]
    path: String,
    /// `"keep"`, `"write"`, `"remove"`, `"rmdir"`, `"conflict"` or `"refuse"`.
    #[pyo3(get)]
    action: &'static str,
    /// Whether the path changed after the batch (needs `record_applied`).
    #[pyo3(get)]
    conflict: bool,
    /// For `"refuse"`: the error code the rollback reports for the path.
    #[pyo3(get)]
    code: Option<&'static str>,
    /// Why, when the action needs a word.
    #[pyo3(get)]
    reason: Option<String>,
    /// The change, when the plan was asked for diffs and the rollback
    /// changes the path.
    change: Option<PathDiff>,
}

impl From<CorePlanItem> for PlanItem {
    fn from(item: CorePlanItem) -> PlanItem {
        PlanItem {
            path: item.path,
            action: item.action.as_str(),
            conflict: item.conflict,
            code: item.code.map(|c| c.as_str()),
            reason: item.reason,
            change: item.diff,
        }
    }
}

#[pymethods]
impl PlanItem {
    /// The unified diff from the file as it is now to the one the rollback
    /// restores, when there is a line diff; else the one-line summary.
    /// `None` when diffs were not asked for or the path is left alone.
    #[getter]
    fn diff(&self) -> Option<String> {
        self.change
            .as_ref()
            .map(|d| d.text.clone().unwrap_or_else(|| d.summary.clone()))
    }

    /// One line for people (`+3 -1`, `new file, 2 lines`, `mode 644 -> 755`,
    /// ...), or `None` as for `diff`.
    #[getter]
    fn diff_summary(&self) -> Option<String> {
        self.change.as_ref().map(|d| d.summary.clone())
    }

    /// The hunks of the line diff, with line numbers (empty without one).
    #[getter]
    fn hunks(&self) -> Vec<Hunk> {
        self.change
            .as_ref()
            .map(|d| d.hunks.iter().cloned().map(Hunk::from).collect())
            .unwrap_or_default()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let summary = match &self.change {
            Some(d) => format!(
                ", diff_summary={}",
                d.summary.as_str().into_pyobject(py)?.repr()?
            ),
            None => String::new(),
        };
        Ok(format!(
            "PlanItem(path={}, action={}, conflict={}, code={}{summary})",
            self.path.as_str().into_pyobject(py)?.repr()?,
            self.action.into_pyobject(py)?.repr()?,
            if self.conflict { "True" } else { "False" },
            self.code.into_pyobject(py)?.repr()?,
        ))
    }
}
