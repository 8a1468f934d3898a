//! The git-refs backend: one ref per checkpoint,
//! `refs/entire/checkpoints/<shard_for(id)>/<id>`, whose commit's tree *is*
//! the checkpoint tree. The first write is a parentless commit, each later
//! one parents on the tip (a linear history per checkpoint); after the ref
//! moves it is enqueued in the push queue kept in the git common dir.

use std::path::Path;

use gix::ObjectId;

use crate::objects::{commit_tree, corrupt};
use crate::ref_store::{self, Value};
use agent_checkpoint::Result;
use agent_checkpoint_naming::id::CheckpointId;
use agent_checkpoint_naming::refs::{parse_ref, ref_name, CHECKPOINT_REF_PREFIX};

/// The ref of checkpoint `id`.
pub(crate) fn ref_for(id: &CheckpointId) -> Result<String> {
    ref_name(id.as_str())
}

/// The checkpoint tree of the commit `tip`.
pub(crate) fn checkpoint_tree(
    repo: &gix::Repository,
    tip: ObjectId,
    ref_name: &str,
) -> Result<ObjectId> {
    commit_tree(repo, &tip, &format!("checkpoint ref {ref_name:?}"))
}

/// Enqueues `ref_name` for push; a queue failure does not fail the write
/// (the ref is re-discovered by the next push).
pub(crate) fn enqueue(common_dir: &Path, ref_name: &str) {
    let _ = crate::locks::push_queue(common_dir).enqueue(ref_name);
}

/// Every checkpoint ref `parse_ref` accepts, with its ID and its tip, or
/// the error of a ref that names no commit (a symbolic ref): one such ref
/// is that checkpoint's damage, never the end of the listing.
///
/// # Errors
/// [`Error::CorruptObject`](agent_checkpoint::Error::CorruptObject) when
/// the ref store itself cannot be read.
pub(crate) fn list(repo: &gix::Repository) -> Result<Vec<(String, Result<ObjectId>)>> {
    let mut out = Vec::new();
    for (name, value) in ref_store::list(repo, CHECKPOINT_REF_PREFIX)? {
        let Some(id) = parse_ref(&name) else { continue };
        let tip = match value {
            Value::Object(tip) => Ok(tip),
            _ => Err(corrupt(
                format!("ref {name:?}"),
                "is symbolic, not a commit",
            )),
        };
        out.push((id, tip));
    }
    Ok(out)
}
