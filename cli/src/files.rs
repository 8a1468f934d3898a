//! Reading inputs, writing outputs and formatting reports for the CLI.

use std::io::{Read, Write};
use std::path::Path;

use agent_checkpoint::{CapturedPath, Error, PlanItem, RollbackReport};

/// A command-line path as UTF-8, or the core's `invalid_path` error.
pub fn utf8(path: &Path) -> Result<String, Error> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| Error::invalid_path(path.to_string_lossy(), "not valid UTF-8"))
}

/// The text of `file`, or stdin for `-`.
pub fn read_input(file: &Path) -> Result<String, Error> {
    let shown = file.to_string_lossy().into_owned();
    if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Error::io("<stdin>", e))?;
        return Ok(text);
    }
    std::fs::read_to_string(file).map_err(|e| Error::io(shown, e))
}

/// Writes `text` to `output`, or to stdout (with a final newline).
pub fn write_output(output: Option<&Path>, text: &str) -> Result<(), Error> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|e| Error::io(path.to_string_lossy(), e)),
        None => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}").map_err(|e| Error::io("<stdout>", e))
        }
    }
}

/// A rollback report, one fact per line.
pub fn format_report(report: &RollbackReport) -> String {
    let mut out = String::new();
    if let Some(e) = &report.error {
        out.push_str(&format!(
            "invalid snapshot [{}]: {e}\nnothing was touched\n",
            e.code()
        ));
        return out;
    }
    for path in &report.restored {
        out.push_str(&format!("restored    {path}\n"));
    }
    for path in &report.conflicts {
        out.push_str(&format!(
            "CONFLICT    {path}: changed after the batch, left as it is\n"
        ));
    }
    for u in &report.unrestored {
        out.push_str(&format!("UNRESTORED  {}: {}\n", u.path, u.reason));
    }
    out.push_str(&format!(
        "{} restored, {} unrestored, {} conflicts: {}\n",
        report.restored.len(),
        report.unrestored.len(),
        report.conflicts.len(),
        if report.ok() { "ok" } else { "NOT ok" }
    ));
    out
}

/// The key in `file` (its bytes, exactly), if a file was named.
pub fn read_key(file: Option<&Path>) -> Result<Option<Vec<u8>>, Error> {
    file.map(|f| std::fs::read(f).map_err(|e| Error::io(f.to_string_lossy(), e)))
        .transpose()
}

/// A rollback plan, one path per line: `action  path`.
pub fn format_plan(plan: &[PlanItem]) -> String {
    let mut out = String::new();
    for item in plan {
        let note = if item.conflict {
            "  (changed after the batch)"
        } else {
            ""
        };
        out.push_str(&format!(
            "{:<9} {}{note}\n",
            item.action.as_str(),
            item.path
        ));
    }
    out
}

/// A snapshot's contents, one path per line.
pub fn format_inspect(items: &[CapturedPath]) -> String {
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
    out
}
