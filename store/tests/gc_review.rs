//! `Store::du` / `Store::gc` against what a review found: a partial clone
//! is never fetched from, a checked-out shadow branch is never deleted,
//! retention's "newest" is the order the store wrote the snapshots in, and
//! a planted pending file (a symlink) names nothing to free.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions};
use agent_checkpoint_store::{
    GcOptions, NoRedaction, SessionWrite, ShadowStep, Store, StoreOptions,
};
use common::{git_command, TestRepo};

fn open(repo: &TestRepo) -> Store {
    repo.git(&["config", "gc.pruneExpire", "now"]);
    Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap()
}

/// A capture snapshot of one file holding `text`, taken in a scratch
/// directory.
fn snapshot(text: &str) -> String {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), text).unwrap();
    let root = CapRoot::open(work.path(), ambient_authority()).unwrap();
    agent_checkpoint::capture(&root, ["notes.txt"], &CaptureOptions::default())
        .unwrap()
        .into_string()
}

fn capture(store: &Store, id: &str, session: &str) {
    store
        .write_session(
            &SessionWrite::new(id, session)
                .prompt(format!("step {id}"))
                .snapshot(snapshot(&format!("capture {id}\n"))),
        )
        .unwrap();
}

fn present_locally(repo: &TestRepo, id: &str) -> bool {
    let mut cmd = repo.command();
    cmd.args(["cat-file", "-e", id])
        .env("GIT_NO_LAZY_FETCH", "1");
    cmd.output().unwrap().status.success()
}

#[test]
fn du_and_gc_never_fetch_from_a_partial_clones_promisor_remote() {
    let origin = TestRepo::new();
    std::fs::write(origin.path().join("f.txt"), "first version\n").unwrap();
    origin.git(&["add", "f.txt"]);
    origin.git(&["commit", "-q", "-m", "one"]);
    let old_blob = origin.git(&["rev-parse", "HEAD:f.txt"]).trim().to_owned();
    std::fs::write(origin.path().join("f.txt"), "second version\n").unwrap();
    origin.git(&["commit", "-q", "-a", "-m", "two"]);
    origin.git(&["config", "uploadpack.allowFilter", "true"]);

    let clone = TestRepo {
        dir: tempfile::tempdir().unwrap(),
        home: tempfile::tempdir().unwrap(),
        format: origin.format,
    };
    let url = format!("file://{}", origin.path().display());
    let out = git_command(clone.path(), clone.home.path())
        .args(["clone", "-q", "--filter=blob:none", &url, "."])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    clone.git(&["config", "user.name", "Test User"]);
    clone.git(&["config", "user.email", "test@example.com"]);
    assert!(!present_locally(&clone, &old_blob), "the clone is blobless");

    let store = open(&clone);
    capture(&store, "a00000000001", "s1");
    std::fs::write(clone.path().join("g.txt"), "an agent's file\n").unwrap();
    store.shadow_step(&ShadowStep::new("s1")).unwrap();
    let du = store.du(10).unwrap();
    assert_eq!(du.snapshots.refs, 1);
    assert_eq!(du.shadow_branches.refs, 1);
    assert!(!present_locally(&clone, &old_blob), "du fetched history");
    store.gc(&GcOptions::new().keep(1).dry_run(true)).unwrap();
    let report = store.gc(&GcOptions::new().keep(1)).unwrap();
    assert!(report.removed_snapshots.is_empty(), "{report:?}");
    assert!(!present_locally(&clone, &old_blob), "gc fetched history");
    // The clone is still whole as a partial clone.
    let fsck = clone.git_output(&["fsck", "--connectivity-only", "--no-progress"], None);
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
}

