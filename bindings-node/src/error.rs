//! Core errors as JavaScript `Error` objects with a stable `code`.
//!
//! Every error thrown (or rejected) by this package is a plain `Error` whose
//! `code` is one of [`ErrorCode`]'s snake_case strings; errors about a path
//! also carry `path`, and operating-system failures carry `errno` (the OS
//! error number, positive, as in `os.constants.errno`).

use agent_checkpoint::ErrorCode as CoreCode;
use napi::bindgen_prelude::{JsValue, Object};
use napi::{Env, Status};
use napi_derive::napi;

/// The closed set of error codes, as JavaScript sees them (`err.code`,
/// `RollbackReport.errorCode`).
#[napi(string_enum = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// A checkpoint ID is neither a legacy 12-hex ID nor a canonical ULID.
    InvalidCheckpointId,
    /// A git ref name is not one this package builds or accepts.
    InvalidRefName,
    /// A path is malformed (empty, non-canonical, a refused `.git` component, a link loop).
    InvalidPath,
    /// A path leaves the root (`..`, an absolute path elsewhere, a symlink pointing out).
    PathEscapesRoot,
    /// A directory, FIFO, socket or device sits where a file was expected.
    NotAFile,
    /// A snapshot is not the JSON document this package writes.
    MalformedSnapshot,
    /// A snapshot declares a version this package does not read.
    UnsupportedVersion,
    /// An input exceeds a configured or built-in size limit.
    TooLarge,
    /// A snapshot's MAC is missing or wrong for the given key.
    Unauthenticated,
    /// A file or directory the operation needs does not exist.
    NotFound,
    /// The operating system refused access.
    PermissionDenied,
    /// Any other I/O failure.
    Io,
}

impl From<CoreCode> for ErrorCode {
    // Exhaustive on purpose: a new core code must be given a JS spelling here.
    fn from(code: CoreCode) -> ErrorCode {
        match code {
            CoreCode::InvalidCheckpointId => ErrorCode::InvalidCheckpointId,
            CoreCode::InvalidRefName => ErrorCode::InvalidRefName,
            CoreCode::InvalidPath => ErrorCode::InvalidPath,
            CoreCode::PathEscapesRoot => ErrorCode::PathEscapesRoot,
            CoreCode::NotAFile => ErrorCode::NotAFile,
            CoreCode::MalformedSnapshot => ErrorCode::MalformedSnapshot,
            CoreCode::UnsupportedVersion => ErrorCode::UnsupportedVersion,
            CoreCode::TooLarge => ErrorCode::TooLarge,
            CoreCode::Unauthenticated => ErrorCode::Unauthenticated,
            CoreCode::NotFound => ErrorCode::NotFound,
            CoreCode::PermissionDenied => ErrorCode::PermissionDenied,
            CoreCode::Io => ErrorCode::Io,
        }
    }
}

/// Builds the JavaScript `Error` for a core error: message, `code`, and
/// `path` / `errno` when the core knows them.
pub(crate) fn to_js(env: &Env, error: &agent_checkpoint::Error) -> napi::Error {
    match build(env, error) {
        Ok(object) => napi::Error::from(object.to_unknown()),
        // Only when the environment cannot allocate: the message survives.
        Err(e) => napi::Error::new(e.status, error.to_string()),
    }
}

fn build<'env>(env: &'env Env, error: &agent_checkpoint::Error) -> napi::Result<Object<'env>> {
    let mut object =
        env.create_error(napi::Error::new(Status::GenericFailure, error.to_string()))?;
    object.set("code", ErrorCode::from(error.code()))?;
    if let Some(path) = error.path() {
        object.set("path", path)?;
    }
    if let Some(errno) = error.raw_os_error() {
        object.set("errno", errno)?;
    }
    Ok(object)
}

/// A core `Result` turned into a napi one, the error built in `env`.
pub(crate) trait OrThrow<T> {
    /// `Ok` unchanged; `Err` as the JavaScript error of [`to_js`].
    fn or_throw(self, env: &Env) -> napi::Result<T>;
}

impl<T> OrThrow<T> for agent_checkpoint::Result<T> {
    fn or_throw(self, env: &Env) -> napi::Result<T> {
        self.map_err(|e| to_js(env, &e))
    }
}

/// An argument JavaScript passed that has the right type but an unusable
/// value (a negative size, say); napi's own argument errors use the same status.
pub(crate) fn invalid_arg(message: impl Into<String>) -> napi::Error {
    napi::Error::new(Status::InvalidArg, message.into())
}
