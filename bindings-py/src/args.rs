//! Argument conversion shared by the functions that take paths.
//!
//! A path argument is a `str`, an `os.PathLike`, or (for operations) an
//! object whose `file` attribute is one of those, like the seed's operation
//! models. Names that are not valid UTF-8 are refused with `InvalidPathError`
//! rather than converted lossily.

use agent_checkpoint::Error;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::to_py;

/// The text of a `str` or `os.PathLike` argument, or `None` if `value` is neither.
fn text_of_path(value: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    let fspath = if value.is_instance_of::<PyString>() {
        value.clone()
    } else if value.hasattr("__fspath__")? {
        value.call_method0("__fspath__")?
    } else {
        return Ok(None);
    };
    let py = value.py();
    if let Ok(text) = fspath.cast::<PyString>() {
        return match text.to_cow() {
            Ok(s) => Ok(Some(s.into_owned())),
            // A lone surrogate (os.fsdecode of a non-UTF-8 name).
            Err(_) => Err(not_utf8(py, &text.to_string_lossy())),
        };
    }
    if let Ok(bytes) = fspath.cast::<PyBytes>() {
        return match std::str::from_utf8(bytes.as_bytes()) {
            Ok(s) => Ok(Some(s.to_owned())),
            Err(_) => Err(not_utf8(py, &String::from_utf8_lossy(bytes.as_bytes()))),
        };
    }
    Err(PyTypeError::new_err(format!(
        "__fspath__ returned {}, expected str or bytes",
        fspath.get_type().name()?
    )))
}

fn not_utf8(py: Python<'_>, shown: &str) -> PyErr {
    to_py(
        py,
        &Error::invalid_path(shown, "the name is not valid UTF-8"),
    )
}

/// One operation's target: a path, or an object with a `file` attribute.
pub fn operation_path(item: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Some(text) = text_of_path(item)? {
        return Ok(text);
    }
    if item.hasattr("file")? {
        if let Some(text) = text_of_path(&item.getattr("file")?)? {
            return Ok(text);
        }
    }
    Err(PyTypeError::new_err(format!(
        "an operation must be a str, an os.PathLike or an object with a `file` attribute \
         holding one, not {}",
        item.get_type().name()?
    )))
}

/// A `str` or `os.PathLike` argument as text (a `TypeError` for anything else).
pub fn path_text(value: &Bound<'_, PyAny>, name: &str) -> PyResult<String> {
    match text_of_path(value)? {
        Some(text) => Ok(text),
        None => Err(PyTypeError::new_err(format!(
            "{name} must be a str or an os.PathLike, not {}",
            value.get_type().name()?
        ))),
    }
}

/// Every target of an iterable of operations, in order.
pub fn operation_paths(operations: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if text_of_path(operations)?.is_some() {
        return Err(PyTypeError::new_err(
            "operations must be an iterable of paths or operations, not a single path",
        ));
    }
    let mut paths = Vec::new();
    for item in operations.try_iter()? {
        paths.push(operation_path(&item?)?);
    }
    Ok(paths)
}

/// Every item of an iterable of `str` (refs, prompts).
pub fn strings(items: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if items.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "expected an iterable of str, not a single str",
        ));
    }
    let mut out = Vec::new();
    for item in items.try_iter()? {
        out.push(item?.extract::<String>()?);
    }
    Ok(out)
}
