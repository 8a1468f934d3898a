//! The option objects JavaScript passes, and their conversion to the core's
//! options. Only the shape changes here: every default not given is the
//! core's own (`Default`), and every name is parsed by the core.

use agent_checkpoint::{CaptureOptions, OnConflict, RollbackOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{invalid_arg, type_error};

#[wasm_bindgen]
extern "C" {
    /// `{ allowGitDir?, maxFileBytes?, key? }`.
    #[wasm_bindgen(typescript_type = "CaptureOptions")]
    pub type JsCaptureOptions;
    #[wasm_bindgen(method, getter, js_name = allowGitDir)]
    fn allow_git_dir(this: &JsCaptureOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = maxFileBytes)]
    fn max_file_bytes(this: &JsCaptureOptions) -> Option<f64>;
    #[wasm_bindgen(method, getter)]
    fn key(this: &JsCaptureOptions) -> JsValue;

    /// `{ durable?, allowGitDir?, onConflict?, key?, redo? }`.
    #[wasm_bindgen(typescript_type = "RollbackOptions")]
    pub type JsRollbackOptions;
    #[wasm_bindgen(method, getter)]
    fn durable(this: &JsRollbackOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = allowGitDir)]
    fn allow_git_dir(this: &JsRollbackOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = onConflict)]
    fn on_conflict(this: &JsRollbackOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn key(this: &JsRollbackOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn redo(this: &JsRollbackOptions) -> Option<bool>;

    /// `{ allowGitDir?, onConflict?, key? }`.
    #[wasm_bindgen(typescript_type = "PlanOptions")]
    pub type JsPlanOptions;
    #[wasm_bindgen(method, getter, js_name = allowGitDir)]
    fn allow_git_dir(this: &JsPlanOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = onConflict)]
    fn on_conflict(this: &JsPlanOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn key(this: &JsPlanOptions) -> JsValue;

    /// `{ allowGitDir?, key? }`.
    #[wasm_bindgen(typescript_type = "RecordAppliedOptions")]
    pub type JsRecordAppliedOptions;
    #[wasm_bindgen(method, getter, js_name = allowGitDir)]
    fn allow_git_dir(this: &JsRecordAppliedOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter)]
    fn key(this: &JsRecordAppliedOptions) -> JsValue;
}

/// The options object, when it is one (`undefined`, `null` and other
/// non-objects mean "all defaults", as before these options existed).
fn object<T: AsRef<JsValue>>(options: Option<&T>) -> Option<&T> {
    options.filter(|o| (*o).as_ref().is_object())
}

fn absent(value: &JsValue) -> bool {
    value.is_undefined() || value.is_null()
}

// A sealing key is its bytes (`Uint8Array`, so also a Node `Buffer`), or a
// string whose UTF-8 bytes are the key (`'k1'` and `Buffer.from('k1')` are
// the same key), as in the Node package.
fn key_bytes(key: &JsValue) -> Result<Option<Vec<u8>>, JsValue> {
    if absent(key) {
        return Ok(None);
    }
    if let Some(text) = key.as_string() {
        return Ok(Some(text.into_bytes()));
    }
    key.dyn_ref::<js_sys::Uint8Array>()
        .map(|bytes| Some(bytes.to_vec()))
        .ok_or_else(|| type_error("key must be a string or a Uint8Array"))
}

fn on_conflict(value: &JsValue) -> Result<OnConflict, JsValue> {
    if absent(value) {
        return Ok(OnConflict::default());
    }
    let Some(name) = value.as_string() else {
        return Err(type_error("onConflict must be a string"));
    };
    OnConflict::from_name(&name).ok_or_else(|| {
        invalid_arg(&format!(
            "onConflict must be '{}' or '{}', got {name:?}",
            OnConflict::Overwrite.as_str(),
            OnConflict::Skip.as_str()
        ))
    })
}

/// The core's capture options; a `TypeError` for a `maxFileBytes` that is
/// not a non-negative integer or a `key` that is neither a string nor bytes.
pub fn capture_options(js: Option<&JsCaptureOptions>) -> Result<CaptureOptions, JsValue> {
    let mut options = CaptureOptions::default();
    if let Some(js) = object(js) {
        options.allow_git_dir = js.allow_git_dir().unwrap_or(options.allow_git_dir);
        options.max_file_bytes = match js.max_file_bytes() {
            None => None,
            Some(n) if n >= 0.0 && n.fract() == 0.0 => Some(n as u64),
            Some(_) => return Err(type_error("maxFileBytes must be a non-negative integer")),
        };
        options.key = key_bytes(&js.key())?;
    }
    Ok(options)
}

/// The core's rollback options; an `Error` with `code: 'InvalidArg'` for an
/// unknown `onConflict`.
pub fn rollback_options(js: Option<&JsRollbackOptions>) -> Result<RollbackOptions, JsValue> {
    let mut options = RollbackOptions::default();
    if let Some(js) = object(js) {
        options.durable = js.durable().unwrap_or(options.durable);
        options.allow_git_dir = js.allow_git_dir().unwrap_or(options.allow_git_dir);
        options.on_conflict = on_conflict(&js.on_conflict())?;
        options.key = key_bytes(&js.key())?;
        options.redo = js.redo().unwrap_or(options.redo);
    }
    Ok(options)
}

/// The core's rollback options for a plan (`durable` and `redo` change
/// nothing in one); an `Error` with `code: 'InvalidArg'` for an unknown
/// `onConflict`.
pub fn plan_options(js: Option<&JsPlanOptions>) -> Result<RollbackOptions, JsValue> {
    let mut options = RollbackOptions::default();
    if let Some(js) = object(js) {
        options.allow_git_dir = js.allow_git_dir().unwrap_or(options.allow_git_dir);
        options.on_conflict = on_conflict(&js.on_conflict())?;
        options.key = key_bytes(&js.key())?;
    }
    Ok(options)
}

/// `recordApplied`'s options as the core takes them: `(allowGitDir, key)`.
pub fn record_applied_options(
    js: Option<&JsRecordAppliedOptions>,
) -> Result<(bool, Option<Vec<u8>>), JsValue> {
    match object(js) {
        Some(js) => Ok((js.allow_git_dir().unwrap_or(false), key_bytes(&js.key())?)),
        None => Ok((false, None)),
    }
}
