//! [`RedactorBuilder`]: caller rules (layer 5) and personal data (layer 7).

use regex_automata::meta::{BuildError, Regex};

use crate::error::RedactError;
use crate::layers::{CustomRule, Engine};
use crate::redactor::Redactor;

/// Builds a [`Redactor`] with caller-supplied rules and/or personal data
/// redaction.
///
/// ```
/// use agent_checkpoint_redact::Redactor;
///
/// let r = Redactor::builder()
///     .rule("ticket", r"TICKET-[0-9]{6}")
///     .personal_data(true)
///     .build()?;
/// assert_eq!(r.redact_text("see TICKET-123456, mail jane@example.com"),
///            "see REDACTED, mail [REDACTED_EMAIL]");
/// # Ok::<(), agent_checkpoint_redact::RedactError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct RedactorBuilder {
    rules: Vec<(String, String)>,
    personal_data: bool,
}

impl RedactorBuilder {
    /// Adds a rule: every match of `pattern` (a `regex` crate regex, linear
    /// time) is redacted and reported as `name`.
    pub fn rule(mut self, name: impl Into<String>, pattern: impl Into<String>) -> Self {
        self.rules.push((name.into(), pattern.into()));
        self
    }

    /// Turns on layer 7: e-mail addresses (no-reply ones kept), phone
    /// numbers and street addresses become `[REDACTED_EMAIL]`,
    /// `[REDACTED_PHONE]` and `[REDACTED_ADDRESS]`.
    pub fn personal_data(mut self, on: bool) -> Self {
        self.personal_data = on;
        self
    }

    /// Compiles the redactor; a rule whose pattern does not compile is an
    /// [`RedactError::InvalidPattern`].
    pub fn build(self) -> Result<Redactor, RedactError> {
        if self.rules.is_empty() && !self.personal_data {
            return Ok(Redactor::default());
        }
        let mut custom = Vec::with_capacity(self.rules.len());
        for (name, pattern) in self.rules {
            match Regex::new(&pattern) {
                Ok(regex) => custom.push(CustomRule { name, regex }),
                Err(e) => {
                    return Err(RedactError::InvalidPattern {
                        name,
                        pattern,
                        message: build_error_message(&e),
                    })
                }
            }
        }
        let n = custom.len();
        Ok(Redactor::from_engine(
            Engine::new(custom, self.personal_data),
            self.personal_data,
            n,
        ))
    }
}

/// What is wrong with a pattern, on one line: the syntax error and its byte
/// offset (`unclosed group at byte 0`), else the engine's own message (a
/// pattern too large to compile).
fn build_error_message(error: &BuildError) -> String {
    match error.syntax_error() {
        Some(regex_syntax::Error::Parse(e)) => {
            format!("{} at byte {}", e.kind(), e.span().start.offset)
        }
        Some(regex_syntax::Error::Translate(e)) => {
            format!("{} at byte {}", e.kind(), e.span().start.offset)
        }
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_patterns_say_what_and_where() {
        let message = |pattern: &str| match Redactor::builder().rule("r", pattern).build() {
            Err(RedactError::InvalidPattern {
                name,
                pattern: given,
                message,
            }) => {
                assert_eq!((name.as_str(), given.as_str()), ("r", pattern));
                message
            }
            Ok(_) => panic!("{pattern:?} compiled"),
        };
        assert_eq!(message("(unclosed"), "unclosed group at byte 0");
        assert_eq!(
            message("a{2,1}"),
            "invalid repetition count range, the start must be <= the end at byte 1"
        );
        assert_eq!(
            message("ok(?<n>x)(?<n>y)"),
            "duplicate capture group name at byte 12"
        );
    }
}
