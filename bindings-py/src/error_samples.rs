//! `_error_samples(code)`: one or more core errors of each code, each as the
//! exception the binding raises for it and the core's message, so the
//! tests can check every class against [`ErrorCode::ALL`] (that `str(e)`
//! is the message, whatever the built-in base makes of its args). Private:
//! for the test suite only.

use std::io;

use agent_checkpoint::{Error, ErrorCode};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn s(text: &str) -> String {
    text.to_owned()
}

/// Representative errors of `code`: with and without a path, with and
/// without an OS error number where the code has both forms.
fn samples(code: ErrorCode) -> Vec<Error> {
    let io_at = |path: Option<&str>, error: io::Error| Error::Io {
        path: path.map(str::to_owned),
        error,
    };
    match code {
        ErrorCode::InvalidCheckpointId => vec![Error::InvalidCheckpointId {
            id: s("nope"),
            reason: s("not a ULID"),
        }],
        ErrorCode::InvalidRefName => vec![Error::InvalidRefName {
            name: s("a b"),
            reason: s("has a space"),
        }],
        ErrorCode::InvalidPath => vec![Error::invalid_path("a\0b", "a NUL")],
        ErrorCode::PathEscapesRoot => vec![Error::escapes("../x", "leaves the root")],
        ErrorCode::NotAFile => vec![Error::NotAFile {
            path: s("d"),
            kind: s("directory"),
        }],
        ErrorCode::NotADirectory => vec![Error::NotADirectory {
            path: s("f/x"),
            parent: s("f"),
            kind: s("file"),
        }],
        ErrorCode::MalformedSnapshot => vec![Error::malformed("not JSON")],
        ErrorCode::UnsupportedVersion => vec![Error::UnsupportedVersion { version: s("2") }],
        ErrorCode::TooLarge => vec![Error::TooLarge {
            what: s("file big"),
            path: Some(s("big")),
            size: 10,
            limit: 9,
        }],
        ErrorCode::InvalidArgument => vec![Error::invalid_argument("remote", "is empty")],
        ErrorCode::InvalidPattern => vec![Error::InvalidPattern {
            pattern: s("("),
            reason: s("unclosed group"),
        }],
        ErrorCode::Unauthenticated => vec![Error::Unauthenticated {
            reason: s("wrong key"),
        }],
        ErrorCode::RootMismatch => vec![Error::RootMismatch {
            captured: s("/a"),
            given: s("/b"),
        }],
        ErrorCode::NotFound => vec![
            Error::NotFound {
                what: s("checkpoint 01KVBJCWYA4YW6J5M9GP655HZN"),
            },
            io_at(Some("missing"), io::Error::from_raw_os_error(ENOENT)),
            io_at(None, io::Error::new(io::ErrorKind::NotFound, "gone")),
        ],
        ErrorCode::NoTranscript => vec![Error::NoTranscript {
            what: s("step abc1234"),
        }],
        ErrorCode::NotARepository => vec![Error::NotARepository {
            path: s("/tmp/x"),
            reason: s("no .git"),
        }],
        ErrorCode::CorruptObject => vec![Error::CorruptObject {
            what: s("tree 1234"),
            reason: s("truncated"),
        }],
        ErrorCode::RefBusy => vec![Error::RefBusy {
            name: s("refs/x"),
            attempts: 3,
        }],
        ErrorCode::Conflict => vec![Error::Conflict {
            what: s("refs/x"),
            reason: s("written on both sides"),
        }],
        ErrorCode::RemoteUnreachable => vec![Error::RemoteUnreachable {
            remote: s("nosuch"),
            reason: s("no such remote"),
        }],
        ErrorCode::AuthFailed => vec![Error::AuthFailed {
            remote: s("origin"),
            reason: s("denied"),
        }],
        ErrorCode::Rejected => vec![Error::Rejected {
            remote: s("origin"),
            reason: s("hook said no"),
        }],
        ErrorCode::PermissionDenied => vec![
            io_at(Some("locked"), io::Error::from_raw_os_error(EACCES)),
            io_at(None, io::Error::new(io::ErrorKind::PermissionDenied, "no")),
        ],
        ErrorCode::Io => vec![
            io_at(Some("f"), io::Error::from_raw_os_error(EIO)),
            io_at(None, io::Error::other("disk on fire")),
        ],
        // A code a newer core adds: the test then fails on an empty list.
        _ => Vec::new(),
    }
}

// errno values, the same on Linux and macOS.
const ENOENT: i32 = 2;
const EIO: i32 = 5;
const EACCES: i32 = 13;

/// `[(exception, message), ...]` for error code `code` (see the module docs).
#[pyfunction(name = "_error_samples")]
pub fn error_samples(py: Python<'_>, code: &str) -> PyResult<Vec<(Py<PyAny>, String)>> {
    let code = ErrorCode::from_name(code)
        .ok_or_else(|| PyValueError::new_err(format!("unknown error code {code:?}")))?;
    samples(code)
        .iter()
        .map(|e| {
            let exception = crate::errors::to_py(py, e).into_value(py).into_any();
            Ok((exception, e.to_string()))
        })
        .collect()
}
