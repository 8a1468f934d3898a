//! [`Redactor`]: the compiled layers, cheap to clone and to reuse.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::blob;
use crate::builder::RedactorBuilder;
#[cfg(test)]
use crate::error::RedactError;
use crate::finding::{Finding, Redaction};
use crate::json;
use crate::layers::{apply, Engine, Span};

/// Redacts secrets from text, JSON/JSONL and blobs (STORE.md §7).
///
/// [`Redactor::default`] is the common case: layers 1-4 and 6 (entropy,
/// known token formats, credential URLs, connection strings, credential
/// assignments), built once per process and shared. [`Redactor::builder`]
/// adds caller rules (layer 5) and personal data (layer 7). Cloning is an
/// `Arc` clone; a redactor is `Send + Sync`.
#[derive(Clone)]
pub struct Redactor {
    engine: Arc<Engine>,
    personal_data: bool,
    custom_rules: usize,
}

static DEFAULT: OnceLock<Redactor> = OnceLock::new();

impl Default for Redactor {
    fn default() -> Self {
        DEFAULT
            .get_or_init(|| Redactor::from_engine(Engine::new(Vec::new(), false), false, 0))
            .clone()
    }
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("personal_data", &self.personal_data)
            .field("custom_rules", &self.custom_rules)
            .finish_non_exhaustive()
    }
}

impl Redactor {
    pub(crate) fn from_engine(
        engine: Engine,
        personal_data: bool,
        custom_rules: usize,
    ) -> Redactor {
        Redactor {
            engine: Arc::new(engine),
            personal_data,
            custom_rules,
        }
    }

    /// A builder for a redactor with caller rules or personal data.
    pub fn builder() -> RedactorBuilder {
        RedactorBuilder::default()
    }

    /// Redacts `text` as plain text. Borrows `text` back when nothing was found.
    pub fn redact_text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redact_text_with_findings(text).output
    }

    /// [`Redactor::redact_text`], also returning what was replaced.
    pub fn redact_text_with_findings<'a>(&self, text: &'a str) -> Redaction<'a, str> {
        let spans = self.text_spans(text);
        self.finish(text, spans)
    }

    /// Redacts a JSON document, or JSONL line by line, editing only string
    /// leaves in place (formatting kept). Borrows `text` back when nothing
    /// was found.
    pub fn redact_json<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redact_json_with_findings(text).output
    }

    /// [`Redactor::redact_json`], also returning what was replaced.
    pub fn redact_json_with_findings<'a>(&self, text: &'a str) -> Redaction<'a, str> {
        let spans = json::redact(&self.engine, text);
        self.finish(text, spans)
    }

    /// Redacts a file's bytes by its path: `.json`/`.jsonl` JSON-aware,
    /// other text as text, binary (a NUL byte) untouched. Text that is not
    /// valid UTF-8 is redacted as text all the same: its invalid sequences
    /// come back byte for byte (they end words and values, as a space
    /// would), and a JSONL line holding one is still redacted JSON-aware.
    /// Borrows `bytes` back when nothing was replaced.
    pub fn redact_blob<'a>(&self, path: &str, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        self.redact_blob_with_findings(path, bytes).output
    }

    /// [`Redactor::redact_blob`], also returning what was replaced.
    pub fn redact_blob_with_findings<'a>(
        &self,
        path: &str,
        bytes: &'a [u8],
    ) -> Redaction<'a, [u8]> {
        let json = blob::is_json_path(path);
        let text: Cow<'_, str> = match blob::as_text(bytes) {
            blob::BlobText::Binary => {
                return Redaction {
                    output: Cow::Borrowed(bytes),
                    findings: Vec::new(),
                }
            }
            blob::BlobText::Text(t) => Cow::Borrowed(t),
            blob::BlobText::Substituted(t) => Cow::Owned(t),
        };
        let spans = if json {
            json::redact(&self.engine, &text)
        } else {
            self.text_spans(&text)
        };
        if spans.is_empty() {
            return Redaction {
                output: Cow::Borrowed(bytes),
                findings: Vec::new(),
            };
        }
        Redaction {
            output: Cow::Owned(blob::apply_bytes(bytes, &spans)),
            findings: self.findings(&spans),
        }
    }

    /// How many keyword occurrences the prefilter finds in `text`: the
    /// least work any redaction of `text` does (a diagnostic, used by the
    /// benchmark as its floor).
    pub fn keyword_hits(&self, text: &str) -> usize {
        self.engine
            .keyword_automaton()
            .map_or(0, |ac| ac.find_iter(text).count())
    }

    /// A text's spans: every layer, then every other occurrence of the
    /// secrets found (a high-entropy run also inside a longer run, a URL's
    /// secret repeated), as in a JSON document.
    fn text_spans(&self, text: &str) -> Vec<Span> {
        let mut secrets = Vec::new();
        let spans = self.engine.redact_fragment(text, &[], &mut secrets);
        secrets.retain(|(s, _)| s.len() >= 8);
        secrets.sort();
        secrets.dedup();
        let uncovered = secrets.iter().any(|(s, _)| {
            memchr::memmem::find_iter(text.as_bytes(), s.as_bytes()).any(|at| {
                let k = spans.partition_point(|x| x.start <= at);
                !(k > 0 && spans[k - 1].end >= at + s.len())
            })
        });
        if !uncovered {
            return spans;
        }
        self.engine.redact_fragment(text, &secrets, &mut Vec::new())
    }

    fn finish<'a>(&self, text: &'a str, spans: Vec<Span>) -> Redaction<'a, str> {
        if spans.is_empty() {
            return Redaction {
                output: Cow::Borrowed(text),
                findings: Vec::new(),
            };
        }
        Redaction {
            output: Cow::Owned(apply(text, &spans)),
            findings: self.findings(&spans),
        }
    }

    fn findings(&self, spans: &[Span]) -> Vec<Finding> {
        spans
            .iter()
            .map(|s| Finding {
                rule: self.engine.name(s.rule).to_owned(),
                start: s.start,
                end: s.end,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send_sync<T: Send + Sync + Clone>() {}

    #[test]
    fn redactor_is_shareable_and_the_default_is_built_once() {
        send_sync::<Redactor>();
        let a = Redactor::default();
        let b = Redactor::default();
        assert!(Arc::ptr_eq(&a.engine, &b.engine));
        let built = Redactor::builder().build().map(|r| r.engine);
        assert!(built.is_ok_and(|e| Arc::ptr_eq(&e, &a.engine)));
    }

    #[test]
    fn builder_refuses_a_bad_pattern_with_its_name() {
        let e = Redactor::builder()
            .rule("ok", "a+")
            .rule("bad", "(")
            .build();
        assert!(matches!(e, Err(RedactError::InvalidPattern { ref name, .. }) if name == "bad"));
    }
}
