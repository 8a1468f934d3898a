//! The line diff of two texts: hunks with line numbers and the unified text.

use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

use super::{DiffLine, DiffLineKind, Hunk, Instant};

/// A line diff: its hunks, the unified text (headers included) and counts.
pub(crate) struct LineDiff {
    pub(crate) hunks: Vec<Hunk>,
    pub(crate) text: String,
    pub(crate) added: usize,
    pub(crate) removed: usize,
}

/// The diff from `old` to `new`, `context` unchanged lines around each
/// change, under the headers `old_name` / `new_name`. `None` when the lines
/// are the same. Past `deadline` the search for the smallest diff stops and
/// what is left shows as removed and added lines.
pub(crate) fn line_diff(
    old: &str,
    new: &str,
    old_name: &str,
    new_name: &str,
    context: usize,
    deadline: Option<Instant>,
) -> Option<LineDiff> {
    let mut config = TextDiff::configure();
    if let Some(deadline) = deadline {
        config.deadline(deadline);
    }
    let diff = config.diff_lines(old, new);
    // More context than either side has lines shows the same hunks, and
    // keeps the grouping's arithmetic (`2 * context`) from overflowing.
    let lines = diff.old_slices().len().max(diff.new_slices().len());
    let groups = diff.grouped_ops(context.min(lines));
    if groups.is_empty() {
        return None;
    }
    let mut out = LineDiff {
        hunks: Vec::with_capacity(groups.len()),
        text: format!("--- {old_name}\n+++ {new_name}\n"),
        added: 0,
        removed: 0,
    };
    for group in &groups {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (old_from, old_to) = (first.old_range().start, last.old_range().end);
        let (new_from, new_to) = (first.new_range().start, last.new_range().end);
        let mut hunk = Hunk {
            old_start: start(old_from, old_to),
            old_lines: old_to - old_from,
            new_start: start(new_from, new_to),
            new_lines: new_to - new_from,
            lines: Vec::new(),
        };
        let _ = writeln!(
            out.text,
            "@@ -{} +{} @@",
            range(hunk.old_start, hunk.old_lines),
            range(hunk.new_start, hunk.new_lines)
        );
        for op in group {
            for change in diff.iter_changes(op) {
                let kind = match change.tag() {
                    ChangeTag::Equal => DiffLineKind::Context,
                    ChangeTag::Delete => {
                        out.removed += 1;
                        DiffLineKind::Removed
                    }
                    ChangeTag::Insert => {
                        out.added += 1;
                        DiffLineKind::Added
                    }
                };
                let value = change.value();
                out.text.push(kind.marker());
                out.text.push_str(value);
                if !value.ends_with('\n') {
                    out.text.push_str("\n\\ No newline at end of file\n");
                }
                let text = value.strip_suffix('\n').unwrap_or(value);
                hunk.lines.push(DiffLine {
                    kind,
                    text: text.strip_suffix('\r').unwrap_or(text).to_owned(),
                    old_line: change.old_index().map(|i| i + 1),
                    new_line: change.new_index().map(|i| i + 1),
                });
            }
        }
        out.hunks.push(hunk);
    }
    Some(out)
}

/// The 1-based first line of a range, or the line before it when it is
/// empty (as `diff -u` writes it).
fn start(from: usize, to: usize) -> usize {
    if to > from {
        from + 1
    } else {
        from
    }
}

/// `start,count`, or `start` alone for one line.
fn range(start: usize, count: usize) -> String {
    if count == 1 {
        start.to_string()
    } else {
        format!("{start},{count}")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_changed_line_in_the_middle() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        let d = line_diff(old, new, "a/x", "b/x", 1, None).unwrap();
        assert_eq!(
            d.text,
            "--- a/x\n+++ b/x\n@@ -4,3 +4,3 @@\n d\n-e\n+E\n f\n"
        );
        assert_eq!((d.added, d.removed), (1, 1));
        let lines = &d.hunks[0].lines;
        assert_eq!(lines[1].old_line, Some(5));
        assert_eq!(lines[1].new_line, None);
        assert_eq!(lines[2].new_line, Some(5));
    }

    #[test]
    fn from_nothing_and_without_a_final_newline() {
        let d = line_diff("", "x\ny", "/dev/null", "b/n", 3, None).unwrap();
        assert_eq!(
            d.text,
            "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n"
        );
        assert_eq!(d.hunks[0].lines[1].text, "y");
        assert!(line_diff("same\n", "same\n", "a", "b", 3, None).is_none());
    }

    #[test]
    fn crlf_lines_keep_their_bytes_in_the_text_only() {
        let d = line_diff("a\r\n", "b\r\n", "a/w", "b/w", 0, None).unwrap();
        assert!(d.text.contains("-a\r\n+b\r\n"));
        assert_eq!(d.hunks[0].lines[0].text, "a");
    }
}
