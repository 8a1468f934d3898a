//! `recordApplied`: remember the state each captured path is in right after
//! the batch, so that rollback can tell a human's later edits from the batch's.

use wasm_bindgen::prelude::*;

use crate::error::js_result;
use crate::js_root::{CheckpointFs, JsRoot};
use crate::options::{record_options, JsRecordAppliedOptions};

/// Returns `checkpoint` with the current (post-batch) state of each captured
/// path under `fs` recorded, for `rollback` / `planRollback` with
/// `onConflict` to tell later edits apart. A sealed snapshot needs its `key`
/// (verified, and the result sealed again); throws an `Error` with `.code`
/// (`unauthenticated`, `malformed_snapshot`, ...).
#[wasm_bindgen(js_name = recordApplied)]
pub fn record_applied(
    fs: &CheckpointFs,
    checkpoint: &str,
    options: Option<JsRecordAppliedOptions>,
) -> Result<String, JsValue> {
    let root = JsRoot::new(fs)?;
    let (parse, options) = record_options(options.as_ref())?;
    js_result(
        agent_checkpoint::Snapshot::parse(checkpoint, &parse)
            .and_then(|snapshot| agent_checkpoint::record_applied(&root, &snapshot, &options))
            .map(String::from),
    )
}
