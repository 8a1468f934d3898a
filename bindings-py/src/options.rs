//! Conversion of the keyword options shared by capture, rollback and plan.
//!
//! A bad value raises `InvalidArgumentError` (a `ValueError` with `.code`
//! `invalid_argument`); a value of the wrong type raises `TypeError`.

use agent_checkpoint::{Error, OnConflict, PlanOptions, RollbackOptions, SealKey};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};

use crate::errors::to_py;

fn invalid(py: Python<'_>, name: &str, reason: impl Into<String>) -> PyErr {
    to_py(py, &Error::invalid_argument(name, reason))
}

/// A sealing key: `bytes`, `bytearray`, or `str` (its UTF-8 bytes). Empty
/// keys and text that is not valid Unicode (a lone surrogate) are refused.
pub fn key_arg(key: Option<&Bound<'_, PyAny>>) -> PyResult<Option<SealKey>> {
    let Some(key) = key.filter(|k| !k.is_none()) else {
        return Ok(None);
    };
    let py = key.py();
    let bytes = if let Ok(bytes) = key.cast::<PyBytes>() {
        bytes.as_bytes().to_vec()
    } else if let Ok(bytes) = key.cast::<PyByteArray>() {
        bytes.to_vec()
    } else if let Ok(text) = key.cast::<PyString>() {
        match text.to_cow() {
            Ok(s) => s.as_bytes().to_vec(),
            Err(_) => {
                return Err(invalid(
                    py,
                    "key",
                    "the text is not valid Unicode (a lone surrogate); pass bytes",
                ))
            }
        }
    } else {
        return Err(PyTypeError::new_err(format!(
            "key must be bytes or str, not {}",
            key.get_type().name()?
        )));
    };
    SealKey::new(bytes).map(Some).map_err(|e| to_py(py, &e))
}

/// `"overwrite"` or `"skip"`.
pub fn on_conflict_arg(py: Python<'_>, name: &str) -> PyResult<OnConflict> {
    OnConflict::from_name(name).ok_or_else(|| {
        invalid(
            py,
            "on_conflict",
            format!("must be 'overwrite' or 'skip', not {name:?}"),
        )
    })
}

/// The keyword options that change what a rollback decides.
pub struct PlanArgs<'a, 'py> {
    pub on_conflict: &'a str,
    pub key: Option<&'a Bound<'py, PyAny>>,
    pub restore_setid: bool,
    pub strict_root: bool,
}

impl PlanArgs<'_, '_> {
    /// The core's plan options.
    pub fn options(&self, py: Python<'_>) -> PyResult<PlanOptions> {
        Ok(PlanOptions::default()
            .with_on_conflict(on_conflict_arg(py, self.on_conflict)?)
            .with_key(key_arg(self.key)?)
            .with_restore_setid(self.restore_setid)
            .with_strict_root(self.strict_root))
    }

    /// The core's rollback options, with what only a rollback has.
    pub fn rollback_options(
        &self,
        py: Python<'_>,
        durable: bool,
        redo: bool,
        max_file_bytes: Option<u64>,
    ) -> PyResult<RollbackOptions> {
        let plan = self.options(py)?;
        let mut options = RollbackOptions::default()
            .with_durable(durable)
            .with_redo(redo)
            .with_on_conflict(plan.on_conflict)
            .with_key(plan.key)
            .with_restore_setid(plan.restore_setid)
            .with_strict_root(plan.strict_root);
        if let Some(max) = max_file_bytes {
            options = options.with_max_file_bytes(max);
        }
        Ok(options)
    }
}
