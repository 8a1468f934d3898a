//! A rollback that names no root goes to the working tree, and only with a
//! snapshot taken there: one captured at a subdirectory (or elsewhere) is
//! refused with `root_mismatch`, nothing touched, rather than rolled back
//! onto the working tree's files of the same relative names.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::path::Path;
use std::sync::Arc;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, CaptureOptions, ErrorCode, ParseOptions, PlanOptions, RollbackOptions,
};
use agent_checkpoint_store::{NoRedaction, SessionWrite, Store, StoreOptions};
use common::TestRepo;

const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

/// Captures `a.txt` under `dir`, then changes it there (the batch).
fn capture_and_edit(dir: &Path) -> String {
    let root = CapRoot::open(dir, ambient_authority()).unwrap();
    let snapshot = agent_checkpoint::capture(&root, ["a.txt"], &CaptureOptions::default())
        .unwrap()
        .into_string();
    fs::write(dir.join("a.txt"), "edited\n").unwrap();
    snapshot
}

fn store_with(repo: &TestRepo, snapshot: String) -> Store {
    let store = Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    store
        .write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot))
        .unwrap();
    store
}

fn quick() -> RollbackOptions {
    let mut options = RollbackOptions::default();
    options.durable = false;
    options
}

#[test]
fn a_snapshot_of_a_subdirectory_is_not_rolled_back_onto_the_work_tree() {
    let repo = TestRepo::new();
    let sub = repo.path().join("sub");
    fs::create_dir(&sub).unwrap();
    fs::write(repo.path().join("a.txt"), "top\n").unwrap();
    fs::write(sub.join("a.txt"), "sub\n").unwrap();
    let store = store_with(&repo, capture_and_edit(&sub));
    let parse = ParseOptions::default();

    let refused = store.rollback_work_tree(ID, &parse, &quick()).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::RootMismatch, "{refused}");
    let planned = store
        .plan_rollback_work_tree(ID, &parse, &PlanOptions::default())
        .unwrap_err();
    assert_eq!(planned.code(), ErrorCode::RootMismatch);
    let target = store.undo_target(ID, None).unwrap_err();
    assert_eq!(target.code(), ErrorCode::RootMismatch);
    // Nothing touched: neither the work tree's file of that name nor the
    // subdirectory's.
    assert_eq!(
        fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "top\n"
    );
    assert_eq!(fs::read_to_string(sub.join("a.txt")).unwrap(), "edited\n");

    // Named, the subdirectory is where it rolls back.
    let (root, _) = store.undo_target(ID, Some(&sub)).unwrap();
    assert_eq!(root, sub);
    let report = store.rollback(ID, &sub, &parse, &quick()).unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(fs::read_to_string(sub.join("a.txt")).unwrap(), "sub\n");
    assert_eq!(
        fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "top\n"
    );
}

#[test]
fn a_snapshot_of_another_directory_is_refused_too() {
    let repo = TestRepo::new();
    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(repo.path().join("a.txt"), "top\n").unwrap();
    fs::write(elsewhere.path().join("a.txt"), "there\n").unwrap();
    let store = store_with(&repo, capture_and_edit(elsewhere.path()));
    let refused = store
        .rollback_work_tree(ID, &ParseOptions::default(), &quick())
        .unwrap_err();
    assert_eq!(refused.code(), ErrorCode::RootMismatch);
    assert_eq!(
        fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "top\n"
    );
}

#[test]
fn a_snapshot_of_the_work_tree_rolls_back_there() {
    let repo = TestRepo::new();
    fs::write(repo.path().join("a.txt"), "top\n").unwrap();
    let store = store_with(&repo, capture_and_edit(repo.path()));
    let plan = store
        .plan_rollback_work_tree(ID, &ParseOptions::default(), &PlanOptions::default())
        .unwrap();
    assert_eq!(plan.other_root, None);
    let report = store
        .rollback_work_tree(ID, &ParseOptions::default(), &quick())
        .unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(
        fs::read_to_string(repo.path().join("a.txt")).unwrap(),
        "top\n"
    );
}

#[test]
fn a_bare_repository_has_no_default_root() {
    let repo = TestRepo::new();
    let bare = tempfile::tempdir().unwrap();
    let out = repo.git_output(
        &["clone", "-q", "--bare", ".", &bare.path().to_string_lossy()],
        None,
    );
    // An empty repository clones to an empty bare one.
    assert!(out.status.success(), "{out:?}");
    let work = tempfile::tempdir().unwrap();
    fs::write(work.path().join("a.txt"), "x\n").unwrap();
    let store = Store::open_with(bare.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    store
        .write_session(&SessionWrite::new(ID, "s1").snapshot(capture_and_edit(work.path())))
        .unwrap();
    let refused = store.undo_target(ID, None).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidArgument);
}
