//! The Python exception hierarchy and the one mapping from core errors to it.
//!
//! Every [`ErrorCode`] has its own class, named after the code
//! (`path_escapes_root` -> `PathEscapesRootError`; `CheckpointNotADirectoryError`
//! for `not_a_directory`, which must not shadow the built-in), a subclass of
//! `CheckpointError` carrying the code as `.code`. The code's
//! [`ErrorCategory`] picks the built-in base beside it: invalid input
//! subclasses `ValueError`; `not_found`, `permission_denied` and I/O errors
//! subclass `FileNotFoundError`, `PermissionError` and `OSError`, and are
//! raised with `errno`, `strerror` and `filename` set when the OS gave them,
//! so `except OSError` code keeps working; conflicts and authentication
//! failures are `CheckpointError` only. The classes are built once per
//! interpreter with `type(...)` because a class with two exception bases
//! cannot be declared with `create_exception!`.

use agent_checkpoint::{Error, ErrorCategory, ErrorCode};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyPermissionError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// The module the classes claim to live in (the public facade).
const PUBLIC_MODULE: &str = "agent_checkpoint";

/// The built-in exception a code's class inherits from, next to `CheckpointError`.
#[derive(Clone, Copy)]
enum Builtin {
    /// A bad argument or document.
    Value,
    /// `FileNotFoundError`.
    FileNotFound,
    /// `PermissionError`.
    Permission,
    /// `OSError`.
    Os,
    /// Nothing but `CheckpointError`.
    None,
}

/// Python built-in exception names a derived class name must not shadow.
const BUILTIN_NAMES: [&str; 4] = [
    "NotADirectoryError",
    "FileNotFoundError",
    "PermissionError",
    "ConnectionError",
];

/// The Python class name of a code (`PathEscapesRootError`); one whose name
/// would shadow a built-in exception gets the `Checkpoint` prefix
/// (`not_a_directory` -> `CheckpointNotADirectoryError`).
fn class_name(code: ErrorCode) -> String {
    let name = format!("{}Error", code.as_pascal());
    if BUILTIN_NAMES.contains(&name.as_str()) {
        format!("Checkpoint{name}")
    } else {
        name
    }
}

/// The built-in base of a code's class, from its category.
fn builtin(code: ErrorCode) -> Builtin {
    match code.category() {
        ErrorCategory::InvalidInput => Builtin::Value,
        ErrorCategory::NotFound => Builtin::FileNotFound,
        ErrorCategory::PermissionDenied => Builtin::Permission,
        ErrorCategory::Io => Builtin::Os,
        // Conflicts, authentication failures, and any category a newer core
        // adds: `CheckpointError` alone.
        _ => Builtin::None,
    }
}

/// `CheckpointError` and one subclass per code, in [`ErrorCode::ALL`] order.
struct Classes {
    base: Py<PyType>,
    by_code: Vec<(ErrorCode, Py<PyType>)>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || build_classes(py))
}

fn new_class<'py>(
    py: Python<'py>,
    name: &str,
    bases: Vec<Bound<'py, PyAny>>,
    code: &str,
    doc: &str,
) -> PyResult<Bound<'py, PyType>> {
    let namespace = PyDict::new(py);
    namespace.set_item("__module__", PUBLIC_MODULE)?;
    namespace.set_item("__doc__", doc)?;
    namespace.set_item("code", code)?;
    let bases = PyTuple::new(py, bases)?;
    let class = py.get_type::<PyType>().call1((name, bases, namespace))?;
    Ok(class.cast_into::<PyType>()?)
}

/// The base class, written in Python for its `__str__`: the error's message
/// (kept in `_message`) for every class. `OSError.__str__` alone would
/// print `[Errno None] None: None` once `filename` is set, even to `None`.
const BASE_SOURCE: &std::ffi::CStr = c"class CheckpointError(Exception):
    def __str__(self):
        message = self.__dict__.get('_message')
        return message if isinstance(message, str) else super().__str__()
";

