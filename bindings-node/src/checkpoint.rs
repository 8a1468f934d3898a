//! `createCheckpoint` / `rollback` on a real directory, on the JS thread or
//! off it (`*Async`, napi `AsyncTask` on the libuv pool).
//!
//! Each call opens the root the caller named (the one use of ambient
//! authority), converts the arguments ([`crate::options`]) and calls the core; the async variants
//! run exactly the same function in `compute`, so they return the same results.

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::CapRoot;
use napi::bindgen_prelude::{AsyncTask, Either};
use napi::{Env, Task};
use napi_derive::napi;

use crate::error::{to_js, OrThrow};
use crate::options::{capture_options, rollback_options, CaptureOptions, RollbackOptions};
use crate::snapshot::RollbackReport;

/// An operation of a batch: anything with a `file` property naming the path
/// it will touch (other properties are ignored).
#[napi(object)]
pub struct FileOperation {
    /// The path the operation touches, relative to the root or absolute inside it.
    pub file: String,
}

fn operation_paths(operations: Vec<Either<String, FileOperation>>) -> Vec<String> {
    operations
        .into_iter()
        .map(|op| match op {
            Either::A(path) => path,
            Either::B(op) => op.file,
        })
        .collect()
}

/// Opens the directory the caller named: the one use of ambient authority.
pub(crate) fn open_root(root: &str) -> agent_checkpoint::Result<CapRoot> {
    CapRoot::open(root, ambient_authority())
}

fn capture_at(
    root: &str,
    paths: &[String],
    options: &agent_checkpoint::CaptureOptions,
) -> agent_checkpoint::Result<String> {
    agent_checkpoint::capture(&open_root(root)?, paths, options)
}

fn rollback_at(
    root: &str,
    snapshot: &str,
    options: &agent_checkpoint::RollbackOptions,
) -> agent_checkpoint::Result<agent_checkpoint::RollbackReport> {
    Ok(agent_checkpoint::rollback(
        &open_root(root)?,
        snapshot,
        options,
    ))
}

/// Snapshots every path `operations` will touch under `root` (a directory)
/// and returns the snapshot's JSON text (sealed when `options.key` is
/// given). Throws an `Error` with `code`
/// (`path_escapes_root`, `not_a_file`, `invalid_path`, `too_large`,
/// `not_found` for a missing root, ...) and nothing is written.
#[napi]
pub fn create_checkpoint(
    env: &Env,
    root: String,
    operations: Vec<Either<String, FileOperation>>,
    options: Option<CaptureOptions>,
) -> napi::Result<String> {
    let options = capture_options(options)?;
    capture_at(&root, &operation_paths(operations), &options).or_throw(env)
}

/// Restores exactly the paths `checkpoint` captured under `root`. Never
/// throws for a malformed snapshot, nor (with `key`) an unauthenticated one:
/// the report says `valid: false` with its `errorCode`. Throws only when
/// `root` cannot be opened, or for a bad option (`code: 'InvalidArg'`).
#[napi]
pub fn rollback(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<RollbackOptions>,
) -> napi::Result<RollbackReport> {
    rollback_at(&root, &checkpoint, &rollback_options(options)?)
        .map(RollbackReport::from)
        .or_throw(env)
}

/// The work of `createCheckpointAsync`, run on the libuv thread pool.
pub struct CaptureTask {
    root: String,
    paths: Vec<String>,
    options: agent_checkpoint::CaptureOptions,
}

#[napi]
impl Task for CaptureTask {
    type Output = agent_checkpoint::Result<String>;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(capture_at(&self.root, &self.paths, &self.options))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<String> {
        output.map_err(|e| to_js(&env, &e))
    }
}

/// `createCheckpoint` off the JS thread: resolves to the same snapshot text,
/// rejects with the same `Error` (argument errors still throw at once).
#[napi]
pub fn create_checkpoint_async(
    root: String,
    operations: Vec<Either<String, FileOperation>>,
    options: Option<CaptureOptions>,
) -> napi::Result<AsyncTask<CaptureTask>> {
    Ok(AsyncTask::new(CaptureTask {
        root,
        paths: operation_paths(operations),
        options: capture_options(options)?,
    }))
}

/// The work of `rollbackAsync`, run on the libuv thread pool.
pub struct RollbackTask {
    root: String,
    checkpoint: String,
    options: agent_checkpoint::RollbackOptions,
}

#[napi]
impl Task for RollbackTask {
    type Output = agent_checkpoint::Result<agent_checkpoint::RollbackReport>;
    type JsValue = RollbackReport;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(rollback_at(&self.root, &self.checkpoint, &self.options))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<RollbackReport> {
        output
            .map(RollbackReport::from)
            .map_err(|e| to_js(&env, &e))
    }
}

/// `rollback` off the JS thread: resolves to the same report; rejects only
/// when `root` cannot be opened (a bad option still throws at once).
#[napi]
pub fn rollback_async(
    root: String,
    checkpoint: String,
    options: Option<RollbackOptions>,
) -> napi::Result<AsyncTask<RollbackTask>> {
    Ok(AsyncTask::new(RollbackTask {
        root,
        checkpoint,
        options: rollback_options(options)?,
    }))
}
