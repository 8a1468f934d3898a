//! `CheckpointStore.push / fetch / fetch_all / list_remote`: sharing
//! checkpoints through a git remote (a remote name or URL, default
//! `"origin"`). The network work runs the `git` program with the
//! interpreter detached; results come back as small frozen classes.

use agent_checkpoint_store as store;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::IntoPyResult;
use crate::store::CheckpointStore;

/// A ref a push or fetch did not get through: `code` is `"rejected"` (the
/// remote refused it) or `"conflict"` (one session written differently on
/// both sides; the local checkpoint untouched), `reason` the remote's
/// one-line reason or what conflicts.
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct RefFailure {
    ref_name: String,
    code: &'static str,
    reason: String,
}

impl From<store::RefFailure> for RefFailure {
    fn from(f: store::RefFailure) -> RefFailure {
        RefFailure {
            code: f.code.as_str(),
            ref_name: f.ref_name,
            reason: f.reason,
        }
    }
}

#[pymethods]
impl RefFailure {
    fn __repr__(&self) -> String {
        format!(
            "RefFailure(ref_name={:?}, code={:?}, reason={:?})",
            self.ref_name, self.code, self.reason
        )
    }
}

/// What `push` did: `pushed` (refs the remote confirmed; they left the
/// queue), `queued` (refs still queued, each a `RefFailure`), `dropped`
/// (queue entries dropped: not checkpoint refs, or gone locally); `ok` when
/// nothing stayed queued.
#[pyclass(frozen, get_all, module = "agent_checkpoint")]
pub struct PushResult {
    remote: String,
    pushed: Vec<String>,
    queued: Vec<RefFailure>,
    dropped: Vec<String>,
}

#[pymethods]
impl PushResult {
    /// Whether every ref went through.
    #[getter]
    fn ok(&self) -> bool {
        self.queued.is_empty()
    }

    fn __repr__(&self) -> String {
        format!(
            "PushResult(remote={:?}, pushed={}, queued={}, dropped={})",
            self.remote,
            self.pushed.len(),
            self.queued.len(),
            self.dropped.len()
        )
    }
}

/// One ref a push would send, as `push(dry_run=True)` lists it:
/// `checkpoint_id` (`None` for the v1 branch), `commit` (the local tip),
/// `queued` (in the push queue, or found because the remote was not seen
/// holding it), `session_ids`, `agent`, `files_touched`, `upload_bytes`
/// (the uncompressed size of its objects the remote lacks: an upper
/// bound), `on_remote` (the remote holds it at `commit` already),
/// `remote_commit` (the remote's other tip of it, or `None`), `damaged`
/// (`None`, or `{"code", "reason"}` when it cannot be described).
#[pyclass(frozen, get_all, module = "agent_checkpoint")]
pub struct OutgoingCheckpoint {
    ref_name: String,
    checkpoint_id: Option<String>,
    commit: String,
    queued: bool,
    session_ids: Vec<String>,
    agent: String,
    files_touched: Vec<String>,
    upload_bytes: u64,
    on_remote: bool,
    remote_commit: Option<String>,
    damaged: Option<Py<PyDict>>,
}

#[pymethods]
impl OutgoingCheckpoint {
    fn __repr__(&self) -> String {
        format!(
            "OutgoingCheckpoint(ref_name={:?}, on_remote={}, upload_bytes={})",
            self.ref_name,
            if self.on_remote { "True" } else { "False" },
            self.upload_bytes
        )
    }
}

/// What `push(dry_run=True)` found a push would send: `checkpoints`
/// (`OutgoingCheckpoint`s, in push order), `dropped` (queue entries the
/// push would drop), `upload_bytes` (in all, each object once); `to_send`
/// the refs the remote would receive (those not on it already).
#[pyclass(frozen, get_all, module = "agent_checkpoint")]
pub struct PushPlan {
    remote: String,
    checkpoints: Vec<Py<OutgoingCheckpoint>>,
    dropped: Vec<String>,
    upload_bytes: u64,
}

