//! `recordApplied`: remember the state each captured path is in right after
//! the batch, so that rollback can tell a human's later edits from the batch's.

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;

use crate::checkpoint::open_root;
use crate::error::{to_js, OrThrow};
use crate::options::{record_applied_options, RecordAppliedOptions};

fn record_applied_at(
    root: &str,
    checkpoint: &str,
    allow_git_dir: bool,
    key: Option<&[u8]>,
) -> agent_checkpoint::Result<String> {
    agent_checkpoint::record_applied(&open_root(root)?, checkpoint, allow_git_dir, key)
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
    let (allow_git_dir, key) = record_applied_options(options);
    record_applied_at(&root, &checkpoint, allow_git_dir, key.as_deref()).or_throw(env)
}

/// The work of `recordAppliedAsync`, run on the libuv thread pool.
pub struct RecordAppliedTask {
    root: String,
    checkpoint: String,
    allow_git_dir: bool,
    key: Option<Vec<u8>>,
}

#[napi]
impl Task for RecordAppliedTask {
    type Output = agent_checkpoint::Result<String>;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(record_applied_at(
            &self.root,
            &self.checkpoint,
            self.allow_git_dir,
            self.key.as_deref(),
        ))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<String> {
        output.map_err(|e| to_js(&env, &e))
    }
}

/// `recordApplied` off the JS thread: resolves to the same text, rejects
/// with the same `Error`.
#[napi]
pub fn record_applied_async(
    root: String,
    checkpoint: String,
    options: Option<RecordAppliedOptions>,
) -> AsyncTask<RecordAppliedTask> {
    let (allow_git_dir, key) = record_applied_options(options);
    AsyncTask::new(RecordAppliedTask {
        root,
        checkpoint,
        allow_git_dir,
        key,
    })
}
