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

use crate::git_names::{refused, EntryAs};
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

/// Checks one name that becomes a directory in a tree (a task's tool-use
/// ID, a session's metadata directory): git's rules (see
/// [`crate::git_names`]), so `git fsck --strict` takes the tree.
///
/// # Errors
/// [`Error::InvalidPath`] saying which rule `name` breaks.
pub(crate) fn check_name(name: &str) -> Result<()> {
    match refused(name.as_bytes(), EntryAs::Dir) {
        Some(reason) => Err(Error::invalid_path(
            name,
            format!("not a valid tree entry name: {reason}"),
        )),
        None => Ok(()),
    }
}

/// Splits an in-tree path into its names: relative, each directory and the
/// last name (a file) valid by git's rules (see [`crate::git_names`]).
///
/// # Errors
/// [`Error::InvalidPath`] naming the path and the broken rule.
pub(crate) fn split_path(path: &str) -> Result<Vec<&str>> {
    split_path_as(path, EntryAs::File)
}

/// [`split_path`] for a path whose last name is a `last`.
pub(crate) fn split_path_as(path: &str, last: EntryAs) -> Result<Vec<&str>> {
    if path.is_empty() || path.starts_with('/') {
        return Err(Error::invalid_path(
            path,
            "in-tree paths are relative and non-empty",
        ));
    }
    let parts: Vec<&str> = path.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        let kind = if i + 1 == parts.len() {
            last
        } else {
            EntryAs::Dir
        };
        if let Some(reason) = refused(part.as_bytes(), kind) {
            return Err(Error::invalid_path(
                path,
                format!("segment {part:?} is not allowed in a tree: {reason}"),
            ));
        }
    }
    Ok(parts)
}

/// Why git would refuse the work-tree file `path` (a `mode` blob) in a
/// tree, if it would: what a shadow step leaves out instead of failing.
pub(crate) fn git_refuses_path(path: &str, mode: FileMode) -> Option<String> {
    let last = match mode {
        FileMode::Symlink => EntryAs::Symlink,
        FileMode::Regular | FileMode::Executable => EntryAs::File,
    };
    split_path_as(path, last).err().map(|e| e.to_string())
}

/// Leaves out of `edits` (path -> new entry, `None` to remove) every file
/// git would refuse at its path, naming each in `left_out` (a shadow step
/// skips such a work-tree file instead of failing).
pub(crate) fn drop_refused<T>(
    edits: &mut BTreeMap<String, Option<(FileMode, T)>>,
    left_out: &mut Vec<String>,
) {
    edits.retain(|path, entry| match entry {
        Some((mode, _)) if git_refuses_path(path, *mode).is_some() => {
            left_out.push(path.clone());
            false
        }
        _ => true,
    });
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
        let last = if mode == FileMode::Symlink {
            EntryAs::Symlink
        } else {
            EntryAs::File
        };
        split_path_as(path, last)?;
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
    let commit = encode_commit(repo, tree, parent, message, who)?;
    write_encoded_commit(repo, &commit)
}

/// The bytes of a commit of `tree` on `parent` as [`write_commit`] writes
/// it: signed when the repository asks for it ([`crate::signing`]).
///
/// # Errors
/// When the commit cannot be encoded (never because signing failed).
pub(crate) fn encode_commit(
    repo: &gix::Repository,
    tree: ObjectId,
    parent: Option<ObjectId>,
    message: &str,
    who: &gix::actor::Signature,
) -> Result<Vec<u8>> {
    let commit = gix::objs::Commit {
        tree,
        parents: parent.into_iter().collect(),
        author: who.clone(),
        committer: who.clone(),
        encoding: None,
        message: BString::from(message),
        extra_headers: Vec::new(),
    };
    crate::signing::encode_commit(repo, &commit)
}

/// Writes the commit whose encoded bytes are `commit` (from
/// [`crate::signing::encode_commit`]).
pub(crate) fn write_encoded_commit(repo: &gix::Repository, commit: &[u8]) -> Result<ObjectId> {
    use gix::objs::Write as _;
    let id = gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Commit, commit)
        .map_err(|e| git_error("hashing a commit", e))?;
    if repo.has_object(id) {
        return Ok(id);
    }
    repo.objects
        .write_buf(gix::objs::Kind::Commit, commit)
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

/// The abbreviated id `hex` (4 or more hex digits) in the repository's
/// hash (gitoxide's own parser takes a short prefix for SHA-1).
pub(crate) fn prefix(repo: &gix::Repository, hex: &str) -> Option<gix::hash::Prefix> {
    let kind = repo.object_hash();
    if hex.len() < gix::hash::Prefix::MIN_HEX_LEN || hex.len() > kind.len_in_hex() {
        return None;
    }
    let mut full = hex.to_owned();
    full.extend(std::iter::repeat_n('0', kind.len_in_hex() - hex.len()));
    let id = ObjectId::from_hex(full.as_bytes()).ok()?;
    gix::hash::Prefix::new(&id, hex.len()).ok()
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
        for bad in [
            "",
            "/a",
            "a//b",
            "a/./b",
            "a/../b",
            "a/",
            ".",
            "..",
            ".git/config",
            "sub/.GIT/x",
            "GIT~1/config",
            ".git /hooks/x",
            ".gitmodules/x",
        ] {
            assert_eq!(
                split_path(bad).unwrap_err().code(),
                agent_checkpoint::ErrorCode::InvalidPath,
                "{bad}"
            );
        }
        assert!(split_path(".gitmodules").is_ok());
        assert!(git_refuses_path(".gitmodules", FileMode::Symlink).is_some());
        assert!(git_refuses_path("a/.gitattributes", FileMode::Symlink).is_none());
        assert!(check_name(".git").is_err() && check_name("toolu_1").is_ok());
        assert_eq!(FileMode::from_permissions(0o755), FileMode::Executable);
        assert_eq!(FileMode::from_permissions(0o644), FileMode::Regular);
    }
}
