//! Reading the working tree raw, through the core's capability root: a
//! file's bytes and executable bit, a symlink's target (never followed), a
//! path below a symlink or a file counting as absent (git cannot hold it).

use std::collections::HashMap;
use std::path::Path;

use agent_checkpoint::root::{ambient_authority, EntryKind, Root};
use agent_checkpoint::{CapRoot, RelPath, Result};

/// What sits at a path of the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OnDisk {
    /// Nothing (or something git cannot hold: a path below a symlink).
    Absent,
    /// A regular file.
    File {
        /// Its bytes.
        bytes: Vec<u8>,
        /// Any executable bit set.
        executable: bool,
        /// Its permission bits.
        mode: u32,
    },
    /// A symlink and its target text.
    Link(String),
    /// A directory.
    Dir,
    /// A FIFO, socket or device: never taken.
    Special,
}

/// A working tree opened as a capability root.
pub(crate) struct Worktree {
    root: CapRoot,
    /// Directories already checked to be real directories (`true`) or not.
    dirs: HashMap<String, bool>,
}

impl Worktree {
    /// Opens the directory `dir`.
    ///
    /// # Errors
    /// An I/O error when `dir` cannot be opened.
    pub(crate) fn open(dir: &Path) -> Result<Worktree> {
        Ok(Worktree {
            root: CapRoot::open(dir, ambient_authority())?,
            dirs: HashMap::new(),
        })
    }

    /// The root, for the core's rollback.
    pub(crate) fn root(&self) -> &CapRoot {
        &self.root
    }

    /// Whether every ancestor of `path` is a real directory (no symlink,
    /// nothing missing).
    fn parents_are_dirs(&mut self, path: &RelPath) -> Result<bool> {
        for dir in path.ancestors() {
            let known = self.dirs.get(dir.as_str()).copied();
            let is_dir = match known {
                Some(is_dir) => is_dir,
                None => {
                    let is_dir = matches!(
                        self.root.metadata(&dir)?,
                        Some(m) if m.kind == EntryKind::Dir
                    );
                    self.dirs.insert(dir.as_str().to_owned(), is_dir);
                    is_dir
                }
            };
            if !is_dir {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// What is at `path` now, without its content (`File` with no bytes).
    ///
    /// # Errors
    /// An I/O error other than "not there".
    pub(crate) fn kind(&mut self, path: &RelPath) -> Result<Option<(EntryKind, u32)>> {
        if !self.parents_are_dirs(path)? {
            return Ok(None);
        }
        Ok(self.root.metadata(path)?.map(|m| (m.kind, m.mode)))
    }

    /// What is at `path` now, read raw.
    ///
    /// # Errors
    /// An I/O error other than "not there"; `invalid_path` for a symlink
    /// whose target is not UTF-8.
    pub(crate) fn read(&mut self, path: &RelPath) -> Result<OnDisk> {
        let Some((kind, mode)) = self.kind(path)? else {
            return Ok(OnDisk::Absent);
        };
        Ok(match kind {
            EntryKind::File => match self.root.read_file(path, None) {
                Ok(bytes) => OnDisk::File {
                    bytes,
                    executable: mode & 0o111 != 0,
                    mode,
                },
                // Vanished (or replaced) between the look and the read.
                Err(_) if self.root.metadata(path)?.is_none() => OnDisk::Absent,
                Err(e) => return Err(e),
            },
            EntryKind::Symlink => OnDisk::Link(self.root.read_link(path)?),
            EntryKind::Dir => OnDisk::Dir,
            _ => OnDisk::Special,
        })
    }

    /// The names in the directory `dir`.
    ///
    /// # Errors
    /// An I/O error.
    pub(crate) fn read_dir(&self, dir: &RelPath) -> Result<Vec<String>> {
        self.root.read_dir(Some(dir))
    }
}
