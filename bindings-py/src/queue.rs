//! `PushQueue`: the checkpoint push queue file in a git common dir.
//!
//! Every operation takes a file lock and does file I/O, so it runs with the
//! interpreter detached: a thread waiting for the lock never blocks others.

use std::path::PathBuf;

use pyo3::prelude::*;

use crate::args::strings;
use crate::errors::IntoPyResult;

/// The JSONL push queue kept in `directory` (the git common dir).
#[pyclass(frozen, module = "agent_checkpoint", name = "PushQueue")]
pub struct PushQueue {
    inner: agent_checkpoint_naming::queue::PushQueue,
}

#[pymethods]
impl PushQueue {
    #[new]
    fn new(directory: PathBuf) -> PushQueue {
        PushQueue {
            inner: agent_checkpoint_naming::queue::PushQueue::new(directory),
        }
    }

    /// The queue file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.path().to_path_buf()
    }

    /// The directory the queue lives in.
    #[getter]
    fn directory(&self) -> PathBuf {
        self.inner.directory().to_path_buf()
    }

    /// Appends one ref (a full git ref name) as a whole line.
    fn enqueue(&self, py: Python<'_>, r#ref: String) -> PyResult<()> {
        let queue = &self.inner;
        py.detach(|| queue.enqueue(&r#ref)).into_py_result(py)
    }

    /// Appends every ref under one lock; nothing is written if one is invalid.
    fn enqueue_all(&self, py: Python<'_>, refs: &Bound<'_, PyAny>) -> PyResult<()> {
        let refs = strings(refs)?;
        let queue = &self.inner;
        py.detach(|| queue.enqueue_all(&refs)).into_py_result(py)
    }

    /// The queued refs, de-duplicated in first-seen order (nothing removed;
    /// the file is compacted when it held duplicates or malformed lines).
    fn drain(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let queue = &self.inner;
        py.detach(|| queue.drain().map(|d| d.refs))
            .into_py_result(py)
    }

    /// Like `drain`, but never rewrites the queue file.
    fn peek(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let queue = &self.inner;
        py.detach(|| queue.peek().map(|d| d.refs))
            .into_py_result(py)
    }

    /// Removes every entry of `refs` (refs enqueued meanwhile survive).
    fn remove(&self, py: Python<'_>, refs: &Bound<'_, PyAny>) -> PyResult<()> {
        let refs = strings(refs)?;
        let queue = &self.inner;
        py.detach(|| queue.remove(&refs)).into_py_result(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let directory = self.directory().into_pyobject(py)?;
        Ok(format!("PushQueue({})", directory.str()?.repr()?))
    }
}
