//! [`MemRoot`]: an in-memory [`Root`] with the same rules as a real directory.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Mutex, MutexGuard};

use super::{check_expect, check_same_dir, EntryKind, Expect, Metadata, Root, WriteOptions};
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
    nodes: Mutex<Tree>,
    absolute: Option<String>,
}

/// The nodes, and a version per path that moves on every change (the
/// change stamp of [`Metadata`]).
#[derive(Debug, Default)]
struct Tree {
    nodes: BTreeMap<String, MemNode>,
    versions: BTreeMap<String, u64>,
    clock: u64,
}

impl Tree {
    fn get(&self, path: &str) -> Option<&MemNode> {
        self.nodes.get(path)
    }

    fn contains_key(&self, path: &str) -> bool {
        self.nodes.contains_key(path)
    }

    fn set(&mut self, path: &str, node: MemNode) {
        self.clock += 1;
        self.versions.insert(path.to_owned(), self.clock);
        self.nodes.insert(path.to_owned(), node);
    }

    fn remove(&mut self, path: &str) {
        self.versions.remove(path);
        self.nodes.remove(path);
    }

    fn metadata(&self, path: &str) -> Option<Metadata> {
        let stamp = self.versions.get(path).copied().unwrap_or(0);
        self.nodes.get(path).map(|node| {
            let (kind, len, mode) = match node {
                MemNode::File { bytes, mode } => (EntryKind::File, bytes.len() as u64, *mode),
                MemNode::Dir => (EntryKind::Dir, 0, 0o755),
                MemNode::Symlink(target) => (EntryKind::Symlink, target.len() as u64, 0o777),
                MemNode::Other => (EntryKind::Other, 0, 0o644),
            };
            Metadata::new(kind, len, mode).with_stamp(stamp)
        })
    }
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

    fn lock(&self) -> MutexGuard<'_, Tree> {
        // A panic while holding the lock cannot leave the map half-updated
        // (every mutation is one insert or remove), so poisoning is ignored.
        self.nodes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Puts `node` at `path`, creating missing parent directories; replaces
    /// whatever was there. For setting up trees in tests and hosts.
    pub fn insert(&self, path: &RelPath, node: MemNode) {
        let mut tree = self.lock();
        for dir in path.ancestors() {
            if tree.get(dir.as_str()) != Some(&MemNode::Dir) {
                tree.set(dir.as_str(), MemNode::Dir);
            }
        }
        let key = path.as_str();
        let prefix = format!("{key}/");
        if node != MemNode::Dir {
            let below: Vec<String> = tree
                .nodes
                .keys()
                .filter(|k| k.starts_with(&prefix))
                .cloned()
                .collect();
            for k in below {
                tree.remove(&k);
            }
        }
        tree.set(key, node);
    }

