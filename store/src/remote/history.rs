//! Commit history as the replay needs it: a commit's tree, parents, message
//! and author; the merge base of two tips; our commits since that base.

use std::collections::HashSet;

use gix::bstr::ByteSlice;
use gix::ObjectId;

use crate::objects::{corrupt, read_object};
use agent_checkpoint::Result;

/// One commit, decoded.
pub(crate) struct CommitInfo {
    pub tree: ObjectId,
    pub parents: Vec<ObjectId>,
    pub message: String,
    pub author: gix::actor::Signature,
}

/// Reads the commit `id`.
///
/// # Errors
/// `corrupt_object` when it is missing or not a commit.
pub(crate) fn commit(repo: &gix::Repository, id: &ObjectId) -> Result<CommitInfo> {
    let what = format!("commit {id}");
    let mut buf = Vec::new();
    read_object(repo, id, gix::objs::Kind::Commit, &what, &mut buf)?;
    let c = gix::objs::CommitRef::from_bytes(&buf, repo.object_hash())
        .map_err(|e| corrupt(&what, e))?;
    let author = c
        .author()
        .map_err(|e| corrupt(&what, e))?
        .to_owned()
        .map_err(|e| corrupt(&what, e))?;
    Ok(CommitInfo {
        tree: c.tree(),
        parents: c.parents().collect(),
        message: c.message.to_str_lossy().into_owned(),
        author,
    })
}

/// The most recent commit both `a` and `b` descend from, walking both
/// histories one commit at a time (first parents); `None` when they share
/// nothing (two checkpoints started apart).
///
/// # Errors
/// `corrupt_object` when a commit on the way cannot be read.
pub(crate) fn merge_base(
    repo: &gix::Repository,
    a: ObjectId,
    b: ObjectId,
) -> Result<Option<ObjectId>> {
    let mut seen_a = HashSet::new();
    let mut seen_b = HashSet::new();
    let (mut next_a, mut next_b) = (Some(a), Some(b));
    while next_a.is_some() || next_b.is_some() {
        if let Some(id) = next_a {
            if seen_b.contains(&id) {
                return Ok(Some(id));
            }
            seen_a.insert(id);
            next_a = commit(repo, &id)?.parents.first().copied();
        }
        if let Some(id) = next_b {
            if seen_a.contains(&id) {
                return Ok(Some(id));
            }
            seen_b.insert(id);
            next_b = commit(repo, &id)?.parents.first().copied();
        }
    }
    Ok(None)
}

/// The commits from `base` (excluded; the whole history when `None`) to
/// `tip`, oldest first, following first parents.
///
/// # Errors
/// `corrupt_object` when a commit cannot be read.
pub(crate) fn since(
    repo: &gix::Repository,
    tip: ObjectId,
    base: Option<ObjectId>,
) -> Result<Vec<(ObjectId, CommitInfo)>> {
    let mut out = Vec::new();
    let mut next = Some(tip);
    while let Some(id) = next {
        if Some(id) == base {
            break;
        }
        let info = commit(repo, &id)?;
        next = info.parents.first().copied();
        out.push((id, info));
    }
    out.reverse();
    Ok(out)
}
