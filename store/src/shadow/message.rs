//! Shadow-step commit messages and trailers, exactly as STORE.md §4 writes
//! them, and reading them back (first match anywhere in the message wins).

use crate::message::{trailer, METADATA_TASK_TRAILER, SESSION_TRAILER, STRATEGY_TRAILER};
use crate::session::DEFAULT_STRATEGY;
use agent_checkpoint::{Error, Result};

/// Trailer naming a step's session metadata directory.
pub const METADATA_TRAILER: &str = "Entire-Metadata";

/// The message of a step when the caller gives none.
pub const DEFAULT_STEP_MESSAGE: &str = "Checkpoint";

/// The message of a shadow step: `<message>` (the caller's, already
/// redacted as text by the step, like a prompt), a blank line, then
/// `Entire-Metadata: <metadata dir>` (task steps:
/// `Entire-Metadata-Task: <task dir>` instead), `Entire-Session: <sid>`,
/// `Entire-Strategy: manual-commit`, each ending in `\n`.
pub fn step_message(message: &str, session_id: &str, task_dir: Option<&str>) -> String {
    let (key, dir) = match task_dir {
        Some(task) => (METADATA_TASK_TRAILER, task.to_owned()),
        None => (METADATA_TRAILER, super::metadata_dir(session_id)),
    };
    format!(
        "{message}\n\n{key}: {dir}\n{SESSION_TRAILER}: {session_id}\n{STRATEGY_TRAILER}: {DEFAULT_STRATEGY}\n"
    )
}

/// Checks a caller's step message: it may not carry a line that reads as
/// one of the trailers the step adds (it would be read back first), nor
/// control characters other than newlines and tabs.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `message`.
pub fn check_message(message: &str) -> Result<()> {
    if message
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Err(Error::invalid_argument(
            "message",
            "has control characters other than newlines and tabs",
        ));
    }
    for key in [
        METADATA_TRAILER,
        METADATA_TASK_TRAILER,
        SESSION_TRAILER,
        STRATEGY_TRAILER,
    ] {
        if trailer(message, key).is_some() {
            return Err(Error::invalid_argument(
                "message",
                format!("has a line that reads as the {key} trailer"),
            ));
        }
    }
    Ok(())
}

/// What a step's message says about it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StepTrailers {
    pub session_id: String,
    pub metadata_dir: String,
    pub task_dir: Option<String>,
}

impl StepTrailers {
    /// Reads the trailers of `message` (first match anywhere wins).
    pub(crate) fn parse(message: &str) -> StepTrailers {
        let task_dir = trailer(message, METADATA_TASK_TRAILER).map(str::to_owned);
        let session_id = trailer(message, SESSION_TRAILER)
            .unwrap_or_default()
            .to_owned();
        let metadata_dir = trailer(message, METADATA_TRAILER)
            .map(str::to_owned)
            .or_else(|| {
                task_dir
                    .as_deref()
                    .and_then(|t| t.split_once("/tasks/").map(|(dir, _)| dir.to_owned()))
            })
            .unwrap_or_default();
        StepTrailers {
            session_id,
            metadata_dir,
            task_dir,
        }
    }

    /// The tool-use id of a task step (the last component of its task dir).
    pub(crate) fn tool_use_id(&self) -> Option<&str> {
        self.task_dir
            .as_deref()
            .map(|t| t.rsplit('/').next().unwrap_or(t))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn exact_messages() {
        assert_eq!(
            step_message("Edit files", "s1", None),
            "Edit files\n\nEntire-Metadata: .entire/metadata/s1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n"
        );
        let task = super::super::task_metadata_dir("s1", "toolu_1");
        let m = step_message("Task done", "s1", Some(&task));
        assert_eq!(
            m,
            "Task done\n\nEntire-Metadata-Task: .entire/metadata/s1/tasks/toolu_1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n"
        );
        let t = StepTrailers::parse(&m);
        assert_eq!(t.session_id, "s1");
        assert_eq!(t.metadata_dir, ".entire/metadata/s1");
        assert_eq!(t.tool_use_id(), Some("toolu_1"));
    }

    #[test]
    fn messages_cannot_smuggle_trailers() {
        assert!(check_message("fix\n\nmore words: here").is_ok());
        for bad in [
            "x\nEntire-Session: other",
            "Entire-Metadata: /etc",
            "a\u{1b}b",
        ] {
            assert_eq!(
                check_message(bad).unwrap_err().code(),
                agent_checkpoint::ErrorCode::InvalidArgument
            );
        }
    }
}
