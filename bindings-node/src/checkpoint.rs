//! `createCheckpoint` / `rollback` on a real directory, on the JS thread or
//! off it (`*Async`, napi `AsyncTask` on the libuv pool).
//!
//! Each call opens the root the caller named (the one use of ambient
//! authority), converts the arguments and calls the core; the async variants
//! run exactly the same function in `compute`, so they return the same results.

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::CapRoot;
use napi::bindgen_prelude::{AsyncTask, Either};
use napi::{Env, Task};
use napi_derive::napi;

use crate::error::{invalid_arg, to_js, OrThrow};
use crate::snapshot::RollbackReport;

/// An operation of a batch: anything with a `file` property naming the path
/// it will touch (other properties are ignored).
#[napi(object)]
pub struct FileOperation {
    /// The path the operation touches, relative to the root or absolute inside it.
    pub file: String,
}

/// Options of `createCheckpoint`.
#[napi(object)]
#[derive(Default)]
pub struct CaptureOptions {
    /// Accept paths with a `.git` component (refused by default).
    pub allow_git_dir: Option<bool>,
    /// Refuse (`too_large`) any file larger than this many bytes.
    pub max_file_bytes: Option<f64>,
}

/// Options of `rollback`.
#[napi(object)]
#[derive(Default)]
pub struct RollbackOptions {
    /// fsync each restored file and each touched directory (default `true`).
    pub durable: Option<bool>,
    /// Accept snapshot keys with a `.git` component (refused by default).
    pub allow_git_dir: Option<bool>,
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

fn capture_options(
    options: Option<CaptureOptions>,
) -> napi::Result<agent_checkpoint::CaptureOptions> {
    let options = options.unwrap_or_default();
    let mut core = agent_checkpoint::CaptureOptions::default();
    core.allow_git_dir = options.allow_git_dir.unwrap_or(false);
    core.max_file_bytes = match options.max_file_bytes {
        None => None,
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 => Some(n as u64),
        Some(n) => {
            return Err(invalid_arg(format!(
                "maxFileBytes must be a non-negative integer, got {n}"
            )))
        }
    };
    Ok(core)
}

fn rollback_options(options: Option<RollbackOptions>) -> agent_checkpoint::RollbackOptions {
    let options = options.unwrap_or_default();
    let mut core = agent_checkpoint::RollbackOptions::default();
    core.durable = options.durable.unwrap_or(core.durable);
    core.allow_git_dir = options.allow_git_dir.unwrap_or(false);
    core
}

fn capture_at(
    root: &str,
    paths: &[String],
    options: &agent_checkpoint::CaptureOptions,
) -> agent_checkpoint::Result<String> {
    let root = CapRoot::open(root, ambient_authority())?;
    agent_checkpoint::capture(&root, paths, options)
}

fn rollback_at(
    root: &str,
    snapshot: &str,
    options: &agent_checkpoint::RollbackOptions,
) -> agent_checkpoint::Result<agent_checkpoint::RollbackReport> {
    let root = CapRoot::open(root, ambient_authority())?;
    Ok(agent_checkpoint::rollback(&root, snapshot, options))
}

/// Snapshots every path `operations` will touch under `root` (a directory)
/// and returns the snapshot's JSON text. Throws an `Error` with `code`
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
/// throws for a malformed snapshot (the report says `valid: false` with its
/// `errorCode`); throws only when `root` cannot be opened.
#[napi]
pub fn rollback(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<RollbackOptions>,
) -> napi::Result<RollbackReport> {
    rollback_at(&root, &checkpoint, &rollback_options(options))
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
/// when `root` cannot be opened.
#[napi]
pub fn rollback_async(
    root: String,
    checkpoint: String,
    options: Option<RollbackOptions>,
) -> AsyncTask<RollbackTask> {
    AsyncTask::new(RollbackTask {
        root,
        checkpoint,
        options: rollback_options(options),
    })
}
