//! `create_checkpoint` and `rollback` on a real directory, and `RollbackResult`.
//!
//! The root is opened and all file I/O and hashing run with the interpreter
//! detached (the GIL released), so other Python threads keep running.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, RollbackOptions, RollbackReport};
use pyo3::prelude::*;

use crate::args::operation_paths;
use crate::errors::IntoPyResult;

/// Snapshots every path `operations` will touch under `root`, before they
/// are applied, and returns the snapshot's JSON text.
#[pyfunction]
#[pyo3(signature = (root, operations, *, allow_git_dir = false, max_file_bytes = None))]
pub fn create_checkpoint(
    py: Python<'_>,
    root: PathBuf,
    operations: &Bound<'_, PyAny>,
    allow_git_dir: bool,
    max_file_bytes: Option<u64>,
) -> PyResult<String> {
    let paths = operation_paths(operations)?;
    let mut options = CaptureOptions::default();
    options.allow_git_dir = allow_git_dir;
    options.max_file_bytes = max_file_bytes;
    py.detach(move || {
        let root = CapRoot::open(&root, ambient_authority())?;
        agent_checkpoint::capture(&root, &paths, &options)
    })
    .into_py_result(py)
}

/// Restores exactly the paths captured by `checkpoint` under `root`.
///
/// Never raises for a malformed snapshot (the result says `valid=False`);
/// raises only when the root itself cannot be opened.
#[pyfunction]
#[pyo3(signature = (root, checkpoint, *, durable = true, allow_git_dir = false))]
pub fn rollback(
    py: Python<'_>,
    root: PathBuf,
    checkpoint: String,
    durable: bool,
    allow_git_dir: bool,
) -> PyResult<RollbackResult> {
    let mut options = RollbackOptions::default();
    options.durable = durable;
    options.allow_git_dir = allow_git_dir;
    py.detach(move || {
        let root = CapRoot::open(&root, ambient_authority())?;
        Ok(agent_checkpoint::rollback(&root, &checkpoint, &options))
    })
    .into_py_result(py)
    .map(RollbackResult::from)
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
            "RollbackResult(ok={}, valid={}, restored={}, unrestored={}, error_code={}, error={})",
            repr(self.ok().into_pyobject(py)?.to_owned().into_any())?,
            repr(self.valid().into_pyobject(py)?.to_owned().into_any())?,
            repr(self.restored.clone().into_pyobject(py)?.into_any())?,
            repr(self.unrestored.clone().into_pyobject(py)?.into_any())?,
            repr(self.error_code.into_pyobject(py)?.into_any())?,
            repr(self.error.clone().into_pyobject(py)?.into_any())?,
        ))
    }
}