    /// A copy of the whole tree, sorted by path.
    pub fn entries(&self) -> BTreeMap<String, MemNode> {
        self.lock().nodes.clone()
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
fn check_parents(nodes: &Tree, path: &RelPath) -> Result<()> {
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

fn has_children(tree: &Tree, path: &RelPath) -> bool {
    let prefix = format!("{}/", path.as_str());
    tree.nodes
        .range(prefix.clone()..)
        .next()
        .is_some_and(|(k, _)| k.starts_with(&prefix))
}

/// Checks `expect`, then (for a write) that a directory at `path` is
/// allowed to go and is empty, and removes it.
fn prepare_replace(tree: &mut Tree, path: &RelPath, options: &WriteOptions) -> Result<()> {
    check_expect(path, tree.metadata(path.as_str()).as_ref(), options.expect)?;
    if let Some(MemNode::Dir) = tree.get(path.as_str()) {
        if !options.replace_empty_dir {
            return Err(io_err(path, io::ErrorKind::IsADirectory, "is a directory"));
        }
        if has_children(tree, path) {
            return Err(io_err(
                path,
                io::ErrorKind::DirectoryNotEmpty,
                "directory not empty",
            ));
        }
        tree.remove(path.as_str());
    }
    Ok(())
}

impl Root for MemRoot {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        let tree = self.lock();
        for dir in path.ancestors() {
            match tree.get(dir.as_str()) {
                Some(MemNode::Dir) => {}
                // Refused, as a real root refuses to walk through a link.
                Some(MemNode::Symlink(_)) => return check_parents(&tree, path).map(|()| None),
                _ => return Ok(None),
            }
        }
        Ok(tree.metadata(path.as_str()))
    }

    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        let tree = self.lock();
        let prefix = match dir {
            None => String::new(),
            Some(d) => {
                check_parents(&tree, d)?;
                match tree.get(d.as_str()) {
                    Some(MemNode::Dir) => {}
                    Some(_) => {
                        return Err(io_err(d, io::ErrorKind::NotADirectory, "not a directory"))
                    }
                    None => return Err(io_err(d, io::ErrorKind::NotFound, "no such directory")),
                }
                format!("{}/", d.as_str())
            }
        };
        Ok(tree
            .nodes
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(k, _)| &k[prefix.len()..])
            .filter(|rest| !rest.contains('/'))
            .map(str::to_owned)
            .collect())
    }

    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        let nodes = self.lock();
        check_parents(&nodes, path)?;
        match nodes.get(path.as_str()) {
            Some(MemNode::File { bytes, .. }) => {
                if let Some(limit) = max_bytes.filter(|l| bytes.len() as u64 > *l) {
                    return Err(Error::file_too_large(
                        path.as_str(),
                        bytes.len() as u64,
                        limit,
                    ));
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

    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        let mut tree = self.lock();
        check_parents(&tree, path)?;
        prepare_replace(&mut tree, path, options)?;
        let node = MemNode::File {
            bytes: bytes.to_vec(),
            mode: options.mode & 0o7777,
        };
        tree.set(path.as_str(), node);
        Ok(())
    }

    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        let mut tree = self.lock();
        check_parents(&tree, path)?;
        prepare_replace(&mut tree, path, options)?;
        tree.set(path.as_str(), MemNode::Symlink(target.to_owned()));
        Ok(())
    }

    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        let mut tree = self.lock();
        check_parents(&tree, path)?;
        check_expect(path, tree.metadata(path.as_str()).as_ref(), expect)?;
        match tree.get(path.as_str()) {
            Some(MemNode::Dir) => Err(io_err(path, io::ErrorKind::IsADirectory, "is a directory")),
            Some(_) => {
                tree.remove(path.as_str());
                Ok(())
            }
            None => Err(io_err(path, io::ErrorKind::NotFound, "no such file")),
        }
    }

    fn rename_file(&self, from: &RelPath, to: &RelPath, expect: Expect) -> Result<()> {
        check_same_dir(from, to)?;
        let mut tree = self.lock();
        check_parents(&tree, from)?;
        check_expect(from, tree.metadata(from.as_str()).as_ref(), expect)?;
        check_expect(to, tree.metadata(to.as_str()).as_ref(), Expect::Absent)?;
        match tree.get(from.as_str()).cloned() {
            Some(MemNode::Dir) => Err(io_err(from, io::ErrorKind::IsADirectory, "is a directory")),
            Some(node) => {
                tree.remove(from.as_str());
                tree.set(to.as_str(), node);
                Ok(())
            }
            None => Err(io_err(from, io::ErrorKind::NotFound, "no such file")),
        }
    }

    fn create_dir(&self, path: &RelPath) -> Result<()> {
        let mut tree = self.lock();
        check_parents(&tree, path)?;
        if tree.contains_key(path.as_str()) {
            return Err(io_err(path, io::ErrorKind::AlreadyExists, "already exists"));
        }
        tree.set(path.as_str(), MemNode::Dir);
        Ok(())
    }

    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        let mut tree = self.lock();
        check_parents(&tree, path)?;
        match tree.get(path.as_str()) {
            Some(MemNode::Dir) if has_children(&tree, path) => Err(io_err(
                path,
                io::ErrorKind::DirectoryNotEmpty,
                "directory not empty",
            )),
            Some(MemNode::Dir) => {
                tree.remove(path.as_str());
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
