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

/// The error codes, as JavaScript sees them (`err.code`,
/// `RollbackReport.errorCode`): the core's `ErrorCode::as_str` names. This
/// enum exists to declare the TypeScript union; the codes themselves are
/// taken from the core by name, and a test checks that this list and
/// [`error_codes`] agree, so a new core code is one line here.
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
    /// A file sits where a directory was expected (a path below a regular file).
    NotADirectory,
    /// A snapshot is not the JSON document this package writes.
    MalformedSnapshot,
    /// A snapshot declares a version, or needs an extension, this package does not read.
    UnsupportedVersion,
    /// An input exceeds a configured or built-in size limit.
    TooLarge,
    /// An argument has the right type but an unusable value.
    InvalidArgument,
    /// A redaction rule is not a valid regular expression.
    InvalidPattern,
    /// A snapshot's MAC is missing or wrong for the given key, or the key is unusable.
    Unauthenticated,
    /// A snapshot taken under one root was to be rolled back under another (`strictRoot`).
    RootMismatch,
    /// A file, directory, checkpoint or ref the operation needs does not exist.
    NotFound,
    /// A checkpoint session has no transcript where one was asked for.
    NoTranscript,
    /// The path is not inside a git repository.
    NotARepository,
    /// A git object that exists cannot be read or does not have the expected shape.
    CorruptObject,
    /// A ref kept moving under concurrent writers: compare-and-swap gave up.
    RefBusy,
    /// The same session was written differently on two sides.
    Conflict,
    /// A git remote could not be reached.
    RemoteUnreachable,
    /// A git remote refused the credentials.
    AuthFailed,
    /// A git remote rejected a ref update (not a fast-forward, a hook).
    Rejected,
    /// The operating system refused access.
    PermissionDenied,
    /// Any other I/O failure.
    Io,
}

/// Every error code the core defines, in its order (the values `err.code`
/// can take).
#[napi]
pub fn error_codes() -> Vec<&'static str> {
    CoreCode::ALL.iter().map(|c| c.as_str()).collect()
}

/// The category of an error code (`invalid_input`, `not_found`,
/// `permission_denied`, `conflict`, `unauthenticated`, `io`); `null` for a
/// name that is not a code.
#[napi]
pub fn error_category(code: String) -> Option<&'static str> {
    CoreCode::from_name(&code).map(|c| c.category().as_str())
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
    object.set("code", error.code().as_str())?;
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

/// An argument of the wrong type, with a message that names it: a
/// `TypeError` with `code: 'InvalidArg'` (the code napi-rs gives its own
/// argument errors).
pub(crate) fn type_error(env: &Env, message: &str) -> napi::Error {
    let error = napi::JsTypeError::from(napi::Error::new(Status::InvalidArg, message.to_owned()));
    napi::Error::from(error.into_unknown(*env))
}

/// An argument JavaScript passed that has the right type but an unusable
/// value (an unknown `onConflict`, a negative size, an empty key): a
/// `RangeError` with `code: 'invalid_argument'`.
pub(crate) fn invalid_value(env: &Env, name: &str, reason: impl Into<String>) -> napi::Error {
    let message = format!("invalid {name}: {}", reason.into());
    let error = napi::JsRangeError::from(napi::Error::new(Status::InvalidArg, message.clone()));
    let value = error.into_unknown(*env);
    let with_code = value.coerce_to_object().and_then(|mut object| {
        object.set("code", CoreCode::InvalidArgument.as_str())?;
        Ok(object)
    });
    match with_code {
        Ok(object) => napi::Error::from(object.to_unknown()),
        Err(_) => napi::Error::new(Status::InvalidArg, message),
    }
}
