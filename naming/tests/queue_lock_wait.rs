//! A held push-queue lock ends in `ref_busy` within the queue's lock wait
//! (issue 29 point 8), naming the lock file; released, the queue works.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs::File;
use std::sync::mpsc;
use std::time::Duration;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_naming::PushQueue;

const A: &str = "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN";

#[test]
fn a_held_queue_lock_ends_in_ref_busy_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let queue = PushQueue::new(dir.path()).with_lock_wait(Duration::from_millis(300));
    File::create(queue.lock_path()).unwrap();
    let held = File::open(queue.lock_path()).unwrap();
    held.lock().unwrap();
    let lock = queue.lock_path().display().to_string();
    for op in ["enqueue", "drain", "peek", "remove"] {
        let q = queue.clone();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let result = match op {
                "enqueue" => q.enqueue(A),
                "drain" => q.drain().map(drop),
                "peek" => q.peek().map(drop),
                _ => q.remove(&[A]),
            };
            let _ = tx.send(result);
        });
        let e = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("still waiting for the held lock")
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::RefBusy, "{op}: {e}");
        assert!(e.to_string().contains(&lock), "{op}: {e}");
    }
    drop(held);
    queue.enqueue(A).unwrap();
    assert_eq!(queue.drain().unwrap().refs, [A]);
}

#[test]
fn the_default_queue_wait_is_ten_seconds() {
    assert_eq!(
        agent_checkpoint_naming::queue::DEFAULT_LOCK_WAIT,
        Duration::from_secs(10)
    );
}
