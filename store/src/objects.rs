//! Git objects: blobs written as the exact bytes, trees built from a flat
//! `path -> (mode, blob)` map or edited one level at a time (entries in
//! git's order), commits with one tree and at most one parent; and reading
//! them back, where an object that is referenced but missing or malformed is
//! corruption, never "not found".

use std::collections::BTreeMap;
use std::fmt::Display;

use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::{Entry, EntryKind, EntryMode};
use gix::prelude::Find;
use gix::ObjectId;

use agent_checkpoint::{Error, Result};

/// The mode of a blob in a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileMode {
    /// `100644`.
    Regular,
    /// `100755` (any executable bit).
    Executable,
    /// `120000`: the blob is the link target.
    Symlink,
}

impl FileMode {
    /// The mode git records for Unix permission bits (`0o755` -> executable).
    pub fn from_permissions(bits: u32) -> FileMode {
        if bits & 0o111 != 0 {
            FileMode::Executable
        } else {
            FileMode::Regular
        }
    }

    fn entry_mode(self) -> EntryMode {
        match self {
            FileMode::Regular => EntryKind::Blob.into(),
            FileMode::Executable => EntryKind::BlobExecutable.into(),
            FileMode::Symlink => EntryKind::Link.into(),
        }
    }
}

/// An I/O-style failure of the object database or ref store.
pub(crate) fn git_error(what: impl Display, error: impl Display) -> Error {
    Error::Io {
        path: None,
        error: std::io::Error::other(format!("{what}: {error}")),
    }
}

/// An object that exists (or must) but cannot be read as expected.
pub(crate) fn corrupt(what: impl Display, reason: impl Display) -> Error {
    Error::CorruptObject {
        what: what.to_string(),
        reason: reason.to_string(),
    }
}

/// Writes `bytes` as a blob, exactly.
pub(crate) fn write_blob(repo: &gix::Repository, bytes: &[u8]) -> Result<ObjectId> {
    repo.write_blob(bytes)
        .map(|id| id.detach())
        .map_err(|e| git_error("writing a blob", e))
}

/// Checks one tree entry name: not empty, `.` or `..`, no `/` or NUL.
pub(crate) fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
        return Err(Error::invalid_path(name, "not a valid tree entry name"));
    }
    Ok(())
}

/// Splits an in-tree path into its names: relative, no empty, `.` or `..`
/// segment.
pub(crate) fn split_path(path: &str) -> Result<Vec<&str>> {
    if path.is_empty() || path.starts_with('/') {
        return Err(Error::invalid_path(
            path,
            "in-tree paths are relative and non-empty",
        ));
    }
    let parts: Vec<&str> = path.split('/').collect();
    for part in &parts {
        check_name(part).map_err(|_| {
            Error::invalid_path(
                path,
                "empty, `.` or `..` segments are not allowed in a tree",
            )
        })?;
    }
    Ok(parts)
}

/// Writes a tree of these entries, sorted in git's order (a directory sorts
/// as if its name ended in `/`).
pub(crate) fn write_tree(repo: &gix::Repository, mut entries: Vec<Entry>) -> Result<ObjectId> {
    entries.sort();
    let tree = gix::objs::Tree { entries };
    repo.write_object(&tree)
        .map(|id| id.detach())
        .map_err(|e| git_error("writing a tree", e))
}

/// A blob entry.
pub(crate) fn blob_entry(name: &str, mode: FileMode, oid: ObjectId) -> Entry {
    Entry {
        mode: mode.entry_mode(),
        filename: BString::from(name),
        oid,
    }
}

/// A subtree entry.
pub(crate) fn tree_entry(name: &str, oid: ObjectId) -> Entry {
    Entry {
        mode: EntryKind::Tree.into(),
        filename: BString::from(name),
        oid,
    }
}

/// A tree described as a flat map `path -> (mode, blob)`, directories made
/// on demand.
#[derive(Debug, Default)]
pub(crate) struct FlatTree {
    files: BTreeMap<String, (FileMode, ObjectId)>,
}

impl FlatTree {
    /// Adds (or replaces) the blob at `path`.
    ///
    /// # Errors
    /// [`Error::InvalidPath`] for an invalid in-tree path.
    pub(crate) fn insert(&mut self, path: &str, mode: FileMode, oid: ObjectId) -> Result<()> {
        split_path(path)?;
        self.files.insert(path.to_owned(), (mode, oid));
        Ok(())
    }

    /// Writes the trees bottom-up and returns the root's id.
    ///
    /// # Errors
    /// [`Error::InvalidPath`] when a path is both a file and a directory.
    pub(crate) fn write(&self, repo: &gix::Repository) -> Result<ObjectId> {
        let mut root = Dir::default();
        for (path, (mode, oid)) in &self.files {
            let parts = split_path(path)?;
            let (last, dirs) = parts
                .split_last()
                .ok_or_else(|| Error::invalid_path(path.as_str(), "empty path"))?;
            let mut dir = &mut root;
            for part in dirs {
                if dir.files.contains_key(*part) {
                    return Err(Error::invalid_path(path.as_str(), "a parent is a file"));
                }
                dir = dir.dirs.entry((*part).to_owned()).or_default();
            }
            if dir.dirs.contains_key(*last) {
                return Err(Error::invalid_path(path.as_str(), "is also a directory"));
            }
            dir.files.insert((*last).to_owned(), (*mode, *oid));
        }
        root.write(repo)
    }
}

