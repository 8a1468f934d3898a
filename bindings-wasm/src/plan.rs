//! `planRollback`: what a rollback would do to each path, touching nothing.

use wasm_bindgen::prelude::*;

use crate::error::js_result;
use crate::js_root::{CheckpointFs, JsRoot};
use crate::options::{plan_options, JsPlanOptions};
use crate::snapshot::set;

/// The JS spelling of a plan action. Exhaustive on purpose: a new core
/// action must be given one here.
fn action_name(action: agent_checkpoint::PlanAction) -> &'static str {
    match action {
        agent_checkpoint::PlanAction::Keep => "keep",
        agent_checkpoint::PlanAction::Write => "write",
        agent_checkpoint::PlanAction::Remove => "remove",
        agent_checkpoint::PlanAction::Rmdir => "rmdir",
        agent_checkpoint::PlanAction::Conflict => "conflict",
    }
}

/// What `rollback(fs, checkpoint, options)` would do to every captured path
/// and created directory: `{ path, action, conflict }[]`, sorted by path.
/// Reads `fs`, writes nothing. Unlike `rollback`, throws an `Error` with
/// `.code` for a snapshot it would refuse (`malformed_snapshot`,
/// `unsupported_version`, with `key` `unauthenticated`), and
/// `code: 'InvalidArg'` for an unknown `onConflict`.
#[wasm_bindgen(js_name = planRollback, unchecked_return_type = "PlanItem[]")]
pub fn plan_rollback(
    fs: &CheckpointFs,
    checkpoint: &str,
    options: Option<JsPlanOptions>,
) -> Result<js_sys::Array, JsValue> {
    let root = JsRoot::new(fs)?;
    let options = plan_options(options.as_ref())?;
    let items = js_result(agent_checkpoint::plan_rollback(&root, checkpoint, &options))?;
    let out = js_sys::Array::new();
    for item in items {
        let obj = js_sys::Object::new();
        set(&obj, "path", &item.path.into())?;
        set(&obj, "action", &action_name(item.action).into())?;
        set(&obj, "conflict", &item.conflict.into())?;
        out.push(&obj);
    }
    Ok(out)
}