#[pymethods]
impl PushPlan {
    /// The refs the remote would receive.
    #[getter]
    fn to_send(&self) -> Vec<String> {
        self.checkpoints
            .iter()
            .map(Py::get)
            .filter(|c| !c.on_remote)
            .map(|c| c.ref_name.clone())
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "PushPlan(remote={:?}, checkpoints={}, upload_bytes={})",
            self.remote,
            self.checkpoints.len(),
            self.upload_bytes
        )
    }
}

fn plan_to_py(py: Python<'_>, plan: store::PushPlan) -> PyResult<PushPlan> {
    let mut checkpoints = Vec::with_capacity(plan.checkpoints.len());
    for c in plan.checkpoints {
        let damaged = match c.damaged {
            Some(d) => {
                let dict = PyDict::new(py);
                dict.set_item("code", d.code.as_str())?;
                dict.set_item("reason", d.reason)?;
                Some(dict.unbind())
            }
            None => None,
        };
        let out = OutgoingCheckpoint {
            ref_name: c.ref_name,
            checkpoint_id: c.checkpoint_id,
            commit: c.commit,
            queued: c.queued,
            session_ids: c.session_ids,
            agent: c.agent,
            files_touched: c.files_touched,
            upload_bytes: c.upload_bytes,
            on_remote: c.on_remote,
            remote_commit: c.remote_commit,
            damaged,
        };
        checkpoints.push(Py::new(py, out)?);
    }
    Ok(PushPlan {
        remote: plan.remote,
        checkpoints,
        dropped: plan.dropped,
        upload_bytes: plan.upload_bytes,
    })
}

/// One ref a fetch brought in: `outcome` is `"created"`,
/// `"fast_forwarded"`, `"up_to_date"`, `"local_ahead"` or `"replayed"`;
/// `commit` the local tip after.
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct FetchedRef {
    ref_name: String,
    outcome: &'static str,
    commit: String,
}

impl From<store::FetchedRef> for FetchedRef {
    fn from(f: store::FetchedRef) -> FetchedRef {
        FetchedRef {
            outcome: f.outcome.as_str(),
            ref_name: f.ref_name,
            commit: f.commit,
        }
    }
}

#[pymethods]
impl FetchedRef {
    fn __repr__(&self) -> String {
        format!(
            "FetchedRef(ref_name={:?}, outcome={:?})",
            self.ref_name, self.outcome
        )
    }
}

/// What `fetch_all` did: `fetched` (every remote ref, `FetchedRef`s) and
/// `failed` (refs not brought in, `RefFailure`s); `ok` when none failed.
#[pyclass(frozen, get_all, module = "agent_checkpoint")]
pub struct FetchResult {
    remote: String,
    fetched: Vec<FetchedRef>,
    failed: Vec<RefFailure>,
}

#[pymethods]
impl FetchResult {
    /// Whether every ref was brought in.
    #[getter]
    fn ok(&self) -> bool {
        self.failed.is_empty()
    }

    fn __repr__(&self) -> String {
        format!(
            "FetchResult(remote={:?}, fetched={}, failed={})",
            self.remote,
            self.fetched.len(),
            self.failed.len()
        )
    }
}

/// One checkpoint a remote holds: `local` is `"absent"` (only the remote
/// has it), `"same"` or `"different"`.
#[pyclass(frozen, eq, get_all, module = "agent_checkpoint")]
#[derive(Clone, PartialEq, Eq)]
pub struct RemoteCheckpoint {
    checkpoint_id: String,
    backend: &'static str,
    ref_name: String,
    commit: String,
    local: &'static str,
}

#[pymethods]
impl RemoteCheckpoint {
    fn __repr__(&self) -> String {
        format!(
            "RemoteCheckpoint(checkpoint_id={:?}, local={:?})",
            self.checkpoint_id, self.local
        )
    }
}

