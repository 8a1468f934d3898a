//! The JSON Schemas of the tools' inputs and outputs (draft 2020-12, as
//! MCP asks), generated from the Rust types with `schemars`.
//!
//! An output schema is "the result, or a tool error": clients such as the
//! TypeScript SDK check `structuredContent` against `outputSchema` even on
//! an error result, so both shapes must be in it.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Value};

use crate::outcome::ToolError;

fn object_schema<T: JsonSchema>(settings: SchemaSettings) -> JsonObject {
    let schema = settings.into_generator().into_root_schema_for::<T>();
    match serde_json::to_value(schema) {
        Ok(Value::Object(mut object)) => {
            // The type's name and doc are noise to a model; the fields speak.
            object.remove("title");
            object.remove("description");
            for value in object.values_mut() {
                tidy(value);
            }
            object
        }
        _ => JsonObject::new(),
    }
}

/// Removes schemars' Rust-width formats (`uint32`, `int64`, `double`, ...):
/// they are not JSON Schema formats, and validators (ajv in the TypeScript
/// SDK) warn about each; `minimum` still says an integer is unsigned. Joins
/// the lines of doc comments in descriptions (paragraphs stay apart).
fn tidy(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let numeric = object
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| {
                    f.starts_with("int") || f.starts_with("uint") || f == "float" || f == "double"
                });
            if numeric {
                object.remove("format");
            }
            if let Some(Value::String(text)) = object.get_mut("description") {
                *text = text
                    .split("\n\n")
                    .map(|paragraph| paragraph.replace('\n', " "))
                    .collect::<Vec<_>>()
                    .join("\n\n");
            }
            object.values_mut().for_each(tidy);
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// The input schema of a tool whose arguments are `T`.
pub(crate) fn input_schema<T: JsonSchema>() -> Arc<JsonObject> {
    Arc::new(object_schema::<T>(SchemaSettings::draft2020_12()))
}

/// The output schema of a tool whose result is `T`: `T` or a [`ToolError`].
pub(crate) fn output_schema<T: JsonSchema>() -> Arc<JsonObject> {
    let settings = SchemaSettings::draft2020_12().for_serialize();
    let mut success = object_schema::<T>(settings.clone());
    let mut error = object_schema::<ToolError>(settings);
    let dialect = success.remove("$schema");
    error.remove("$schema");
    let mut defs = match success.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => JsonObject::new(),
    };
    if let Some(Value::Object(error_defs)) = error.remove("$defs") {
        defs.extend(error_defs);
    }
    defs.insert("ToolError".into(), Value::Object(error));
    let mut out = JsonObject::new();
    if let Some(dialect) = dialect {
        out.insert("$schema".into(), dialect);
    }
    out.insert("type".into(), json!("object"));
    out.insert(
        "anyOf".into(),
        json!([Value::Object(success), {"$ref": "#/$defs/ToolError"}]),
    );
    out.insert("$defs".into(), Value::Object(defs));
    Arc::new(out)
}
