//! The git-branch backend: the branch `refs/heads/entire/checkpoints/v1`,
//! seeded (when missing) by a parentless commit of the empty tree with the
//! message `Initialize sessions branch`; each checkpoint at
//! `<id[:2]>/<id[2:]>/` (`checkpoint_path`). A write rebuilds only the two
//! trees on that path and reuses every sibling's hash, then commits on the tip.

use gix::ObjectId;

use crate::message::INIT_BRANCH_MESSAGE;
use crate::objects::{self, commit_tree, find, read_tree, tree_entry, upsert};
use agent_checkpoint::Result;
use agent_checkpoint_naming::id::{checkpoint_path, validate_checkpoint_id, CheckpointId, IdKind};

/// The branch's full ref name.
pub const BRANCH_REF: &str = "refs/heads/entire/checkpoints/v1";

/// The checkpoint's directory on the branch (`a1/b2c3d4e5f6`).
pub(crate) fn checkpoint_dir(id: &CheckpointId) -> String {
    checkpoint_path(id.as_str())
}

fn split(id: &CheckpointId) -> (&str, &str) {
    // Legacy IDs are 12 ASCII characters; ULIDs never reach the branch.
    id.as_str().split_at(2.min(id.as_str().len()))
}

/// The checkpoint's tree in the branch commit `tip`, if present.
pub(crate) fn checkpoint_tree(
    repo: &gix::Repository,
    tip: ObjectId,
    id: &CheckpointId,
) -> Result<Option<ObjectId>> {
    let what = "the entire/checkpoints/v1 branch";
    let root = read_tree(repo, &commit_tree(repo, &tip, what)?, what)?;
    let (shard, rest) = split(id);
    let Some(shard) = find(&root, shard).filter(|e| e.mode.is_tree()) else {
        return Ok(None);
    };
    let shard = read_tree(repo, &shard.oid, what)?;
    Ok(find(&shard, rest)
        .filter(|e| e.mode.is_tree())
        .map(|e| e.oid))
}

/// The new root tree with `checkpoint` spliced in at the checkpoint's path,
/// and the parent of the commit: the tip, or a new seed commit when the
/// branch does not exist yet.
pub(crate) fn splice(
    repo: &gix::Repository,
    tip: Option<ObjectId>,
    id: &CheckpointId,
    checkpoint: ObjectId,
    who: &gix::actor::Signature,
) -> Result<(ObjectId, Option<ObjectId>)> {
    let what = "the entire/checkpoints/v1 branch";
    let (parent, mut root) = match tip {
        Some(tip) => (tip, read_tree(repo, &commit_tree(repo, &tip, what)?, what)?),
        None => {
            let empty = objects::write_tree(repo, Vec::new())?;
            let seed = objects::write_commit(repo, empty, None, INIT_BRANCH_MESSAGE, who)?;
            (seed, Vec::new())
        }
    };
    let (shard_name, rest) = split(id);
    let mut shard = match find(&root, shard_name).filter(|e| e.mode.is_tree()) {
        Some(entry) => read_tree(repo, &entry.oid, what)?,
        None => Vec::new(),
    };
    upsert(&mut shard, tree_entry(rest, checkpoint));
    let shard = objects::write_tree(repo, shard)?;
    upsert(&mut root, tree_entry(shard_name, shard));
    Ok((objects::write_tree(repo, root)?, Some(parent)))
}

/// Every legacy-ID checkpoint on the branch, walking `<id[:2]>/<id[2:]>/`
/// and skipping entries that are not directories or not IDs.
pub(crate) fn walk(repo: &gix::Repository, tip: ObjectId) -> Result<Vec<(String, ObjectId)>> {
    let what = "the entire/checkpoints/v1 branch";
    let root = read_tree(repo, &commit_tree(repo, &tip, what)?, what)?;
    let mut out = Vec::new();
    for shard in root
        .iter()
        .filter(|e| e.mode.is_tree() && e.filename.len() == 2)
    {
        for cp in read_tree(repo, &shard.oid, what)?
            .iter()
            .filter(|e| e.mode.is_tree())
        {
            let id = format!("{}{}", shard.filename, cp.filename);
            if validate_checkpoint_id(&id).is_ok_and(|id| id.kind() == IdKind::Legacy) {
                out.push((id, cp.oid));
            }
        }
    }
    Ok(out)
}
