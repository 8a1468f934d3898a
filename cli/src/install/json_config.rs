//! A JSON (or JSON-with-comments) configuration file, edited in place: the
//! concrete syntax tree of `jsonc-parser` keeps every byte outside an edit
//! (comments, key order, indentation, newlines), and what is inserted takes
//! the file's own indentation.
//!
//! The agents' hook sections come in two shapes ([`Shape`]); ours are
//! recognised by the command they run ([`is_our_handler`]), never by their
//! position, so a user may move, reorder or add hooks freely.

use std::path::Path;

use agent_checkpoint::Error;
use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::Value;

use crate::hook::is_our_command;

/// What a configuration file may contain beyond RFC 8259 JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Plain JSON: the agent reads it with a strict JSON parser.
    Json,
    /// JSON with `//` and `/* */` comments (Gemini CLI strips comments
    /// before parsing); nothing else beyond JSON.
    JsonWithComments,
}

/// How an agent lays out its hooks under the top-level `hooks` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// `hooks.<event>` is a list of groups `{matcher?, hooks: [handler]}`
    /// (Claude Code, Codex, Gemini CLI).
    Grouped,
    /// `hooks.<event>` is a list of handlers, each with its own optional
    /// `matcher` (Cursor, Copilot CLI).
    Flat,
}

/// The key of the hooks section, in every agent's file.
const HOOKS: &str = "hooks";

/// A parsed configuration document.
pub(crate) struct JsonConfig {
    root: CstRootNode,
    /// The file's path, for messages.
    shown: String,
    /// Whether the file was absent or blank (what is written then ends
    /// with a newline).
    was_blank: bool,
}

impl JsonConfig {
    /// Parses `text` (the file at `path`; `None`: no file yet, an empty
    /// document). Text that is not valid in `dialect` is refused
    /// (`invalid_argument` naming the file, with the line and column), and
    /// so is a document whose top level is not an object.
    pub(crate) fn parse(path: &Path, text: Option<&str>, dialect: Dialect) -> Result<Self, Error> {
        let shown = path.to_string_lossy().into_owned();
        let text = text.unwrap_or("");
        let was_blank = text.trim().is_empty();
        let invalid = |reason: String| {
            Error::invalid_argument(
                shown.clone(),
                format!(
                    "is not valid {}: {reason}; nothing was changed",
                    dialect_name(dialect)
                ),
            )
        };
        if dialect == Dialect::Json && !was_blank {
            serde_json::from_str::<Value>(text).map_err(|e| invalid(e.to_string()))?;
        }
        let root = CstRootNode::parse(text, &parse_options(dialect))
            .map_err(|e| invalid(e.to_string()))?;
        if let Some(value) = root.value() {
            if value.as_object().is_none() {
                return Err(Error::invalid_argument(
                    shown,
                    "does not hold a JSON object at its top level; nothing was changed",
                ));
            }
        }
        Ok(JsonConfig {
            root,
            shown,
            was_blank,
        })
    }

