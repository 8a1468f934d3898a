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
        let file = match OpenOptions::new().write(true).create_new(true).open(path) {
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
    match (file.metadata(), std::fs::metadata(path)) {
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
    let file = match OpenOptions::new().write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Owner::None,
        Err(_) => return Owner::Alive,
    };
    match file.try_lock() {
        Ok(()) if same_file(&file, path) => Owner::Gone(Held {
            path: path.to_path_buf(),
            _file: file,
        }),
        Ok(()) => Owner::Alive,
        Err(_) => Owner::Alive,
    }
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
}
