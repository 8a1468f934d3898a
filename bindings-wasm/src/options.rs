//! The option objects JavaScript passes, and their conversion to the core's
//! options. Only the shape changes here: every default not given is the
//! core's own (`Default`), and every name is parsed by the core. A value of
//! the wrong type is a `TypeError`; an unusable one a `RangeError` with
//! `code: 'invalid_argument'`.

use agent_checkpoint::{
    CaptureOptions, DiffOptions, OnConflict, ParseOptions, PlanOptions, RecordOptions,
    RollbackOptions, SealKey,
};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{invalid_value, type_error};

#[wasm_bindgen]
extern "C" {
    /// `{ allowGitDir?, maxFileBytes?, key?, recordRoot? }`.
    #[wasm_bindgen(typescript_type = "CaptureOptions")]
    pub type JsCaptureOptions;
    #[wasm_bindgen(method, getter, js_name = allowGitDir)]
    fn allow_git_dir(this: &JsCaptureOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = maxFileBytes)]
    fn max_file_bytes(this: &JsCaptureOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn key(this: &JsCaptureOptions) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = recordRoot)]
    fn record_root(this: &JsCaptureOptions) -> Option<bool>;

    /// `{ durable?, allowGitDir?, onConflict?, key?, redo?, restoreSetid?,
    /// strictRoot?, maxFileBytes? }`.
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
    #[wasm_bindgen(method, getter, js_name = restoreSetid)]
    fn restore_setid(this: &JsRollbackOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = strictRoot)]
    fn strict_root(this: &JsRollbackOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = maxFileBytes)]
    fn max_file_bytes(this: &JsRollbackOptions) -> JsValue;

    /// `{ allowGitDir?, onConflict?, key?, restoreSetid?, strictRoot?,
    /// diff?, diffContext?, diffMaxBytes? }`.
    #[wasm_bindgen(typescript_type = "PlanOptions")]
    pub type JsPlanOptions;
    #[wasm_bindgen(method, getter, js_name = allowGitDir)]
    fn allow_git_dir(this: &JsPlanOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = onConflict)]
    fn on_conflict(this: &JsPlanOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn key(this: &JsPlanOptions) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = restoreSetid)]
    fn restore_setid(this: &JsPlanOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = strictRoot)]
    fn strict_root(this: &JsPlanOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter)]
    fn diff(this: &JsPlanOptions) -> Option<bool>;
    #[wasm_bindgen(method, getter, js_name = diffContext)]
    fn diff_context(this: &JsPlanOptions) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = diffMaxBytes)]
    fn diff_max_bytes(this: &JsPlanOptions) -> JsValue;

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

/// A sealing key: bytes (`Uint8Array`, so also a Node `Buffer`), or a
/// string whose UTF-8 bytes are the key (`'k1'` and `Buffer.from('k1')` are
/// the same key), as in the Node package. Never empty; a string must be
/// valid Unicode (a lone surrogate would be converted lossily, and keys that
/// differ only there would verify each other's seals).
pub fn seal_key(key: &JsValue) -> Result<Option<SealKey>, JsValue> {
    if absent(key) {
        return Ok(None);
    }
    let bytes = if let Some(text) = key.dyn_ref::<js_sys::JsString>() {
        if !text.is_valid_utf16() {
            return Err(invalid_value(
                "key",
                "the string is not valid Unicode (a lone surrogate); pass bytes",
            ));
        }
        String::from(text).into_bytes()
    } else if let Some(bytes) = key.dyn_ref::<js_sys::Uint8Array>() {
        bytes.to_vec()
    } else {
        return Err(type_error("key must be a string or a Uint8Array"));
    };
    SealKey::new(bytes)
        .map(Some)
        .map_err(|e| invalid_value("key", &e.to_string()))
}

fn on_conflict(value: &JsValue) -> Result<OnConflict, JsValue> {
    if absent(value) {
        return Ok(OnConflict::default());
    }
    let Some(name) = value.as_string() else {
        return Err(type_error("onConflict must be a string"));
    };
    OnConflict::from_name(&name).ok_or_else(|| {
        invalid_value(
            "onConflict",
            &format!(
                "must be '{}' or '{}', got {name:?}",
                OnConflict::Overwrite.as_str(),
                OnConflict::Skip.as_str()
            ),
        )
    })
}