    /// The document as a JSON value (`{}` for an empty document).
    pub(crate) fn value(&self) -> Value {
        self.root
            .object_value()
            .and_then(|object| object.to_serde_value())
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()))
    }

    /// The document's text, every untouched byte as it was read.
    pub(crate) fn to_text(&self) -> String {
        let mut text = self.root.to_string();
        if self.was_blank && !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    fn root_object(&self) -> CstObject {
        self.root.object_value_or_set()
    }

    /// Removes every hook handler of ours (see [`is_our_handler`]), with
    /// the group, event list and `hooks` object each removal leaves empty;
    /// whatever else is there stays. Returns whether anything was removed.
    pub(crate) fn remove_ours(&self, shape: Shape) -> bool {
        let Some(root) = self.root.object_value() else {
            return false;
        };
        let Some(hooks) = root.object_value(HOOKS) else {
            return false;
        };
        let mut removed_any = false;
        for event in hooks.properties() {
            let Some(entries) = event.array_value() else {
                continue;
            };
            let mut removed = false;
            for entry in entries.elements() {
                removed |= match shape {
                    Shape::Flat => remove_if_ours(entry),
                    Shape::Grouped => remove_ours_from_group(entry),
                };
            }
            if removed && entries.elements().is_empty() {
                event.remove();
            }
            removed_any |= removed;
        }
        if removed_any && hooks.properties().is_empty() {
            if let Some(prop) = root.get(HOOKS) {
                prop.remove();
            }
        }
        removed_any
    }

    /// Appends `entry` to the list of `event` under `hooks`, creating the
    /// `hooks` object and the list when missing. A `hooks` that is not an
    /// object, or an `event` that is not a list, is refused.
    pub(crate) fn append(&self, event: &str, entry: CstInputValue) -> Result<(), Error> {
        let root = self.root_object();
        let hooks = match root.get(HOOKS) {
            None => root.object_value_or_set(HOOKS),
            Some(prop) => prop
                .object_value()
                .ok_or_else(|| self.unexpected(&format!("its `{HOOKS}` is not an object")))?,
        };
        let list = match hooks.get(event) {
            None => hooks.array_value_or_set(event),
            Some(prop) => prop
                .array_value()
                .ok_or_else(|| self.unexpected(&format!("its `{HOOKS}.{event}` is not a list")))?,
        };
        list.append(entry);
        Ok(())
    }

    /// Sets the top-level `key` to `value` when the document has no `key`
    /// (Cursor's and Copilot's `"version": 1`). Returns whether it did.
    pub(crate) fn set_if_absent(&self, key: &str, value: CstInputValue) -> bool {
        let root = self.root_object();
        if root.get(key).is_some() {
            return false;
        }
        root.insert(0, key, value);
        true
    }

    /// Makes `object.key` (a top-level object and a member of it: Gemini
    /// CLI's `hooksConfig.enabled`) `true`, creating what is missing.
    /// Returns whether it changed anything.
    pub(crate) fn turn_on(&self, object: &str, key: &str) -> Result<bool, Error> {
        let root = self.root_object();
        let table = match root.get(object) {
            None => root.object_value_or_set(object),
            Some(prop) => prop
                .object_value()
                .ok_or_else(|| self.unexpected(&format!("its `{object}` is not an object")))?,
        };
        match table.get(key) {
            None => {
                table.append(key, CstInputValue::Bool(true));
                Ok(true)
            }
            Some(prop) => {
                if prop.value().and_then(|v| node_value(&v)) == Some(Value::Bool(true)) {
                    return Ok(false);
                }
                prop.set_value(CstInputValue::Bool(true));
                Ok(true)
            }
        }
    }

    fn unexpected(&self, what: &str) -> Error {
        Error::invalid_argument(
            self.shown.clone(),
            format!("is not laid out as the agent documents it: {what}; nothing was changed"),
        )
    }
}

/// Whether `handler` (one hook entry of any agent) runs our hook: one of
/// its `command`, `bash` or `powershell` strings, or its `exec` with its
/// `args`, is `agent-checkpoint hook ...`.
pub(crate) fn is_our_handler(handler: &Value) -> bool {
    let shell_ours = ["command", "bash", "powershell"]
        .iter()
        .filter_map(|key| handler.get(*key).and_then(Value::as_str))
        .any(is_our_command);
    let exec_ours = handler
        .get("exec")
        .and_then(Value::as_str)
        .is_some_and(|exec| {
            let args: Vec<&str> = handler
                .get("args")
                .and_then(Value::as_array)
                .map(|args| args.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            is_our_command(&format!("{exec} {}", args.join(" ")))
        });
    shell_ours || exec_ours
}

/// Our entries in `document` (a whole configuration), each with its event:
/// for [`Shape::Flat`] our handlers; for [`Shape::Grouped`] each group that
/// holds one of ours, its `hooks` list cut down to ours.
pub(crate) fn our_entries(document: &Value, shape: Shape) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let Some(hooks) = document.get(HOOKS).and_then(Value::as_object) else {
        return out;
    };
    for (event, entries) in hooks {
        let Some(entries) = entries.as_array() else {
            continue;
        };
        for entry in entries {
            match shape {
                Shape::Flat if is_our_handler(entry) => out.push((event.clone(), entry.clone())),
                Shape::Flat => {}
                Shape::Grouped => {
                    let Some(handlers) = entry.get(HOOKS).and_then(Value::as_array) else {
                        continue;
                    };
                    let ours: Vec<Value> = handlers
                        .iter()
                        .filter(|h| is_our_handler(h))
                        .cloned()
                        .collect();
                    if !ours.is_empty() {
                        let mut group = entry.clone();
                        group[HOOKS] = Value::Array(ours);
                        out.push((event.clone(), group));
                    }
                }
            }
        }
    }
    out
}

