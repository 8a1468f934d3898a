//! The rule every host reports a rollback by: a snapshot refused as a whole
//! is not an exception but a report with `valid = false`, its error's code
//! and message, and nothing in it (nothing was touched).

use crate::error::{Error, Result};
use crate::options::RollbackOptions;
use crate::root::Root;
use crate::snapshot::{ParseOptions, Snapshot};

use super::{rollback, RollbackReport};

/// A rollback as the bindings report it: the report of a snapshot carried
/// out, or an empty report and the reason the snapshot was refused.
///
/// Built by [`rollback_text`] (or [`RollbackOutcome::refused`] for a
/// snapshot argument a host could not even read as text); each host turns
/// it into its own report type, so the refusal rule is written once.
#[derive(Debug)]
#[non_exhaustive]
#[must_use = "a refused snapshot is reported here, not as an `Err`"]
pub struct RollbackOutcome {
    /// What the rollback did; empty when the snapshot was refused.
    pub report: RollbackReport,
    /// Why the snapshot was refused as a whole; `None` when it was applied.
    pub refusal: Option<Error>,
}

impl RollbackOutcome {
    /// The outcome of a snapshot refused as a whole: an empty report, and
    /// `error` as the refusal.
    pub fn refused(error: Error) -> RollbackOutcome {
        RollbackOutcome {
            report: RollbackReport::default(),
            refusal: Some(error),
        }
    }

    /// Whether the snapshot was accepted (and so was applied).
    pub fn valid(&self) -> bool {
        self.refusal.is_none()
    }

    /// Valid, and every captured path restored.
    pub fn ok(&self) -> bool {
        self.valid() && self.report.ok()
    }
}

impl From<Result<RollbackReport>> for RollbackOutcome {
    /// An `Err` from parsing or rolling back is a refusal.
    fn from(done: Result<RollbackReport>) -> RollbackOutcome {
        match done {
            Ok(report) => RollbackOutcome {
                report,
                refusal: None,
            },
            Err(error) => RollbackOutcome::refused(error),
        }
    }
}

/// Parses the snapshot `text` and rolls it back under `root`; any error on
/// the way (a malformed or altered snapshot, bytes that contradict their
/// digests, another root with `strict_root`, ...) is a refusal, reported
/// in the outcome. Never an `Err`: opening the root is the caller's.
pub fn rollback_text<R: Root + ?Sized>(
    root: &R,
    text: &str,
    parse: &ParseOptions,
    options: &RollbackOptions,
) -> RollbackOutcome {
    Snapshot::parse(text, parse)
        .and_then(|snapshot| rollback(root, &snapshot, options))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::root::{MemNode, MemRoot};
    use crate::{capture, CaptureOptions, RelPath, SealKey};

    fn file(bytes: &[u8]) -> MemNode {
        MemNode::File {
            bytes: bytes.to_vec(),
            mode: 0o644,
        }
    }

    #[test]
    fn a_snapshot_that_does_not_parse_is_refused_with_an_empty_report() {
        let root = MemRoot::new();
        let outcome = rollback_text(
            &root,
            "{not json",
            &ParseOptions::default(),
            &RollbackOptions::default(),
        );
        assert!(!outcome.valid());
        assert!(!outcome.ok());
        assert_eq!(
            outcome.refusal.as_ref().map(Error::code),
            Some(ErrorCode::MalformedSnapshot)
        );
        assert!(outcome.report.restored.is_empty() && outcome.report.plan.items.is_empty());
    }

    #[test]
    fn a_snapshot_refused_by_the_rollback_is_refused_too() {
        let root = MemRoot::new();
        let a = RelPath::try_from("a.txt").unwrap();
        root.insert(&a, file(b"old"));
        let text = capture(&root, ["a.txt"], &CaptureOptions::default()).unwrap();
        root.insert(&a, file(b"new"));
        // It parses (no key asked for there); the rollback asks for a seal.
        let keyed = RollbackOptions {
            key: Some(SealKey::new(vec![7; 32]).unwrap()),
            ..RollbackOptions::default()
        };
        let outcome = rollback_text(&root, text.as_str(), &ParseOptions::default(), &keyed);
        assert!(!outcome.valid(), "{outcome:?}");
        assert_eq!(
            outcome.refusal.as_ref().map(Error::code),
            Some(ErrorCode::Unauthenticated)
        );
        assert_eq!(root.get("a.txt"), Some(file(b"new")), "nothing touched");
    }

    #[test]
    fn an_applied_snapshot_is_valid_and_carries_its_report() {
        let root = MemRoot::new();
        let a = RelPath::try_from("a.txt").unwrap();
        root.insert(&a, file(b"old"));
        let text = capture(&root, ["a.txt"], &CaptureOptions::default()).unwrap();
        root.insert(&a, file(b"new"));
        let outcome = rollback_text(
            &root,
            text.as_str(),
            &ParseOptions::default(),
            &RollbackOptions::default(),
        );
        assert!(outcome.valid() && outcome.ok());
        assert_eq!(outcome.report.restored, ["a.txt"]);
        assert_eq!(root.get("a.txt"), Some(file(b"old")));
    }

    #[test]
    fn a_refusal_given_by_the_host_is_an_outcome_too() {
        let outcome = RollbackOutcome::refused(Error::malformed("a lone surrogate"));
        assert!(!outcome.valid());
        assert!(outcome.report.ok(), "nothing unrestored in an empty report");
        assert!(!outcome.ok(), "but not ok: nothing was applied");
    }
}
