//! [`MemRoot`]: an in-memory [`Root`] with the same rules as a real directory.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Mutex, MutexGuard};

use super::{EntryKind, Metadata, Root};
use crate::error::{Error, Result};
use crate::relpath::RelPath;

/// One node of a [`MemRoot`] tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemNode {
    /// A regular file with its bytes and permission bits.
    File {
        /// The content.
        bytes: Vec<u8>,
        /// Permission bits.
        mode: u32,
    },
    /// A directory (its children are the keys below it).
    Dir,
    /// A symlink with its target text.
    Symlink(String),
    /// A FIFO, socket or device: present but not readable as a file.
    Other,
}

/// An in-memory directory tree, keyed by canonical relative path.
///
/// It enforces what a real root does: parents must be directories (a
/// symlink in a parent is refused, never followed), a directory is removed
/// only when empty, and files replace files or links but never directories.
#[derive(Debug, Default)]
pub struct MemRoot {
    nodes: Mutex<BTreeMap<String, MemNode>>,
    absolute: Option<String>,
}

impl MemRoot {
    /// An empty tree with no absolute path (every absolute input escapes).
    pub fn new() -> MemRoot {
        MemRoot::default()
    }

    /// An empty tree that pretends to live at the absolute path `absolute`.
    pub fn with_absolute_path(absolute: impl Into<String>) -> MemRoot {
        MemRoot {
            nodes: Mutex::default(),
            absolute: Some(absolute.into()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, MemNode>> {
        // A panic while holding the lock cannot leave the map half-updated
        // (every mutation is one insert or remove), so poisoning is ignored.
        self.nodes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Puts `node` at `path`, creating missing parent directories; replaces
    /// whatever was there. For setting up trees in tests and hosts.
    pub fn insert(&self, path: &RelPath, node: MemNode) {
        let mut nodes = self.lock();
        for dir in path.ancestors() {
            nodes.insert(dir.as_str().to_owned(), MemNode::Dir);
        }
        let key = path.as_str();
        let prefix = format!("{key}/");
        if node != MemNode::Dir {
            nodes.retain(|k, _| !k.starts_with(&prefix));
        }
        nodes.insert(key.to_owned(), node);
    }

    /// A copy of the whole tree, sorted by path.
    pub fn entries(&self) -> BTreeMap<String, MemNode> {
        self.lock().clone()
    }

    /// The node at `path`, if any.
    pub fn get(&self, path: &str) -> Option<MemNode> {
        self.lock().get(path).cloned()
    }
}

fn io_err(path: &RelPath, kind: io::ErrorKind, what: &str) -> Error {
    Error::io(path.as_str(), io::Error::new(kind, what.to_owned()))
}

/// Checks that every ancestor of `path` is a directory.
fn check_parents(nodes: &BTreeMap<String, MemNode>, path: &RelPath) -> Result<()> {
    for dir in path.ancestors() {
        match nodes.get(dir.as_str()) {
            Some(MemNode::Dir) => {}
            Some(MemNode::Symlink(_)) => {
                return Err(io_err(
                    path,
                    io::ErrorKind::NotADirectory,
                    "a parent is a symlink (not followed)",
                ))
            }
            Some(_) => {
                return Err(io_err(
                    path,
                    io::ErrorKind::NotADirectory,
                    "a parent is not a directory",
                ))
            }
            None => {
                return Err(io_err(
                    path,
                    io::ErrorKind::NotFound,
                    "a parent does not exist",
                ))
            }
        }
    }
    Ok(())
}

fn has_children(nodes: &BTreeMap<String, MemNode>, path: &RelPath) -> bool {
    let prefix = format!("{}/", path.as_str());
    nodes
        .range(prefix.clone()..)
        .next()
        .is_some_and(|(k, _)| k.starts_with(&prefix))
}

impl Root for MemRoot {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        let nodes = self.lock();
        for dir in path.ancestors() {
            match nodes.get(dir.as_str()) {
                Some(MemNode::Dir) => {}
                // Refused, as a real root refuses to walk through a link.
                Some(MemNode::Symlink(_)) => return check_parents(&nodes, path).map(|()| None),
                _ => return Ok(None),
            }
        }
        Ok(nodes.get(path.as_str()).map(|node| match node {
            MemNode::File { bytes, mode } => Metadata {
                kind: EntryKind::File,
                len: bytes.len() as u64,
                mode: *mode,
            },
            MemNode::Dir => Metadata {
                kind: EntryKind::Dir,
                len: 0,
                mode: 0o755,
            },
            MemNode::Symlink(target) => Metadata {
                kind: EntryKind::Symlink,
                len: target.len() as u64,
                mode: 0o777,
            },
            MemNode::Other => Metadata {
                kind: EntryKind::Other,
                len: 0,
                mode: 0o644,
            },
        }))
    }

    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        let nodes = self.lock();
        check_parents(&nodes, path)?;
        match nodes.get(path.as_str()) {
            Some(MemNode::File { bytes, .. }) => {
                if let Some(limit) = max_bytes.filter(|l| bytes.len() as u64 > *l) {
                    return Err(Error::TooLarge {
                        what: format!("file {path}"),
                        size: bytes.len() as u64,
                        limit,
                    });
                }
                Ok(bytes.clone())
            }
            Some(MemNode::Dir) => Err(not_a_file(path, EntryKind::Dir)),
            Some(MemNode::Symlink(_)) => Err(not_a_file(path, EntryKind::Symlink)),
            Some(MemNode::Other) => Err(not_a_file(path, EntryKind::Other)),
            None => Err(io_err(path, io::ErrorKind::NotFound, "no such file")),
        }
    }

    fn read_link(&self, path: &RelPath) -> Result<String> {
        let nodes = self.lock();
        check_parents(&nodes, path)?;
        match nodes.get(path.as_str()) {
            Some(MemNode::Symlink(target)) => Ok(target.clone()),
            Some(_) => Err(io_err(path, io::ErrorKind::InvalidInput, "not a symlink")),
            None => Err(io_err(path, io::ErrorKind::NotFound, "no such file")),
        }
    }

    fn write_file(&self, path: &RelPath, bytes: &[u8], mode: u32, _durable: bool) -> Result<()> {
        let mut nodes = self.lock();
        check_parents(&nodes, path)?;
        if let Some(MemNode::Dir) = nodes.get(path.as_str()) {
            return Err(io_err(path, io::ErrorKind::IsADirectory, "is a directory"));
        }
        let node = MemNode::File {
            bytes: bytes.to_vec(),
            mode: mode & 0o7777,
        };
        nodes.insert(path.as_str().to_owned(), node);
        Ok(())
    }

    fn write_link(&self, path: &RelPath, target: &str) -> Result<()> {
        let mut nodes = self.lock();
        check_parents(&nodes, path)?;
        if let Some(MemNode::Dir) = nodes.get(path.as_str()) {
            return Err(io_err(path, io::ErrorKind::IsADirectory, "is a directory"));
        }
        nodes.insert(
            path.as_str().to_owned(),
            MemNode::Symlink(target.to_owned()),
        );
        Ok(())
    }

    fn remove_file(&self, path: &RelPath) -> Result<()> {
        let mut nodes = self.lock();
        check_parents(&nodes, path)?;
        match nodes.get(path.as_str()) {
            Some(MemNode::Dir) => Err(io_err(path, io::ErrorKind::IsADirectory, "is a directory")),
            Some(_) => {
                nodes.remove(path.as_str());
                Ok(())
            }
            None => Err(io_err(path, io::ErrorKind::NotFound, "no such file")),
        }
    }

    fn create_dir(&self, path: &RelPath) -> Result<()> {
        let mut nodes = self.lock();
        check_parents(&nodes, path)?;
        if nodes.contains_key(path.as_str()) {
            return Err(io_err(path, io::ErrorKind::AlreadyExists, "already exists"));
        }
        nodes.insert(path.as_str().to_owned(), MemNode::Dir);
        Ok(())
    }

    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        let mut nodes = self.lock();
        check_parents(&nodes, path)?;
        match nodes.get(path.as_str()) {
            Some(MemNode::Dir) if has_children(&nodes, path) => Err(io_err(
                path,
                io::ErrorKind::DirectoryNotEmpty,
                "directory not empty",
            )),
            Some(MemNode::Dir) => {
                nodes.remove(path.as_str());
                Ok(())
            }
            Some(_) => Err(io_err(
                path,
                io::ErrorKind::NotADirectory,
                "not a directory",
            )),
            None => Err(io_err(path, io::ErrorKind::NotFound, "no such directory")),
        }
    }

    fn sync_dir(&self, _path: Option<&RelPath>) -> Result<()> {
        Ok(())
    }

    fn absolute_prefixes(&self) -> Vec<String> {
        self.absolute.iter().cloned().collect()
    }
}

pub(crate) fn not_a_file(path: &RelPath, kind: EntryKind) -> Error {
    Error::NotAFile {
        path: path.to_string(),
        kind: kind.describe().to_owned(),
    }
}
