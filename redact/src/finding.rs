//! What a redaction found: a rule name and a byte range, never the secret.

use std::borrow::Cow;
use std::fmt;

/// One replaced span of the input.
///
/// `start..end` is a byte range into the *input* (always on `char`
/// boundaries); the text there was replaced by `REDACTED` (or by a personal
/// data label). Overlapping findings of several rules are joined into one, named
/// after the most specific rule among them (a caller's rule, then a known
/// format, a URL or connection string, a credential assignment, entropy,
/// personal data).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Finding {
    /// The rule's name: a token format (`github_pat`), a layer (`entropy`,
    /// `url_password`, `database_url`, `database_dsn`, `credential_assignment`,
    /// `json_credential_field`, `email`, `phone`, `address`) or a caller's rule.
    pub rule: String,
    /// First byte of the replaced span in the input.
    pub start: usize,
    /// One past the last byte of the replaced span in the input.
    pub end: usize,
}

/// A redacted output together with its [`Finding`]s, sorted by `start`.
pub struct Redaction<'a, T: ?Sized + ToOwned> {
    /// The redacted text or bytes; borrowed (the input itself) when nothing was found.
    pub output: Cow<'a, T>,
    /// What was replaced, as byte ranges into the input.
    pub findings: Vec<Finding>,
}

impl<T: ?Sized + ToOwned + fmt::Debug> fmt::Debug for Redaction<'_, T>
where
    T::Owned: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redaction")
            .field("output", &self.output)
            .field("findings", &self.findings)
            .finish()
    }
}

impl<T: ?Sized + ToOwned> Clone for Redaction<'_, T> {
    fn clone(&self) -> Self {
        Redaction {
            output: self.output.clone(),
            findings: self.findings.clone(),
        }
    }
}

impl<T: ?Sized + ToOwned + PartialEq> PartialEq for Redaction<'_, T> {
    fn eq(&self, other: &Self) -> bool {
        *self.output == *other.output && self.findings == other.findings
    }
}

impl<T: ?Sized + ToOwned + Eq> Eq for Redaction<'_, T> {}
