//! Shadow steps clean on the fly: the first step on a new `HEAD` commit
//! deletes the shadow branches no session needs (what `shadow clean`
//! deletes), and the next `gc` frees their objects; later steps on the same
//! branch do not look; `entire.shadowAutoClean=false` turns it off.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use agent_checkpoint_store::{GcOptions, NoRedaction, ShadowStep, Store, StoreOptions};
use common::TestRepo;

fn commit(repo: &TestRepo, text: &str) {
    std::fs::write(repo.path().join("a.txt"), text).unwrap();
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", text]);
}

/// A shadow branch whose base commit (deadbee...) is not in the
/// repository; returns its tip.
fn stale_branch(repo: &TestRepo, blob_text: &str) -> String {
    let blob = repo.blob(blob_text.as_bytes());
    let tree = repo.mktree(&[("100644", "blob", &blob, "f.txt")]);
    let tip = repo.commit_tree(&tree, None, "step\n\nEntire-Session: old\n");
    repo.git(&["update-ref", "refs/heads/entire/deadbee-abc123", &tip]);
    tip
}

fn shadow_branches(repo: &TestRepo) -> Vec<String> {
    repo.refs()
        .into_iter()
        .filter(|r| r.starts_with("refs/heads/entire/"))
        .collect()
}

fn exists(repo: &TestRepo, id: &str) -> bool {
    repo.git_output(&["cat-file", "-e", id], None)
        .status
        .success()
}

#[test]
fn a_step_on_a_new_base_deletes_unneeded_branches_and_gc_frees_them() {
    let repo = TestRepo::new();
    repo.git(&["config", "gc.pruneExpire", "now"]);
    commit(&repo, "first\n");
    let store = Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    std::fs::write(repo.path().join("b.txt"), "agent edit\n").unwrap();
    let on_a = store.shadow_step(&ShadowStep::new("s1")).unwrap();
    let stale = stale_branch(&repo, "only on a stale shadow branch\n");

    // A later step on the same branch does not look.
    std::fs::write(repo.path().join("b.txt"), "agent edit 2\n").unwrap();
    store
        .shadow_step(&ShadowStep::new("s1").file("b.txt"))
        .unwrap();
    assert!(shadow_branches(&repo).contains(&"refs/heads/entire/deadbee-abc123".to_owned()));

    commit(&repo, "second\n");
    let on_b = store.shadow_step(&ShadowStep::new("s2")).unwrap();
    assert_ne!(on_a.branch, on_b.branch);
    let mut want = vec![
        format!("refs/heads/{}", on_a.branch),
        format!("refs/heads/{}", on_b.branch),
    ];
    want.sort();
    // The stale one went; s1's branch (its session not condensed) stays.
    assert_eq!(shadow_branches(&repo), want);
    assert!(exists(&repo, &stale), "objects wait for gc");

    let report = store.gc(&GcOptions::new()).unwrap();
    assert!(report.removed_branches.is_empty(), "{report:?}");
    assert!(report.objects_removed >= 3, "{report:?}");
    assert!(
        !exists(&repo, &stale),
        "gc freed the removed branch's objects"
    );
    repo.assert_fsck();
}

#[test]
fn shadow_auto_clean_false_keeps_every_branch() {
    let repo = TestRepo::new();
    repo.git(&["config", "entire.shadowAutoClean", "false"]);
    commit(&repo, "first\n");
    let store = Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    stale_branch(&repo, "stale\n");
    std::fs::write(repo.path().join("b.txt"), "agent edit\n").unwrap();
    let step = store.shadow_step(&ShadowStep::new("s1")).unwrap();
    let mut want = vec![
        "refs/heads/entire/deadbee-abc123".to_owned(),
        format!("refs/heads/{}", step.branch),
    ];
    want.sort();
    assert_eq!(shadow_branches(&repo), want);
}
