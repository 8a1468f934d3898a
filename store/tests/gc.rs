//! `Store::gc`: undo snapshots beyond the retention, unneeded shadow
//! branches and (only when asked) old checkpoints go with exactly the
//! objects only they reached; the user's refs, stash and unreachable
//! objects stay; a dry run changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions};
use agent_checkpoint_store::{
    GcOptions, NoRedaction, SessionWrite, Store, StoreOptions, Timestamp,
};
use common::TestRepo;

fn store_of(repo: &TestRepo) -> Store {
    store(repo)
}

fn store(repo: &TestRepo) -> Store {
    // Objects are deleted at once only when git's prune limit says so (the
    // default, 2 weeks, keeps young ones: see `gc_keeps_young_objects_*`).
    repo.git(&["config", "gc.pruneExpire", "now"]);
    Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap()
}

/// The capture snapshot of one file holding `text` (captured in a
/// scratch directory, so the repository's worktree stays as it is).
fn snapshot(text: &str) -> String {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), text).unwrap();
    let root = CapRoot::open(work.path(), ambient_authority()).unwrap();
    agent_checkpoint::capture(&root, ["notes.txt"], &CaptureOptions::default())
        .unwrap()
        .into_string()
}

fn id(i: usize) -> String {
    format!("{:012x}", 0xa000_0000_0000_usize + i)
}

fn capture(store: &Store, i: usize, session: &str) {
    store
        .write_session(
            &SessionWrite::new(id(i), session)
                .prompt(format!("step {i}"))
                .snapshot(snapshot(&format!("capture {i} of {session}\n"))),
        )
        .unwrap();
}

fn snapshot_refs(repo: &TestRepo) -> Vec<String> {
    repo.refs()
        .into_iter()
        .filter(|r| r.starts_with("refs/entire/snapshots/"))
        .collect()
}

/// `size` + `size-pack` of `git count-objects -v` (KiB).
fn git_kib(repo: &TestRepo) -> u64 {
    let text = repo.git(&["count-objects", "-v"]);
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(": ")?;
            (k == "size" || k == "size-pack").then(|| v.trim().parse::<u64>().unwrap())
        })
        .sum()
}

/// A commit on `main`, a tag, a stash and a young unreachable blob: what
/// the user owns and gc must leave.
struct UserState {
    unreachable: String,
    refs: Vec<(String, String)>,
}

fn user_state(repo: &TestRepo) -> UserState {
    std::fs::write(repo.path().join("a.txt"), "user file\n").unwrap();
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", "user commit"]);
    repo.git(&["tag", "v1"]);
    std::fs::write(repo.path().join("a.txt"), "stashed change\n").unwrap();
    repo.git(&["stash", "-q"]);
    let unreachable = repo.blob(b"the user's own unreachable object\n");
    UserState {
        unreachable,
        refs: user_refs(repo),
    }
}

fn user_refs(repo: &TestRepo) -> Vec<(String, String)> {
    repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(n, _)| !n.starts_with("refs/entire/") && !n.starts_with("refs/heads/entire/"))
        .map(|(n, o)| (n.to_owned(), o.to_owned()))
        .collect()
}

fn assert_user_state_kept(repo: &TestRepo, user: &UserState) {
    assert_eq!(user_refs(repo), user.refs);
    let exists = repo.git_output(&["cat-file", "-e", &user.unreachable], None);
    assert!(exists.status.success(), "the user's unreachable blob went");
    assert_eq!(repo.git(&["stash", "list"]).lines().count(), 1);
}

fn exists(repo: &TestRepo, id: &str) -> bool {
    repo.git_output(&["cat-file", "-e", id], None)
        .status
        .success()
}

#[test]
fn five_hundred_captures_keep_the_newest_hundred_and_gc_shrinks_the_repository() {
    common::each_format(five_hundred_captures_in);
}

