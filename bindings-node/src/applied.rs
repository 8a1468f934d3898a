//! `recordApplied`: remember the state each captured path is in right after
//! the batch, so that rollback can tell a human's later edits from the batch's.

use napi::bindgen_prelude::AsyncTask;
use napi::Env;
use napi_derive::napi;

use agent_checkpoint::{ParseOptions, RecordOptions, Snapshot};

use crate::checkpoint::open_root;
use crate::error::OrThrow;
use crate::options::{record_options, RecordAppliedOptions};
use crate::task::{spawn, Work};

fn record_applied_at(
    root: &str,
    checkpoint: &str,
    (parse, options): &(ParseOptions, RecordOptions),
) -> agent_checkpoint::Result<String> {
    let root = open_root(root)?;
    let snapshot = Snapshot::parse(checkpoint, parse)?;
    agent_checkpoint::record_applied(&root, &snapshot, options).map(String::from)
}

/// Returns `checkpoint` with the current (post-batch) state of each captured
/// path recorded, for `rollback` / `planRollback` with `onConflict` to tell
/// later edits apart. A sealed snapshot needs its `key` (verified, and the
/// result sealed again); throws an `Error` with `code` (`unauthenticated`,
/// `malformed_snapshot`, ...).
#[napi]
pub fn record_applied(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<RecordAppliedOptions>,
) -> napi::Result<String> {
    record_applied_at(&root, &checkpoint, &record_options(env, options)?).or_throw(env)
}

/// `recordApplied` off the JS thread: resolves to the same text, rejects
/// with the same `Error` (argument errors still throw at once).
#[napi(ts_return_type = "Promise<string>")]
pub fn record_applied_async(
    env: &Env,
    root: String,
    checkpoint: String,
    options: Option<RecordAppliedOptions>,
) -> napi::Result<AsyncTask<Work<String, String>>> {
    let options = record_options(env, options)?;
    Ok(spawn(move || {
        record_applied_at(&root, &checkpoint, &options)
    }))
}
