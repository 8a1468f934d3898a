//! The redaction hook: everything a person typed or an agent said passes
//! through one [`Redact`] before it becomes a blob.
//!
//! What goes through it, and how:
//! - transcripts, as JSON / JSONL ([`Redact::json`]);
//! - prompts, joined by the prompt separator, as text ([`Redact::text`]);
//! - the free-text fields of session metadata as text: every text field of
//!   the summary (intent, outcome, learnings, findings, friction, open
//!   items), `review_prompt` and `investigate_topic`; the raw JSON fields
//!   (`prompt_attributions`, `skill_events`) as JSON.
//!
//! Structural fields (IDs, paths, counts, times, the agent and model names)
//! are not redacted, as in the Go tool. Undo snapshots never are: rollback
//! must restore the exact bytes.

use std::borrow::Cow;

use crate::documents::{CodeLearning, LearningsSummary, Summary};

/// A redaction step the store runs before writing text it did not make.
///
/// Implementations must be idempotent and must return valid JSON from
/// [`Redact::json`] when given valid JSON (JSONL: every line that was JSON).
pub trait Redact: Send + Sync {
    /// Redacts free text (prompts, summaries).
    fn text<'a>(&self, text: &'a str) -> Cow<'a, str>;
    /// Redacts a JSON document or JSONL text (transcripts, raw JSON fields).
    fn json<'a>(&self, json: &'a str) -> Cow<'a, str>;

    /// Redacts one file of a session's metadata directory, by its path:
    /// `.json` / `.jsonl` (any case) JSON-aware, other text as text, binary
    /// (a NUL byte) as is. Text that is not valid UTF-8 is still redacted:
    /// the default redacts each of its valid stretches on its own as text
    /// (JSON-aware for the valid lines of a JSON path) and keeps every
    /// invalid sequence byte for byte; the default redactor does better
    /// (its lines stay JSON-aware, see
    /// [`agent_checkpoint_redact::Redactor::redact_blob`]).
    fn blob<'a>(&self, path: &str, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        if bytes.contains(&0) {
            return Cow::Borrowed(bytes);
        }
        let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
        let json = name.ends_with(".json") || name.ends_with(".jsonl");
        let Ok(text) = std::str::from_utf8(bytes) else {
            return redact_invalid_utf8(self, json, bytes);
        };
        let redacted = if json {
            self.json(text)
        } else {
            self.text(text)
        };
        match redacted {
            Cow::Borrowed(_) => Cow::Borrowed(bytes),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    }
}

/// [`Redact::blob`]'s default for text with invalid UTF-8: line by line,
/// a valid line as a whole (JSON-aware when `json`), a line with invalid
/// bytes stretch by stretch as text, the invalid bytes and the line ends
/// kept.
fn redact_invalid_utf8<'a, R: Redact + ?Sized>(
    r: &R,
    json: bool,
    bytes: &'a [u8],
) -> Cow<'a, [u8]> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut changed = false;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let (body, end) = match line.strip_suffix(b"\n") {
            Some(body) => (body, &b"\n"[..]),
            None => (line, &b""[..]),
        };
        if let Ok(text) = std::str::from_utf8(body) {
            let red = if json { r.json(text) } else { r.text(text) };
            changed |= matches!(red, Cow::Owned(_));
            out.extend_from_slice(red.as_bytes());
        } else {
            for chunk in body.utf8_chunks() {
                let red = r.text(chunk.valid());
                changed |= matches!(red, Cow::Owned(_));
                out.extend_from_slice(red.as_bytes());
                out.extend_from_slice(chunk.invalid());
            }
        }
        out.extend_from_slice(end);
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(bytes)
    }
}

/// The redactor of `agent-checkpoint-redact` (STORE.md §7): what
/// [`crate::Store::open`] and [`crate::StoreOptions::default`] use, with
/// its default rules; build one with `Redactor::builder()` for custom
/// rules or personal data.
impl Redact for agent_checkpoint_redact::Redactor {
    fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redact_text(text)
    }

    fn json<'a>(&self, json: &'a str) -> Cow<'a, str> {
        self.redact_json(json)
    }

    fn blob<'a>(&self, path: &str, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        self.redact_blob(path, bytes)
    }
}

/// No redaction at all: the store writes prompts, transcripts and
/// summaries as given. For callers that redact before they write, and for
/// tests that pin stored bytes; anything that may hold secrets should go
/// through the default redactor instead.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRedaction;

impl Redact for NoRedaction {
    fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        Cow::Borrowed(text)
    }

    fn json<'a>(&self, json: &'a str) -> Cow<'a, str> {
        Cow::Borrowed(json)
    }
}

/// A summary with every text field redacted; paths and line numbers kept.
pub(crate) fn redact_summary(r: &dyn Redact, s: &Summary) -> Summary {
    Summary {
        intent: r.text(&s.intent).into_owned(),
        outcome: r.text(&s.outcome).into_owned(),
        learnings: LearningsSummary {
            repo: redact_list(r, s.learnings.repo.as_deref()),
            code: s.learnings.code.as_ref().map(|code| {
                code.iter()
                    .map(|c| CodeLearning {
                        path: c.path.clone(),
                        line: c.line,
                        end_line: c.end_line,
                        finding: r.text(&c.finding).into_owned(),
                    })
                    .collect()
            }),
            workflow: redact_list(r, s.learnings.workflow.as_deref()),
        },
        friction: redact_list(r, s.friction.as_deref()),
        open_items: redact_list(r, s.open_items.as_deref()),
    }
}

fn redact_list(r: &dyn Redact, list: Option<&[String]>) -> Option<Vec<String>> {
    list.map(|items| items.iter().map(|s| r.text(s).into_owned()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Upper;
    impl Redact for Upper {
        fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
            Cow::Owned(text.to_uppercase())
        }
        fn json<'a>(&self, json: &'a str) -> Cow<'a, str> {
            Cow::Borrowed(json)
        }
    }

    #[test]
    fn summary_text_fields_are_redacted_structure_kept() {
        let mut s = Summary::new("intent", "outcome");
        s.friction = Some(vec!["f".into()]);
        s.learnings.code = Some(vec![CodeLearning {
            path: "src/a.rs".into(),
            line: 3,
            end_line: 4,
            finding: "x".into(),
        }]);
        let r = redact_summary(&Upper, &s);
        assert_eq!(r.intent, "INTENT");
        assert_eq!(r.friction, Some(vec!["F".to_owned()]));
        assert_eq!(r.open_items, None);
        let code = r.learnings.code.unwrap();
        assert_eq!(
            (
                code[0].path.as_str(),
                code[0].line,
                code[0].finding.as_str()
            ),
            ("src/a.rs", 3, "X")
        );
        assert_eq!(NoRedaction.text("a"), "a");
    }

    #[test]
    fn blobs_by_path_text_json_or_binary() {
        assert_eq!(&*Upper.blob("a/notes.md", b"hi"), b"HI");
        // JSON paths go through `json` (which `Upper` leaves alone).
        assert_eq!(&*Upper.blob("a/full.JSONL", b"{}"), b"{}");
        assert_eq!(&*Upper.blob("bin", b"a\0b"), b"a\0b");
        // Invalid UTF-8 is text: its valid stretches are redacted, the
        // invalid bytes kept.
        assert_eq!(&*Upper.blob("log", &[0xff, b'a']), &[0xff, b'A']);
        assert_eq!(
            &*Upper.blob("a.jsonl", b"{\"a\":1}\nx\xe9y\n"),
            b"{\"a\":1}\nX\xe9Y\n"
        );
    }
}
