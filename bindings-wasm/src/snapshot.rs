//! Capture and rollback over a caller's filesystem; reading snapshots.

use agent_checkpoint::RollbackOutcome;
use wasm_bindgen::prelude::*;

use crate::error::{js_result, to_js, type_error};
use crate::js_root::{CheckpointFs, JsRoot};
use crate::options::{capture_options, rollback_options, JsCaptureOptions, JsRollbackOptions};

/// The target path of one operation: a string, or an object's `file` string.
fn operation_path(op: &JsValue) -> Result<String, JsValue> {
    if let Some(path) = op.as_string() {
        return Ok(path);
    }
    if op.is_object() {
        if let Some(path) = js_sys::Reflect::get(op, &"file".into())?.as_string() {
            return Ok(path);
        }
    }
    Err(type_error(
        "each operation must be a path string or an object with a string `file`",
    ))
}

/// Sets `object[key] = value`.
pub(crate) fn set(object: &js_sys::Object, key: &str, value: &JsValue) -> Result<(), JsValue> {
    js_sys::Reflect::set(object, &key.into(), value).map(drop)
}

fn optional<T: Into<JsValue>>(value: Option<T>) -> JsValue {
    value.map_or(JsValue::NULL, Into::into)
}

fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> js_sys::Array {
    items.into_iter().map(JsValue::from).collect()
}

/// Snapshots every path `operations` will touch under `fs`, before they run,
/// and returns the snapshot's JSON text (sealed when `options.key` is
/// given). Throws an `Error` with `.code` (`path_escapes_root`,
/// `not_a_file`, `invalid_path`, `too_large`, ...).
#[wasm_bindgen(js_name = createCheckpoint)]
pub fn create_checkpoint(
    fs: &CheckpointFs,
    #[wasm_bindgen(unchecked_param_type = "Operation[]")] operations: Vec<JsValue>,
    options: Option<JsCaptureOptions>,
) -> Result<String, JsValue> {
    let root = JsRoot::new(fs)?;
    let options = capture_options(options.as_ref())?;
    let paths = operations
        .iter()
        .map(operation_path)
        .collect::<Result<Vec<_>, _>>()?;
    js_result(agent_checkpoint::capture(&root, &paths, &options).map(String::from))
}

/// Restores exactly the paths captured by `checkpoint` under `fs`. Never
/// throws for a snapshot it refuses (malformed; with `key`,
/// unauthenticated; bytes that contradict their digests; a link that would
/// leave the root; another root with `strictRoot`): the report says
/// `valid: false` with its `errorCode`. Throws only for a bad argument: a
/// `TypeError` when `fs` is not an object, a `RangeError` for an unusable
/// option value.
#[wasm_bindgen(unchecked_return_type = "RollbackReport")]
pub fn rollback(
    fs: &CheckpointFs,
    checkpoint: &str,
    options: Option<JsRollbackOptions>,
) -> Result<JsValue, JsValue> {
    let root = JsRoot::new(fs)?;
    let (parse, options) = rollback_options(options.as_ref())?;
    outcome_to_js(&agent_checkpoint::rollback_text(
        &root, checkpoint, &parse, &options,
    ))
}

/// `[{ path, code, reason }]`.
fn problems<'a>(
    items: impl IntoIterator<Item = (&'a str, agent_checkpoint::ErrorCode, &'a str)>,
) -> Result<js_sys::Array, JsValue> {
    let out = js_sys::Array::new();
    for (path, code, reason) in items {
        let obj = js_sys::Object::new();
        set(&obj, "path", &path.into())?;
        set(&obj, "code", &code.as_str().into())?;
        set(&obj, "reason", &reason.into())?;
        out.push(&obj);
    }
    Ok(out)
}

/// The core's outcome as JavaScript sees it: a refused snapshot is a
/// report with `valid: false` (the core's rule, not decided here).
fn outcome_to_js(outcome: &RollbackOutcome) -> Result<JsValue, JsValue> {
    let report = &outcome.report;
    let refusal = outcome.refusal.as_ref();
    let out = js_sys::Object::new();
    set(
        &out,
        "restored",
        &strings(report.restored.iter().map(String::as_str)),
    )?;
    set(
        &out,
        "unrestored",
        &problems(
            report
                .unrestored
                .iter()
                .map(|u| (u.path.as_str(), u.code, u.reason.as_str())),
        )?
        .into(),
    )?;
    set(
        &out,
        "conflicts",
        &strings(report.conflicts.iter().map(String::as_str)),
    )?;
    set(&out, "valid", &outcome.valid().into())?;
    set(&out, "ok", &outcome.ok().into())?;
    set(
        &out,
        "errorCode",
        &optional(refusal.map(|e| e.code().as_str())),
    )?;
    set(&out, "error", &optional(refusal.map(ToString::to_string)))?;
    set(&out, "plan", &crate::plan::plan_to_js(&report.plan)?.into())?;
    set(
        &out,
        "redo",
        &optional(report.redo.as_ref().map(|r| r.as_str())),
    )?;
    set(
        &out,
        "notInRedo",
        &problems(
            report
                .not_in_redo
                .iter()
                .map(|n| (n.path.as_str(), n.code, n.reason.as_str())),
        )?
        .into(),
    )?;
    let not_covered = js_sys::Array::new();
    for n in &report.not_covered {
        let item = js_sys::Object::new();
        set(&item, "path", &n.path.as_str().into())?;
        // Sizes up to 2^53 are exact as a JS number.
        set(&item, "size", &(n.size as f64).into())?;
        set(&item, "code", &n.code.as_str().into())?;
        not_covered.push(&item);
    }
    set(&out, "notCovered", &not_covered.into())?;
    set(&out, "otherRoot", &optional(report.other_root()))?;
    Ok(out.into())
}

/// The paths a snapshot captured, sorted (best effort: `[]` when malformed).
#[wasm_bindgen(js_name = snapshotPaths)]
pub fn snapshot_paths(checkpoint: &str) -> Vec<String> {
    agent_checkpoint::snapshot_paths(checkpoint)
}

/// One item per captured path: `{ path, kind, size, mode, linkTarget, digest }`
/// (`null` where not applicable). Throws `malformed_snapshot` /
/// `unsupported_version` for a snapshot rollback would refuse.
#[wasm_bindgen(js_name = inspectSnapshot, unchecked_return_type = "CapturedPath[]")]
pub fn inspect_snapshot(checkpoint: &str) -> Result<js_sys::Array, JsValue> {
    let items = agent_checkpoint::inspect_snapshot(checkpoint).map_err(|e| to_js(&e))?;
    let out = js_sys::Array::new();
    for item in items {
        let obj = js_sys::Object::new();
        set(&obj, "path", &item.path.into())?;
        set(&obj, "kind", &item.kind.as_str().into())?;
        // Sizes are far below 2^53, exact as JS numbers.
        set(&obj, "size", &optional(item.size.map(|s| s as f64)))?;
        set(&obj, "mode", &optional(item.mode))?;
        set(&obj, "linkTarget", &optional(item.link_target))?;
        set(&obj, "digest", &optional(item.digest))?;
        out.push(&obj);
    }
    Ok(out)
}
