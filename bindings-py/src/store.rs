//! `CheckpointStore`: checkpoints kept in git (the `agent-checkpoint-store`
//! crate). Every method converts its arguments, runs the store with the
//! interpreter detached (git work never holds the GIL) and converts the
//! result; documents come back as the dicts `json.loads` makes of them.

use std::path::PathBuf;

use agent_checkpoint_store::{
    Attribution, Backend, Document, SessionWrite, Store, StoreOptions, Summary,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::args::strings;
use crate::checkpoint::{run_plan, run_rollback, PlanItem, RollbackResult};
use crate::diff::diff_options;
use crate::errors::IntoPyResult;
use crate::options::PlanArgs;
use crate::progress::progress_arg;

fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

fn dumps(value: &Bound<'_, PyAny>) -> PyResult<String> {
    value
        .py()
        .import("json")?
        .call_method1("dumps", (value,))?
        .extract()
}

/// Bytes from `bytes` or `str` (its UTF-8).
fn bytes_arg(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u8>> {
    if let Ok(b) = value.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be bytes or str, not {}",
        value.get_type().name()?
    )))
}

fn json_error(e: serde_json::Error) -> agent_checkpoint::Error {
    agent_checkpoint::Error::invalid_argument("document", e.to_string())
}

/// `options` signing commits as `sign_commits` says: `True` always, `False`
/// never, `None` as git's `commit.gpgSign` says.
fn with_signing(options: StoreOptions, sign_commits: Option<bool>) -> StoreOptions {
    match sign_commits {
        Some(sign) => options.sign_commits(sign),
        None => options,
    }
}

/// A git repository opened for checkpoints (any directory of its working
/// tree). `backend` is `"git-refs"` (default) or `"git-branch"`;
/// `sign_commits` (keyword) signs every commit the store writes when
/// `True`, never when `False`, and as git's `commit.gpgSign` says when
/// `None` (the default).
///
/// Prompts, transcripts and summaries are redacted with the default
/// redactor before they are stored (undo snapshots never are).
#[pyclass(frozen, module = "agent_checkpoint", name = "CheckpointStore")]
pub struct CheckpointStore {
    pub(crate) inner: Store,
}