fn build_classes(py: Python<'_>) -> PyResult<Classes> {
    let module = PyModule::from_code(
        py,
        BASE_SOURCE,
        c"agent_checkpoint/_errors.py",
        c"agent_checkpoint._errors",
    )?;
    let base = module.getattr("CheckpointError")?.cast_into::<PyType>()?;
    base.setattr("__module__", PUBLIC_MODULE)?;
    base.setattr(
        "__doc__",
        "Base class of every error agent_checkpoint raises; `.code` is the stable \
         snake_case error code (empty on this base class, which is never raised itself); \
         `str(error)` is its message.",
    )?;
    base.setattr("code", "")?;
    let mut by_code = Vec::with_capacity(ErrorCode::ALL.len());
    for &code in ErrorCode::ALL {
        let mut bases = vec![base.clone().into_any()];
        match builtin(code) {
            Builtin::Value => bases.push(py.get_type::<PyValueError>().into_any()),
            Builtin::FileNotFound => bases.push(py.get_type::<PyFileNotFoundError>().into_any()),
            Builtin::Permission => bases.push(py.get_type::<PyPermissionError>().into_any()),
            Builtin::Os => bases.push(py.get_type::<PyOSError>().into_any()),
            Builtin::None => {}
        }
        let doc = format!("Raised with code `{}`.", code.as_str());
        let class = new_class(py, &class_name(code), bases, code.as_str(), &doc)?;
        by_code.push((code, class.unbind()));
    }
    Ok(Classes {
        base: base.unbind(),
        by_code,
    })
}

/// Adds `CheckpointError` and every per-code class to `module`.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let classes = classes(py)?;
    module.add("CheckpointError", classes.base.bind(py))?;
    for (code, class) in &classes.by_code {
        module.add(class_name(*code), class.bind(py))?;
    }
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    module.add("ERROR_CODES", PyTuple::new(py, codes)?)?;
    Ok(())
}

/// The class raised for `code`.
fn class_for(py: Python<'_>, code: ErrorCode) -> PyResult<Bound<'_, PyType>> {
    let classes = classes(py)?;
    classes
        .by_code
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, class)| class.bind(py).clone())
        .ok_or_else(|| PyValueError::new_err(format!("no class for code {code}")))
}

/// The exception class raised for an error code given by name
/// (`error_class("not_found") is NotFoundError`).
#[pyfunction]
pub fn error_class(py: Python<'_>, code: &str) -> PyResult<Py<PyType>> {
    let code = ErrorCode::from_name(code)
        .ok_or_else(|| PyValueError::new_err(format!("unknown error code {code:?}")))?;
    Ok(class_for(py, code)?.unbind())
}

/// Converts a core error into the matching Python exception.
pub fn to_py(py: Python<'_>, error: &Error) -> PyErr {
    match build_exception(py, error) {
        Ok(exception) => exception,
        Err(failed) => failed,
    }
}

fn build_exception(py: Python<'_>, error: &Error) -> PyResult<PyErr> {
    let code = error.code();
    let class = class_for(py, code)?;
    let message = error.to_string();
    let instance = match builtin(code) {
        Builtin::FileNotFound | Builtin::Permission | Builtin::Os => {
            let strerror = match error {
                Error::Io { error, .. } => error.to_string(),
                _ => message.clone(),
            };
            match (error.raw_os_error(), error.path()) {
                // OSError(errno, strerror, filename) fills .errno, .strerror, .filename.
                (Some(errno), Some(path)) => class.call1((errno, strerror, path))?,
                (Some(errno), None) => class.call1((errno, strerror))?,
                (None, path) => {
                    let instance = class.call1((message.clone(),))?;
                    instance.setattr("filename", path)?;
                    instance
                }
            }
        }
        Builtin::Value | Builtin::None => class.call1((message.clone(),))?,
    };
    // Every error says which path it is about (None when it is about none),
    // as `.path` on a Node error.
    instance.setattr("path", error.path())?;
    // What `str(error)` prints, whatever `OSError` would make of its args.
    instance.setattr("_message", message)?;
    Ok(PyErr::from_value(instance))
}

/// Extension trait: `core_result.into_py_result(py)?`.
pub trait IntoPyResult<T> {
    /// Maps the core error, if any, to its Python exception.
    fn into_py_result(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, Error> {
    fn into_py_result(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, &e))
    }
}
