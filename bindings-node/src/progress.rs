//! `onProgress`: a JavaScript function `(stage, done, total) => void` given
//! to an `…Async` function, called from the thread pool through a napi
//! threadsafe function.
//!
//! Reports are throttled (the first and the last of each stage, at most one
//! per 100 ms in between) and queued without waiting for JavaScript
//! (non-blocking calls): the work never waits for the callback. The promise
//! settles only once every queued report was delivered, so the last report
//! comes before the result. A callback that throws does not stop the work:
//! what it threw goes to `process.emitWarning` (a `'warning'` event).
//!
//! The synchronous functions take no callback: the JavaScript thread is
//! blocked while they run, so it could not be called.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use agent_checkpoint::{OnProgress, Progress};
use napi::bindgen_prelude::{FnArgs, Function, JsObjectValue, Object, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;

/// The least time between two reports that are not the first or the last
/// of their stage.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// The part of an operation a progress report counts.
#[napi(string_enum = "lowercase")]
pub enum ProgressStage {
    /// Reading the captured files (capture).
    Capture,
    /// Looking at each path to decide what to do (plan, rollback).
    Check,
    /// Writing and removing (rollback).
    Restore,
}

/// The arguments of a call: stage, done, total.
type ProgressArgs = FnArgs<(String, f64, f64)>;

/// `onProgress` as napi takes it: called with `(stage, done, total)`, its
/// return value ignored, no error-first argument.
pub type ProgressFn =
    ThreadsafeFunction<ProgressArgs, Unknown<'static>, ProgressArgs, Status, false>;

/// How many reports are queued and not yet delivered.
#[derive(Default)]
struct Queued {
    count: Mutex<usize>,
    delivered: Condvar,
}

impl Queued {
    fn add(&self, n: isize) {
        let mut count = self.count.lock().unwrap_or_else(PoisonError::into_inner);
        *count = count.saturating_add_signed(n);
        if *count == 0 {
            self.delivered.notify_all();
        }
    }
}

/// A JavaScript progress callback for one call of an `…Async` function.
pub struct JsProgress {
    function: Arc<ProgressFn>,
    queued: Arc<Queued>,
}

impl JsProgress {
    /// Wraps the threadsafe function made from `onProgress`.
    pub fn new(function: ProgressFn) -> JsProgress {
        JsProgress {
            function: Arc::new(function),
            queued: Arc::default(),
        }
    }

    /// The core's callback: throttled, each report queued for the
    /// JavaScript thread without waiting for it.
    pub fn callback(&self) -> OnProgress {
        let function = Arc::clone(&self.function);
        let queued = Arc::clone(&self.queued);
        OnProgress::throttled(PROGRESS_INTERVAL, move |p: Progress| {
            let args = FnArgs::from((p.stage.as_str().to_owned(), p.done as f64, p.total as f64));
            queued.add(1);
            let on_delivery = Arc::clone(&queued);
            let status = function.call_with_return_value(
                args,
                ThreadsafeFunctionCallMode::NonBlocking,
                move |returned, env| {
                    if let Err(thrown) = returned {
                        warn(&env, thrown);
                    }
                    on_delivery.add(-1);
                    Ok(())
                },
            );
            if status != Status::Ok {
                // Not queued (the environment is closing): nothing to wait for.
                queued.add(-1);
            }
        })
    }

    /// Waits (on the thread pool) until every queued report was delivered,
    /// or the JavaScript environment went away.
    pub fn wait_delivered(&self) {
        let mut count = self
            .queued
            .count
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while *count > 0 && !self.function.handle.with_read_aborted(|aborted| aborted) {
            count = self
                .queued
                .delivered
                .wait_timeout(count, Duration::from_millis(50))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// Hands what the callback threw to `process.emitWarning`. Best effort: a
/// failure to warn is not a failure of the work.
fn warn(env: &Env, thrown: napi::Error) {
    let emit = || -> napi::Result<()> {
        let process: Object = env.get_global()?.get_named_property("process")?;
        let emit_warning: Function<napi::Error, Unknown> =
            process.get_named_property("emitWarning")?;
        emit_warning.apply(process, thrown)?;
        Ok(())
    };
    let _ = emit();
}

/// Runs `job` and waits for its progress reports to be delivered (the
/// body of every `…Async` function that takes `onProgress`).
pub fn reporting<T>(progress: Option<JsProgress>, job: impl FnOnce() -> T) -> T {
    let out = job();
    if let Some(progress) = progress {
        progress.wait_delivered();
    }
    out
}
