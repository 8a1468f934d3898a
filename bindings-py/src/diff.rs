//! What a rollback would change at a path, as `plan_rollback(..., diff=True)`
//! shows it: the `diff_*` keyword arguments, and the `Hunk` and `DiffLine`
//! classes of `PlanItem.hunks`.

use agent_checkpoint::{DiffOptions, Error};
use pyo3::prelude::*;

use crate::errors::to_py;

/// A non-negative count: a negative one is an `InvalidArgumentError`
/// (anything but an `int` is a `TypeError` before it gets here).
fn count_arg(py: Python<'_>, value: i64, name: &str) -> PyResult<u64> {
    u64::try_from(value).map_err(|_| {
        to_py(
            py,
            &Error::invalid_argument(name, format!("must not be negative, got {value}")),
        )
    })
}

/// The core's diff options for `diff`, `diff_context` and `diff_max_bytes`
/// (`None` when `diff` is false; the numbers are checked either way).
pub fn diff_options(
    py: Python<'_>,
    diff: bool,
    context: i64,
    max_bytes: i64,
) -> PyResult<Option<DiffOptions>> {
    let context = count_arg(py, context, "diff_context")?;
    let max_bytes = count_arg(py, max_bytes, "diff_max_bytes")?;
    let context = usize::try_from(context).unwrap_or(usize::MAX);
    Ok(diff.then(|| {
        DiffOptions::default()
            .with_context(context)
            .with_max_bytes(max_bytes)
    }))
}

/// One hunk of a unified diff, from the file as it is now (old) to the
/// file the rollback restores (new).
#[pyclass(frozen, eq, module = "agent_checkpoint")]
#[derive(PartialEq, Eq)]
pub struct Hunk(agent_checkpoint::Hunk);

impl From<agent_checkpoint::Hunk> for Hunk {
    fn from(hunk: agent_checkpoint::Hunk) -> Hunk {
        Hunk(hunk)
    }
}

#[pymethods]
impl Hunk {
    /// First line of the hunk in the current file (1-based; 0 when it
    /// covers no line there).
    #[getter]
    fn old_start(&self) -> usize {
        self.0.old_start
    }

    /// Lines of the current file the hunk covers.
    #[getter]
    fn old_lines(&self) -> usize {
        self.0.old_lines
    }

    /// First line of the hunk in the restored file (1-based; 0 when it
    /// covers no line there).
    #[getter]
    fn new_start(&self) -> usize {
        self.0.new_start
    }

    /// Lines of the restored file the hunk covers.
    #[getter]
    fn new_lines(&self) -> usize {
        self.0.new_lines
    }

    /// The lines, in order.
    #[getter]
    fn lines(&self) -> Vec<DiffLine> {
        self.0.lines.iter().cloned().map(DiffLine).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Hunk(old_start={}, old_lines={}, new_start={}, new_lines={}, lines=<{} lines>)",
            self.0.old_start,
            self.0.old_lines,
            self.0.new_start,
            self.0.new_lines,
            self.0.lines.len()
        )
    }
}

/// One line of a hunk.
#[pyclass(frozen, eq, module = "agent_checkpoint")]
#[derive(PartialEq, Eq)]
pub struct DiffLine(agent_checkpoint::DiffLine);

#[pymethods]
impl DiffLine {
    /// `"context"` (unchanged), `"removed"` (on disk now, gone after the
    /// rollback) or `"added"` (restored by the rollback).
    #[getter]
    fn kind(&self) -> &'static str {
        self.0.kind.as_str()
    }

    /// The line's text, without its line ending.
    #[getter]
    fn text(&self) -> &str {
        &self.0.text
    }

    /// Its number in the current file, when it is there (1-based).
    #[getter]
    fn old_line(&self) -> Option<usize> {
        self.0.old_line
    }

    /// Its number in the restored file, when it is there (1-based).
    #[getter]
    fn new_line(&self) -> Option<usize> {
        self.0.new_line
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "DiffLine(kind={}, text={}, old_line={}, new_line={})",
            self.kind().into_pyobject(py)?.repr()?,
            self.0.text.as_str().into_pyobject(py)?.repr()?,
            self.0.old_line.into_pyobject(py)?.repr()?,
            self.0.new_line.into_pyobject(py)?.repr()?,
        ))
    }
}