#[test]
fn a_shadow_branch_some_worktree_has_checked_out_is_never_deleted() {
    let repo = TestRepo::new();
    std::fs::write(repo.path().join("a.txt"), "base\n").unwrap();
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let store = open(&repo);
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_owned();
    let mut tips = Vec::new();
    // Base commits deadbee / deadbe0 / deadbe1 are not in the repository:
    // all three are "base commit gone", what gc and shadow clean delete.
    for name in ["deadbee-abc123", "deadbe0-abc123", "deadbe1-abc123"] {
        let commit = repo.commit_tree(&tree, None, "step\n\nEntire-Session: s\n");
        repo.git(&["update-ref", &format!("refs/heads/entire/{name}"), &commit]);
        tips.push(commit);
    }
    let linked = tempfile::tempdir().unwrap();
    let linked_path = linked.path().join("wt");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        linked_path.to_str().unwrap(),
        "entire/deadbee-abc123",
    ]);
    repo.git(&["switch", "-q", "entire/deadbe0-abc123"]);

    let dry = store.gc(&GcOptions::new().dry_run(true)).unwrap();
    let names: Vec<&str> = dry
        .removed_branches
        .iter()
        .map(|b| b.branch.as_str())
        .collect();
    assert_eq!(names, ["entire/deadbe1-abc123"]);
    let report = store.gc(&GcOptions::new()).unwrap();
    let names: Vec<&str> = report
        .removed_branches
        .iter()
        .map(|b| b.branch.as_str())
        .collect();
    assert_eq!(names, ["entire/deadbe1-abc123"]);
    assert!(store.shadow_clean().unwrap().is_empty());
    let refs = repo.refs();
    assert!(
        refs.contains(&"refs/heads/entire/deadbee-abc123".to_owned()),
        "{refs:?}"
    );
    assert!(
        refs.contains(&"refs/heads/entire/deadbe0-abc123".to_owned()),
        "{refs:?}"
    );
    assert!(present_locally(&repo, &tips[0]) && present_locally(&repo, &tips[1]));
    let status = git_command(&linked_path, repo.home.path())
        .args(["status", "--short"])
        .output()
        .unwrap();
    assert!(status.status.success(), "the linked worktree still works");
    repo.assert_fsck();
}

#[test]
fn retention_keeps_the_snapshots_written_last_whatever_their_ids() {
    let repo = TestRepo::new();
    repo.git(&["config", "entire.snapshotRetention", "10"]);
    let store = open(&repo);
    // Written well within a second or two, each ID smaller than the one
    // before: a committer time plus the greater ID would keep the first
    // ones of the last second.
    let id = |i: usize| format!("{:012x}", 0xafff_ffff_ffff_usize - i);
    for i in 0..30 {
        capture(&store, &id(i), "s1");
    }
    for i in 0..30 {
        let kept = store.snapshot(&id(i)).unwrap().is_some();
        assert_eq!(kept, i >= 20, "snapshot {i} ({})", id(i));
    }
}

#[cfg(unix)]
#[test]
fn a_pending_file_planted_as_a_symlink_names_nothing_to_free() {
    let repo = TestRepo::new();
    std::fs::write(repo.path().join("a.txt"), "base\n").unwrap();
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let store = open(&repo);
    capture(&store, "a00000000001", "s1");
    // The user's own unreachable commit (old enough for gc.pruneExpire=now).
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_owned();
    let theirs = repo.commit_tree(&tree, None, "the user's dangling work");
    let outside = tempfile::tempdir().unwrap();
    let list = outside.path().join("tips");
    std::fs::write(&list, format!("{theirs}\n")).unwrap();
    std::os::unix::fs::symlink(&list, repo.path().join(".git/entire-gc-pending.1")).unwrap();
    std::os::unix::fs::symlink(&list, repo.path().join(".git/entire-gc-pending")).unwrap();

    let report = store.gc(&GcOptions::new()).unwrap();
    assert_eq!(report.objects_removed, 0, "{report:?}");
    assert!(present_locally(&repo, &theirs), "the user's commit went");
    assert_eq!(
        std::fs::read_to_string(&list).unwrap(),
        format!("{theirs}\n"),
        "the link's target untouched"
    );
}
