//! The `progress` keyword argument: a Python callable
//! `progress(stage, done, total)` turned into the core's progress callback.
//!
//! The work runs with the interpreter detached; each report re-attaches it
//! to call the callable. Reports are throttled (the first and the last of
//! each stage, at most one per 100 ms in between), so the callable costs
//! nothing on a large tree. An exception the callable raises goes to
//! `sys.unraisablehook` and the work goes on: a progress display never
//! stops a capture or a rollback half way.

use std::time::Duration;

use agent_checkpoint::{OnProgress, Progress};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// The least time between two reports that are not the first or the last
/// of their stage.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// The core's callback for a `progress` argument (`None` for `None`); a
/// value that is not callable is a `TypeError`.
pub fn progress_arg(progress: Option<&Bound<'_, PyAny>>) -> PyResult<Option<OnProgress>> {
    let Some(progress) = progress.filter(|p| !p.is_none()) else {
        return Ok(None);
    };
    if !progress.is_callable() {
        return Err(PyTypeError::new_err(format!(
            "progress must be a callable progress(stage, done, total), not {}",
            progress.get_type().name()?
        )));
    }
    let callable = progress.clone().unbind();
    Ok(Some(OnProgress::throttled(
        PROGRESS_INTERVAL,
        move |p: Progress| {
            Python::attach(|py| {
                let callable = callable.bind(py);
                if let Err(e) = callable.call1((p.stage.as_str(), p.done, p.total)) {
                    e.write_unraisable(py, Some(callable));
                }
            })
        },
    )))
}