#[pymethods]
impl CheckpointStore {
    /// Pushes every queued checkpoint ref (and the v1 branch) to `remote`,
    /// in batches of at most 200 refs per `git push`. Refs the remote
    /// confirmed leave the queue; refused or conflicting ones stay queued
    /// and are listed in `queued`. Raises `RemoteUnreachableError` /
    /// `AuthFailedError` when the remote cannot be reached or refuses the
    /// credentials (the unconfirmed refs stay queued).
    ///
    /// With `dry_run=True` nothing is pushed or changed: returns a
    /// `PushPlan` of what the push would send (the remote is asked which
    /// checkpoint refs it holds, when there is anything to send).
    #[pyo3(signature = (remote = "origin", *, dry_run = false))]
    fn push<'py>(
        &self,
        py: Python<'py>,
        remote: &str,
        dry_run: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let store = &self.inner;
        let remote = remote.to_owned();
        if dry_run {
            let plan = py
                .detach(move || store.push_plan(&remote))
                .into_py_result(py)?;
            return Ok(Bound::new(py, plan_to_py(py, plan)?)?.into_any());
        }
        let report = py.detach(move || store.push(&remote)).into_py_result(py)?;
        let result = PushResult {
            remote: report.remote,
            pushed: report.pushed,
            queued: report.queued.into_iter().map(Into::into).collect(),
            dropped: report.dropped,
        };
        Ok(Bound::new(py, result)?.into_any())
    }

    /// Fetches checkpoint `checkpoint_id` from `remote` and brings it in
    /// (created, fast-forwarded, or ours replayed on the remote's). Raises
    /// `NotFoundError` when the remote does not have it, `ConflictError`
    /// when one session was written differently on both sides.
    #[pyo3(signature = (checkpoint_id, remote = "origin"))]
    fn fetch(&self, py: Python<'_>, checkpoint_id: String, remote: &str) -> PyResult<FetchedRef> {
        let store = &self.inner;
        let remote = remote.to_owned();
        py.detach(move || store.fetch(&remote, &checkpoint_id))
            .into_py_result(py)
            .map(Into::into)
    }

    /// Fetches every checkpoint `remote` holds that differs from the local copy.
    #[pyo3(signature = (remote = "origin"))]
    fn fetch_all(&self, py: Python<'_>, remote: &str) -> PyResult<FetchResult> {
        let store = &self.inner;
        let remote = remote.to_owned();
        let report = py
            .detach(move || store.fetch_all(&remote))
            .into_py_result(py)?;
        Ok(FetchResult {
            remote: report.remote,
            fetched: report.fetched.into_iter().map(Into::into).collect(),
            failed: report.failed.into_iter().map(Into::into).collect(),
        })
    }

    /// The checkpoints `remote` holds, sorted by ID.
    #[pyo3(signature = (remote = "origin"))]
    fn list_remote(&self, py: Python<'_>, remote: &str) -> PyResult<Vec<RemoteCheckpoint>> {
        let store = &self.inner;
        let remote = remote.to_owned();
        let listed = py
            .detach(move || store.list_remote(&remote))
            .into_py_result(py)?;
        Ok(listed
            .into_iter()
            .map(|c| RemoteCheckpoint {
                backend: c.backend.as_str(),
                local: c.local.as_str(),
                checkpoint_id: c.checkpoint_id,
                ref_name: c.ref_name,
                commit: c.commit,
            })
            .collect())
    }
}

/// Registers the result classes.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PushResult>()?;
    module.add_class::<PushPlan>()?;
    module.add_class::<OutgoingCheckpoint>()?;
    module.add_class::<RefFailure>()?;
    module.add_class::<FetchResult>()?;
    module.add_class::<FetchedRef>()?;
    module.add_class::<RemoteCheckpoint>()?;
    Ok(())
}
