//! **\[ours\]** Undo snapshots: the core's capture snapshot of a batch, kept
//! byte for byte as `snapshot.json` in a commit under the local-only ref
//! `refs/entire/snapshots/<shard>/<id>`.
//!
//! The snapshot holds the files as they were before the batch (possibly
//! secrets), so it never enters a checkpoint tree and its ref is outside
//! every refspec the store pushes or fetches. A later write with a snapshot
//! chains a new commit on the old one. The session metadata that came with
//! it names its SHA-256 (`snapshot_sha256`).

use gix::ObjectId;
use sha2::{Digest, Sha256};

use crate::objects::{self, blob_entry, corrupt, FileMode};
use agent_checkpoint::Result;
use agent_checkpoint_naming::id::{shard_for, CheckpointId};

/// Namespace of the undo-snapshot refs.
pub const SNAPSHOT_REF_PREFIX: &str = "refs/entire/snapshots/";

/// The file holding the snapshot in a snapshot commit's tree.
pub const SNAPSHOT_FILE: &str = "snapshot.json";

/// The snapshot ref of a checkpoint: `refs/entire/snapshots/<shard>/<id>`.
pub fn snapshot_ref(id: &CheckpointId) -> String {
    format!(
        "{SNAPSHOT_REF_PREFIX}{}/{}",
        shard_for(id.as_str()),
        id.as_str()
    )
}

/// Lowercase hex SHA-256 of the snapshot text.
pub fn snapshot_sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Writes the tree `{snapshot.json}` for `text` (once per write).
pub(crate) fn write_tree(repo: &gix::Repository, text: &str) -> Result<ObjectId> {
    let blob = objects::write_blob(repo, text.as_bytes())?;
    objects::write_tree(
        repo,
        vec![blob_entry(SNAPSHOT_FILE, FileMode::Regular, blob)],
    )
}

/// The snapshot text stored under `ref_name`, if the ref exists.
///
/// # Errors
/// [`agent_checkpoint::Error::CorruptObject`] when the ref's commit, tree
/// or blob cannot be read or the blob is not UTF-8.
pub(crate) fn read(repo: &gix::Repository, ref_name: &str) -> Result<Option<String>> {
    let Some(tip) = crate::ref_update::read_tip(repo, ref_name)? else {
        return Ok(None);
    };
    let what = format!("undo snapshot {ref_name:?}");
    let tree = objects::commit_tree(repo, &tip, &what)?;
    let entries = objects::read_tree(repo, &tree, &what)?;
    let entry = objects::find(&entries, SNAPSHOT_FILE)
        .ok_or_else(|| corrupt(&what, "its tree has no snapshot.json"))?;
    let bytes = objects::read_blob(repo, &entry.oid, &what)?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| corrupt(&what, "snapshot.json is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let id = agent_checkpoint_naming::id::validate_checkpoint_id("a1b2c3d4e5f6").unwrap();
        assert_eq!(snapshot_ref(&id), "refs/entire/snapshots/f6/a1b2c3d4e5f6");
        assert_eq!(snapshot_sha256("").len(), 64);
    }
}
