//! Read-only views of a snapshot: `snapshot_paths`, `inspect_snapshot`, `CapturedPath`.

use pyo3::prelude::*;

use crate::checkpoint::snapshot_text;
use crate::errors::IntoPyResult;

/// The paths captured by `checkpoint`, sorted; `[]` for a malformed
/// snapshot (best effort, like the seed).
#[pyfunction]
pub fn snapshot_paths(py: Python<'_>, checkpoint: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let held = snapshot_text(checkpoint)?;
    Ok(match held.as_ref().map(|t| t.as_str()) {
        Ok(Ok(text)) => py.detach(move || agent_checkpoint::snapshot_paths(text)),
        _ => Vec::new(),
    })
}

/// Parses `checkpoint` strictly and describes every captured path.
///
/// Raises the snapshot's error (e.g. `MalformedSnapshotError`) when it is
/// malformed.
#[pyfunction]
pub fn inspect_snapshot(
    py: Python<'_>,
    checkpoint: &Bound<'_, PyAny>,
) -> PyResult<Vec<CapturedPath>> {
    let text = snapshot_text(checkpoint)?.into_py_result(py)?;
    let text = text.as_str().into_py_result(py)?;
    let items = py
        .detach(move || agent_checkpoint::inspect_snapshot(text))
        .into_py_result(py)?;
    Ok(items.into_iter().map(CapturedPath::from).collect())
}

/// One captured path of a snapshot.
#[pyclass(frozen, eq, module = "agent_checkpoint")]
#[derive(PartialEq, Eq)]
pub struct CapturedPath {
    /// The canonical path, relative to the root.
    #[pyo3(get)]
    path: String,
    /// `"file"` (existed, with its bytes), `"new"` (did not exist) or `"link"`.
    #[pyo3(get)]
    kind: &'static str,
    /// Size in bytes of the captured content (files only).
    #[pyo3(get)]
    size: Option<u64>,
    /// Permission bits, when recorded (files only).
    #[pyo3(get)]
    mode: Option<u32>,
    /// The symlink's target text (links only).
    #[pyo3(get)]
    link_target: Option<String>,
    /// SHA-256 of the captured content, lowercase hex (files whose digest was recorded).
    #[pyo3(get)]
    digest: Option<String>,
}

impl From<agent_checkpoint::CapturedPath> for CapturedPath {
    fn from(item: agent_checkpoint::CapturedPath) -> CapturedPath {
        CapturedPath {
            path: item.path,
            kind: item.kind.as_str(),
            size: item.size,
            mode: item.mode,
            link_target: item.link_target,
            digest: item.digest,
        }
    }
}

#[pymethods]
impl CapturedPath {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "CapturedPath(path={}, kind={}, size={}, mode={}, link_target={}, digest={})",
            self.path.as_str().into_pyobject(py)?.repr()?,
            self.kind.into_pyobject(py)?.repr()?,
            self.size.into_pyobject(py)?.repr()?,
            match self.mode {
                Some(mode) => format!("0o{mode:o}"),
                None => "None".to_owned(),
            },
            self.link_target.as_deref().into_pyobject(py)?.repr()?,
            self.digest.as_deref().into_pyobject(py)?.repr()?,
        ))
    }
}