fn five_hundred_captures_in() {
    let repo = TestRepo::new();
    let user = user_state(&repo);
    repo.git(&["config", "entire.snapshotRetention", "100"]);
    let store = store(&repo);
    for i in 0..500 {
        capture(&store, i, "long-session");
    }
    // Retention ran on every write: never more than 100, the newest kept.
    let refs = snapshot_refs(&repo);
    assert_eq!(refs.len(), 100);
    for i in 400..500 {
        assert!(store.snapshot(&id(i)).unwrap().is_some(), "snapshot {i}");
    }
    assert!(store.snapshot(&id(399)).unwrap().is_none());
    let files = std::fs::read_dir(repo.path().join(".git/entire-snapshots"))
        .unwrap()
        .count();
    assert_eq!(files, 100, "the files of removed snapshots went with them");
    // Every checkpoint itself is still there.
    assert_eq!(store.list().unwrap().len(), 500);

    let before = git_kib(&repo);
    let report = store.gc(&GcOptions::new()).unwrap();
    let after = git_kib(&repo);
    assert!(
        after < before,
        "count-objects went from {before} to {after} KiB"
    );
    assert!(report.objects_removed >= 400, "{report:?}");
    assert!(report.object_bytes_freed > 0);
    assert!(report.removed_snapshots.is_empty(), "retention already ran");
    assert_eq!(snapshot_refs(&repo), refs);
    assert_user_state_kept(&repo, &user);
    for i in [400, 450, 499] {
        assert!(store.snapshot(&id(i)).unwrap().is_some());
    }
    assert_eq!(store.list().unwrap().len(), 500);
    repo.assert_fsck();
    // The pending tips were used up: a second gc frees nothing.
    let again = store.gc(&GcOptions::new()).unwrap();
    assert_eq!(again.objects_removed, 0, "{again:?}");
}

