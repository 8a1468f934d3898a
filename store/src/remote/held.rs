//! Proof that a process still uses something it made (a scratch git dir,
//! a namespace of temp refs): a lock file beside it, held with `flock` for
//! as long as the owner lives. The kernel drops the lock when the owner
//! dies, however it dies, so whatever guards a lock file nobody holds is
//! abandoned and may be removed.
//!
//! The owner creates the lock file (a new name), locks it, checks the path
//! still names the file it locked (a sweeper may have removed an unlocked
//! one in between), and only then makes what it guards; it removes what
//! it guards before the lock file. A sweeper removes a lock file only while
//! holding it. So a live owner's work always has its lock file, held.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use agent_checkpoint::{Error, Result};

/// A lock file this process holds; removed (then unlocked) on drop.
#[derive(Debug)]
pub(crate) struct Held {
    path: PathBuf,
    // Holding the open file holds the lock.
    _file: File,
}

impl Held {
    /// Creates and locks the new lock file `path`; `None` when the name is
    /// taken or was swept meanwhile (pick another name).
    ///
    /// # Errors
    /// An I/O error when the lock file cannot be created.
    pub(crate) fn create(path: &Path) -> Result<Option<Held>> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        // The owner's alone whatever the umask: another user holding the
        // lock of an abandoned one would keep it from every sweep.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = match options.open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(None),
            Err(e) => return Err(Error::io(path.display().to_string(), e)),
        };
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Ok(None),
            Err(TryLockError::Error(e)) => return Err(Error::io(path.display().to_string(), e)),
        }
        if !same_file(&file, path) {
            return Ok(None);
        }
        Ok(Some(Held {
            path: path.to_path_buf(),
            _file: file,
        }))
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether `path` still names the file `file` has open.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    // `lstat`: a symlink at the name is not the file, whatever it names.
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether `path` still names the file `file` has open: on Windows a file
/// open without delete sharing (as std opens it) cannot be removed or
/// replaced, so it still does when it exists.
#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

/// Whether what the lock file `path` guards is abandoned.
pub(crate) enum Owner {
    /// No lock file: no live owner (it makes the lock file first).
    None,
    /// The lock file, now held by us: remove what it guards, then drop this.
    Gone(Held),
    /// A live process holds it.
    Alive,
}

/// Who owns what the lock file `path` guards. Errors count as alive
/// (nothing is removed on a doubt).
pub(crate) fn owner(path: &Path) -> Owner {
    // Only a regular file is ours to judge (never a FIFO or a symlink).
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Owner::None,
        Ok(m) if m.file_type().is_file() => {}
        _ => return Owner::Alive,
    }
    // Opened without following a symlink and without blocking on a FIFO:
    // either may be swapped in between the look above and this open.
    let file = match open_lock(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Owner::None,
        Err(_) => return Owner::Alive,
    };
    if !file.metadata().is_ok_and(|m| m.file_type().is_file()) {
        return Owner::Alive;
    }
    match file.try_lock() {
        Ok(()) if same_file(&file, path) => Owner::Gone(Held {
            path: path.to_path_buf(),
            _file: file,
        }),
        Ok(()) => Owner::Alive,
        Err(_) => Owner::Alive,
    }
}

/// Opens the lock file `path` for writing: never through a symlink at its
/// name, never blocking on a FIFO there (no reader: `ENXIO`).
#[cfg(unix)]
fn open_lock(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    OpenOptions::new()
        .write(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
}

/// Opens the lock file `path` for writing.
#[cfg(not(unix))]
fn open_lock(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().write(true).open(path)
}

/// A random token of 16 hex digits, for a name nobody else uses.
///
/// # Errors
/// An I/O error when the system's random source fails.
pub(crate) fn token() -> Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| Error::Io {
        path: None,
        error: std::io::Error::other(format!("system random source failed: {e}")),
    })?;
    Ok(hex::encode(bytes))
}

/// Whether `s` is a [`token`].
pub(crate) fn is_token(s: &str) -> bool {
    s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_alive_and_a_dropped_one_is_gone() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("x.lock");
        let held = Held::create(&path).ok().flatten();
        assert!(held.is_some());
        assert!(Held::create(&path).ok().flatten().is_none(), "name taken");
        assert!(matches!(owner(&path), Owner::Alive));
        drop(held);
        assert!(matches!(owner(&path), Owner::None));
        // A lock file left by a dead owner: nobody holds it.
        std::fs::write(&path, b"").unwrap_or_else(|e| panic!("{e}"));
        let Owner::Gone(taken) = owner(&path) else {
            panic!("an unheld lock file is abandoned")
        };
        assert!(matches!(owner(&path), Owner::Alive), "we hold it now");
        drop(taken);
        assert!(!path.exists());
    }

    /// A FIFO (or a symlink) swapped in at a lock file's name between the
    /// sweeper's look and its open never blocks the sweep: a thread keeps
    /// renaming FIFOs, symlinks and regular files over the name while
    /// another asks `owner` about it, which must keep answering. (A
    /// blocking open of a FIFO nobody writes waits forever: the test then
    /// fails at its deadline.)
    #[cfg(unix)]
    #[test]
    fn a_fifo_swapped_in_at_a_lock_file_never_blocks_the_sweep() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        use std::sync::{mpsc, Arc};
        const SWAPS: usize = 3000;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let base = dir.path().to_path_buf();
        let lock = base.join("x.lock");
        let outside = base.join("outside");
        std::fs::write(&outside, b"keep").unwrap_or_else(|e| panic!("{e}"));
        // The FIFOs, made beforehand (one `mkfifo` for all of them).
        let fifos: Vec<PathBuf> = (0..SWAPS).map(|i| base.join(format!("f{i}"))).collect();
        let made = std::process::Command::new("mkfifo")
            .args(&fifos)
            .status()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(made.success());
        let done = Arc::new(AtomicBool::new(false));
        let asked = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = mpsc::channel();
        let (asker_done, asker_asked) = (Arc::clone(&done), Arc::clone(&asked));
        let asked_lock = lock.clone();
        std::thread::spawn(move || {
            let mut gone = 0usize;
            while !asker_done.load(Ordering::Relaxed) {
                if let Owner::Gone(held) = owner(&asked_lock) {
                    gone += 1;
                    drop(held);
                }
                asker_asked.fetch_add(1, Ordering::Relaxed);
            }
            let _ = tx.send(gone);
        });
        for (i, fifo) in fifos.iter().enumerate() {
            let file = base.join(format!("r{i}"));
            std::fs::write(&file, b"").unwrap_or_else(|e| panic!("{e}"));
            std::fs::rename(&file, &lock).unwrap_or_else(|e| panic!("{e}"));
            std::fs::rename(fifo, &lock).unwrap_or_else(|e| panic!("{e}"));
            let link = base.join(format!("l{i}"));
            std::os::unix::fs::symlink(&outside, &link).unwrap_or_else(|e| panic!("{e}"));
            std::fs::rename(&link, &lock).unwrap_or_else(|e| panic!("{e}"));
        }
        done.store(true, Ordering::Relaxed);
        let gone = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|_| {
                panic!(
                    "owner() blocked (a FIFO opened blocking) after {} looks",
                    asked.load(Ordering::Relaxed)
                )
            });
        assert!(asked.load(Ordering::Relaxed) > 0);
        println!(
            "held: {} looks, {gone} abandoned lock files taken",
            asked.load(Ordering::Relaxed)
        );
    }
}
