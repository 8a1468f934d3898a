//! Plan diffs under hostile input: files no line diff should spend minutes
//! on, limits at their extremes, files that change under the reader,
//! special files at captured paths. Each plan comes back with a
//! description of every change and the tree untouched.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use agent_checkpoint::root::MemNode;
use agent_checkpoint::{
    capture, plan_rollback, CaptureOptions, DiffOptions, MemRoot, ParseOptions, Plan, PlanOptions,
    RelPath, Snapshot,
};

fn file(root: &MemRoot, path: &str, bytes: &[u8]) {
    let node = MemNode::File {
        bytes: bytes.to_vec(),
        mode: 0o644,
    };
    root.insert(&RelPath::try_from(path).unwrap(), node);
}

/// `n` lines of 16 hex digits from a xorshift generator seeded with `seed`:
/// two seeds give two files with no line in common.
fn random_lines(seed: u64, n: usize) -> String {
    let mut x = seed;
    let mut text = String::with_capacity(n * 17);
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        text.push_str(&format!("{x:016x}\n"));
    }
    text
}

/// Captures `path` holding `before` in a memory root, writes `after`, and
/// plans the rollback with `diff`.
fn plan_mem(before: &[u8], after: &[u8], diff: DiffOptions) -> Plan {
    let root = MemRoot::new();
    file(&root, "f", before);
    let text = capture(&root, ["f"], &CaptureOptions::default()).unwrap();
    file(&root, "f", after);
    let snapshot = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    plan_rollback(
        &root,
        &snapshot,
        &PlanOptions::default().with_diff(Some(diff)),
    )
    .unwrap()
}

/// Two files of about 1 MiB with no line in common: the minimal line diff
/// of such a pair takes the Myers search minutes (its cost grows with the
/// product of the lengths). The plan still describes the change, as a
/// removal of every current line and an addition of every captured one.
#[test]
fn two_large_files_with_no_line_in_common_still_get_a_diff() {
    let lines = std::env::var("DIFF_LINES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60_000);
    let captured = random_lines(1, lines);
    let current = random_lines(2, lines);
    assert!(captured.len() as u64 <= agent_checkpoint::DEFAULT_DIFF_MAX_BYTES);
    let plan = plan_mem(
        captured.as_bytes(),
        current.as_bytes(),
        DiffOptions::default(),
    );
    let diff = plan.items[0].diff.as_ref().unwrap();
    assert_eq!((diff.added, diff.removed), (lines, lines));
    assert_eq!(diff.summary, format!("+{lines} -{lines}"));
}

/// A context of `usize::MAX` lines shows the whole file; it is no reason
/// to overflow.
#[test]
fn the_largest_context_shows_the_whole_file() {
    let plan = plan_mem(
        b"a\nb\nc\nd\n",
        b"a\nB\nc\nd\n",
        DiffOptions::default().with_context(usize::MAX),
    );
    let diff = plan.items[0].diff.as_ref().unwrap();
    assert_eq!(diff.hunks.len(), 1);
    assert_eq!(diff.hunks[0].lines.len(), 5);
}

/// `max_bytes` 0 shows no file's lines; `u64::MAX` shows every file's.
#[test]
fn the_size_limit_at_its_extremes() {
    let plan = plan_mem(b"old\n", b"new\n", DiffOptions::default().with_max_bytes(0));
    let diff = plan.items[0].diff.as_ref().unwrap();
    assert_eq!(diff.text, None);
    assert!(diff.summary.contains("over the diff limit of 0 bytes"));
    let plan = plan_mem(
        b"old\n",
        b"new\n",
        DiffOptions::default().with_max_bytes(u64::MAX),
    );
    let diff = plan.items[0].diff.as_ref().unwrap();
    assert_eq!((diff.added, diff.removed), (1, 1));
}
