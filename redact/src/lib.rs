//! Secret redaction for what an agent checkpoint stores: prompts,
//! transcripts, summaries and metadata files (STORE.md §7).
//!
//! Seven layers find secrets; their findings are merged (sorted by start,
//! longer first, overlaps joined) and each replaced by `REDACTED`:
//!
//! 1. high-entropy runs of `[A-Za-z0-9+_=-]` (entropy above 4.5 bits/byte);
//! 2. known token formats — over a hundred named rules (cloud keys, VCS
//!    and registry tokens, chat, mail, payment and AI API keys, JWTs,
//!    private key blocks, ...), every occurrence of a secret found;
//! 3. URLs with a password in their userinfo, whole;
//! 4. database connection strings with a password, whole;
//! 5. caller-supplied regexes ([`RedactorBuilder::rule`]);
//! 6. credential assignments (`DB_PASSWORD=...`), the value only;
//! 7. opt-in personal data ([`RedactorBuilder::personal_data`]): e-mail
//!    addresses, phone numbers and street addresses, by label.
//!
//! Placeholders (`changeme`, `${VAR}`, `****`, `REDACTED`, ...) are never
//! redacted, redaction is idempotent, and a text with nothing found comes
//! back borrowed, byte for byte.
//!
//! ```
//! use agent_checkpoint_redact::{redact_json, redact_text, Redactor};
//!
//! assert_eq!(
//!     redact_text("DATABASE_URL=postgres://app:pwd123@db.example.com:5432/app"),
//!     "DATABASE_URL=REDACTED"
//! );
//! assert_eq!(redact_text("DB_PASSWORD=${DB_PASSWORD}"), "DB_PASSWORD=${DB_PASSWORD}");
//!
//! // JSON-aware: only string leaves change, the formatting stays.
//! let line = r#"{"type": "text", "content": "my key is sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA ok"}"#;
//! assert_eq!(
//!     redact_json(line),
//!     r#"{"type": "text", "content": "my key is REDACTED ok"}"#
//! );
//!
//! // Findings: rule names and byte ranges into the input, never the secret.
//! let r = Redactor::default().redact_text_with_findings("key=AKIAYRWQG5EJLPZLBYNP");
//! assert_eq!(r.output, "key=REDACTED");
//! assert_eq!((r.findings[0].rule.as_str(), r.findings[0].start, r.findings[0].end),
//!            ("aws_access_key_id", 4, 24));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod assign;
mod blob;
mod builder;
mod entropy;
mod error;
mod finding;
mod json;
mod keyword_value;
mod kube;
mod kube_json;
mod layers;
mod personal;
mod placeholders;
mod redactor;
mod rules;
mod shapes;
mod text;
mod urls;
mod xml;

use std::borrow::Cow;

pub use builder::RedactorBuilder;
pub use error::RedactError;
pub use finding::{Finding, Redaction};
pub use placeholders::{ADDRESS_LABEL, EMAIL_LABEL, PHONE_LABEL, REDACTED};
pub use redactor::Redactor;

/// The names of the layers that are not a known token format, as they
/// appear in [`Finding::rule`].
pub const LAYER_RULE_NAMES: [&str; 9] = [
    "entropy",
    "url_password",
    "database_url",
    "database_dsn",
    "credential_assignment",
    "json_credential_field",
    "email",
    "phone",
    "address",
];

/// The names of the known token formats (layer 2), in priority order.
pub fn token_rule_names() -> impl Iterator<Item = &'static str> {
    rules::RULES.iter().map(|r| r.name)
}

/// A known format's made-up cases, kept beside it in the rule table: the
/// texts it redacts with the output expected, and near misses kept as they
/// are.
pub type RuleExamples = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
);

/// Every known format's cases from the rule table (rule name, true
/// positives with their redacted output, false positives), for tests.
#[doc(hidden)]
pub fn token_rule_examples() -> impl Iterator<Item = RuleExamples> {
    rules::RULES
        .iter()
        .map(|r| (r.name, r.examples, r.near_misses))
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;

/// [`Redactor::redact_text`] with the default redactor.
pub fn redact_text(text: &str) -> Cow<'_, str> {
    Redactor::default().redact_text(text)
}

/// [`Redactor::redact_json`] with the default redactor.
pub fn redact_json(text: &str) -> Cow<'_, str> {
    Redactor::default().redact_json(text)
}

/// [`Redactor::redact_blob`] with the default redactor.
pub fn redact_blob<'a>(path: &str, bytes: &'a [u8]) -> Cow<'a, [u8]> {
    Redactor::default().redact_blob(path, bytes)
}
