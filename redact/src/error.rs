//! The one error type of the crate and its closed vocabulary of codes.
//!
//! [`RedactError::code`] is the same stable code as the project's error
//! vocabulary (`agent_checkpoint::ErrorCode`). With the `core-error` feature,
//! `From<RedactError> for agent_checkpoint::Error` is the one conversion the
//! bindings and the CLI use, so a bad pattern is raised like every other
//! error of the project (`InvalidPatternError` in Python, an `Error` with
//! `code: 'invalid_pattern'` in JavaScript, `error[invalid_pattern]` in the
//! CLI).

use std::fmt;

/// Why a [`Redactor`](crate::Redactor) could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedactError {
    /// The rule `name` has a pattern the regex engine refuses; `message` says why.
    InvalidPattern {
        /// The rule's name, as given to [`RedactorBuilder::rule`](crate::RedactorBuilder::rule).
        name: String,
        /// The pattern as given.
        pattern: String,
        /// The regex engine's explanation.
        message: String,
    },
}

impl RedactError {
    /// Every code [`RedactError::code`] can return.
    pub const CODES: [&'static str; 1] = ["invalid_pattern"];

    /// The error's stable snake_case code, the same in every binding.
    pub const fn code(&self) -> &'static str {
        match self {
            RedactError::InvalidPattern { .. } => "invalid_pattern",
        }
    }
}

impl fmt::Display for RedactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RedactError::InvalidPattern { name, message, .. } => {
                write!(f, "invalid pattern for rule {name:?}: {message}")
            }
        }
    }
}

impl std::error::Error for RedactError {}

/// The project's error for a redaction error: `invalid_pattern` keeps its
/// code, the pattern as given, and the rule's name in the reason.
#[cfg(feature = "core-error")]
impl From<RedactError> for agent_checkpoint::Error {
    fn from(error: RedactError) -> Self {
        match error {
            RedactError::InvalidPattern {
                name,
                pattern,
                message,
            } => agent_checkpoint::Error::InvalidPattern {
                pattern,
                reason: format!("rule {name:?}: {message}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_and_message() {
        let e = RedactError::InvalidPattern {
            name: "ticket".into(),
            pattern: "(TICKET".into(),
            message: "unclosed group".into(),
        };
        assert_eq!(e.code(), "invalid_pattern");
        assert!(RedactError::CODES.contains(&e.code()));
        assert_eq!(
            e.to_string(),
            "invalid pattern for rule \"ticket\": unclosed group"
        );
    }

    #[cfg(feature = "core-error")]
    #[test]
    fn converts_to_the_project_error() {
        let e = RedactError::InvalidPattern {
            name: "ticket".into(),
            pattern: "(TICKET".into(),
            message: "unclosed group".into(),
        };
        let code = e.code();
        let core = agent_checkpoint::Error::from(e);
        assert_eq!(core.code(), agent_checkpoint::ErrorCode::InvalidPattern);
        assert_eq!(core.code().as_str(), code);
        assert_eq!(
            core.to_string(),
            "invalid pattern \"(TICKET\": rule \"ticket\": unclosed group"
        );
    }
}
