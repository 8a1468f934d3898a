//! `createCheckpoint` / `rollback` on a real directory, on the JS thread or
//! off it (`*Async`, napi `AsyncTask` on the libuv pool).
//!
//! Each call opens the root the caller named (the one use of ambient
//! authority), converts the arguments ([`crate::options`]) and calls the core; the async variants
//! run exactly the same function in `compute`, so they return the same results.

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, ParseOptions};
use napi::bindgen_prelude::{AsyncTask, Either, FromNapiValue, JsValue as _, Unknown};
use napi::Env;
use napi::ValueType;
use napi_derive::napi;

use crate::async_options::{
    capture_async_options, rollback_async_options, CaptureAsyncOptions, RollbackAsyncOptions,
};
use crate::error::OrThrow;
use crate::options::{capture_options, rollback_options, CaptureOptions, RollbackOptions};
use crate::progress::reporting;
use crate::snapshot::RollbackReport;
use crate::task::{spawn, Work};

/// An operation of a batch: anything with a `file` property naming the path
/// it will touch (other properties are ignored).
#[napi(object)]
pub struct FileOperation {
    /// The path the operation touches, relative to the root or absolute inside it.
    pub file: String,
}

/// The paths of the `operations` argument: an array of strings and
/// `{ file }` objects. A single string (or anything but an object) is a
/// `TypeError` that names the argument, as Python's `TypeError` does.
fn operation_paths(env: &Env, operations: Unknown<'_>) -> napi::Result<Vec<String>> {
    let kind = operations.get_type()?;
    if kind != ValueType::Object || !operations.is_array()? {
        let what = match kind {
            ValueType::String => "a single path".to_owned(),
            ValueType::Object => "an object that is not an array".to_owned(),
            other => other.to_string().to_lowercase(),
        };
        return Err(crate::error::type_error(
            env,
            &format!("operations must be an array of paths or operations, not {what}"),
        ));
    }
    let list = Vec::<Either<String, FileOperation>>::from_unknown(operations)?;
    Ok(list
        .into_iter()
        .map(|op| match op {
            Either::A(path) => path,
            Either::B(op) => op.file,
        })
        .collect())
}

/// Opens the directory the caller named: the one use of ambient authority.
pub(crate) fn open_root(root: impl AsRef<std::path::Path>) -> agent_checkpoint::Result<CapRoot> {
    CapRoot::open(root, ambient_authority())
}

fn capture_at(
    root: &str,
    paths: &[String],
    options: &agent_checkpoint::CaptureOptions,
) -> agent_checkpoint::Result<String> {
    agent_checkpoint::capture(&open_root(root)?, paths, options).map(String::from)
}

/// Rolls `snapshot` back under `root`: an `Err` only when the root cannot
/// be opened; a refused snapshot is a report with `valid: false`.
pub(crate) fn rollback_at(
    root: impl AsRef<std::path::Path>,
    snapshot: &str,
    (parse, options): &(ParseOptions, agent_checkpoint::RollbackOptions),
) -> agent_checkpoint::Result<RollbackReport> {
    let root = open_root(root)?;
    Ok(agent_checkpoint::rollback_text(&root, snapshot, parse, options).into())
}

/// Snapshots every path `operations` will touch under `root` (a directory)
/// and returns the snapshot's JSON text (sealed when `options.key` is
/// given; a file over `maxFileBytes` is listed under `skipped`, unread).
/// Throws an `Error` with `code` (`path_escapes_root`, `not_a_file`,
/// `invalid_path`, `not_found` for a missing root, ...) and nothing is
/// written.
#[napi(
    ts_args_type = "root: string, operations: Array<string | FileOperation>, options?: CaptureOptions | undefined | null"
)]
pub fn create_checkpoint(
    env: &Env,
    root: String,
    operations: Unknown<'_>,
    options: Option<CaptureOptions>,
) -> napi::Result<String> {
    let paths = operation_paths(env, operations)?;
    let options = capture_options(env, options)?;
    capture_at(&root, &paths, &options).or_throw(env)
}

/// Restores exactly the paths `checkpoint` captured under `root`. Never
/// throws for a snapshot it refuses (malformed; with `key`,
/// unauthenticated; bytes that contradict their digests; a link that would
/// leave the root; another root with `strictRoot`): the report says
/// `valid: false` with its `errorCode`. Throws only when `root` cannot be
/// opened, or for a bad option (a `RangeError` with `code: 'invalid_argument'`).
#[napi]
pub fn rollback(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<RollbackOptions>,
) -> napi::Result<RollbackReport> {
    rollback_at(&root, &checkpoint, &rollback_options(env, options)?).or_throw(env)
}

/// `createCheckpoint` off the JS thread: resolves to the same snapshot text,
/// rejects with the same `Error` (argument errors still throw at once).
/// `onProgress` is called as files are read; the promise settles after its
/// last call.
#[napi(
    ts_args_type = "root: string, operations: Array<string | FileOperation>, options?: CaptureAsyncOptions | undefined | null",
    ts_return_type = "Promise<string>"
)]
pub fn create_checkpoint_async(
    env: &Env,
    root: String,
    operations: Unknown<'_>,
    options: Option<CaptureAsyncOptions>,
) -> napi::Result<AsyncTask<Work<String, String>>> {
    let paths = operation_paths(env, operations)?;
    let (options, progress) = capture_async_options(env, options)?;
    Ok(spawn(move || {
        reporting(progress, || capture_at(&root, &paths, &options))
    }))
}

/// `rollback` off the JS thread: resolves to the same report; rejects only
/// when `root` cannot be opened (a bad option still throws at once).
/// `onProgress` is called as paths are checked, then restored; the promise
/// settles after its last call.
#[napi(ts_return_type = "Promise<RollbackReport>")]
pub fn rollback_async(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<RollbackAsyncOptions>,
) -> napi::Result<AsyncTask<Work<RollbackReport, RollbackReport>>> {
    let (options, progress) = rollback_async_options(env, options)?;
    Ok(spawn(move || {
        reporting(progress, || rollback_at(&root, &checkpoint, &options))
    }))
}
