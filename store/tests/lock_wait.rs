//! A held lock ends in `ref_busy` within the lock wait (issue 29 point 8):
//! another process holding the per-ref, shadow or push-queue lock (a
//! read-only descriptor is enough for `flock`) never makes a writer wait
//! forever; the error names the lock file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs::File;
use std::path::Path;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{SessionWrite, ShadowStep, Store, StoreOptions};
use common::TestRepo;

const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
const REF: &str = "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN";
const WAIT: Duration = Duration::from_millis(300);
// Far beyond WAIT: only a writer that waits without end gets here.
const NEVER: Duration = Duration::from_secs(60);

/// Holds the lock file `path` (created if missing) through a read-only
/// descriptor, as another process would.
fn hold(path: &Path) -> File {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    if !path.exists() {
        File::create(path).unwrap();
    }
    let file = File::open(path).unwrap();
    file.lock().unwrap();
    file
}

fn open(repo: &TestRepo) -> Arc<Store> {
    Arc::new(Store::open_with(repo.path(), StoreOptions::default().lock_wait(WAIT)).unwrap())
}

/// Runs `f` on a thread; its result, or a panic when it is still waiting
/// after [`NEVER`].
fn bounded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(NEVER)
        .expect("the writer is still waiting for the held lock")
}

fn assert_busy(e: &agent_checkpoint::Error, lock: &Path) {
    assert_eq!(e.code(), ErrorCode::RefBusy, "{e}");
    assert!(e.to_string().contains(&lock.display().to_string()), "{e}");
    assert_eq!(e.path(), Some(lock.display().to_string().as_str()));
}

#[test]
fn a_held_ref_lock_ends_in_ref_busy_naming_it() {
    let repo = TestRepo::new();
    let store = open(&repo);
    let lock = agent_checkpoint_store::ref_update::lock_path(store.common_dir(), REF);
    let held = hold(&lock);
    let writer = Arc::clone(&store);
    let result = bounded(move || writer.write_session(&SessionWrite::new(ID, "s1").prompt("p")));
    assert_busy(&result.unwrap_err(), &lock);
    assert!(!repo.refs().contains(&REF.to_owned()), "nothing moved");
    // Released, the same write goes through.
    drop(held);
    store
        .write_session(&SessionWrite::new(ID, "s1").prompt("p"))
        .unwrap();
}

#[test]
fn a_held_shadow_lock_ends_in_ref_busy_naming_it() {
    let repo = TestRepo::new();
    std::fs::write(repo.path().join("a.txt"), "a\n").unwrap();
    repo.git(&["add", "a.txt"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    std::fs::write(repo.path().join("a.txt"), "changed\n").unwrap();
    let store = open(&repo);
    let branch = store.shadow_branch().unwrap();
    let lock = agent_checkpoint_store::shadow::lock_path(store.common_dir(), &branch);
    let _held = hold(&lock);
    let writer = Arc::clone(&store);
    let result = bounded(move || writer.shadow_step(&ShadowStep::new("s1")));
    assert_busy(&result.unwrap_err(), &lock);
}

#[test]
fn the_default_wait_is_ten_seconds() {
    assert_eq!(
        agent_checkpoint_store::DEFAULT_LOCK_WAIT,
        Duration::from_secs(10)
    );
    assert_eq!(
        StoreOptions::default().lock_wait,
        agent_checkpoint_store::DEFAULT_LOCK_WAIT
    );
}
