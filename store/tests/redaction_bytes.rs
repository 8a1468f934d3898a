//! Redaction of what is not plain UTF-8 text, and of step messages, with
//! the default redactor (issues 29.10 and 40.5): a transcript with a Latin-1
//! byte is redacted as text on the shadow branch (the byte kept) and
//! condenses; a secret in a step's `--message` reaches no object. Every
//! object of the repository is checked (`git cat-file --batch-all-objects`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use agent_checkpoint_store::{SessionWrite, ShadowLogQuery, ShadowStep, Store};
use common::TestRepo;

const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
// Made-up secrets of known shapes (no real credential).
const TOKEN: &str = "ghp_Tz4Qm8Vx2Lk6Rb9Nw3Yh7Jc1Pf5Sd0Ga8Ue";
const AWS: &str = "AKIAQX7ZB4K2MNR5TW3Y";

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

fn repo_with_commit() -> TestRepo {
    let repo = TestRepo::new();
    write(repo.path(), "a.txt", b"a\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    repo
}

/// Every object of the repository, as `git cat-file --batch` prints them.
fn all_objects(repo: &TestRepo) -> Vec<u8> {
    let out = repo.git_output(&["cat-file", "--batch-all-objects", "--batch"], None);
    assert!(out.status.success());
    out.stdout
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn latin1_transcript_is_redacted_on_the_shadow_branch_and_condenses() {
    let repo = repo_with_commit();
    let root = repo.path();
    let store = Store::open(root).unwrap();
    let meta = repo.home.path().join("meta");
    // A tool printed Latin-1: `caf\xe9` is not UTF-8.
    let mut transcript = Vec::new();
    transcript.extend_from_slice(b"{\"type\":\"user\",\"text\":\"use ");
    transcript.extend_from_slice(TOKEN.as_bytes());
    transcript.extend_from_slice(b" please\"}\n");
    transcript.extend_from_slice(b"{\"type\":\"tool_result\",\"content\":\"caf\xe9 ");
    transcript.extend_from_slice(AWS.as_bytes());
    transcript.extend_from_slice(b"\xe9\",\"cwd\":\"/tmp/x\"}\n");
    write(&meta, "full.jsonl", &transcript);
    write(
        &meta,
        "notes.txt",
        b"r\xe9sum\xe9 key=AKIAQX7ZB4K2MNR5TW3Y\n",
    );
    write(root, "a.txt", b"changed\n");
    let step = store
        .shadow_step(&ShadowStep::new("s1").file("a.txt").metadata_dir(&meta))
        .unwrap();

    let objects = all_objects(&repo);
    for secret in [TOKEN, AWS] {
        assert!(
            !contains(&objects, secret.as_bytes()),
            "{secret} reached an object on the shadow branch"
        );
    }
    // Redacted as JSON, the Latin-1 bytes kept byte for byte.
    let spec = format!("{}:.entire/metadata/s1/full.jsonl", step.branch);
    let stored = repo.git_output(&["cat-file", "blob", &spec], None).stdout;
    assert_eq!(
        stored,
        b"{\"type\":\"user\",\"text\":\"use REDACTED please\"}\n{\"type\":\"tool_result\",\"content\":\"caf\xe9 REDACTED\xe9\",\"cwd\":\"/tmp/x\"}\n"
    );
    let spec = format!("{}:.entire/metadata/s1/notes.txt", step.branch);
    let stored = repo.git_output(&["cat-file", "blob", &spec], None).stdout;
    assert_eq!(stored, b"r\xe9sum\xe9 key=REDACTED\n");

    // Condense works on it: the checkpoint's transcript is UTF-8, each
    // invalid byte a U+FFFD, the secrets still absent everywhere.
    let done = store
        .shadow_condense(&SessionWrite::new(ULID, "s1").agent("Claude Code"))
        .unwrap();
    assert_eq!(done.steps, 1);
    let objects = all_objects(&repo);
    for secret in [TOKEN, AWS] {
        assert!(!contains(&objects, secret.as_bytes()), "{secret} leaked");
    }
    assert!(contains(
        &objects,
        "caf\u{fffd} REDACTED\u{fffd}\",\"cwd\":\"/tmp/x\"}".as_bytes()
    ));
    repo.assert_fsck();
}

#[test]
fn step_messages_are_redacted_trailers_kept() {
    let repo = repo_with_commit();
    let root = repo.path();
    let store = Store::open(root).unwrap();
    write(root, "a.txt", b"changed\n");
    let message = format!("deploy with GITHUB_TOKEN={TOKEN}\n\nand key {AWS}");
    let step = store
        .shadow_step(&ShadowStep::new("s1").file("a.txt").message(message))
        .unwrap();

    let objects = all_objects(&repo);
    for secret in [TOKEN, AWS] {
        assert!(!contains(&objects, secret.as_bytes()), "{secret} leaked");
    }
    let body = repo.git(&["log", "-1", "--format=%B", &step.branch]);
    assert_eq!(
        body,
        "deploy with GITHUB_TOKEN=REDACTED\n\nand key REDACTED\n\nEntire-Metadata: .entire/metadata/s1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n\n"
    );
    let log = store.shadow_log(&ShadowLogQuery::new()).unwrap();
    assert_eq!(log.len(), 1);
    assert!(
        log[0].message.contains("GITHUB_TOKEN=REDACTED"),
        "{:?}",
        log[0]
    );
    assert_eq!(log[0].session_id, "s1");
    assert_eq!(log[0].metadata_dir, ".entire/metadata/s1");
}
