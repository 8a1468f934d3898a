//! Carrying a [`Plan`] out (or, with `--dry-run`, only showing it) and
//! reporting what was done: text, or one JSON document with `--json`.

use std::path::PathBuf;

use agent_checkpoint::Error;
use serde::Serialize;

use super::config_file;
use super::plan::{FileChange, Plan};
use super::unified_diff::unified_diff;
use crate::output;

/// What happened to one file.
#[derive(Debug, Serialize)]
struct FileReport {
    path: PathBuf,
    /// `create`, `update` or `delete`.
    action: &'static str,
    /// The copy of the old file, when there was one and the change was made.
    backup: Option<PathBuf>,
    /// The change as a unified diff.
    diff: String,
}

/// What `install` or `uninstall` did (or, dry, would do).
#[derive(Debug, Serialize)]
struct Report {
    command: &'static str,
    agent: &'static str,
    scope: &'static str,
    config: PathBuf,
    dry_run: bool,
    changed: bool,
    files: Vec<FileReport>,
    notes: Vec<String>,
}

/// Which command a plan comes from, for the report.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Command {
    /// `install`.
    Install,
    /// `uninstall`.
    Uninstall,
}

/// Writes `plan`'s changes (none with `dry_run`) and prints the report.
/// Every file's new text was computed before the first write, so a refused
/// file changes nothing; the files are written in the plan's order (Codex:
/// the feature flag before the hooks).
pub(crate) fn apply(plan: Plan, command: Command, dry_run: bool, json: bool) -> Result<(), Error> {
    let mut files = Vec::new();
    for change in &plan.changes {
        let diff = unified_diff(&change.path, change.old.as_deref(), change.new.as_deref());
        let backup = if dry_run { None } else { write(change)? };
        files.push(FileReport {
            path: change.path.clone(),
            action: action(change),
            backup,
            diff,
        });
    }
    let report = Report {
        command: match command {
            Command::Install => "install",
            Command::Uninstall => "uninstall",
        },
        agent: plan.agent.name(),
        scope: plan.scope.name(),
        config: plan.config,
        dry_run,
        changed: !files.is_empty() && !dry_run,
        files,
        notes: plan.notes,
    };
    if json {
        return output::print_json(&report);
    }
    output::print_text(&text(&report, command))
}

fn write(change: &FileChange) -> Result<Option<PathBuf>, Error> {
    match &change.new {
        Some(text) => config_file::replace(&change.path, text),
        None => config_file::remove(&change.path).map(Some),
    }
}

fn action(change: &FileChange) -> &'static str {
    match (&change.old, &change.new) {
        (None, _) => "create",
        (Some(_), Some(_)) => "update",
        (Some(_), None) => "delete",
    }
}

fn text(report: &Report, command: Command) -> String {
    let mut out = String::new();
    let who = format!("{} ({})", report.agent, report.scope);
    if report.files.is_empty() {
        let state = match command {
            Command::Install => "already installed and current",
            Command::Uninstall => "not installed, nothing to remove",
        };
        out.push_str(&format!("{who}: {state}: {}\n", report.config.display()));
    }
    for file in &report.files {
        if report.dry_run {
            out.push_str(&file.diff);
            continue;
        }
        let verb = match file.action {
            "create" => "created",
            "delete" => "deleted",
            _ => "updated",
        };
        out.push_str(&format!("{who}: {verb} {}", file.path.display()));
        if let Some(backup) = &file.backup {
            out.push_str(&format!(" (backup: {})", backup.display()));
        }
        out.push('\n');
    }
    if report.dry_run && !report.files.is_empty() {
        out.push_str(&format!("{who}: dry run, nothing was written\n"));
    }
    for note in &report.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}
