//! Tests of things that must never block: FIFOs, and a time limit on a call.

use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// Makes a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo failed");
}

/// Runs `f` on a thread of its own; panics if it takes longer than `secs`
/// (a blocked open fails the test instead of hanging it).
pub fn within<T: Send + 'static>(
    secs: u64,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(_) => panic!("{what}: blocked for more than {secs} s"),
    }
}