/// `input` as a JSON value.
pub(crate) fn to_value(input: &CstInputValue) -> Value {
    match input {
        CstInputValue::Null => Value::Null,
        CstInputValue::Bool(b) => Value::Bool(*b),
        CstInputValue::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        CstInputValue::String(s) => Value::String(s.clone()),
        CstInputValue::Array(items) => Value::Array(items.iter().map(to_value).collect()),
        CstInputValue::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), to_value(v)))
                .collect(),
        ),
    }
}

/// An ordered JSON object for [`JsonConfig::append`]: members are written
/// in the order given.
pub(crate) fn object(members: Vec<(&str, CstInputValue)>) -> CstInputValue {
    CstInputValue::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn remove_if_ours(entry: CstNode) -> bool {
    if node_value(&entry).is_some_and(|v| is_our_handler(&v)) {
        entry.remove();
        return true;
    }
    false
}

fn remove_ours_from_group(group: CstNode) -> bool {
    let Some(handlers) = group.as_object().and_then(|g| g.array_value(HOOKS)) else {
        return false;
    };
    let mut removed = false;
    for handler in handlers.elements() {
        removed |= remove_if_ours(handler);
    }
    if removed && handlers.elements().is_empty() {
        group.remove();
    }
    removed
}

fn node_value(node: &CstNode) -> Option<Value> {
    node.to_serde_value()
}

fn parse_options(dialect: Dialect) -> ParseOptions {
    ParseOptions {
        allow_comments: dialect == Dialect::JsonWithComments,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

fn dialect_name(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Json => "JSON",
        Dialect::JsonWithComments => "JSON (comments allowed)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> JsonConfig {
        JsonConfig::parse(Path::new("settings.json"), Some(text), Dialect::Json).expect("valid")
    }

    #[test]
    fn ours_are_cut_out_of_a_group_shared_with_theirs() {
        let text = r#"{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          { "type": "command", "command": "say done" },
          { "type": "command", "command": "/opt/bin/agent-checkpoint hook claude-code" }
        ]
      }
    ]
  }
}
"#;
        let doc = parse(text);
        let ours = our_entries(&doc.value(), Shape::Grouped);
        assert_eq!(ours.len(), 1);
        assert_eq!(ours[0].1["hooks"].as_array().map(Vec::len), Some(1));
        assert!(doc.remove_ours(Shape::Grouped));
        let left = doc.value();
        assert_eq!(left["hooks"]["Stop"][0]["hooks"][0]["command"], "say done");
        assert_eq!(
            left["hooks"]["Stop"][0]["hooks"].as_array().map(Vec::len),
            Some(1)
        );
        assert!(!doc.remove_ours(Shape::Grouped), "nothing more to remove");
    }

    #[test]
    fn handlers_are_ours_by_command_bash_powershell_or_exec() {
        let ours = |v: Value| is_our_handler(&v);
        assert!(ours(
            serde_json::json!({"command": "agent-checkpoint hook cursor"})
        ));
        assert!(ours(
            serde_json::json!({"bash": "agent-checkpoint hook copilot"})
        ));
        assert!(ours(
            serde_json::json!({"powershell": "agent-checkpoint.exe hook copilot"})
        ));
        assert!(ours(
            serde_json::json!({"exec": "agent-checkpoint", "args": ["hook", "copilot"]})
        ));
        assert!(!ours(
            serde_json::json!({"command": "agent-checkpoint rewind --list"})
        ));
        assert!(!ours(serde_json::json!({"command": "prettier --write"})));
        assert!(!ours(serde_json::json!({"matcher": "Bash"})));
    }
}
