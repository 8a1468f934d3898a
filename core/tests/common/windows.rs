//! The Windows column of the shared vectors: `tests/vectors/expected_windows.txt`
//! says, per case, how the case ends on a real Windows root (the
//! `rust-windows` harness, played under Wine by `scripts/windows`) when
//! that differs from POSIX, and why.
//!
//! Line format: `<case name>  <outcome>  # reason`, where the outcome names
//! the first check that differs (see [`outcome_of`]). A listed case that
//! passes, or that ends with another outcome, fails the run, so the file
//! never holds a stale expectation.

use std::collections::BTreeMap;

use serde_json::Value;

/// The file of Windows expectations.
pub const FILE: &str = "expected_windows.txt";

/// One listed case: its outcome word and the reason given.
#[derive(Debug, Clone)]
pub struct Expectation {
    /// What ends the case on Windows (a word of [`outcome_of`]).
    pub outcome: String,
    /// Why it differs from POSIX.
    pub reason: String,
}

/// Every expectation of the file, by case name.
pub fn expectations() -> BTreeMap<String, Expectation> {
    let text = std::fs::read_to_string(super::vectors_dir().join(FILE)).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let (body, reason) = line.split_once('#').unwrap_or((line, ""));
        let mut words = body.split_whitespace();
        if let (Some(name), Some(outcome)) = (words.next(), words.next()) {
            let listed = Expectation {
                outcome: outcome.to_owned(),
                reason: reason.trim().to_owned(),
            };
            assert!(!listed.reason.is_empty(), "{FILE}: {name} has no reason");
            assert!(
                out.insert(name.to_owned(), listed).is_none(),
                "{FILE}: {name} listed twice"
            );
        }
    }
    out
}

/// The outcome word of a failure message from the vector runner:
///
/// - `setup`: the case's tree or batch cannot be made (a symlink, a special file);
/// - `capture-error`: capture failed, or succeeded where POSIX refuses;
/// - `paths`: the snapshot covers other paths;
/// - `snapshot-text`: the snapshot's bytes differ;
/// - `plan`, `diff`: the plan or its diffs differ;
/// - `report`: the rollback's report differs;
/// - `tree`: the tree after the rollback differs;
/// - `other`: anything else.
pub fn outcome_of(message: &str) -> &'static str {
    const PREFIXES: [(&str, &str); 12] = [
        ("setup:", "setup"),
        ("mutation ", "setup"),
        ("capture failed", "capture-error"),
        ("capture should fail", "capture-error"),
        ("capture error code", "capture-error"),
        ("snapshot_paths", "paths"),
        ("snapshot text", "snapshot-text"),
        ("plan", "plan"),
        ("diffs", "diff"),
        ("tree differs", "tree"),
        ("ok (", "report"),
        ("unrestored", "report"),
    ];
    PREFIXES
        .iter()
        .find(|(prefix, _)| message.starts_with(prefix))
        .map_or("other", |(_, word)| word)
}

/// Checks one case's result against the Windows column: unlisted cases
/// pass as on POSIX, listed ones end with their listed outcome.
pub fn check(
    listed: &BTreeMap<String, Expectation>,
    name: &str,
    result: Result<(), String>,
) -> Result<(), String> {
    match (listed.get(name), result) {
        (None, result) => result,
        (Some(want), Ok(())) => Err(format!(
            "listed in {FILE} as `{}` ({}) but passed as on POSIX: remove the line",
            want.outcome, want.reason
        )),
        (Some(want), Err(e)) if outcome_of(&e) == want.outcome => Ok(()),
        (Some(want), Err(e)) => Err(format!(
            "listed in {FILE} as `{}`, ended `{}`: {e}",
            want.outcome,
            outcome_of(&e)
        )),
    }
}

/// Listed names no case has (a renamed or removed case).
pub fn unknown_names(listed: &BTreeMap<String, Expectation>, cases: &[Value]) -> Vec<String> {
    listed
        .keys()
        .filter(|name| {
            !cases
                .iter()
                .any(|c| c["name"].as_str() == Some(name.as_str()))
        })
        .map(|name| format!("{FILE}: {name} is not a case"))
        .collect()
}
