//! Taking an exclusive `flock` with a bounded wait: the push queue's lock
//! and the store's ref and shadow locks never wait forever for another
//! process (a live writer holds them for milliseconds; a process that
//! holds one for seconds is stuck or hostile).
//!
//! The bound is on waiting *without progress*: every holder, once it has
//! the lock, bumps an 8-byte counter at the start of the lock file, and a
//! waiter that sees the counter move starts its wait again. So writers
//! queued behind each other (eight processes writing one checkpoint) wait
//! as long as others are getting through, while a holder that keeps the
//! lock (a stuck process, or anyone holding a read-only descriptor) ends
//! the wait after the bound. Progress never extends a wait past
//! [`MAX_WAIT_FACTOR`] times the bound in all: anyone who can write the
//! lock file can bump the counter, and a wait must end.

use std::fs::{File, TryLockError};
use std::io;
use std::time::{Duration, Instant};

/// How long a lock is waited for by default, without another process
/// taking and releasing it meanwhile, before the operation ends in
/// `ref_busy`: 10 seconds.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(10);

/// However much progress other holders make, a wait ends after this many
/// times its bound (60 seconds with [`DEFAULT_LOCK_WAIT`]).
pub const MAX_WAIT_FACTOR: u32 = 6;

/// Locks `file` (opened for reading and writing) exclusively, polling with
/// backoff (1 ms doubling to 8 ms) until no other holder took it for
/// `wait`, and never longer than [`MAX_WAIT_FACTOR`] times `wait` in all.
/// `Ok(false)` when one holder kept it that long, or the whole wait ran out.
///
/// # Errors
/// A failure of the lock call other than "held by another".
pub fn lock_within(file: &File, wait: Duration) -> io::Result<bool> {
    let began = Instant::now();
    let limit = wait.saturating_mul(MAX_WAIT_FACTOR);
    let mut start = began;
    let mut seen = generation(file);
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => {
                bump(file);
                return Ok(true);
            }
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(e),
        }
        let now = generation(file);
        if now != seen {
            seen = now;
            start = Instant::now();
        }
        let waited = start.elapsed();
        let in_all = began.elapsed();
        if waited >= wait || in_all >= limit {
            return Ok(false);
        }
        std::thread::sleep(pause.min(wait - waited).min(limit - in_all));
        pause = (pause * 2).min(Duration::from_millis(8));
    }
}

#[cfg(unix)]
fn generation(file: &File) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let mut bytes = [0u8; 8];
    let n = file.read_at(&mut bytes, 0).ok()?;
    Some(if n == 8 { u64::from_le_bytes(bytes) } else { 0 })
}

// Best effort: a holder that cannot write (a read-only descriptor) shows no
// progress, which is what it makes.
#[cfg(unix)]
fn bump(file: &File) {
    use std::os::unix::fs::FileExt;
    let next = generation(file).unwrap_or(0).wrapping_add(1);
    let _ = file.write_at(&next.to_le_bytes(), 0);
}

#[cfg(not(unix))]
fn generation(_file: &File) -> Option<u64> {
    None
}

#[cfg(not(unix))]
fn bump(_file: &File) {}
