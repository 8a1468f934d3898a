//! Conversion of the keyword options shared by capture, rollback and plan.

use agent_checkpoint::{OnConflict, RollbackOptions};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

/// A sealing key: `bytes`, `bytearray`, or `str` (its UTF-8 bytes).
pub fn key_arg(key: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<u8>>> {
    let Some(key) = key.filter(|k| !k.is_none()) else {
        return Ok(None);
    };
    if let Ok(bytes) = key.cast::<PyBytes>() {
        return Ok(Some(bytes.as_bytes().to_vec()));
    }
    if let Ok(bytes) = key.cast::<PyByteArray>() {
        return Ok(Some(bytes.to_vec()));
    }
    if let Ok(text) = key.cast::<PyString>() {
        return Ok(Some(text.to_cow()?.as_bytes().to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "key must be bytes or str, not {}",
        key.get_type().name()?
    )))
}

/// `"overwrite"` or `"skip"`.
pub fn on_conflict_arg(name: &str) -> PyResult<OnConflict> {
    OnConflict::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "on_conflict must be 'overwrite' or 'skip', not {name:?}"
        ))
    })
}

/// Rollback (and plan) options from the keyword arguments.
pub fn rollback_options(
    durable: bool,
    allow_git_dir: bool,
    on_conflict: &str,
    key: Option<&Bound<'_, PyAny>>,
    redo: bool,
) -> PyResult<RollbackOptions> {
    let mut options = RollbackOptions::default();
    options.durable = durable;
    options.allow_git_dir = allow_git_dir;
    options.on_conflict = on_conflict_arg(on_conflict)?;
    options.key = key_arg(key)?;
    options.redo = redo;
    Ok(options)
}