/// A byte count: absent, or a non-negative integer.
fn byte_count(name: &str, value: &JsValue) -> Result<Option<u64>, JsValue> {
    if absent(value) {
        return Ok(None);
    }
    match value.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 => Ok(Some(n as u64)),
        Some(n) => Err(invalid_value(
            name,
            &format!("must be a non-negative integer, got {n}"),
        )),
        None => Err(type_error(&format!("{name} must be a number"))),
    }
}

/// The core's capture options.
pub fn capture_options(js: Option<&JsCaptureOptions>) -> Result<CaptureOptions, JsValue> {
    let mut options = CaptureOptions::default();
    if let Some(js) = object(js) {
        options = options
            .with_allow_git_dir(js.allow_git_dir().unwrap_or(false))
            .with_key(seal_key(&js.key())?)
            .with_record_root(js.record_root().unwrap_or(true));
        if let Some(max) = byte_count("maxFileBytes", &js.max_file_bytes())? {
            options = options.with_max_file_bytes(max);
        }
    }
    Ok(options)
}

/// The core's parse and rollback options.
pub fn rollback_options(
    js: Option<&JsRollbackOptions>,
) -> Result<(ParseOptions, RollbackOptions), JsValue> {
    let mut parse = ParseOptions::default();
    let mut options = RollbackOptions::default();
    if let Some(js) = object(js) {
        let key = seal_key(&js.key())?;
        parse = parse
            .with_allow_git_dir(js.allow_git_dir().unwrap_or(false))
            .with_key(key.clone());
        options = options
            .with_durable(js.durable().unwrap_or(true))
            .with_on_conflict(on_conflict(&js.on_conflict())?)
            .with_key(key)
            .with_redo(js.redo().unwrap_or(true))
            .with_restore_setid(js.restore_setid().unwrap_or(false))
            .with_strict_root(js.strict_root().unwrap_or(false));
        if let Some(max) = byte_count("maxFileBytes", &js.max_file_bytes())? {
            options = options.with_max_file_bytes(max);
        }
    }
    Ok((parse, options))
}

/// The core's parse and plan options.
pub fn plan_options(js: Option<&JsPlanOptions>) -> Result<(ParseOptions, PlanOptions), JsValue> {
    let mut parse = ParseOptions::default();
    let mut options = PlanOptions::default();
    if let Some(js) = object(js) {
        let key = seal_key(&js.key())?;
        parse = parse
            .with_allow_git_dir(js.allow_git_dir().unwrap_or(false))
            .with_key(key.clone());
        options = options
            .with_on_conflict(on_conflict(&js.on_conflict())?)
            .with_key(key)
            .with_restore_setid(js.restore_setid().unwrap_or(false))
            .with_strict_root(js.strict_root().unwrap_or(false));
        let mut diff = DiffOptions::default();
        if let Some(lines) = byte_count("diffContext", &js.diff_context())? {
            diff = diff.with_context(usize::try_from(lines).unwrap_or(usize::MAX));
        }
        if let Some(bytes) = byte_count("diffMaxBytes", &js.diff_max_bytes())? {
            diff = diff.with_max_bytes(bytes);
        }
        options = options.with_diff(js.diff().unwrap_or(false).then_some(diff));
    }
    Ok((parse, options))
}

/// The core's parse and record options.
pub fn record_options(
    js: Option<&JsRecordAppliedOptions>,
) -> Result<(ParseOptions, RecordOptions), JsValue> {
    match object(js) {
        Some(js) => {
            let key = seal_key(&js.key())?;
            let parse = ParseOptions::allowing_git_dir(js.allow_git_dir().unwrap_or(false))
                .with_key(key.clone());
            Ok((parse, RecordOptions::default().with_key(key)))
        }
        None => Ok((ParseOptions::default(), RecordOptions::default())),
    }
}
