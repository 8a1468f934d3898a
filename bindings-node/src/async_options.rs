//! The option objects of the `…Async` functions that take `onProgress`:
//! those of their synchronous twins ([`crate::options`]) plus the callback,
//! which only an `…Async` function can call (see [`crate::progress`]).

use agent_checkpoint::ParseOptions;
use napi::Env;
use napi_derive::napi;

use crate::options::{
    capture_options, plan_options, rollback_options, CaptureOptions, KeyArg, PlanOptions,
    RollbackOptions,
};
use crate::progress::{JsProgress, ProgressFn};

/// Options of `createCheckpointAsync`: those of `createCheckpoint`, plus
/// `onProgress`.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct CaptureAsyncOptions {
    /// As in `createCheckpoint`.
    pub allow_git_dir: Option<bool>,
    /// As in `createCheckpoint`.
    pub max_file_bytes: Option<f64>,
    /// As in `createCheckpoint`.
    #[napi(ts_type = "string | Uint8Array")]
    pub key: Option<KeyArg>,
    /// As in `createCheckpoint`.
    pub record_root: Option<bool>,
    /// Called with `('capture', done, total)` as files are read: the first
    /// and last report, at most one per 100 ms between. What it throws goes
    /// to `process.emitWarning`; the work goes on.
    #[napi(ts_type = "(stage: ProgressStage, done: number, total: number) => void")]
    pub on_progress: Option<ProgressFn>,
}

/// Options of `rollbackAsync`: those of `rollback`, plus `onProgress`.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct RollbackAsyncOptions {
    /// As in `rollback`.
    pub durable: Option<bool>,
    /// As in `rollback`.
    pub allow_git_dir: Option<bool>,
    /// As in `rollback`.
    #[napi(ts_type = "'overwrite' | 'skip'")]
    pub on_conflict: Option<String>,
    /// As in `rollback`.
    #[napi(ts_type = "string | Uint8Array")]
    pub key: Option<KeyArg>,
    /// As in `rollback`.
    pub redo: Option<bool>,
    /// As in `rollback`.
    pub restore_setid: Option<bool>,
    /// As in `rollback`.
    pub strict_root: Option<bool>,
    /// As in `rollback`.
    pub max_file_bytes: Option<f64>,
    /// Called with `('check', done, total)` as paths are checked, then
    /// `('restore', done, total)` as they are written or removed: the first
    /// and last report of each stage, at most one per 100 ms between. What
    /// it throws goes to `process.emitWarning`; the rollback goes on.
    #[napi(ts_type = "(stage: ProgressStage, done: number, total: number) => void")]
    pub on_progress: Option<ProgressFn>,
}

/// Options of `planRollbackAsync`: those of `planRollback`, plus
/// `onProgress`.
#[napi(object, object_to_js = false)]
#[derive(Default)]
pub struct PlanAsyncOptions {
    /// As in `planRollback`.
    pub allow_git_dir: Option<bool>,
    /// As in `planRollback`.
    #[napi(ts_type = "'overwrite' | 'skip'")]
    pub on_conflict: Option<String>,
    /// As in `planRollback`.
    #[napi(ts_type = "string | Uint8Array")]
    pub key: Option<KeyArg>,
    /// As in `planRollback`.
    pub restore_setid: Option<bool>,
    /// As in `planRollback`.
    pub strict_root: Option<bool>,
    /// As in `planRollback`.
    pub diff: Option<bool>,
    /// As in `planRollback`.
    pub diff_context: Option<f64>,
    /// As in `planRollback`.
    pub diff_max_bytes: Option<f64>,
    /// Called with `('check', done, total)` as paths are checked: the first
    /// and last report, at most one per 100 ms between. What it throws goes
    /// to `process.emitWarning`; the plan goes on.
    #[napi(ts_type = "(stage: ProgressStage, done: number, total: number) => void")]
    pub on_progress: Option<ProgressFn>,
}

/// The core's capture options, and the progress callback to wait for.
pub(crate) fn capture_async_options(
    env: &Env,
    options: Option<CaptureAsyncOptions>,
) -> napi::Result<(agent_checkpoint::CaptureOptions, Option<JsProgress>)> {
    let o = options.unwrap_or_default();
    let progress = o.on_progress.map(JsProgress::new);
    let core = capture_options(
        env,
        Some(CaptureOptions {
            allow_git_dir: o.allow_git_dir,
            max_file_bytes: o.max_file_bytes,
            key: o.key,
            record_root: o.record_root,
        }),
    )?
    .with_progress(progress.as_ref().map(JsProgress::callback));
    Ok((core, progress))
}

/// The core's parse and rollback options, and the progress callback.
pub(crate) fn rollback_async_options(
    env: &Env,
    options: Option<RollbackAsyncOptions>,
) -> napi::Result<(
    (ParseOptions, agent_checkpoint::RollbackOptions),
    Option<JsProgress>,
)> {
    let o = options.unwrap_or_default();
    let progress = o.on_progress.map(JsProgress::new);
    let (parse, core) = rollback_options(
        env,
        Some(RollbackOptions {
            durable: o.durable,
            allow_git_dir: o.allow_git_dir,
            on_conflict: o.on_conflict,
            key: o.key,
            redo: o.redo,
            restore_setid: o.restore_setid,
            strict_root: o.strict_root,
            max_file_bytes: o.max_file_bytes,
        }),
    )?;
    let core = core.with_progress(progress.as_ref().map(JsProgress::callback));
    Ok(((parse, core), progress))
}

/// The core's parse and plan options, and the progress callback.
pub(crate) fn plan_async_options(
    env: &Env,
    options: Option<PlanAsyncOptions>,
) -> napi::Result<(
    (ParseOptions, agent_checkpoint::PlanOptions),
    Option<JsProgress>,
)> {
    let o = options.unwrap_or_default();
    let progress = o.on_progress.map(JsProgress::new);
    let (parse, core) = plan_options(
        env,
        Some(PlanOptions {
            allow_git_dir: o.allow_git_dir,
            on_conflict: o.on_conflict,
            key: o.key,
            restore_setid: o.restore_setid,
            strict_root: o.strict_root,
            diff: o.diff,
            diff_context: o.diff_context,
            diff_max_bytes: o.diff_max_bytes,
        }),
    )?;
    let core = core.with_progress(progress.as_ref().map(JsProgress::callback));
    Ok(((parse, core), progress))
}
