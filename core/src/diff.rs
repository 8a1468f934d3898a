//! What a rollback would change at each path, for people to look at before
//! they restore: a unified diff from the current content to the captured
//! one, with line-numbered hunks a UI can render, or one line for what a
//! line diff cannot show (binary files, files over the size limit, a mode
//! change, a symlink retarget, a type flip, a removal).
//!
//! "Old" is what is on disk now; "new" is what the rollback would put
//! there. Headers are `a/<path>` and `b/<path>` as in git, `/dev/null`
//! for a side that does not exist.

mod deadline;
mod describe;
mod lines;

pub(crate) use deadline::{plan_deadline, Instant};
pub(crate) use describe::describe;

/// How [`crate::plan_rollback`] describes each change
/// ([`crate::PlanOptions::diff`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiffOptions {
    /// Unchanged lines shown around each change (default 3, as git).
    pub context: usize,
    /// Files larger than this (on either side) get a one-line description
    /// instead of a line diff (default 1 MiB).
    pub max_bytes: u64,
}

/// The default [`DiffOptions::max_bytes`]: 1 MiB.
pub const DEFAULT_DIFF_MAX_BYTES: u64 = 1 << 20;

/// The default [`DiffOptions::context`]: 3 lines, as git.
pub const DEFAULT_DIFF_CONTEXT: usize = 3;

impl Default for DiffOptions {
    fn default() -> DiffOptions {
        DiffOptions {
            context: DEFAULT_DIFF_CONTEXT,
            max_bytes: DEFAULT_DIFF_MAX_BYTES,
        }
    }
}

impl DiffOptions {
    /// Sets [`DiffOptions::context`].
    pub fn with_context(mut self, lines: usize) -> DiffOptions {
        self.context = lines;
        self
    }

    /// Sets [`DiffOptions::max_bytes`].
    pub fn with_max_bytes(mut self, bytes: u64) -> DiffOptions {
        self.max_bytes = bytes;
        self
    }
}

/// What a rollback would change at one path.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PathDiff {
    /// One line for people: `+3 -1`, `new file, 2 lines`, `mode 644 -> 755`,
    /// `binary file, 10 -> 12 bytes`, `symlink a -> b`, `directory -> file`,
    /// `remove file of 5 bytes`, ...
    pub summary: String,
    /// The unified diff (`--- a/p`, `+++ b/p`, hunks), when both sides are
    /// text within the size limit and their lines differ.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub text: Option<String>,
    /// The hunks of `text`, with line numbers.
    pub hunks: Vec<Hunk>,
    /// Lines the rollback adds (restores).
    pub added: usize,
    /// Lines the rollback removes (the batch's lines).
    pub removed: usize,
}

/// One hunk of a unified diff.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Hunk {
    /// First line of the hunk in the current file (1-based; 0 when it
    /// covers no line there).
    pub old_start: usize,
    /// Lines of the current file the hunk covers.
    pub old_lines: usize,
    /// First line of the hunk in the restored file (1-based; 0 when it
    /// covers no line there).
    pub new_start: usize,
    /// Lines of the restored file the hunk covers.
    pub new_lines: usize,
    /// The lines, in order.
    pub lines: Vec<DiffLine>,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DiffLine {
    /// Context, removed or added.
    pub kind: DiffLineKind,
    /// The line's text, without its line ending.
    pub text: String,
    /// Its number in the current file, when it is there.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub old_line: Option<usize>,
    /// Its number in the restored file, when it is there.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub new_line: Option<usize>,
}

/// The kind of a [`DiffLine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum DiffLineKind {
    /// Unchanged (` ` in the text).
    Context,
    /// On disk now, gone after the rollback (`-`).
    Removed,
    /// Restored by the rollback (`+`).
    Added,
}

impl DiffLineKind {
    /// `context`, `removed` or `added`.
    pub const fn as_str(self) -> &'static str {
        match self {
            DiffLineKind::Context => "context",
            DiffLineKind::Removed => "removed",
            DiffLineKind::Added => "added",
        }
    }

    /// The line's first character in a unified diff.
    pub const fn marker(self) -> char {
        match self {
            DiffLineKind::Context => ' ',
            DiffLineKind::Removed => '-',
            DiffLineKind::Added => '+',
        }
    }
}
