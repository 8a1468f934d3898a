//! The one filesystem seam: a directory capability every operation goes through.
//!
//! Every [`Root`] method takes a [`RelPath`] and acts relative to the root,
//! never outside it. Implementations must not follow a symlink in any
//! component they act on: intermediate components must be real directories
//! (a symlink there is an error), and the last component is acted on itself
//! (`metadata` is `lstat`, `remove_file` unlinks a link, not its target).
//!
//! - [`CapRoot`] (feature `cap-std`, native targets): a real directory
//!   opened once through cap-std.
//! - [`MemRoot`]: an in-memory tree for tests and the wasm-bindgen package.

#[cfg(all(feature = "cap-std", unix))]
mod cap;
mod mem;

#[cfg(all(feature = "cap-std", unix))]
pub use cap::{ambient_authority, AmbientAuthority, CapRoot};
pub use mem::{MemNode, MemRoot};

use crate::error::Result;
use crate::relpath::RelPath;

/// What kind of thing sits at a path (never following a final symlink).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (not followed).
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

impl EntryKind {
    /// A lowercase word for messages (`file`, `directory`, ...).
    pub fn describe(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Dir => "directory",
            EntryKind::Symlink => "symlink",
            EntryKind::Other => "special file (fifo, socket or device)",
        }
    }
}

/// The metadata of one path, as `lstat` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metadata {
    /// What it is.
    pub kind: EntryKind,
    /// Size in bytes (of the link text for a symlink).
    pub len: u64,
    /// Permission bits (`mode & 0o7777`).
    pub mode: u32,
}

/// A directory capability: everything this crate reads or writes goes through it.
///
/// Implementations act only below the root and never follow symlinks in the
/// components they walk (see the module docs). Errors carry the path.
pub trait Root {
    /// `lstat` of `path`; `Ok(None)` if nothing is there (including when a
    /// parent is missing or is not a directory).
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>>;

    /// The bytes of the regular file at `path`. Fails with `too_large` when
    /// it holds more than `max_bytes`, and `not_a_file` when it is not a file.
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>>;

    /// Whether the regular file at `path` holds exactly `expected` (used to
    /// read each restored file back). The default reads it whole; a root
    /// may compare in chunks instead.
    fn file_equals(&self, path: &RelPath, expected: &[u8]) -> Result<bool> {
        Ok(self.read_file(path, Some(expected.len() as u64))? == expected)
    }

    /// The target text of the symlink at `path` (must be UTF-8).
    fn read_link(&self, path: &RelPath) -> Result<String>;

    /// Atomically replaces whatever file or link is at `path` with a regular
    /// file holding `bytes` and permission bits `mode`: a temp file in the
    /// same directory, written, chmod-ed, fsync-ed when `durable`, then
    /// renamed over `path`. The parent must exist. Never writes in place.
    fn write_file(&self, path: &RelPath, bytes: &[u8], mode: u32, durable: bool) -> Result<()>;

    /// Atomically replaces whatever file or link is at `path` with a symlink
    /// whose target text is `target`.
    fn write_link(&self, path: &RelPath, target: &str) -> Result<()>;

    /// Removes the file or symlink at `path` (never a directory).
    fn remove_file(&self, path: &RelPath) -> Result<()>;

    /// Creates one directory (its parent must exist).
    fn create_dir(&self, path: &RelPath) -> Result<()>;

    /// Removes one empty directory.
    fn remove_dir(&self, path: &RelPath) -> Result<()>;

    /// Flushes a directory's entries to stable storage (`None` is the root).
    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()>;

    /// Removes temp files this crate left in `dir` (`None` is the root)
    /// while replacing any of `names` and never renamed (a crash or a kill
    /// mid-write); returns how many. Roots whose writes cannot leave a
    /// temp file behind keep the default, which does nothing.
    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        let _ = (dir, names);
        Ok(0)
    }

    /// The absolute spellings of the root that absolute input paths may
    /// start with (for example the path as given and its canonical form).
    /// Empty when the root has no absolute path.
    fn absolute_prefixes(&self) -> Vec<String>;
}

impl<R: Root + ?Sized> Root for &R {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        (**self).metadata(path)
    }
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        (**self).read_file(path, max_bytes)
    }
    fn file_equals(&self, path: &RelPath, expected: &[u8]) -> Result<bool> {
        (**self).file_equals(path, expected)
    }
    fn read_link(&self, path: &RelPath) -> Result<String> {
        (**self).read_link(path)
    }
    fn write_file(&self, path: &RelPath, bytes: &[u8], mode: u32, durable: bool) -> Result<()> {
        (**self).write_file(path, bytes, mode, durable)
    }
    fn write_link(&self, path: &RelPath, target: &str) -> Result<()> {
        (**self).write_link(path, target)
    }
    fn remove_file(&self, path: &RelPath) -> Result<()> {
        (**self).remove_file(path)
    }
    fn create_dir(&self, path: &RelPath) -> Result<()> {
        (**self).create_dir(path)
    }
    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        (**self).remove_dir(path)
    }
    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        (**self).sync_dir(path)
    }
    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        (**self).remove_stray_temps(dir, names)
    }
    fn absolute_prefixes(&self) -> Vec<String> {
        (**self).absolute_prefixes()
    }
}

/// Default permission bits for a restored file whose mode was not recorded.
pub const DEFAULT_FILE_MODE: u32 = 0o644;
