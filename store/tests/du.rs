//! `Store::du`: the store's bytes as git counts them, the largest named.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions};
use agent_checkpoint_store::{EntryKind, NoRedaction, SessionWrite, Store, StoreOptions};
use common::TestRepo;

fn snapshot(text: &str) -> String {
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), text).unwrap();
    let root = CapRoot::open(work.path(), ambient_authority()).unwrap();
    agent_checkpoint::capture(&root, ["notes.txt"], &CaptureOptions::default())
        .unwrap()
        .into_string()
}

/// (the store's ref tips, every other ref's tips and HEAD).
fn sides(repo: &TestRepo) -> (Vec<String>, Vec<String>) {
    let mut ours = Vec::new();
    let mut others = vec!["HEAD".to_owned()];
    for line in repo
        .git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
    {
        let (name, id) = line.split_once(' ').unwrap();
        if name.starts_with("refs/entire/") || name.starts_with("refs/heads/entire/") {
            ours.push(id.to_owned());
        } else {
            others.push(id.to_owned());
        }
    }
    (ours, others)
}

/// `git rev-list --objects --disk-usage <ours> --not <others>`.
fn git_disk_usage(repo: &TestRepo) -> u64 {
    let (ours, others) = sides(repo);
    let mut args = vec!["rev-list", "--objects", "--disk-usage"];
    args.extend(ours.iter().map(String::as_str));
    args.push("--not");
    args.extend(others.iter().map(String::as_str));
    repo.git(&args).trim().parse().unwrap()
}

/// The exact count: every object git lists from our refs minus every
/// object it lists from the others, each at its `%(objectsize:disk)`.
fn exact_disk_usage(repo: &TestRepo) -> (usize, u64) {
    let (ours, others) = sides(repo);
    let list = |tips: &[String]| -> BTreeSet<String> {
        let mut args = vec!["rev-list", "--objects", "--no-object-names"];
        args.extend(tips.iter().map(String::as_str));
        repo.git(&args).lines().map(str::to_owned).collect()
    };
    let only: Vec<String> = list(&ours).difference(&list(&others)).cloned().collect();
    let input: String = only.iter().map(|id| format!("{id}\n")).collect();
    let out = repo.git_output(
        &["cat-file", "--batch-check=%(objectsize:disk)"],
        Some(input.as_bytes()),
    );
    let bytes = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse::<u64>().unwrap())
        .sum();
    (only.len(), bytes)
}

fn snapshot_file_bytes(repo: &TestRepo) -> u64 {
    std::fs::read_dir(repo.path().join(".git/entire-snapshots"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum()
}

#[test]
fn du_agrees_with_git_and_names_the_largest() {
    common::each_format(du_in);
}

fn du_in() {
    let repo = TestRepo::new();
    std::fs::write(repo.path().join("a.txt"), "user file\n").unwrap();
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", "user commit"]);
    let store = Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    let empty = store.du(10).unwrap();
    assert_eq!((empty.total_bytes, empty.objects), (0, 0));
    assert!(empty.largest.is_empty());

    let big = "x".repeat(200_000);
    for (i, (session, text)) in [("s1", "small\n"), ("s1", big.as_str()), ("s2", "tiny\n")]
        .into_iter()
        .enumerate()
    {
        store
            .write_session(
                &SessionWrite::new(format!("d0000000000{i}"), session)
                    .prompt(format!("prompt {i}"))
                    .transcript(format!("{{\"n\":{i}}}\n").into_bytes())
                    .snapshot(snapshot(text)),
            )
            .unwrap();
    }
    let report = store.du(2).unwrap();
    assert_eq!(report.object_bytes, git_disk_usage(&repo));
    assert_eq!(
        (report.objects, report.object_bytes),
        exact_disk_usage(&repo)
    );
    assert_eq!(report.snapshot_file_bytes, snapshot_file_bytes(&repo));
    assert_eq!(
        report.total_bytes,
        report.object_bytes + report.snapshot_file_bytes
    );
    assert_eq!(report.checkpoints.refs, 3);
    assert_eq!(report.snapshots.refs, 3);
    assert_eq!(report.shadow_branches.refs, 0);
    assert_eq!(report.largest.len(), 2);
    assert_eq!(report.largest[0].kind, EntryKind::Snapshot);
    assert_eq!(report.largest[0].name, "d00000000001");
    assert!(report.largest[0].bytes > 200_000, "{:?}", report.largest[0]);
    assert_eq!(report.sessions[0].session_id, "s1");
    assert_eq!(report.sessions[0].snapshots, 2);

    // A shadow step holds HEAD's tree with no parent: git's own
    // --disk-usage counts the user's blob as ours, the store does not.
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_owned();
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let step = repo.commit_tree(&tree, None, "step\n\nEntire-Session: s3\n");
    repo.git(&[
        "update-ref",
        &format!("refs/heads/entire/{}-abc123", &head[..7]),
        &step,
    ]);
    let report = store.du(10).unwrap();
    assert_eq!(
        (report.objects, report.object_bytes),
        exact_disk_usage(&repo)
    );
    assert!(report.object_bytes < git_disk_usage(&repo));
    assert_eq!(report.shadow_branches.refs, 1);
    let shadow = report
        .largest
        .iter()
        .find(|e| e.kind == EntryKind::ShadowBranch)
        .unwrap();
    // Only its commit is its own.
    let out = repo.git_output(
        &["cat-file", "--batch-check=%(objectsize:disk)"],
        Some(format!("{step}\n").as_bytes()),
    );
    let step_bytes: u64 = String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(shadow.bytes, step_bytes);
    assert_eq!(report.shadow_branches.bytes, shadow.bytes);

    // Packed, the same agreement.
    repo.git(&["repack", "-a", "-d", "-q"]);
    let report = store.du(10).unwrap();
    assert_eq!(
        (report.objects, report.object_bytes),
        exact_disk_usage(&repo)
    );
}
