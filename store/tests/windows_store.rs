//! The store on Windows, under Wine (`scripts/windows`): write, list and
//! roll back a checkpoint in a real repository through gix, and a clear
//! typed error, never a hang or a panic, where the store runs the `git`
//! program and there is none (git for Windows is not in the Wine prefix).
//!
//! The repository is made by the script with the host's `git init` (the
//! tests have no git to make one) and handed over as
//! `AGENT_CHECKPOINT_WINDOWS_REPO` (a Windows path, `Z:\...` under Wine),
//! with a remote `origin`; each test works in a copy of it. Without the
//! variable the tests fail rather than pass having checked nothing.
#![cfg(windows)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, ErrorCode, ParseOptions, RollbackOptions};
use agent_checkpoint_store::{NoRedaction, SessionWrite, Store, StoreOptions};

const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

/// A copy of the script's repository in a temp dir of its own.
fn repo() -> (tempfile::TempDir, PathBuf) {
    let made = std::env::var_os("AGENT_CHECKPOINT_WINDOWS_REPO")
        .expect("AGENT_CHECKPOINT_WINDOWS_REPO: scripts/windows makes the repository");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    copy_dir(Path::new(&made), &dir);
    (tmp, dir)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn store(dir: &Path) -> Store {
    Store::open_with(dir, StoreOptions::new(Arc::new(NoRedaction))).unwrap()
}

#[test]
fn a_checkpoint_is_written_listed_and_rolled_back_in_a_repository() {
    let (_tmp, dir) = repo();
    fs::write(dir.join("a.txt"), "captured\r\n").unwrap();
    let root = CapRoot::open(&dir, ambient_authority()).unwrap();
    let snapshot =
        agent_checkpoint::capture(&root, ["a.txt", "new.txt"], &CaptureOptions::default())
            .unwrap()
            .into_string();
    let store = store(&dir);
    store
        .write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot.clone()))
        .unwrap();

    let listed = store.list().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].checkpoint_id, ID);
    assert_eq!(listed[0].session_ids, ["s1"]);
    // Read back from a store opened afresh, the snapshot is the same bytes.
    assert_eq!(self::store(&dir).snapshot(ID).unwrap(), Some(snapshot));

    // The batch.
    fs::write(dir.join("a.txt"), "batch\n").unwrap();
    fs::write(dir.join("new.txt"), "made by the batch").unwrap();
    let report = store
        .rollback_work_tree(ID, &ParseOptions::default(), &RollbackOptions::default())
        .unwrap();
    assert!(report.ok(), "{report:?}");
    // Line endings untouched: bytes are bytes.
    assert_eq!(fs::read(dir.join("a.txt")).unwrap(), b"captured\r\n");
    assert!(!dir.join("new.txt").exists());
}

#[test]
fn a_push_without_a_git_program_is_a_typed_error_and_nothing_changes() {
    let (_tmp, dir) = repo();
    fs::write(dir.join("a.txt"), "x").unwrap();
    let root = CapRoot::open(&dir, ambient_authority()).unwrap();
    let snapshot = agent_checkpoint::capture(&root, ["a.txt"], &CaptureOptions::default())
        .unwrap()
        .into_string();
    let store = store(&dir);
    store
        .write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot))
        .unwrap();
    let err = store.push("origin").unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    assert!(err.to_string().contains("git"), "{err}");
    // The checkpoint is still there, unchanged.
    assert_eq!(store.list().unwrap().len(), 1);
}