#[pymethods]
impl CheckpointStore {
    #[new]
    #[pyo3(signature = (path, backend = "git-refs", *, sign_commits = None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        backend: &str,
        sign_commits: Option<bool>,
    ) -> PyResult<CheckpointStore> {
        let backend: Backend = backend.parse().into_py_result(py)?;
        let options = with_signing(StoreOptions::default().backend(backend), sign_commits);
        let inner = py
            .detach(move || Store::open_with(&path, options))
            .into_py_result(py)?;
        Ok(CheckpointStore { inner })
    }

    /// `"git-refs"` or `"git-branch"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.inner.backend().as_str()
    }

    /// The git common dir (push queue, lock files).
    #[getter]
    fn common_dir(&self) -> PathBuf {
        self.inner.common_dir().to_path_buf()
    }

    /// The repository's working tree (where `rollback` without a root
    /// restores); `None` for a bare repository.
    #[getter]
    fn work_dir(&self) -> Option<PathBuf> {
        self.inner.work_dir()
    }

    /// Writes one session into checkpoint `checkpoint_id`; the other keyword
    /// arguments are the session's fields (`agent`, `model`, `prompts`,
    /// `files_touched`, `snapshot`, `task`, `token_usage`, `summary`,
    /// `created_at`, ...). Returns `{"commit", "ref_name", "session_index",
    /// "snapshot_commit"}`.
    #[pyo3(signature = (checkpoint_id, session_id, *, transcript = None, **fields))]
    fn write_session<'py>(
        &self,
        py: Python<'py>,
        checkpoint_id: String,
        session_id: String,
        transcript: Option<&Bound<'py, PyAny>>,
        fields: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let doc = PyDict::new(py);
        if let Some(fields) = fields {
            doc.update(fields.as_mapping())?;
        }
        doc.set_item("checkpoint_id", checkpoint_id)?;
        doc.set_item("session_id", session_id)?;
        let json = dumps(doc.as_any())?;
        let transcript = transcript
            .filter(|t| !t.is_none())
            .map(|t| bytes_arg(t, "transcript"))
            .transpose()?;
        let store = &self.inner;
        let written = py
            .detach(move || {
                let mut write = SessionWrite::from_json(&json)?;
                if transcript.is_some() {
                    write.transcript = transcript;
                }
                store.write_session(&write)
            })
            .into_py_result(py)?;
        let out = PyDict::new(py);
        out.set_item("commit", written.commit)?;
        out.set_item("ref_name", written.ref_name)?;
        out.set_item("session_index", written.session_index)?;
        out.set_item("snapshot_commit", written.snapshot_commit)?;
        Ok(out.into_any())
    }

    /// The root summary of checkpoint `checkpoint_id`, as a dict.
    fn read<'py>(&self, py: Python<'py>, checkpoint_id: String) -> PyResult<Bound<'py, PyAny>> {
        let store = &self.inner;
        let text = py
            .detach(move || store.read(&checkpoint_id)?.to_go_json())
            .into_py_result(py)?;
        loads(py, &text)
    }

    /// The root `metadata.json` of checkpoint `checkpoint_id` as stored.
    fn read_raw(&self, py: Python<'_>, checkpoint_id: String) -> PyResult<String> {
        let store = &self.inner;
        py.detach(move || store.read_raw(&checkpoint_id))
            .into_py_result(py)
    }

    /// Session `index` of checkpoint `checkpoint_id`:
    /// `{"metadata": dict, "prompts": list[str], "transcript": bytes | None}`
    /// (`None` for a session written without a transcript).
    #[pyo3(signature = (checkpoint_id, index = 0))]
    fn read_session<'py>(
        &self,
        py: Python<'py>,
        checkpoint_id: String,
        index: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let store = &self.inner;
        let content = py
            .detach(move || store.read_session(&checkpoint_id, index))
            .into_py_result(py)?;
        let out = PyDict::new(py);
        out.set_item("metadata", loads(py, &content.metadata_json)?)?;
        out.set_item("prompts", content.prompts)?;
        match &content.transcript {
            Some(bytes) => out.set_item("transcript", PyBytes::new(py, bytes))?,
            None => out.set_item("transcript", py.None())?,
        }
        Ok(out.into_any())
    }

    /// Every local checkpoint, newest first: dicts with `checkpoint_id`,
    /// `backend`, `session_ids`, `created_at`, `agent`, `is_task`,
    /// `tool_use_id`, `checkpoints_count`, `files_touched`, `imported`,
    /// `damaged` (`None`, or `{"code", "reason"}` for one that cannot be
    /// read: listed after the sound ones, never the end of the listing).
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let store = &self.inner;
        let text = py
            .detach(move || serde_json::to_string(&store.list()?).map_err(json_error))
            .into_py_result(py)?;
        loads(py, &text)
    }

    /// The undo snapshot stored with checkpoint `checkpoint_id`, or `None`.
    fn snapshot(&self, py: Python<'_>, checkpoint_id: String) -> PyResult<Option<String>> {
        let store = &self.inner;
        py.detach(move || store.snapshot(&checkpoint_id))
            .into_py_result(py)
    }

    /// Rolls `root` (default: the repository's working tree) back to the
    /// checkpoint's undo snapshot, with the options of `rollback` (a
    /// snapshot it refuses comes back as `valid=False`). Raises `NotFoundError`
    /// when the checkpoint has no undo snapshot, and `RootMismatchError`
    /// (without `root`) when it was taken under another directory than the
    /// working tree.
    #[pyo3(signature = (
        checkpoint_id, root = None, *, durable = true, allow_git_dir = false,
        on_conflict = "overwrite", key = None, redo = true, restore_setid = false,
        strict_root = false, max_file_bytes = None, progress = None,
    ))]
    #[allow(clippy::too_many_arguments, reason = "the Python keyword arguments")]
    fn rollback(
        &self,
        py: Python<'_>,
        checkpoint_id: String,
        root: Option<PathBuf>,
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
        let options = PlanArgs {
            on_conflict,
            key,
            restore_setid,
            strict_root,
        }
        .rollback_options(py, durable, redo, max_file_bytes)?
        .with_progress(progress_arg(progress)?);
        let (root, text) = self.undo(py, checkpoint_id, root)?;
        run_rollback(py, root, Ok(&text), allow_git_dir, options)
    }

    /// What `rollback` with the same options would do, touching nothing;
    /// `diff`, `diff_context`, `diff_max_bytes` and `progress` as in
    /// `plan_rollback`.
    #[pyo3(signature = (
        checkpoint_id, root = None, *, allow_git_dir = false, on_conflict = "overwrite",
        key = None, restore_setid = false, strict_root = false, diff = false,
        diff_context = 3, diff_max_bytes = 1_048_576, progress = None,
    ))]
    #[allow(clippy::too_many_arguments, reason = "the Python keyword arguments")]
    fn plan_rollback(
        &self,
        py: Python<'_>,
        checkpoint_id: String,
        root: Option<PathBuf>,
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
        let (root, text) = self.undo(py, checkpoint_id, root)?;
        run_plan(py, root, &text, allow_git_dir, options)
    }

    /// Replaces a session's transcript (and prompts, when given); returns the commit.
    #[pyo3(signature = (checkpoint_id, session_id, transcript, prompts = None))]
    fn backfill_transcript(
        &self,
        py: Python<'_>,
        checkpoint_id: String,
        session_id: String,
        transcript: &Bound<'_, PyAny>,
        prompts: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let transcript = bytes_arg(transcript, "transcript")?;
        let prompts = prompts.filter(|p| !p.is_none()).map(strings).transpose()?;
        let store = &self.inner;
        py.detach(move || {
            store.backfill_transcript(&checkpoint_id, &session_id, &transcript, prompts.as_deref())
        })
        .into_py_result(py)
    }

    /// Sets a session's summary (a dict of the Summary document); returns the commit.
    fn backfill_summary(
        &self,
        py: Python<'_>,
        checkpoint_id: String,
        session_id: String,
        summary: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        let json = dumps(summary)?;
        let store = &self.inner;
        py.detach(move || {
            let summary: Summary = serde_json::from_str(&json).map_err(json_error)?;
            store.backfill_summary(&checkpoint_id, &session_id, &summary)
        })
        .into_py_result(py)
    }

    /// Sets the checkpoint's combined attribution (a dict of the Attribution
    /// document); returns the commit.
    fn backfill_attribution(
        &self,
        py: Python<'_>,
        checkpoint_id: String,
        attribution: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        let json = dumps(attribution)?;
        let store = &self.inner;
        py.detach(move || {
            let attribution: Attribution = serde_json::from_str(&json).map_err(json_error)?;
            store.backfill_attribution(&checkpoint_id, &attribution)
        })
        .into_py_result(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let dir = self.common_dir().into_pyobject(py)?;
        Ok(format!(
            "CheckpointStore({}, backend={:?})",
            dir.str()?.repr()?,
            self.backend()
        ))
    }
}

impl CheckpointStore {
    /// The root to roll back (default: the working tree) and the
    /// checkpoint's undo snapshot.
    fn undo(
        &self,
        py: Python<'_>,
        checkpoint_id: String,
        root: Option<PathBuf>,
    ) -> PyResult<(PathBuf, String)> {
        let store = &self.inner;
        // Without a root, the store refuses a snapshot taken under another
        // directory than the working tree (`root_mismatch`).
        py.detach(move || store.undo_target(&checkpoint_id, root.as_deref()))
            .into_py_result(py)
    }
}
