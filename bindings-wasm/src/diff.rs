//! What a rollback would change at a path, as `planRollback(fs, text, {
//! diff: true })` shows it: `diff`, `diffSummary` and `hunks` on each item.
//!
//! There is no progress callback in this package: its calls are
//! synchronous (the JavaScript thread runs them), and
//! `wasm32-unknown-unknown` has no clock to throttle reports with.

use agent_checkpoint::PathDiff;
use wasm_bindgen::prelude::*;

use crate::snapshot::set;

/// One hunk line: `{ kind, text, oldLine?, newLine? }`.
fn line_to_js(line: &agent_checkpoint::DiffLine) -> Result<JsValue, JsValue> {
    let obj = js_sys::Object::new();
    set(&obj, "kind", &line.kind.as_str().into())?;
    set(&obj, "text", &line.text.as_str().into())?;
    if let Some(n) = line.old_line {
        set(&obj, "oldLine", &(n as f64).into())?;
    }
    if let Some(n) = line.new_line {
        set(&obj, "newLine", &(n as f64).into())?;
    }
    Ok(obj.into())
}

/// One hunk: `{ oldStart, oldLines, newStart, newLines, lines }`.
fn hunk_to_js(hunk: &agent_checkpoint::Hunk) -> Result<JsValue, JsValue> {
    let obj = js_sys::Object::new();
    set(&obj, "oldStart", &(hunk.old_start as f64).into())?;
    set(&obj, "oldLines", &(hunk.old_lines as f64).into())?;
    set(&obj, "newStart", &(hunk.new_start as f64).into())?;
    set(&obj, "newLines", &(hunk.new_lines as f64).into())?;
    let lines = js_sys::Array::new();
    for line in &hunk.lines {
        lines.push(&line_to_js(line)?);
    }
    set(&obj, "lines", &lines)?;
    Ok(obj.into())
}

/// Sets `diff` (the unified diff when there is a line diff, else the
/// summary), `diffSummary` (both `null` without a diff) and `hunks` (empty
/// without a line diff) on a plan item.
pub(crate) fn set_diff(item: &js_sys::Object, diff: Option<&PathDiff>) -> Result<(), JsValue> {
    let text = diff.map(|d| d.text.as_deref().unwrap_or(&d.summary));
    set(item, "diff", &text.map_or(JsValue::NULL, Into::into))?;
    set(
        item,
        "diffSummary",
        &diff.map_or(JsValue::NULL, |d| d.summary.as_str().into()),
    )?;
    let hunks = js_sys::Array::new();
    for hunk in diff.map(|d| d.hunks.as_slice()).unwrap_or_default() {
        hunks.push(&hunk_to_js(hunk)?);
    }
    set(item, "hunks", &hunks)
}
