//! Progress of long operations: an optional callback in the options of
//! capture, plan and rollback, called once per path with how far the work
//! is. It is called on the thread doing the work, never while a lock is
//! held; a caller that shows it to people throttles it (the core has no
//! clock on every target).
//!
//! A callback that panics while a rollback changes the tree is not called
//! again; the rollback makes every remaining change and then the panic
//! goes on to its caller (a panic while reading, in capture, plan or the
//! rollback's check, unwinds at once: nothing was changed yet).

use std::any::Any;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// The part of an operation a [`Progress`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProgressStage {
    /// Reading the captured files (capture).
    Capture,
    /// Looking at each path to decide what to do (plan, rollback).
    Check,
    /// Writing and removing (rollback).
    Restore,
}

impl ProgressStage {
    /// `capture`, `check` or `restore`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProgressStage::Capture => "capture",
            ProgressStage::Check => "check",
            ProgressStage::Restore => "restore",
        }
    }
}

/// How far an operation is: `done` of `total` paths in `stage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// The part of the operation.
    pub stage: ProgressStage,
    /// Paths done in this stage.
    pub done: u64,
    /// Paths this stage has in all.
    pub total: u64,
}

/// A progress callback ([`crate::CaptureOptions::progress`],
/// [`crate::PlanOptions::progress`], [`crate::RollbackOptions::progress`]).
///
/// Two callbacks are equal when they are clones of the same one.
#[derive(Clone)]
pub struct OnProgress(Arc<dyn Fn(Progress) + Send + Sync>);

impl OnProgress {
    /// Wraps `f`, called with each [`Progress`].
    pub fn new(f: impl Fn(Progress) + Send + Sync + 'static) -> OnProgress {
        OnProgress(Arc::new(f))
    }

    /// Wraps `f`, called with the first and the last [`Progress`] of each
    /// stage and with at most one report per `interval` in between: what a
    /// callback that draws for people, or crosses into another language,
    /// wants. Not on `wasm32-unknown-unknown`, which has no clock.
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    pub fn throttled(
        interval: std::time::Duration,
        f: impl Fn(Progress) + Send + Sync + 'static,
    ) -> OnProgress {
        use std::sync::Mutex;
        use std::time::Instant;
        let last: Mutex<Option<Instant>> = Mutex::new(None);
        OnProgress::new(move |p: Progress| {
            let edge = p.done == 0 || p.done >= p.total;
            let due = {
                // A poisoned lock only means an earlier report panicked.
                let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                let now = Instant::now();
                let due = edge || last.is_none_or(|t| now.duration_since(t) >= interval);
                if due {
                    *last = Some(now);
                }
                due
            };
            // Called outside the lock.
            if due {
                f(p);
            }
        })
    }

    /// Calls the callback.
    pub fn report(&self, stage: ProgressStage, done: u64, total: u64) {
        (self.0)(Progress { stage, done, total });
    }
}

impl fmt::Debug for OnProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OnProgress(..)")
    }
}

impl PartialEq for OnProgress {
    fn eq(&self, other: &OnProgress) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for OnProgress {}

/// Counts the paths of one stage and reports each step, when asked to.
pub(crate) struct Counter<'a> {
    on: Option<&'a OnProgress>,
    stage: ProgressStage,
    done: u64,
    total: u64,
    /// Set for a stage that changes the tree: a panic of the callback is
    /// kept here (and the callback not called again) until [`Counter::finish`].
    deferred: Option<Option<Box<dyn Any + Send>>>,
}

impl<'a> Counter<'a> {
    /// Starts a stage of `total` paths (reports `0 of total`).
    pub(crate) fn start(on: Option<&'a OnProgress>, stage: ProgressStage, total: usize) -> Self {
        let mut counter = Counter {
            on,
            stage,
            done: 0,
            total: total as u64,
            deferred: None,
        };
        counter.report();
        counter
    }

    /// Starts a stage that changes the tree: a callback that panics stops
    /// being called, the stage goes on to its end, and [`Counter::finish`]
    /// raises the panic then, so it never leaves a tree half restored.
    pub(crate) fn start_deferring_panics(
        on: Option<&'a OnProgress>,
        stage: ProgressStage,
        total: usize,
    ) -> Self {
        let mut counter = Counter {
            on,
            stage,
            done: 0,
            total: total as u64,
            deferred: Some(None),
        };
        counter.report();
        counter
    }

    /// One more path done.
    pub(crate) fn step(&mut self) {
        self.done += 1;
        self.report();
    }

    /// Ends the stage, raising a panic of the callback it deferred.
    pub(crate) fn finish(self) {
        if let Some(Some(panic)) = self.deferred {
            std::panic::resume_unwind(panic);
        }
    }

    fn report(&mut self) {
        let Some(on) = self.on else { return };
        let (stage, done, total) = (self.stage, self.done, self.total);
        let Some(deferred) = &mut self.deferred else {
            on.report(stage, done, total);
            return;
        };
        let called = catch_unwind(AssertUnwindSafe(|| on.report(stage, done, total)));
        if let Err(panic) = called {
            *deferred = Some(panic);
            self.on = None;
        }
    }
}
