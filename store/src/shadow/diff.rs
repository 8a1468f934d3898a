//! Trees read for shadow steps: what sits at one path, and which file
//! paths differ between two trees (a subtree that differs is walked down to
//! its files; submodule entries are never reported).

use std::collections::BTreeSet;

use gix::bstr::ByteSlice;
use gix::objs::tree::{Entry, EntryKind};
use gix::ObjectId;

use crate::objects::{find, read_tree};
use agent_checkpoint::Result;

/// A tree entry's kind and object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leaf {
    /// A file (`100644`, or `100755` when `executable`).
    Blob { oid: ObjectId, executable: bool },
    /// A symlink (`120000`); the blob is its target.
    Link(ObjectId),
    /// A directory.
    Tree(ObjectId),
    /// A submodule commit (never touched).
    Commit,
}

fn leaf(entry: &Entry) -> Leaf {
    match entry.mode.kind() {
        EntryKind::Blob => Leaf::Blob {
            oid: entry.oid,
            executable: false,
        },
        EntryKind::BlobExecutable => Leaf::Blob {
            oid: entry.oid,
            executable: true,
        },
        EntryKind::Link => Leaf::Link(entry.oid),
        EntryKind::Tree => Leaf::Tree(entry.oid),
        EntryKind::Commit => Leaf::Commit,
    }
}

/// What sits at `path` in `tree` (`None`: nothing, or a parent is not a tree).
pub(crate) fn entry_at(repo: &gix::Repository, tree: ObjectId, path: &str) -> Result<Option<Leaf>> {
    let mut current = tree;
    let mut parts = path.split('/').peekable();
    while let Some(name) = parts.next() {
        let entries = read_tree(repo, &current, "a shadow step's tree")?;
        let Some(entry) = find(&entries, name) else {
            return Ok(None);
        };
        let found = leaf(entry);
        if parts.peek().is_none() {
            return Ok(Some(found));
        }
        match found {
            Leaf::Tree(id) => current = id,
            _ => return Ok(None),
        }
    }
    Ok(None)
}

/// The file paths (blobs and links) whose entry differs between `old` and
/// `new` (`None`: the empty tree), sorted.
pub(crate) fn changed_files(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
) -> Result<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    walk(repo, old, new, "", &mut out)?;
    Ok(out)
}

fn walk(
    repo: &gix::Repository,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    prefix: &str,
    out: &mut BTreeSet<String>,
) -> Result<()> {
    if old == new {
        return Ok(());
    }
    let read = |id: Option<ObjectId>| -> Result<Vec<Entry>> {
        match id {
            Some(id) => read_tree(repo, &id, "a shadow step's tree"),
            None => Ok(Vec::new()),
        }
    };
    let (old_entries, new_entries) = (read(old)?, read(new)?);
    let mut names: BTreeSet<&[u8]> = BTreeSet::new();
    names.extend(old_entries.iter().map(|e| e.filename.as_bytes()));
    names.extend(new_entries.iter().map(|e| e.filename.as_bytes()));
    for name in names {
        let Ok(name) = std::str::from_utf8(name) else {
            continue;
        };
        let path = format!("{prefix}{name}");
        let a = find(&old_entries, name).map(leaf);
        let b = find(&new_entries, name).map(leaf);
        if a == b {
            continue;
        }
        let subtree = |l: Option<Leaf>| match l {
            Some(Leaf::Tree(id)) => Some(id),
            _ => None,
        };
        let is_file = |l: Option<Leaf>| matches!(l, Some(Leaf::Blob { .. } | Leaf::Link(_)));
        if is_file(a) || is_file(b) {
            out.insert(path.clone());
        }
        let (ta, tb) = (subtree(a), subtree(b));
        if ta.is_some() || tb.is_some() {
            walk(repo, ta, tb, &format!("{path}/"), out)?;
        }
    }
    Ok(())
}
