//! An unknown remote is an error whatever the push queue holds (issue 40):
//! `push("nosuch")` with nothing queued used to answer `ok`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::Store;
use common::TestRepo;

#[test]
fn push_to_an_unknown_remote_fails_with_an_empty_queue() {
    let repo = TestRepo::new();
    let store = Store::open(repo.path()).unwrap();
    let err = store.push("nosuch").unwrap_err();
    assert_eq!(err.code(), ErrorCode::RemoteUnreachable, "{err}");
    assert!(err.to_string().contains("nosuch"), "{err}");
    let err = store.push("../missing.git").unwrap_err();
    assert_eq!(err.code(), ErrorCode::RemoteUnreachable, "{err}");
}

#[test]
fn push_with_an_empty_queue_to_a_known_remote_is_ok() {
    let repo = TestRepo::new();
    let bare = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(bare.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let url = bare.path().to_str().unwrap();
    repo.git(&["remote", "add", "origin", url]);
    let store = Store::open(repo.path()).unwrap();
    assert!(store.push("origin").unwrap().all_pushed());
    assert!(store.push(url).unwrap().all_pushed());
    let file_url = format!("file://{url}");
    assert!(store.push(&file_url).unwrap().all_pushed());
}
