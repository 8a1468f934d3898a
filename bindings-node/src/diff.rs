//! What a rollback would change at a path, as `planRollback(..., { diff:
//! true })` shows it: the hunks of `PlanItem.hunks` and the diff options.

use agent_checkpoint::DiffOptions;
use napi::Env;
use napi_derive::napi;

use crate::options::byte_count;

/// The kind of a line of a hunk.
#[napi(string_enum = "lowercase")]
pub enum DiffLineKind {
    /// Unchanged (` ` in the text).
    Context,
    /// On disk now, gone after the rollback (`-`).
    Removed,
    /// Restored by the rollback (`+`).
    Added,
}

/// One line of a hunk.
#[napi(object)]
pub struct DiffLine {
    /// Context, removed or added.
    #[napi(ts_type = "DiffLineKind")]
    pub kind: String,
    /// The line's text, without its line ending.
    pub text: String,
    /// Its number in the current file (1-based), when it is there.
    pub old_line: Option<f64>,
    /// Its number in the restored file (1-based), when it is there.
    pub new_line: Option<f64>,
}

/// One hunk of a unified diff, from the file as it is now (old) to the
/// file the rollback restores (new).
#[napi(object)]
pub struct Hunk {
    /// First line of the hunk in the current file (1-based; 0 when it
    /// covers no line there).
    pub old_start: f64,
    /// Lines of the current file the hunk covers.
    pub old_lines: f64,
    /// First line of the hunk in the restored file (1-based; 0 when it
    /// covers no line there).
    pub new_start: f64,
    /// Lines of the restored file the hunk covers.
    pub new_lines: f64,
    /// The lines, in order.
    pub lines: Vec<DiffLine>,
}

impl From<agent_checkpoint::Hunk> for Hunk {
    fn from(hunk: agent_checkpoint::Hunk) -> Hunk {
        Hunk {
            old_start: hunk.old_start as f64,
            old_lines: hunk.old_lines as f64,
            new_start: hunk.new_start as f64,
            new_lines: hunk.new_lines as f64,
            lines: hunk
                .lines
                .into_iter()
                .map(|l| DiffLine {
                    kind: l.kind.as_str().to_owned(),
                    text: l.text,
                    old_line: l.old_line.map(|n| n as f64),
                    new_line: l.new_line.map(|n| n as f64),
                })
                .collect(),
        }
    }
}

/// The core's diff options for `diff`, `diffContext` and `diffMaxBytes`
/// (`None` unless `diff` is true; the numbers are checked either way).
pub(crate) fn diff_options(
    env: &Env,
    diff: Option<bool>,
    context: Option<f64>,
    max_bytes: Option<f64>,
) -> napi::Result<Option<DiffOptions>> {
    let mut options = DiffOptions::default();
    if let Some(lines) = byte_count(env, "diffContext", context)? {
        options = options.with_context(usize::try_from(lines).unwrap_or(usize::MAX));
    }
    if let Some(bytes) = byte_count(env, "diffMaxBytes", max_bytes)? {
        options = options.with_max_bytes(bytes);
    }
    Ok(diff.unwrap_or(false).then_some(options))
}
