//! `planRollback`: what a rollback would do to each path, touching nothing.

use wasm_bindgen::prelude::*;

use crate::diff::set_diff;
use crate::error::js_result;
use crate::js_root::{CheckpointFs, JsRoot};
use crate::options::{plan_options, JsPlanOptions};
use crate::snapshot::set;

/// One plan item as a JS object: `{ path, action, conflict, code, reason,
/// diff, diffSummary, hunks }`.
pub(crate) fn item_to_js(item: &agent_checkpoint::PlanItem) -> Result<JsValue, JsValue> {
    let obj = js_sys::Object::new();
    set(&obj, "path", &item.path.as_str().into())?;
    set(&obj, "action", &item.action.as_str().into())?;
    set(&obj, "conflict", &item.conflict.into())?;
    set(
        &obj,
        "code",
        &item.code.map_or(JsValue::NULL, |c| c.as_str().into()),
    )?;
    set(
        &obj,
        "reason",
        &item.reason.as_deref().map_or(JsValue::NULL, Into::into),
    )?;
    set_diff(&obj, item.diff.as_ref())?;
    Ok(obj.into())
}

/// A plan as a JS array of items.
pub(crate) fn plan_to_js(plan: &agent_checkpoint::Plan) -> Result<js_sys::Array, JsValue> {
    let out = js_sys::Array::new();
    for item in &plan.items {
        out.push(&item_to_js(item)?);
    }
    Ok(out)
}

/// What `rollback(fs, checkpoint, options)` would do to every captured path
/// and created directory: `{ path, action, conflict, code, reason, diff,
/// diffSummary, hunks }[]`, sorted by path; the rollback with the same
/// options carries out exactly this plan. With `diff: true`, each path the
/// rollback changes says how (a unified diff with line-numbered hunks, or
/// one line). No progress callback: the call is synchronous. Reads `fs`, writes nothing. Unlike `rollback`, throws an
/// `Error` with `.code` for a snapshot it would refuse
/// (`malformed_snapshot`, `unsupported_version`, with `key`
/// `unauthenticated`, ...), and a `RangeError` for an unknown `onConflict`.
#[wasm_bindgen(js_name = planRollback, unchecked_return_type = "PlanItem[]")]
pub fn plan_rollback(
    fs: &CheckpointFs,
    checkpoint: &str,
    options: Option<JsPlanOptions>,
) -> Result<js_sys::Array, JsValue> {
    let root = JsRoot::new(fs)?;
    let (parse, options) = plan_options(options.as_ref())?;
    let plan = js_result(
        agent_checkpoint::Snapshot::parse(checkpoint, &parse)
            .and_then(|snapshot| agent_checkpoint::plan_rollback(&root, &snapshot, &options)),
    )?;
    plan_to_js(&plan)
}
