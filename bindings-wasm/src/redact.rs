//! Secret redaction (STORE.md §7): `redactText`, `redactJson`, `redactBlob`
//! and the `Redactor` class with findings, as in the Node package (without
//! the `*Async` twins: there is no thread pool here).
//!
//! A pattern that does not compile throws the project's error
//! (`code: 'invalid_pattern'`); options of the wrong shape a `TypeError`.

use agent_checkpoint_redact as redact;
use wasm_bindgen::prelude::*;

use crate::error::{js_result, type_error};
use crate::snapshot::set;

#[wasm_bindgen]
extern "C" {
    /// `{ personalData?, rules? }`.
    #[wasm_bindgen(typescript_type = "RedactOptions")]
    pub type JsRedactOptions;
    #[wasm_bindgen(method, getter, js_name = personalData)]
    fn personal_data(this: &JsRedactOptions) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn rules(this: &JsRedactOptions) -> JsValue;
}

/// What `options` asks for: personal data, and the `[name, pattern]` rules in order.
struct Wanted {
    personal_data: bool,
    rules: Vec<(String, String)>,
}

fn wanted(options: Option<&JsRedactOptions>) -> Result<Wanted, JsValue> {
    let mut out = Wanted {
        personal_data: false,
        rules: Vec::new(),
    };
    let Some(options) = options.filter(|o| o.is_object()) else {
        return Ok(out);
    };
    let personal = options.personal_data();
    if !(personal.is_undefined() || personal.is_null()) {
        out.personal_data = personal
            .as_bool()
            .ok_or_else(|| type_error("personalData must be a boolean"))?;
    }
    let rules = options.rules();
    if rules.is_undefined() || rules.is_null() {
        return Ok(out);
    }
    const SHAPE: &str = "rules must be an array of [name, pattern] string pairs";
    if !js_sys::Array::is_array(&rules) {
        return Err(type_error(SHAPE));
    }
    for pair in js_sys::Array::from(&rules).iter() {
        if !js_sys::Array::is_array(&pair) {
            return Err(type_error(SHAPE));
        }
        let pair = js_sys::Array::from(&pair);
        match (
            pair.length(),
            pair.get(0).as_string(),
            pair.get(1).as_string(),
        ) {
            (2, Some(name), Some(pattern)) => out.rules.push((name, pattern)),
            _ => return Err(type_error(SHAPE)),
        }
    }
    Ok(out)
}

/// The core redactor for `wanted` (the shared default one when it asks for nothing).
fn build(wanted: &Wanted) -> Result<redact::Redactor, JsValue> {
    let mut builder = redact::Redactor::builder().personal_data(wanted.personal_data);
    for (name, pattern) in &wanted.rules {
        builder = builder.rule(name.as_str(), pattern.as_str());
    }
    js_result(builder.build().map_err(agent_checkpoint::Error::from))
}

fn redactor_for(options: Option<&JsRedactOptions>) -> Result<redact::Redactor, JsValue> {
    build(&wanted(options)?)
}

/// `[{ rule, start, end }]`, byte offsets into the UTF-8 input.
fn findings_to_js(found: &[redact::Finding]) -> Result<js_sys::Array, JsValue> {
    let out = js_sys::Array::new();
    for f in found {
        let obj = js_sys::Object::new();
        set(&obj, "rule", &f.rule.as_str().into())?;
        set(&obj, "start", &JsValue::from_f64(f.start as f64))?;
        set(&obj, "end", &JsValue::from_f64(f.end as f64))?;
        out.push(&obj);
    }
    Ok(out)
}

/// `{ output, findings }`.
fn redaction_to_js(output: JsValue, found: &[redact::Finding]) -> Result<JsValue, JsValue> {
    let obj = js_sys::Object::new();
    set(&obj, "output", &output)?;
    set(&obj, "findings", &findings_to_js(found)?.into())?;
    Ok(obj.into())
}

/// Redacts secrets from `text` as plain text (the default redactor, or one
/// built from `options`; throws `invalid_pattern` for a bad rule).
#[wasm_bindgen(js_name = redactText)]
pub fn redact_text(text: &str, options: Option<JsRedactOptions>) -> Result<String, JsValue> {
    Ok(redactor_for(options.as_ref())?
        .redact_text(text)
        .into_owned())
}