/// Every file under `.git` with its bytes.
fn git_dir_tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                out.insert(format!("{}/", path.display()), Vec::new());
                stack.push(path);
            } else {
                out.insert(path.display().to_string(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn keep_and_age_remove_snapshots_and_free_their_objects_packed_or_loose() {
    common::each_format(keep_and_age_in);
}

fn keep_and_age_in() {
    let repo = TestRepo::new();
    let user = user_state(&repo);
    let store = store(&repo);
    for i in 0..6 {
        capture(&store, i, if i % 2 == 0 { "even" } else { "odd" });
    }
    // One the user packed: every snapshot and checkpoint in one pack.
    repo.git(&["repack", "-a", "-d", "-q"]);
    // A user object in a pack, unreachable and young: git keeps it until
    // gc.pruneExpire, and so must we.
    std::fs::write(repo.path().join("b.txt"), "soon unreachable\n").unwrap();
    repo.git(&["checkout", "-q", "-b", "scratch"]);
    repo.git(&["add", "b.txt"]);
    repo.git(&["commit", "-q", "-m", "scratch"]);
    let scratch = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    repo.git(&["repack", "-a", "-d", "-q"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["branch", "-q", "-D", "scratch"]);
    repo.git(&["reflog", "expire", "--expire=now", "HEAD"]);
    let user = UserState {
        unreachable: user.unreachable,
        refs: user_refs(&repo),
    };
    let tips: BTreeMap<String, String> = snapshot_refs(&repo)
        .into_iter()
        .map(|r| {
            let tip = repo.git(&["rev-parse", &r]).trim().to_owned();
            (r, tip)
        })
        .collect();

    // Dry: a report, and not one byte of .git changed.
    let refs_before = repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    let tree_before = git_dir_tree(&repo.path().join(".git"));
    let dry = store.gc(&GcOptions::new().keep(1).dry_run(true)).unwrap();
    assert!(dry.dry_run);
    assert_eq!(dry.removed_snapshots.len(), 4, "{dry:?}");
    assert!(dry.objects_removed > 0);
    assert_eq!(
        repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]),
        refs_before
    );
    assert!(
        git_dir_tree(&repo.path().join(".git")) == tree_before,
        "a dry run changed .git"
    );

    let report = store.gc(&GcOptions::new().keep(1)).unwrap();
    assert_eq!(report.keep, Some(1));
    let removed: Vec<&str> = report
        .removed_snapshots
        .iter()
        .map(|r| r.checkpoint_id.as_str())
        .collect();
    let mut expected = vec![id(0), id(1), id(2), id(3)];
    expected.sort();
    assert_eq!(removed, expected);
    assert!(report
        .removed_snapshots
        .iter()
        .all(|r| r.reason == "beyond_retention"));
    assert!(report.repacked, "the snapshots were packed");
    assert_eq!(report.objects_removed, dry.objects_removed);
    assert_eq!(report.snapshot_files_removed, 4);
    for (r, tip) in &tips {
        let kept = r.ends_with(&id(4)) || r.ends_with(&id(5));
        assert_eq!(exists(&repo, tip), kept, "{r}");
    }
    assert!(store.snapshot(&id(5)).unwrap().is_some());
    assert!(store.snapshot(&id(4)).unwrap().is_some());
    assert!(
        exists(&repo, &scratch),
        "the user's packed unreachable commit went"
    );
    assert_user_state_kept(&repo, &user);
    assert_eq!(store.list().unwrap().len(), 6, "checkpoints are kept");
    repo.assert_fsck();
}

/// A snapshot ref whose tip is `days` old (git writes it, with the date).
fn old_snapshot_ref(repo: &TestRepo, checkpoint: &str, session: &str, days: u64) -> String {
    let blob = repo.blob(format!("{}\n", "0".repeat(64)).as_bytes());
    let tree = repo.mktree(&[("100644", "blob", &blob, "snapshot.sha256")]);
    let message =
        format!("Undo snapshot for Checkpoint: {checkpoint}\n\nEntire-Session: {session}\n");
    let when = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - days * 86_400;
    let mut cmd = repo.command();
    cmd.args(["commit-tree", &tree, "-m", &message])
        .env("GIT_COMMITTER_DATE", format!("@{when} +0000"));
    let out = cmd.output().unwrap();
    assert!(out.status.success());
    let commit = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    let name = format!(
        "refs/entire/snapshots/{}/{checkpoint}",
        &checkpoint[checkpoint.len() - 2..]
    );
    repo.git(&["update-ref", &name, &commit]);
    commit
}

#[test]
fn old_snapshots_go_after_the_age_limit_and_checkpoints_only_when_asked() {
    common::each_format(old_snapshots_in);
}

fn old_snapshots_in() {
    let repo = TestRepo::new();
    let user = user_state(&repo);
    let store = store(&repo);
    let old = old_snapshot_ref(&repo, "b00000000001", "s", 40);
    let young = old_snapshot_ref(&repo, "b00000000002", "s", 10);
    // An old persistent checkpoint.
    let mut write = SessionWrite::new("c00000000001", "s").prompt("long ago");
    write.created_at = Some(Timestamp::parse("2020-01-02T03:04:05Z").unwrap());
    store.write_session(&write).unwrap();

    let report = store.gc(&GcOptions::new()).unwrap();
    assert_eq!(report.older_than_seconds, Some(30 * 86_400));
    assert_eq!(report.removed_snapshots.len(), 1);
    assert_eq!(report.removed_snapshots[0].reason, "older_than");
    assert_eq!(report.removed_snapshots[0].tip, old);
    assert!(!exists(&repo, &old));
    assert!(exists(&repo, &young));
    assert!(report.removed_checkpoints.is_empty());
    assert_eq!(
        store.list().unwrap().len(),
        1,
        "checkpoints are kept forever"
    );

    // A config age of 5 days takes the young one too; `never` keeps
    // everything (the config is read as the store is opened).
    repo.git(&["config", "entire.snapshotMaxAge", "5d"]);
    let report = store_of(&repo).gc(&GcOptions::new().dry_run(true)).unwrap();
    assert_eq!(report.removed_snapshots.len(), 1);
    assert_eq!(report.older_than_seconds, Some(5 * 86_400));
    assert!(exists(&repo, &young));
    repo.git(&["config", "entire.snapshotMaxAge", "never"]);
    let report = store_of(&repo).gc(&GcOptions::new()).unwrap();
    assert!(report.removed_snapshots.is_empty());
    assert_eq!(report.older_than_seconds, None);
    repo.git(&["config", "entire.snapshotMaxAge", "five days"]);
    let err = store_of(&repo).gc(&GcOptions::new()).unwrap_err();
    assert_eq!(err.code().as_str(), "invalid_argument");
    assert!(exists(&repo, &young), "a bad config changes nothing");
    repo.git(&["config", "--unset", "entire.snapshotMaxAge"]);

    let report = store
        .gc(&GcOptions::new()
            .include_checkpoints(true)
            .older_than(Duration::from_secs(86_400)))
        .unwrap();
    assert_eq!(report.removed_checkpoints.len(), 1);
    assert_eq!(report.removed_checkpoints[0].checkpoint_id, "c00000000001");
    assert!(store.list().unwrap().is_empty());
    assert_user_state_kept(&repo, &user);
    repo.assert_fsck();
}

#[test]
fn shadow_branches_nobody_needs_go_and_others_stay() {
    common::each_format(shadow_branches_in);
}

fn shadow_branches_in() {
    let repo = TestRepo::new();
    let user = user_state(&repo);
    let store = store(&repo);
    let blob = repo.blob(b"only on a shadow branch\n");
    let tree = repo.mktree(&[("100644", "blob", &blob, "f.txt")]);
    let commit = repo.commit_tree(&tree, None, "step\n\nEntire-Session: s\n");
    // Its base commit (deadbee...) is not in the repository.
    repo.git(&["update-ref", "refs/heads/entire/deadbee-abc123", &commit]);
    // A user branch that merely looks like it lives under entire/.
    repo.git(&["update-ref", "refs/heads/entire-notes", "HEAD"]);
    let user = UserState {
        unreachable: user.unreachable,
        refs: user_refs(&repo),
    };
    let report = store.gc(&GcOptions::new()).unwrap();
    assert_eq!(report.removed_branches.len(), 1, "{report:?}");
    assert_eq!(report.removed_branches[0].reason, "base_commit_gone");
    assert!(!exists(&repo, &commit));
    assert!(!exists(&repo, &blob));
    assert_user_state_kept(&repo, &user);
    repo.assert_fsck();
}

#[test]
fn gc_keeps_young_objects_under_gits_default_prune_limit_and_while_an_index_is_written() {
    let repo = TestRepo::new();
    let store = Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    repo.git(&["config", "entire.snapshotRetention", "1"]);
    let store_default =
        Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    drop(store);
    for i in 0..3 {
        capture(&store_default, i, "s");
    }
    assert_eq!(snapshot_refs(&repo).len(), 1);
    // No gc.pruneExpire: git's default (2 weeks) keeps the objects the
    // removed snapshots reached, as `git gc` would.
    let report = store_default.gc(&GcOptions::new()).unwrap();
    assert_eq!(report.objects_removed, 0, "{report:?}");
    repo.assert_fsck();
    // `now`, but an index being written: still nothing deleted.
    for i in 3..6 {
        capture(&store_default, i, "s");
    }
    repo.git(&["config", "gc.pruneExpire", "now"]);
    let store_now =
        Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    std::fs::write(repo.path().join(".git/index.lock"), b"").unwrap();
    let locked = store_now.gc(&GcOptions::new()).unwrap();
    assert_eq!(locked.objects_removed, 0, "{locked:?}");
    std::fs::remove_file(repo.path().join(".git/index.lock")).unwrap();
    for i in 6..9 {
        capture(&store_now, i, "s");
    }
    let freed = store_now.gc(&GcOptions::new()).unwrap();
    assert!(freed.objects_removed > 0, "{freed:?}");
    repo.assert_fsck();
}
