//! `planRollback`: what a rollback would do to each path, touching nothing.

use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;

use agent_checkpoint::{ParseOptions, Snapshot};

use crate::async_options::{plan_async_options, PlanAsyncOptions};
use crate::checkpoint::open_root;
use crate::diff::Hunk;
use crate::error::OrThrow;
use crate::options::{plan_options, PlanOptions};
use crate::progress::reporting;
use crate::task::{spawn, Work};

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
    /// Cannot be restored without destroying what the snapshot does not
    /// cover: left alone and reported unrestored with `code`.
    Refuse,
}

/// One line of a rollback plan.
#[napi(object, use_nullable = true)]
pub struct PlanItem {
    /// The captured path, created directory, or empty directory in the way.
    pub path: String,
    /// What rollback would do.
    #[napi(ts_type = "PlanAction")]
    pub action: String,
    /// Whether the path changed after the batch (known only after
    /// `recordApplied`); with `onConflict: 'overwrite'` it is still written
    /// or removed.
    pub conflict: bool,
    /// For `'refuse'`: the error code the rollback reports for the path.
    #[napi(ts_type = "ErrorCode")]
    pub code: Option<String>,
    /// Why, when the action needs a word.
    pub reason: Option<String>,
    /// With `diff: true`, for a path the rollback changes: the unified
    /// diff from the file as it is now to the one the rollback restores
    /// when there is a line diff, else the one-line `diffSummary`.
    pub diff: Option<String>,
    /// With `diff: true`, for a path the rollback changes: one line for
    /// people (`+3 -1`, `new file, 2 lines`, `mode 644 -> 755`, ...).
    pub diff_summary: Option<String>,
    /// The hunks of the line diff, with line numbers (empty without one).
    pub hunks: Vec<Hunk>,
}

impl From<agent_checkpoint::PlanItem> for PlanItem {
    fn from(item: agent_checkpoint::PlanItem) -> PlanItem {
        let (diff, diff_summary, hunks) = match item.diff {
            Some(d) => (
                Some(d.text.unwrap_or_else(|| d.summary.clone())),
                Some(d.summary),
                d.hunks.into_iter().map(Hunk::from).collect(),
            ),
            None => (None, None, Vec::new()),
        };
        PlanItem {
            path: item.path,
            action: item.action.as_str().to_owned(),
            conflict: item.conflict,
            code: item.code.map(|c| c.as_str().to_owned()),
            reason: item.reason,
            diff,
            diff_summary,
            hunks,
        }
    }
}

fn plan_at(
    root: &str,
    checkpoint: &str,
    (parse, options): &(ParseOptions, agent_checkpoint::PlanOptions),
) -> agent_checkpoint::Result<Vec<PlanItem>> {
    let root = open_root(root)?;
    let snapshot = Snapshot::parse(checkpoint, parse)?;
    let plan = agent_checkpoint::plan_rollback(&root, &snapshot, options)?;
    Ok(plan.items.into_iter().map(PlanItem::from).collect())
}

/// What `rollback(root, checkpoint, options)` would do to every captured
/// path and created directory, sorted by path; reads the tree, writes
/// nothing. With `diff: true`, each path the rollback changes says how
/// (`diff`, `diffSummary`, `hunks`). Unlike `rollback`, throws an `Error` with `code` for a snapshot
/// it would refuse (`malformed_snapshot`, `unsupported_version`, with `key`
/// `unauthenticated`), as well as when `root` cannot be opened.
#[napi]
pub fn plan_rollback(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<PlanOptions>,
) -> napi::Result<Vec<PlanItem>> {
    plan_at(&root, &checkpoint, &plan_options(env, options)?).or_throw(env)
}

/// `planRollback` off the JS thread: resolves to the same plan, rejects with
/// the same `Error` (argument errors still throw at once). `onProgress`
/// is called as paths are checked; the promise settles after its last call.
#[napi(ts_return_type = "Promise<PlanItem[]>")]
pub fn plan_rollback_async(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<PlanAsyncOptions>,
) -> napi::Result<AsyncTask<Work<Vec<PlanItem>, Vec<PlanItem>>>> {
    let (options, progress) = plan_async_options(env, options)?;
    Ok(spawn(move || {
        reporting(progress, || plan_at(&root, &checkpoint, &options))
    }))
}