/// Redacts a JSON document, or JSONL line by line, changing only string
/// values in place (formatting kept).
#[wasm_bindgen(js_name = redactJson)]
pub fn redact_json(text: &str, options: Option<JsRedactOptions>) -> Result<String, JsValue> {
    Ok(redactor_for(options.as_ref())?
        .redact_json(text)
        .into_owned())
}

/// Redacts a file's bytes by its path: `.json`/`.jsonl` JSON-aware, other
/// UTF-8 text as text, binary (a NUL byte) untouched; text with invalid UTF-8 is redacted, its invalid bytes kept.
/// Always returns a new `Uint8Array`.
#[wasm_bindgen(js_name = redactBlob)]
pub fn redact_blob(
    path: &str,
    data: &[u8],
    options: Option<JsRedactOptions>,
) -> Result<Vec<u8>, JsValue> {
    Ok(redactor_for(options.as_ref())?
        .redact_blob(path, data)
        .into_owned())
}

/// Redacts secrets from text, JSON/JSONL and blobs. Build one and reuse it:
/// its rules are compiled once, in the constructor (which throws
/// `invalid_pattern` for a rule that does not compile).
#[wasm_bindgen]
pub struct Redactor {
    inner: redact::Redactor,
    personal_data: bool,
    rule_names: Vec<String>,
}

#[wasm_bindgen]
impl Redactor {
    /// A redactor with `options` (none: the default redactor).
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<JsRedactOptions>) -> Result<Redactor, JsValue> {
        let wanted = wanted(options.as_ref())?;
        Ok(Redactor {
            inner: build(&wanted)?,
            personal_data: wanted.personal_data,
            rule_names: wanted.rules.into_iter().map(|(name, _)| name).collect(),
        })
    }

    /// Whether personal data is redacted.
    #[wasm_bindgen(getter, js_name = personalData)]
    pub fn personal_data(&self) -> bool {
        self.personal_data
    }

    /// The names of the caller's rules, in order.
    #[wasm_bindgen(getter, js_name = ruleNames)]
    pub fn rule_names(&self) -> Vec<String> {
        self.rule_names.clone()
    }

    /// Redacts `text` as plain text.
    #[wasm_bindgen(js_name = redactText)]
    pub fn redact_text(&self, text: &str) -> String {
        self.inner.redact_text(text).into_owned()
    }

    /// Redacts a JSON document, or JSONL line by line (formatting kept).
    #[wasm_bindgen(js_name = redactJson)]
    pub fn redact_json(&self, text: &str) -> String {
        self.inner.redact_json(text).into_owned()
    }

    /// Redacts a file's bytes by its path (`.json`/`.jsonl` JSON-aware,
    /// other text as text, binary untouched); a new `Uint8Array`.
    #[wasm_bindgen(js_name = redactBlob)]
    pub fn redact_blob(&self, path: &str, data: &[u8]) -> Vec<u8> {
        self.inner.redact_blob(path, data).into_owned()
    }

    /// `redactText`, also returning what was replaced.
    #[wasm_bindgen(js_name = redactTextWithFindings, unchecked_return_type = "Redaction")]
    pub fn redact_text_with_findings(&self, text: &str) -> Result<JsValue, JsValue> {
        let r = self.inner.redact_text_with_findings(text);
        redaction_to_js(r.output.as_ref().into(), &r.findings)
    }

    /// `redactJson`, also returning what was replaced.
    #[wasm_bindgen(js_name = redactJsonWithFindings, unchecked_return_type = "Redaction")]
    pub fn redact_json_with_findings(&self, text: &str) -> Result<JsValue, JsValue> {
        let r = self.inner.redact_json_with_findings(text);
        redaction_to_js(r.output.as_ref().into(), &r.findings)
    }

    /// `redactBlob`, also returning what was replaced.
    #[wasm_bindgen(js_name = redactBlobWithFindings, unchecked_return_type = "BlobRedaction")]
    pub fn redact_blob_with_findings(&self, path: &str, data: &[u8]) -> Result<JsValue, JsValue> {
        let r = self.inner.redact_blob_with_findings(path, data);
        let output = js_sys::Uint8Array::from(r.output.as_ref());
        redaction_to_js(output.into(), &r.findings)
    }
}
