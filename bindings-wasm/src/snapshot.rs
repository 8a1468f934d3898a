//! Capture and rollback over a caller's filesystem; reading snapshots.

use agent_checkpoint::RollbackReport;
use wasm_bindgen::prelude::*;

use crate::error::{js_code, js_result, to_js, type_error};
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
    js_result(agent_checkpoint::capture(&root, &paths, &options))
}

/// Restores exactly the paths captured by `checkpoint` under `fs`. Never
/// throws for a malformed snapshot, nor (with `key`) an unauthenticated one:
/// the result says `valid: false` with its `errorCode`. Throws only for a bad
/// argument: a `TypeError` when `fs` is not an object, an `Error` with
/// `code: 'InvalidArg'` for an unknown `onConflict`.
#[wasm_bindgen(unchecked_return_type = "RollbackResult")]
pub fn rollback(
    fs: &CheckpointFs,
    checkpoint: &str,
    options: Option<JsRollbackOptions>,
) -> Result<JsValue, JsValue> {
    let root = JsRoot::new(fs)?;
    let options = rollback_options(options.as_ref())?;
    report_to_js(&agent_checkpoint::rollback(&root, checkpoint, &options))
}

fn report_to_js(report: &RollbackReport) -> Result<JsValue, JsValue> {
    let out = js_sys::Object::new();
    set(
        &out,
        "restored",
        &strings(report.restored.iter().map(String::as_str)),
    )?;
    set(
        &out,
        "unrestored",
        &strings(report.unrestored.iter().map(|u| u.path.as_str())),
    )?;
    set(
        &out,
        "conflicts",
        &strings(report.conflicts.iter().map(String::as_str)),
    )?;
    let failures = js_sys::Object::new();
    for u in &report.unrestored {
        set(&failures, &u.path, &u.reason.as_str().into())?;
    }
    set(&out, "failures", &failures)?;
    set(&out, "valid", &report.valid().into())?;
    set(&out, "ok", &report.ok().into())?;
    set(
        &out,
        "errorCode",
        &optional(report.error_code().map(js_code)),
    )?;
    set(
        &out,
        "error",
        &optional(report.error.as_ref().map(|e| e.to_string())),
    )?;
    set(&out, "redo", &optional(report.redo.as_deref()))?;
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
