//! What `install` and `uninstall` would change, computed before anything
//! is written: every file's old and new text. Nothing here writes.

use std::path::PathBuf;

use agent_checkpoint::Error;
use jsonc_parser::cst::CstInputValue;
use serde_json::Value;

use super::agents::{config_path, format_of};
use super::codex_feature::{self, FlagState};
use super::config_file::read_optional;
use super::hook_format::HookFormat;
use super::json_config::{our_entries, JsonConfig};
use super::places::{Places, Scope};
use crate::hook::Agent;

/// One file a change touches.
#[derive(Debug, Clone)]
pub(crate) struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// Its text now (`None`: there is no file).
    pub old: Option<String>,
    /// Its text after the change (`None`: the file is deleted).
    pub new: Option<String>,
}

/// The change `install` or `uninstall` would make for one agent and scope.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The agent.
    pub agent: Agent,
    /// The scope.
    pub scope: Scope,
    /// The hook configuration file (changed or not).
    pub config: PathBuf,
    /// The files whose text would change (none: nothing to do).
    pub changes: Vec<FileChange>,
    /// What the user should know (Codex's trust review, a switch turned on).
    pub notes: Vec<String>,
}

/// What `install` would change: our entries written once (those already
/// there and current are left byte for byte; stale ones are replaced), and
/// the agent's hooks switch turned on.
pub(crate) fn install_plan(agent: Agent, scope: Scope, places: &Places) -> Result<Plan, Error> {
    let format = format_of(agent);
    let path = config_path(agent, scope, places)?;
    let old = read_optional(&path)?;
    let doc = JsonConfig::parse(&path, old.as_deref(), format.dialect)?;
    let mut notes = Vec::new();
    if !compare(&format, &doc.value()).is_current() {
        doc.remove_ours(format.shape);
        for (event, entry) in format.entries() {
            doc.append(event, entry)?;
        }
    }
    if let Some((key, version)) = format.required_member {
        doc.set_if_absent(key, CstInputValue::from(version));
    }
    if let Some((object, key)) = format.switch {
        if doc.turn_on(object, key)? {
            notes.push(format!(
                "set {object}.{key} to true: the agent runs no hook without it"
            ));
        }
    }
    let mut changes = Vec::new();
    if agent == Agent::Codex {
        let flag_path = super::codex::feature_config_path(&path);
        let flag_old = read_optional(&flag_path)?;
        if let Some(flag_new) = codex_feature::turn_on(&flag_path, flag_old.as_deref())? {
            notes.push(format!(
                "turned Codex's hooks feature on in {}",
                flag_path.display()
            ));
            changes.push(FileChange {
                path: flag_path,
                old: flag_old,
                new: Some(flag_new),
            });
        }
        notes.push(super::codex::TRUST_NOTE.to_owned());
    }
    push_if_changed(&mut changes, path.clone(), old, Some(doc.to_text()));
    Ok(Plan {
        agent,
        scope,
        config: path,
        changes,
        notes,
    })
}

/// What `uninstall` would change: our entries removed, with what their
/// removal leaves empty; every other hook and setting kept. A file that
/// holds only ours (Copilot's) is deleted once they are gone.
pub(crate) fn uninstall_plan(agent: Agent, scope: Scope, places: &Places) -> Result<Plan, Error> {
    let format = format_of(agent);
    let path = config_path(agent, scope, places)?;
    let old = read_optional(&path)?;
    let mut changes = Vec::new();
    if old.is_some() {
        let doc = JsonConfig::parse(&path, old.as_deref(), format.dialect)?;
        if doc.remove_ours(format.shape) {
            let new = if format.file_is_ours && holds_nothing_else(&format, &doc.value()) {
                None
            } else {
                Some(doc.to_text())
            };
            push_if_changed(&mut changes, path.clone(), old, new);
        }
    }
    Ok(Plan {
        agent,
        scope,
        config: path,
        changes,
        notes: Vec::new(),
    })
}

fn push_if_changed(
    changes: &mut Vec<FileChange>,
    path: PathBuf,
    old: Option<String>,
    new: Option<String>,
) {
    if old != new {
        changes.push(FileChange { path, old, new });
    }
}

/// Whether `document` holds nothing but what `install` writes around our
/// entries (`version`, an empty `hooks`).
fn holds_nothing_else(format: &HookFormat, document: &Value) -> bool {
    let Some(members) = document.as_object() else {
        return true;
    };
    members.iter().all(|(key, value)| {
        format
            .required_member
            .is_some_and(|(required, _)| key == required)
            || (key == "hooks" && value.as_object().is_some_and(serde_json::Map::is_empty))
    })
}

/// How a file's entries of ours compare with what `install` writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Comparison {
    /// How many entries of ours the file holds.
    pub found: usize,
    /// The events whose entry `install` writes and the file lacks (or holds
    /// changed).
    pub missing: Vec<String>,
    /// The events with an entry of ours that `install` would not write.
    pub unexpected: Vec<String>,
}

impl Comparison {
    /// The file holds exactly what `install` writes.
    pub(crate) fn is_current(&self) -> bool {
        self.found > 0 && self.missing.is_empty() && self.unexpected.is_empty()
    }
}

/// Compares the entries of ours in `document` with `format`'s.
pub(crate) fn compare(format: &HookFormat, document: &Value) -> Comparison {
    let mut found = our_entries(document, format.shape);
    let count = found.len();
    let mut missing = Vec::new();
    for expected in format.expected() {
        match found.iter().position(|entry| *entry == expected) {
            Some(at) => {
                found.swap_remove(at);
            }
            None => missing.push(expected.0),
        }
    }
    Comparison {
        found: count,
        missing,
        unexpected: found.into_iter().map(|(event, _)| event).collect(),
    }
}

/// The state of Codex's feature flag beside `hooks_json`.
pub(crate) fn codex_flag(hooks_json: &std::path::Path) -> Result<FlagState, Error> {
    let flag_path = super::codex::feature_config_path(hooks_json);
    let text = read_optional(&flag_path)?;
    codex_feature::flag_state(&flag_path, text.as_deref())
}
