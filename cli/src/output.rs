//! What the commands print: text for people, or one JSON document with
//! `--json` (the shapes of the core's `serde` feature; documented in the
//! README).

use std::io::Write;

use agent_checkpoint::{CapRoot, CapturedPath, Error, Plan, PlanAction, RollbackReport};
use serde::Serialize;

/// Prints `value` as one JSON document on stdout.
pub fn print_json<T: Serialize + ?Sized>(value: &T) -> Result<(), Error> {
    print_text(&to_json(value)?)
}

/// `value` as one pretty JSON document and a newline.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::io("<stdout>", std::io::Error::other(e)))?;
    Ok(format!("{text}\n"))
}

/// Prints `text` on stdout.
pub fn print_text(text: &str) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// Prints an error on stderr: `error[<code>]: <message>`, or with `--json`
/// `{"error": {"code", "category", "message", "path"}}`.
pub fn print_error(e: &Error, json: bool) {
    if json {
        let doc = serde_json::json!({"error": {
            "code": e.code().as_str(),
            "category": e.category().as_str(),
            "message": e.to_string(),
            "path": e.path(),
        }});
        eprintln!("{doc}");
    } else {
        eprintln!("error[{}]: {e}", e.code());
    }
}

/// A warning on stderr when a snapshot was taken under another root.
pub fn warn_other_root(other: Option<&str>, root: &CapRoot, json: bool) {
    use agent_checkpoint::Root as _;
    if let (Some(other), false) = (other, json) {
        let here = root.canonical_path().unwrap_or_else(|| "this root".into());
        eprintln!(
            "warning: the snapshot was taken under {other}, not under {here} (--strict-root refuses such a snapshot)"
        );
    }
}

/// `n thing` or `n things`.
pub fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("{n} {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// A rollback report, one fact per line, or its JSON.
pub fn print_report(report: &RollbackReport, json: bool) -> Result<(), Error> {
    if json {
        return print_json(report);
    }
    print_text(&format_report(report))
}

/// The text form of a rollback report.
pub fn format_report(report: &RollbackReport) -> String {
    let mut out = String::new();
    for path in &report.restored {
        out.push_str(&format!("restored    {path}\n"));
    }
    for path in &report.conflicts {
        out.push_str(&format!(
            "CONFLICT    {path}: changed after the batch, left as it is\n"
        ));
    }
    for u in &report.unrestored {
        out.push_str(&format!(
            "UNRESTORED  {} [{}]: {}\n",
            u.path, u.code, u.reason
        ));
    }
    for n in &report.not_covered {
        out.push_str(&format!(
            "NOT COVERED {} [{}]: {} bytes, skipped by the capture; left as it is\n",
            n.path, n.code, n.size
        ));
    }
    for n in &report.not_in_redo {
        out.push_str(&format!(
            "not in redo {} [{}]: {}\n",
            n.path, n.code, n.reason
        ));
    }
    out.push_str(&format!(
        "{} restored, {} unrestored, {}: {}\n",
        report.restored.len(),
        report.unrestored.len(),
        count(report.conflicts.len(), "conflict"),
        if report.ok() { "ok" } else { "NOT ok" }
    ));
    out
}

/// A rollback plan, one path per line (`action  path  (why)`), or its JSON.
pub fn print_plan(plan: &Plan, json: bool) -> Result<(), Error> {
    if json {
        return print_json(plan);
    }
    print_text(&format_plan(plan))
}

/// The text form of a rollback plan.
pub fn format_plan(plan: &Plan) -> String {
    let mut out = String::new();
    for item in &plan.items {
        let mut notes = Vec::new();
        if item.conflict && item.action != PlanAction::Conflict {
            notes.push("changed after the batch".to_owned());
        }
        if let Some(code) = item.code {
            notes.push(format!("[{code}]"));
        }
        if let Some(reason) = &item.reason {
            notes.push(reason.clone());
        }
        let note = if notes.is_empty() {
            String::new()
        } else {
            format!("  ({})", notes.join(" "))
        };
        out.push_str(&format!(
            "{:<9} {}{note}\n",
            item.action.as_str(),
            item.path
        ));
    }
    out
}

/// A snapshot's contents, one path per line, or their JSON.
pub fn print_inspect(items: &[CapturedPath], json: bool) -> Result<(), Error> {
    if json {
        return print_json(items);
    }
    let mut out = String::new();
    for item in items {
        let mut line = format!("{:<5} {}", item.kind.as_str(), item.path);
        if let Some(size) = item.size {
            line.push_str(&format!("  {size} bytes"));
        }
        if let Some(mode) = item.mode {
            line.push_str(&format!("  mode {mode:o}"));
        }
        if let Some(target) = &item.link_target {
            line.push_str(&format!("  -> {target}"));
        }
        if let Some(digest) = &item.digest {
            line.push_str(&format!("  sha256 {digest}"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    print_text(&out)
}

/// Lines of text, or a JSON array of them.
pub fn print_lines(lines: &[String], json: bool) -> Result<(), Error> {
    if json {
        return print_json(lines);
    }
    let mut out = String::new();
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    print_text(&out)
}
