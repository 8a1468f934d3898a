//! `planRollback`: what a rollback would do to each path, touching nothing.

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;

use crate::checkpoint::open_root;
use crate::error::{to_js, OrThrow};
use crate::options::{plan_options, PlanOptions};

/// What rollback would do to one path.
#[napi(string_enum = "lowercase")]
pub enum PlanAction {
    /// Already as captured: nothing to do.
    Keep,
    /// Write the captured file or link.
    Write,
    /// Remove what the batch created.
    Remove,
    /// Remove a directory the batch created (only if it is empty by then).
    Rmdir,
    /// Changed after the batch: left alone (`onConflict: 'skip'`).
    Conflict,
}

impl From<agent_checkpoint::PlanAction> for PlanAction {
    // Exhaustive on purpose: a new core action must be given a JS spelling here.
    fn from(action: agent_checkpoint::PlanAction) -> PlanAction {
        match action {
            agent_checkpoint::PlanAction::Keep => PlanAction::Keep,
            agent_checkpoint::PlanAction::Write => PlanAction::Write,
            agent_checkpoint::PlanAction::Remove => PlanAction::Remove,
            agent_checkpoint::PlanAction::Rmdir => PlanAction::Rmdir,
            agent_checkpoint::PlanAction::Conflict => PlanAction::Conflict,
        }
    }
}

/// One line of a rollback plan.
#[napi(object)]
pub struct PlanItem {
    /// The captured path or created directory.
    pub path: String,
    /// What rollback would do.
    pub action: PlanAction,
    /// Whether the path changed after the batch (known only after
    /// `recordApplied`); with `onConflict: 'overwrite'` it is still written
    /// or removed.
    pub conflict: bool,
}

impl From<agent_checkpoint::PlanItem> for PlanItem {
    fn from(item: agent_checkpoint::PlanItem) -> PlanItem {
        PlanItem {
            path: item.path,
            action: item.action.into(),
            conflict: item.conflict,
        }
    }
}

fn plan_at(
    root: &str,
    checkpoint: &str,
    options: &agent_checkpoint::RollbackOptions,
) -> agent_checkpoint::Result<Vec<PlanItem>> {
    let items = agent_checkpoint::plan_rollback(&open_root(root)?, checkpoint, options)?;
    Ok(items.into_iter().map(PlanItem::from).collect())
}

/// What `rollback(root, checkpoint, options)` would do to every captured
/// path and created directory, sorted by path; reads the tree, writes
/// nothing. Unlike `rollback`, throws an `Error` with `code` for a snapshot
/// it would refuse (`malformed_snapshot`, `unsupported_version`, with `key`
/// `unauthenticated`), as well as when `root` cannot be opened.
#[napi]
pub fn plan_rollback(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<PlanOptions>,
) -> napi::Result<Vec<PlanItem>> {
    plan_at(&root, &checkpoint, &plan_options(options)?).or_throw(env)
}

/// The work of `planRollbackAsync`, run on the libuv thread pool.
pub struct PlanTask {
    root: String,
    checkpoint: String,
    options: agent_checkpoint::RollbackOptions,
}

#[napi]
impl Task for PlanTask {
    type Output = agent_checkpoint::Result<Vec<PlanItem>>;
    type JsValue = Vec<PlanItem>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(plan_at(&self.root, &self.checkpoint, &self.options))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Vec<PlanItem>> {
        output.map_err(|e| to_js(&env, &e))
    }
}

/// `planRollback` off the JS thread: resolves to the same plan, rejects with
/// the same `Error` (argument errors still throw at once).
#[napi]
pub fn plan_rollback_async(
    root: String,
    checkpoint: String,
    options: Option<PlanOptions>,
) -> napi::Result<AsyncTask<PlanTask>> {
    Ok(AsyncTask::new(PlanTask {
        root,
        checkpoint,
        options: plan_options(options)?,
    }))
}
