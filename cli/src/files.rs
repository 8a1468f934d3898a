//! Reading inputs, writing outputs and formatting reports for the CLI.

use std::io::{Read, Write};
use std::path::Path;

use agent_checkpoint::{Error, RollbackReport};

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
    for u in &report.unrestored {
        out.push_str(&format!("UNRESTORED  {}: {}\n", u.path, u.reason));
    }
    out.push_str(&format!(
        "{} restored, {} unrestored: {}\n",
        report.restored.len(),
        report.unrestored.len(),
        if report.ok() { "ok" } else { "NOT ok" }
    ));
    out
}
