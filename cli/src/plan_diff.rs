//! `plan --diff`: each change as a unified diff (or one line), colored as
//! git colors it when stdout is a terminal, and a summary line.

use std::io::IsTerminal;

use agent_checkpoint::{DiffOptions, Plan, PlanAction, DEFAULT_DIFF_MAX_BYTES};

use crate::output;

/// The diff arguments of `plan`.
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// Show what each change would be: a unified diff from the current
    /// file to the captured one, or one line where no line diff can be shown.
    #[arg(long)]
    diff: bool,
    /// Unchanged lines around each change (with --diff).
    #[arg(short = 'U', long, default_value_t = 3, value_name = "LINES")]
    context: usize,
    /// Files larger than this get one line instead of a diff (with --diff).
    #[arg(long, default_value_t = DEFAULT_DIFF_MAX_BYTES, value_name = "BYTES")]
    diff_max_bytes: u64,
    /// Color the diff: `auto` when stdout is a terminal (and NO_COLOR is unset).
    #[arg(long, value_enum, default_value = "auto", value_name = "WHEN")]
    color: ColorArg,
}

/// When to color.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    /// When stdout is a terminal and NO_COLOR is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl DiffArgs {
    /// The core's diff options, when `--diff` was given.
    pub fn options(&self) -> Option<DiffOptions> {
        self.diff.then(|| {
            DiffOptions::default()
                .with_context(self.context)
                .with_max_bytes(self.diff_max_bytes)
        })
    }

    /// Whether to color what goes to stdout.
    pub fn colored(&self) -> bool {
        match self.color {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => {
                std::io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }
}

const RESET: &str = "\x1b[m";
const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";

/// The plan with each change's diff below its line, and the summary
/// `N files, +A -R lines` (`N files, M directories, ...` when the plan
/// prunes directories: they are not counted as files).
pub fn format(plan: &Plan, color: bool) -> String {
    let paint = |code: &str, line: &str| {
        if color {
            format!("{code}{line}{RESET}\n")
        } else {
            format!("{line}\n")
        }
    };
    let mut out = String::new();
    let (mut files, mut dirs, mut added, mut removed) = (0, 0, 0, 0);
    let lines = output::format_plan(plan);
    for (item, line) in plan.items.iter().zip(lines.lines()) {
        let Some(diff) = &item.diff else {
            out.push_str(&visible(line));
            out.push('\n');
            continue;
        };
        if item.action == PlanAction::Rmdir {
            dirs += 1;
        } else {
            files += 1;
        }
        added += diff.added;
        removed += diff.removed;
        out.push_str(&paint(
            BOLD,
            &visible(&format!("{line}  ({})", diff.summary)),
        ));
        for text in diff.text.iter().flat_map(|t| t.lines()) {
            let text = &visible(text);
            let code = match text.as_bytes().first() {
                _ if text.starts_with("--- ") || text.starts_with("+++ ") => BOLD,
                Some(b'@') => CYAN,
                Some(b'-') => RED,
                Some(b'+') => GREEN,
                _ => "",
            };
            if code.is_empty() {
                out.push_str(text);
                out.push('\n');
            } else {
                out.push_str(&paint(code, text));
            }
        }
    }
    let dirs = if dirs == 0 {
        String::new()
    } else if dirs == 1 {
        ", 1 directory".to_owned()
    } else {
        format!(", {dirs} directories")
    };
    out.push_str(&format!(
        "{}{dirs}, +{added} -{removed} lines\n",
        output::count(files, "file")
    ));
    out
}

/// `line` with control characters (other than tab) spelled out, so a file's
/// content cannot move the cursor, recolor or retitle the terminal.
fn visible(line: &str) -> String {
    if !line.chars().any(|c| c.is_control() && c != '\t') {
        return line.to_owned();
    }
    line.chars()
        .map(|c| match c {
            '\t' => c.to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::{format, visible};
    use agent_checkpoint::root::ambient_authority;
    use agent_checkpoint::{CapRoot, PlanOptions};

    #[test]
    fn pruned_directories_are_not_counted_as_files() {
        let tmp = tempfile::tempdir().unwrap();
        let root = CapRoot::open(tmp.path(), ambient_authority()).unwrap();
        let snapshot =
            agent_checkpoint::capture(&root, ["gen/deep/new.txt"], &Default::default()).unwrap();
        std::fs::create_dir_all(tmp.path().join("gen/deep")).unwrap();
        std::fs::write(tmp.path().join("gen/deep/new.txt"), "x\n").unwrap();
        let snapshot = snapshot.parse(&Default::default()).unwrap();
        let options = PlanOptions::default().with_diff(Some(Default::default()));
        let plan = agent_checkpoint::plan_rollback(&root, &snapshot, &options).unwrap();
        let text = format(&plan, false);
        let summary = text.lines().last().unwrap();
        assert_eq!(summary, "1 file, 2 directories, +0 -0 lines", "{text}");
    }

    #[test]
    fn control_characters_are_spelled_out() {
        assert_eq!(visible("a\tb"), "a\tb");
        assert_eq!(visible("x\x1b]0;owned\x07y"), "x\\u{1b}]0;owned\\u{7}y");
        assert_eq!(visible("cr\r"), "cr\\u{d}");
    }
}