#[derive(Debug, Default)]
struct Dir {
    files: BTreeMap<String, (FileMode, ObjectId)>,
    dirs: BTreeMap<String, Dir>,
}

impl Dir {
    fn write(&self, repo: &gix::Repository) -> Result<ObjectId> {
        let mut entries = Vec::with_capacity(self.files.len() + self.dirs.len());
        for (name, (mode, oid)) in &self.files {
            entries.push(blob_entry(name, *mode, *oid));
        }
        for (name, dir) in &self.dirs {
            entries.push(tree_entry(name, dir.write(repo)?));
        }
        write_tree(repo, entries)
    }
}

/// Writes a commit of `tree` on `parent` (none for a root commit), with the
/// message verbatim; author and committer are `who`.
pub(crate) fn write_commit(
    repo: &gix::Repository,
    tree: ObjectId,
    parent: Option<ObjectId>,
    message: &str,
    who: &gix::actor::Signature,
) -> Result<ObjectId> {
    let commit = gix::objs::Commit {
        tree,
        parents: parent.into_iter().collect(),
        author: who.clone(),
        committer: who.clone(),
        encoding: None,
        message: BString::from(message),
        extra_headers: Vec::new(),
    };
    repo.write_object(&commit)
        .map(|id| id.detach())
        .map_err(|e| git_error("writing a commit", e))
}

/// Reads the raw data of an object that must exist and be of `kind`.
pub(crate) fn read_object(
    repo: &gix::Repository,
    id: &gix::oid,
    kind: gix::objs::Kind,
    what: &str,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let found = repo
        .objects
        .try_find(id, buf)
        .map_err(|e| corrupt(format!("{what} ({id})"), e))?;
    match found {
        Some(data) if data.kind == kind => Ok(()),
        Some(data) => Err(corrupt(
            format!("{what} ({id})"),
            format!("is a {}, not a {kind}", data.kind),
        )),
        None => Err(corrupt(format!("{what} ({id})"), "the object is missing")),
    }
}

/// The entries of the tree `id`.
pub(crate) fn read_tree(repo: &gix::Repository, id: &gix::oid, what: &str) -> Result<Vec<Entry>> {
    let mut buf = Vec::new();
    read_object(repo, id, gix::objs::Kind::Tree, what, &mut buf)?;
    let tree = gix::objs::TreeRef::from_bytes(&buf, repo.object_hash())
        .map_err(|e| corrupt(format!("{what} ({id})"), e))?;
    Ok(tree.entries.into_iter().map(Into::into).collect())
}

/// The bytes of the blob `id`.
pub(crate) fn read_blob(repo: &gix::Repository, id: &gix::oid, what: &str) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    read_object(repo, id, gix::objs::Kind::Blob, what, &mut buf)?;
    Ok(buf)
}

/// The tree of the commit `id`.
pub(crate) fn commit_tree(repo: &gix::Repository, id: &gix::oid, what: &str) -> Result<ObjectId> {
    let mut buf = Vec::new();
    read_object(repo, id, gix::objs::Kind::Commit, what, &mut buf)?;
    let mut iter = gix::objs::CommitRefIter::from_bytes(&buf, repo.object_hash());
    iter.tree_id()
        .map_err(|e| corrupt(format!("{what} ({id})"), e))
}

/// Finds `name` among `entries`.
pub(crate) fn find<'a>(entries: &'a [Entry], name: &str) -> Option<&'a Entry> {
    entries
        .iter()
        .find(|e| e.filename.as_bytes() == name.as_bytes())
}

/// Replaces (or adds) `entry` among `entries`, by name.
pub(crate) fn upsert(entries: &mut Vec<Entry>, entry: Entry) {
    entries.retain(|e| e.filename != entry.filename);
    entries.push(entry);
}

/// Removes the entry called `name`.
pub(crate) fn remove(entries: &mut Vec<Entry>, name: &str) {
    entries.retain(|e| e.filename.as_bytes() != name.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_rules() {
        assert!(split_path("a/b.txt").is_ok());
        for bad in ["", "/a", "a//b", "a/./b", "a/../b", "a/", ".", ".."] {
            assert_eq!(
                split_path(bad).unwrap_err().code(),
                agent_checkpoint::ErrorCode::InvalidPath,
                "{bad}"
            );
        }
        assert_eq!(FileMode::from_permissions(0o755), FileMode::Executable);
        assert_eq!(FileMode::from_permissions(0o644), FileMode::Regular);
    }
}
