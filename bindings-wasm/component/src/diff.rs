//! The WIT spellings of the core's plan diffs (`diff-options`, `path-diff`,
//! `hunk`, `diff-line`).
//!
//! Numbers the WIT world carries as `u32` saturate: a file of more than
//! 4 294 967 295 lines cannot be read under any size limit a component has.

use agent_checkpoint::DiffLineKind as Kind;

use crate::bindings::{DiffLine, DiffLineKind, DiffOptions, Hunk, PathDiff};

/// A count or a line number as WIT's `u32`.
fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The core's diff options.
pub fn diff_options(options: DiffOptions) -> agent_checkpoint::DiffOptions {
    agent_checkpoint::DiffOptions::default()
        .with_context(usize::try_from(options.context).unwrap_or(usize::MAX))
        .with_max_bytes(options.max_bytes)
}

/// One path's change in WIT.
pub fn path_diff(diff: agent_checkpoint::PathDiff) -> PathDiff {
    PathDiff {
        summary: diff.summary,
        text: diff.text,
        hunks: diff.hunks.into_iter().map(hunk).collect(),
    }
}

fn hunk(hunk: agent_checkpoint::Hunk) -> Hunk {
    Hunk {
        old_start: u32_of(hunk.old_start),
        old_lines: u32_of(hunk.old_lines),
        new_start: u32_of(hunk.new_start),
        new_lines: u32_of(hunk.new_lines),
        lines: hunk.lines.into_iter().map(line).collect(),
    }
}

fn line(line: agent_checkpoint::DiffLine) -> DiffLine {
    DiffLine {
        kind: match line.kind {
            Kind::Context => DiffLineKind::Context,
            Kind::Removed => DiffLineKind::Removed,
            // `added`, and any kind a newer core adds.
            _ => DiffLineKind::Added,
        },
        text: line.text,
        old_line: line.old_line.map(u32_of),
        new_line: line.new_line.map(u32_of),
    }
}
