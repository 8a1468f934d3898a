//! Condense and clean: a session's steps become one persistent checkpoint
//! (files touched, prompts, transcript, step count, `Ephemeral-branch`
//! trailer); the shadow branch goes once every session on it is
//! condensed; `shadow_clean` deletes branches whose base commit is gone or
//! whose sessions are all condensed, and keeps the others.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{NoRedaction, SessionWrite, ShadowStep, Store, StoreOptions};
use common::TestRepo;

const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
const ULID2: &str = "01KVBJCWYA4YW6J5M9GP655HZP";

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

fn repo_with_commit() -> TestRepo {
    let repo = TestRepo::new();
    write(repo.path(), "a.txt", b"a\n");
    write(repo.path(), "pre.txt", b"committed\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    repo
}

#[test]
fn condense_writes_one_checkpoint_and_deletes_the_branch_when_no_session_needs_it() {
    common::each_format(
        condense_writes_one_checkpoint_and_deletes_the_branch_when_no_session_needs_it_in,
    );
}

fn condense_writes_one_checkpoint_and_deletes_the_branch_when_no_session_needs_it_in() {
    let repo = repo_with_commit();
    let root = repo.path();
    let store = Store::open_with(root, StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    let meta = repo.home.path().join("meta");
    write(
        &meta,
        "full.jsonl",
        b"{\"type\":\"user\",\"text\":\"hi\"}\n",
    );
    write(&meta, "prompt.txt", b"first prompt\n\n---\n\nsecond prompt");
    write(root, "pre.txt", b"changed by the user before the session\n");
    let first = store
        .shadow_step(&ShadowStep::new("s1").metadata_dir(&meta))
        .unwrap();
    write(root, "a.txt", b"agent\n");
    write(root, "src/new.rs", b"fn main() {}\n");
    store
        .shadow_step(&ShadowStep::new("s1").files(["a.txt", "src/new.rs"]))
        .unwrap();
    write(root, "b.txt", b"other session\n");
    store
        .shadow_step(&ShadowStep::new("s2").file("b.txt"))
        .unwrap();

    let done = store
        .shadow_condense(&SessionWrite::new(ULID, "s1").agent("Claude Code"))
        .unwrap();
    assert_eq!(done.branch, first.branch);
    assert_eq!(done.steps, 2);
    assert_eq!(done.files_touched, ["a.txt", "pre.txt", "src/new.rs"]);
    assert!(!done.branch_deleted, "s2 still needs the branch");
    let summary = store.read(ULID).unwrap();
    assert_eq!(
        summary.files_touched.unwrap(),
        ["a.txt", "pre.txt", "src/new.rs"]
    );
    let session = store.read_session(ULID, 0).unwrap();
    assert_eq!(session.prompts, ["first prompt", "second prompt"]);
    assert_eq!(
        session.transcript.as_deref(),
        Some(&b"{\"type\":\"user\",\"text\":\"hi\"}\n"[..])
    );
    assert_eq!(session.metadata.save_step_count, 2);
    let body = repo.git(&["log", "-1", "--format=%B", &done.commit]);
    assert!(
        body.contains(&format!("Ephemeral-branch: {}\n", first.branch)),
        "{body}"
    );
    assert!(repo
        .refs()
        .contains(&format!("refs/heads/{}", first.branch)));

    let done2 = store
        .shadow_condense(&SessionWrite::new(ULID2, "s2"))
        .unwrap();
    assert!(done2.branch_deleted);
    assert_eq!(done2.files_touched, ["b.txt"]);
    assert!(!repo
        .refs()
        .contains(&format!("refs/heads/{}", first.branch)));
    let e = store
        .shadow_condense(&SessionWrite::new(ULID2, "nobody"))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    repo.assert_fsck();
}

#[test]
fn clean_deletes_what_no_session_needs_and_keeps_the_rest() {
    common::each_format(clean_deletes_what_no_session_needs_and_keeps_the_rest_in);
}

fn clean_deletes_what_no_session_needs_and_keeps_the_rest_in() {
    let repo = repo_with_commit();
    // What `shadow clean` chooses: the step on the new base commit below
    // would otherwise clean first (store/tests/shadow_retention.rs).
    repo.git(&["config", "entire.shadowAutoClean", "false"]);
    let root = repo.path();
    let store = Store::open(root).unwrap();
    write(root, "a.txt", b"1\n");
    let live = store.shadow_step(&ShadowStep::new("live")).unwrap();
    // A branch whose base commit does not exist.
    repo.git(&[
        "update-ref",
        "refs/heads/entire/deadbee-e3b0c4",
        &live.commit,
    ]);
    // A branch whose only session was condensed (written by hand here).
    repo.git(&["commit", "-q", "--allow-empty", "-m", "moved on"]);
    let done = store.shadow_step(&ShadowStep::new("done")).unwrap();
    assert_ne!(done.branch, live.branch);
    store
        .write_session(&SessionWrite::new(ULID, "done"))
        .unwrap();

    let cleaned = store.shadow_clean().unwrap();
    let got: Vec<(&str, &str)> = cleaned
        .iter()
        .map(|c| (c.branch.as_str(), c.reason.as_str()))
        .collect();
    let mut want = vec![
        ("entire/deadbee-e3b0c4", "base_commit_gone"),
        (done.branch.as_str(), "sessions_condensed"),
    ];
    want.sort();
    assert_eq!(got, want);
    let left: Vec<String> = store
        .shadow_branches()
        .unwrap()
        .into_iter()
        .map(|b| b.branch)
        .collect();
    assert_eq!(left, [live.branch]);
    assert!(store.shadow_clean().unwrap().is_empty());
}

/// Makes the file `path` (and its directory) with a modification time
/// `age_secs` in the past (negative: in the future, a live holder).
fn lock_file_aged(path: &Path, age_secs: i64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let now = std::time::SystemTime::now();
    let offset = std::time::Duration::from_secs(age_secs.unsigned_abs());
    let when = if age_secs >= 0 {
        now - offset
    } else {
        now + offset
    };
    file.set_modified(when).unwrap();
}

fn shadow_refs(repo: &TestRepo) -> Vec<String> {
    repo.refs()
        .into_iter()
        .filter(|r| r.starts_with("refs/heads/entire/"))
        .collect()
}

#[test]
fn a_git_lock_left_by_a_killed_delete_never_keeps_a_branch_silently() {
    common::each_format(a_git_lock_left_by_a_killed_delete_never_keeps_a_branch_silently_in);
}

fn a_git_lock_left_by_a_killed_delete_never_keeps_a_branch_silently_in() {
    let repo = repo_with_commit();
    let root = repo.path();
    let store = Store::open(root).unwrap();
    write(root, "a.txt", b"1\n");
    let step = store.shadow_step(&ShadowStep::new("s1")).unwrap();
    // What a condense killed inside git's ref-lock window leaves (reftable:
    // the lock of the whole ref stack), an hour old.
    let lock = |branch: &str| {
        if repo.format.reftable() {
            root.join(".git/reftable/tables.list.lock")
        } else {
            root.join(".git/refs/heads").join(format!("{branch}.lock"))
        }
    };
    lock_file_aged(&lock(&step.branch), 3600);
    let condensed = store.shadow_condense(&SessionWrite::new(ULID, "s1"));
    if repo.format.reftable() {
        // git's own lock of every ref is git's to judge: reported by path
        // (the checkpoint write meets it first).
        let err = condensed.unwrap_err();
        assert_eq!(err.code(), ErrorCode::Io, "{err}");
        assert_eq!(err.path(), lock(&step.branch).to_str(), "{err}");
        assert_eq!(shadow_refs(&repo), [format!("refs/heads/{}", step.branch)]);
        std::fs::remove_file(lock(&step.branch)).unwrap();
        let condensed = store.shadow_condense(&SessionWrite::new(ULID, "s1"));
        assert!(condensed.unwrap().branch_deleted);
    } else {
        // An abandoned ref lock is cleared, as a write clears it.
        assert!(condensed.unwrap().branch_deleted);
        assert!(!lock(&step.branch).exists());
    }
    assert_eq!(shadow_refs(&repo), Vec::<String>::new());

    // `shadow clean` alike: an abandoned lock is cleared (files), a live
    // one is an error, never a branch silently kept.
    repo.git(&["commit", "-q", "--allow-empty", "-m", "moved on"]);
    write(root, "a.txt", b"2\n");
    let step = store.shadow_step(&ShadowStep::new("s2")).unwrap();
    store
        .write_session(&SessionWrite::new(ULID2, "s2"))
        .unwrap();
    lock_file_aged(&lock(&step.branch), -3600);
    let err = store.shadow_clean().unwrap_err();
    if repo.format.reftable() {
        assert_eq!(err.path(), lock(&step.branch).to_str(), "{err}");
    } else {
        assert_eq!(err.code(), ErrorCode::RefBusy, "{err}");
    }
    assert_eq!(shadow_refs(&repo), [format!("refs/heads/{}", step.branch)]);
    if repo.format.reftable() {
        std::fs::remove_file(lock(&step.branch)).unwrap();
    } else {
        lock_file_aged(&lock(&step.branch), 3600);
    }
    let cleaned = store.shadow_clean().unwrap();
    assert_eq!(cleaned.len(), 1, "{cleaned:?}");
    assert_eq!(shadow_refs(&repo), Vec::<String>::new());
    assert!(!lock(&step.branch).exists());
    repo.assert_fsck();
}

#[test]
fn condense_keeping_the_branch_leaves_the_steps_rewindable() {
    let repo = repo_with_commit();
    let root = repo.path();
    let store = Store::open_with(root, StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    let first = store.shadow_step(&ShadowStep::new("s1")).unwrap();
    write(root, "a.txt", b"agent\n");
    store
        .shadow_step(&ShadowStep::new("s1").file("a.txt"))
        .unwrap();
    let done = store
        .shadow_condense_keeping_branch(&SessionWrite::new(ULID, "s1"))
        .unwrap();
    assert!(!done.branch_deleted);
    assert_eq!(done.files_touched, ["a.txt"]);
    assert_eq!(store.shadow_branches().unwrap()[0].branch, first.branch);
    let report = store
        .shadow_rewind(&first.commit, root, &Default::default())
        .unwrap();
    assert_eq!(report.restored, ["a.txt"]);
    assert_eq!(std::fs::read(root.join("a.txt")).unwrap(), b"a\n");
    // The plain condense of the same session deletes it.
    let again = store
        .shadow_condense(&SessionWrite::new(ULID, "s1"))
        .unwrap();
    assert!(again.branch_deleted);
    assert!(store.shadow_branches().unwrap().is_empty());
}
