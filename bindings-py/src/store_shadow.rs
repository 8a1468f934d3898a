//! `CheckpointStore`'s shadow-branch methods (STORE.md §4): one commit per
//! agent step, listing, log, transcript, rewind, condense, clean. Git and
//! filesystem work runs with the interpreter detached; results come back
//! as the dicts `json.loads` makes of the store's JSON.

use std::path::PathBuf;

use agent_checkpoint::{PlanOptions, RollbackOptions};
use agent_checkpoint_store::{SessionWrite, ShadowLogQuery, ShadowStep, Store, TaskInfo};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::args::strings;
use crate::checkpoint::{PlanItem, RollbackResult};
use crate::diff::diff_options;
use crate::errors::IntoPyResult;
use crate::store::CheckpointStore;

fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

fn json_error(e: serde_json::Error) -> agent_checkpoint::Error {
    agent_checkpoint::Error::invalid_argument("document", e.to_string())
}

fn root_or_workdir(store: &Store, root: Option<PathBuf>) -> agent_checkpoint::Result<PathBuf> {
    root.or_else(|| store.work_dir()).ok_or_else(|| {
        agent_checkpoint::Error::invalid_argument("root", "the repository has no working tree")
    })
}

#[pymethods]
impl CheckpointStore {
    /// Records one agent step on the shadow branch of HEAD and this
    /// worktree. The session's first step takes every change `git status`
    /// shows; later steps take the `files` named (minus ignored ones) and
    /// the `deleted` ones. `metadata_dir` is stored redacted under
    /// `.entire/metadata/<session_id>/`; `task` (a tool-use ID) makes it a
    /// task step. Files `HEAD` does not track over `max_file_bytes` (default
    /// 100 MiB) are not read: listed in `too_large` with their size. Returns
    /// `{"commit", "branch", "skipped", "base_commit", "first", "left_out",
    /// "too_large"}`.
    #[pyo3(signature = (
        session_id, *, files = None, deleted = None, message = None, metadata_dir = None,
        first = None, task = None, agent_id = None, checkpoint_uuid = None, max_file_bytes = None,
    ))]
    #[allow(clippy::too_many_arguments, reason = "the Python keyword arguments")]
    fn shadow_step<'py>(
        &self,
        py: Python<'py>,
        session_id: String,
        files: Option<&Bound<'py, PyAny>>,
        deleted: Option<&Bound<'py, PyAny>>,
        message: Option<String>,
        metadata_dir: Option<PathBuf>,
        first: Option<bool>,
        task: Option<String>,
        agent_id: Option<String>,
        checkpoint_uuid: Option<String>,
        max_file_bytes: Option<u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut step = ShadowStep::new(session_id);
        if let Some(max) = max_file_bytes {
            step = step.max_untracked_bytes(max);
        }
        if let Some(files) = files.filter(|f| !f.is_none()) {
            step = step.files(strings(files)?);
        }
        if let Some(deleted) = deleted.filter(|d| !d.is_none()) {
            step = step.deleted(strings(deleted)?);
        }
        step.message = message;
        step.metadata_dir = metadata_dir;
        step.first = first;
        let task = task.map(|id| {
            let mut info = TaskInfo::new(id);
            info.agent_id = agent_id.unwrap_or_default();
            info.checkpoint_uuid = checkpoint_uuid.unwrap_or_default();
            info
        });
        let store = &self.inner;
        let text = py
            .detach(move || {
                let result = match &task {
                    Some(task) => store.shadow_task_step(&step, task)?,
                    None => store.shadow_step(&step)?,
                };
                serde_json::to_string(&result).map_err(json_error)
            })
            .into_py_result(py)?;
        loads(py, &text)
    }

    /// The shadow branch of HEAD in this worktree (it may not exist yet).
    fn shadow_branch(&self, py: Python<'_>) -> PyResult<String> {
        let store = &self.inner;
        py.detach(move || store.shadow_branch()).into_py_result(py)
    }

    /// Every shadow branch, newest tip first: dicts with `branch`,
    /// `base_commit`, `worktree_hash`, `tip`, `session_id`, `timestamp`.
    fn shadow_branches<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let store = &self.inner;
        let text = py
            .detach(move || serde_json::to_string(&store.shadow_branches()?).map_err(json_error))
            .into_py_result(py)?;
        loads(py, &text)
    }

    /// One branch's steps (default: the current one), newest first, by
    /// session, at most `limit` (0: all): dicts with `commit`, `message`,
    /// `session_id`, `metadata_dir`, `is_task`, `tool_use_id`, `timestamp`,
    /// `branch`.
    #[pyo3(signature = (*, session_id = None, limit = 0, branch = None))]
    fn shadow_log<'py>(
        &self,
        py: Python<'py>,
        session_id: Option<String>,
        limit: usize,
        branch: Option<String>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut query = ShadowLogQuery::new().limit(limit);
        query.session_id = session_id;
        query.branch = branch;
        let store = &self.inner;
        let text = py
            .detach(move || serde_json::to_string(&store.shadow_log(&query)?).map_err(json_error))
            .into_py_result(py)?;
        loads(py, &text)
    }

    /// The transcript stored with step `commit` (full or abbreviated).
    fn shadow_transcript<'py>(
        &self,
        py: Python<'py>,
        commit: String,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let store = &self.inner;
        let bytes = py
            .detach(move || store.shadow_transcript(&commit))
            .into_py_result(py)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Rewinds `root` (default: the working tree) to step `commit`: the
    /// paths its session touched that differ from the step come back
    /// through the core's rollback. `result.redo` undoes it
    /// (`agent_checkpoint.rollback(root, result.redo)`).
    #[pyo3(signature = (commit, root = None, *, durable = true, redo = true))]
    fn shadow_rewind(
        &self,
        py: Python<'_>,
        commit: String,
        root: Option<PathBuf>,
        durable: bool,
        redo: bool,
    ) -> PyResult<RollbackResult> {
        let store = &self.inner;
        let options = RollbackOptions::default()
            .with_durable(durable)
            .with_redo(redo);
        let report = py
            .detach(move || {
                let root = root_or_workdir(store, root)?;
                store.shadow_rewind(&commit, &root, &options)
            })
            .into_py_result(py)?;
        RollbackResult::from_report(py, report)
    }

    /// What `shadow_rewind` would do to each path, touching nothing; with
    /// `diff=True`, what each change is (as `plan_rollback`).
    #[pyo3(signature = (
        commit, root = None, *, diff = false, diff_context = 3, diff_max_bytes = 1_048_576,
    ))]
    fn shadow_rewind_plan(
        &self,
        py: Python<'_>,
        commit: String,
        root: Option<PathBuf>,
        diff: bool,
        diff_context: i64,
        diff_max_bytes: i64,
    ) -> PyResult<Vec<PlanItem>> {
        let options =
            PlanOptions::default().with_diff(diff_options(py, diff, diff_context, diff_max_bytes)?);
        let store = &self.inner;
        let plan = py
            .detach(move || {
                let root = root_or_workdir(store, root)?;
                store.shadow_rewind_plan(&commit, &root, &options)
            })
            .into_py_result(py)?;
        Ok(plan.items.into_iter().map(PlanItem::from).collect())
    }

    /// Turns session `session_id`'s steps into session `session_id` of
    /// checkpoint `checkpoint_id` (other keyword arguments: the session's
    /// fields, as `write_session`), deleting the shadow branch when no
    /// session on it still needs it. Returns `{"checkpoint_id", "commit",
    /// "ref_name", "session_index", "branch", "steps", "files_touched",
    /// "branch_deleted"}`.
    #[pyo3(signature = (session_id, checkpoint_id, **fields))]
    fn shadow_condense<'py>(
        &self,
        py: Python<'py>,
        session_id: String,
        checkpoint_id: String,
        fields: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let doc = PyDict::new(py);
        if let Some(fields) = fields {
            doc.update(fields.as_mapping())?;
        }
        doc.set_item("checkpoint_id", checkpoint_id)?;
        doc.set_item("session_id", session_id)?;
        let json: String = py
            .import("json")?
            .call_method1("dumps", (doc,))?
            .extract()?;
        let store = &self.inner;
        let text = py
            .detach(move || {
                serde_json::to_string(&store.shadow_condense(&SessionWrite::from_json(&json)?)?)
                    .map_err(json_error)
            })
            .into_py_result(py)?;
        loads(py, &text)
    }

    /// Deletes the shadow branches no session needs; returns them as dicts
    /// `{"branch", "tip", "reason"}`.
    fn shadow_clean<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let store = &self.inner;
        let text = py
            .detach(move || serde_json::to_string(&store.shadow_clean()?).map_err(json_error))
            .into_py_result(py)?;
        loads(py, &text)
    }
}
