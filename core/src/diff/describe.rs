//! The description of one planned change: a line diff where one can be
//! shown, one line otherwise.

use super::lines::line_diff;
use super::{DiffOptions, Instant, PathDiff};
use crate::error::{Error, Result};
use crate::observe::Now;
use crate::plan::decide::{Decision, Step};
use crate::root::Root;

/// What `decision` would change, or `None` for a path it leaves alone.
/// The line diff stops searching for the smallest diff at `deadline`.
///
/// # Errors
/// An I/O error reading the current file (other than its being too large or
/// gone, which the description says).
pub(crate) fn describe<R: Root + ?Sized>(
    root: &R,
    decision: &Decision<'_>,
    options: &DiffOptions,
    deadline: Option<Instant>,
) -> Result<Option<PathDiff>> {
    let limits = Limits { options, deadline };
    let path = decision.path.as_str();
    let now = decision.now.as_ref().unwrap_or(&Now::Absent);
    Ok(Some(match &decision.step {
        Step::WriteFile { bytes, mode, .. } => match now {
            Now::File { meta, .. } => {
                let current = read_bounded(root, decision, meta.len, options.max_bytes)?;
                let wanted = Wanted { bytes, mode: *mode };
                modified(
                    path,
                    current.as_deref(),
                    meta.len,
                    meta.mode,
                    &wanted,
                    &limits,
                )
            }
            Now::Absent => created(path, bytes, &limits),
            Now::Symlink { target, .. } => one_line(format!(
                "type change: {} -> {}",
                symlink(target.as_deref()),
                file_of(bytes.len() as u64)
            )),
            Now::Dir(_) => one_line(format!(
                "type change: empty directory -> {}",
                file_of(bytes.len() as u64)
            )),
            Now::Other(_) => one_line(format!(
                "type change: special file -> {}",
                file_of(bytes.len() as u64)
            )),
        },
        Step::WriteLink { target, .. } => one_line(match now {
            Now::Symlink {
                target: current, ..
            } => {
                format!(
                    "symlink target {} -> {target}",
                    current.as_deref().unwrap_or("(unreadable)")
                )
            }
            Now::Absent => format!("new symlink to {target}"),
            Now::File { meta, .. } => {
                format!("type change: {} -> symlink to {target}", file_of(meta.len))
            }
            Now::Dir(_) => format!("type change: empty directory -> symlink to {target}"),
            Now::Other(_) => format!("type change: special file -> symlink to {target}"),
        }),
        Step::RemoveFile => one_line(match now {
            Now::File { meta, .. } => format!("remove {}", file_of(meta.len)),
            Now::Symlink { target, .. } => format!("remove {}", symlink(target.as_deref())),
            _ => "remove special file".to_owned(),
        }),
        Step::RemoveDir => one_line("remove empty directory".to_owned()),
        Step::Keep | Step::Conflict | Step::Refuse(_) | Step::Unlooked(_) => return Ok(None),
    }))
}

/// How much a description may show and how long it may search.
struct Limits<'a> {
    options: &'a DiffOptions,
    deadline: Option<Instant>,
}

/// What the rollback would write.
struct Wanted<'a> {
    bytes: &'a [u8],
    mode: u32,
}

/// The current bytes when the file holds at most `max` (`None` over it or
/// when it changed into something else meanwhile).
fn read_bounded<R: Root + ?Sized>(
    root: &R,
    decision: &Decision<'_>,
    len: u64,
    max: u64,
) -> Result<Option<Vec<u8>>> {
    if len > max {
        return Ok(None);
    }
    match root.read_file(&decision.path, Some(max)) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(Error::TooLarge { .. } | Error::NotAFile { .. } | Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

fn modified(
    path: &str,
    current: Option<&[u8]>,
    current_len: u64,
    current_mode: u32,
    wanted: &Wanted<'_>,
    limits: &Limits<'_>,
) -> PathDiff {
    let options = limits.options;
    let (from, to) = (current_mode & 0o7777, wanted.mode & 0o7777);
    let mode = (from != to).then(|| format!("mode {from:o} -> {to:o}"));
    let with_mode = |summary: String| match &mode {
        Some(m) => format!("{summary}, {m}"),
        None => summary,
    };
    let wanted_len = wanted.bytes.len() as u64;
    let Some(current) = current.filter(|_| wanted_len <= options.max_bytes) else {
        return one_line(with_mode(format!(
            "{} -> {} (over the diff limit of {})",
            bytes(current_len),
            bytes(wanted_len),
            bytes(options.max_bytes)
        )));
    };
    if current == wanted.bytes {
        return one_line(
            mode.unwrap_or_else(|| "rewritten, content and mode unchanged".to_owned()),
        );
    }
    let (Some(old), Some(new)) = (text(current), text(wanted.bytes)) else {
        return one_line(with_mode(format!(
            "binary file, {} -> {}",
            bytes(current.len() as u64),
            bytes(wanted_len)
        )));
    };
    let (a, b) = (format!("a/{path}"), format!("b/{path}"));
    match line_diff(old, new, &a, &b, options.context, limits.deadline) {
        Some(d) => PathDiff {
            summary: with_mode(format!("+{} -{}", d.added, d.removed)),
            text: Some(d.text),
            hunks: d.hunks,
            added: d.added,
            removed: d.removed,
        },
        None => one_line(with_mode("rewritten".to_owned())),
    }
}

fn created(path: &str, wanted: &[u8], limits: &Limits<'_>) -> PathDiff {
    let options = limits.options;
    let new = text(wanted).filter(|_| wanted.len() as u64 <= options.max_bytes);
    let b = format!("b/{path}");
    let diff =
        new.and_then(|new| line_diff("", new, "/dev/null", &b, options.context, limits.deadline));
    match diff {
        Some(d) => PathDiff {
            summary: format!("new file, {}", count(d.added as u64, "line")),
            text: Some(d.text),
            hunks: d.hunks,
            added: d.added,
            removed: 0,
        },
        None => one_line(format!("new {}", file_of(wanted.len() as u64))),
    }
}

/// A description with no line diff.
fn one_line(summary: String) -> PathDiff {
    PathDiff {
        summary,
        text: None,
        hunks: Vec::new(),
        added: 0,
        removed: 0,
    }
}

/// The bytes as text, unless they look binary (a NUL in the first 8000
/// bytes, as git decides, or not UTF-8).
fn text(bytes: &[u8]) -> Option<&str> {
    if bytes.iter().take(8000).any(|&b| b == 0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

fn file_of(len: u64) -> String {
    format!("file of {}", bytes(len))
}

fn symlink(target: Option<&str>) -> String {
    match target {
        Some(t) => format!("symlink to {t}"),
        None => "symlink".to_owned(),
    }
}

fn bytes(n: u64) -> String {
    count(n, "byte")
}

fn count(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
