//! The history of each checkpoint on the v1 branch: walking the branch's
//! first parents oldest first, every commit that changed a checkpoint's
//! directory is one version of it (the tree it left there, and the commit
//! whose message and author the git-refs copy keeps).

use std::collections::BTreeMap;

use gix::ObjectId;

use crate::objects::read_tree;
use crate::remote::history;
use agent_checkpoint::Result;
use agent_checkpoint_naming::id::{validate_checkpoint_id, IdKind};

/// One version of a checkpoint on the branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Version {
    /// The branch commit that left it.
    pub commit: ObjectId,
    /// The checkpoint's tree in that commit.
    pub tree: ObjectId,
}

/// A directory's entries, by name, as the walk last saw them.
type Entries = BTreeMap<Vec<u8>, ObjectId>;

/// The versions, oldest first, of every legacy-ID checkpoint the branch
/// commit `tip` or its first-parent ancestors hold (only of `only` when
/// given). A checkpoint's last version is its tree at `tip`, unless it was
/// removed from the branch since.
///
/// # Errors
/// `corrupt_object` when a commit or tree on the way cannot be read.
pub(crate) fn versions(
    repo: &gix::Repository,
    tip: ObjectId,
    only: Option<&str>,
) -> Result<BTreeMap<String, Vec<Version>>> {
    let what = "the entire/checkpoints/v1 branch";
    let mut commits = Vec::new();
    let mut next = Some(tip);
    while let Some(id) = next {
        let info = history::commit(repo, &id)?;
        next = info.parents.first().copied();
        commits.push((id, info.tree));
    }
    let (only_shard, only_rest) = match only {
        Some(id) => {
            let (shard, rest) = id.split_at(2.min(id.len()));
            (Some(shard.as_bytes()), Some(rest.as_bytes()))
        }
        None => (None, None),
    };
    let mut out: BTreeMap<String, Vec<Version>> = BTreeMap::new();
    let mut shards: BTreeMap<Vec<u8>, (Option<ObjectId>, Entries)> = BTreeMap::new();
    let mut last_root = None;
    for (commit, root) in commits.into_iter().rev() {
        if last_root == Some(root) {
            continue;
        }
        last_root = Some(root);
        for shard in read_tree(repo, &root, what)? {
            let name: Vec<u8> = shard.filename.to_vec();
            if !shard.mode.is_tree() || name.len() != 2 || only_shard.is_some_and(|s| s != name) {
                continue;
            }
            let seen = shards.entry(name.clone()).or_default();
            if seen.0 == Some(shard.oid) {
                continue;
            }
            seen.0 = Some(shard.oid);
            for cp in read_tree(repo, &shard.oid, what)? {
                let rest: Vec<u8> = cp.filename.to_vec();
                if !cp.mode.is_tree() || only_rest.is_some_and(|r| r != rest) {
                    continue;
                }
                if seen.1.get(&rest) == Some(&cp.oid) {
                    continue;
                }
                seen.1.insert(rest.clone(), cp.oid);
                let id = format!(
                    "{}{}",
                    String::from_utf8_lossy(&name),
                    String::from_utf8_lossy(&rest)
                );
                if validate_checkpoint_id(&id).is_ok_and(|id| id.kind() == IdKind::Legacy) {
                    out.entry(id).or_default().push(Version {
                        commit,
                        tree: cp.oid,
                    });
                }
            }
        }
    }
    Ok(out)
}
