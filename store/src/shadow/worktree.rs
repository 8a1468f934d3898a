//! Reading the working tree raw, through the core's capability root: a
//! file as its blob (written or only hashed, streaming: see [`blob`]) and
//! its mode, a symlink's target (never followed), a path below a symlink
//! or a file counting as absent (git cannot hold it).

use std::collections::HashMap;
use std::path::Path;

use agent_checkpoint::root::{ambient_authority, EntryKind, Root};
use agent_checkpoint::{CapRoot, RelPath, Result};
use gix::ObjectId;

use super::blob::{self, Blob, FileBlob};

/// What sits at a path of the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OnDisk {
    /// Nothing (or something git cannot hold: a path below a symlink).
    Absent,
    /// A regular file.
    File {
        /// Its blob (written, or only its ID computed).
        id: ObjectId,
        /// Any executable bit set.
        executable: bool,
        /// Its permission bits.
        mode: u32,
    },
    /// A regular file over the size limit of the read: not taken, with
    /// its size (at least).
    TooLarge(u64),
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

    /// What is at `path` now, read raw: a file as its blob (`how`), when
    /// it holds at most `limit` bytes (`None`: any size).
    ///
    /// # Errors
    /// An I/O error other than "not there"; `invalid_path` for a symlink
    /// whose target is not UTF-8.
    pub(crate) fn read(
        &mut self,
        repo: &gix::Repository,
        path: &RelPath,
        limit: Option<u64>,
        how: Blob,
    ) -> Result<OnDisk> {
        let Some((kind, _)) = self.kind(path)? else {
            return Ok(OnDisk::Absent);
        };
        Ok(match kind {
            EntryKind::File => match blob::file_blob(repo, &self.root, path, limit, how) {
                Ok(FileBlob::Taken { id, metadata }) => OnDisk::File {
                    id,
                    executable: metadata.mode & 0o111 != 0,
                    mode: metadata.mode,
                },
                Ok(FileBlob::TooLarge(size)) => OnDisk::TooLarge(size),
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
