//! The git-refs backend: one ref per checkpoint,
//! `refs/entire/checkpoints/<shard_for(id)>/<id>`, whose commit's tree *is*
//! the checkpoint tree. The first write is a parentless commit, each later
//! one parents on the tip (a linear history per checkpoint); after the ref
//! moves it is enqueued in the push queue kept in the git common dir.

use std::path::Path;

use gix::ObjectId;

use crate::objects::{commit_tree, corrupt};
use agent_checkpoint::Result;
use agent_checkpoint_naming::id::CheckpointId;
use agent_checkpoint_naming::refs::{parse_ref, ref_name, CHECKPOINT_REF_PREFIX};
use agent_checkpoint_naming::PushQueue;

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
    let _ = PushQueue::new(common_dir).enqueue(ref_name);
}

/// Every checkpoint ref `parse_ref` accepts, with its ID and tip.
pub(crate) fn list(repo: &gix::Repository) -> Result<Vec<(String, ObjectId)>> {
    let platform = repo.references().map_err(|e| corrupt("the ref store", e))?;
    let iter = platform
        .prefixed(CHECKPOINT_REF_PREFIX)
        .map_err(|e| corrupt("the ref store", e))?;
    let mut out = Vec::new();
    for r in iter {
        let r = r.map_err(|e| corrupt("a checkpoint ref", e))?;
        let name = r.name().as_bstr().to_string();
        let Some(id) = parse_ref(&name) else { continue };
        let Some(tip) = r.target().try_id().map(ToOwned::to_owned) else {
            return Err(corrupt(
                format!("ref {name:?}"),
                "is symbolic, not a commit",
            ));
        };
        out.push((id, tip));
    }
    Ok(out)
}
