//! The undo-snapshot refs as retention sees them: which session wrote
//! each tip, when, and which snapshot file it names.

use gix::ObjectId;

use crate::message::{trailer, SESSION_TRAILER, SNAPSHOT_WRITTEN_TRAILER};
use crate::objects::{self, corrupt, read_object};
use crate::ref_store::{self, Value};
use crate::snapshots::{SNAPSHOT_POINTER, SNAPSHOT_REF_PREFIX};
use agent_checkpoint::Result;

/// One ref under `refs/entire/snapshots/`.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotRef {
    /// The full ref name.
    pub ref_name: String,
    /// The checkpoint it belongs to (the ref's last component).
    pub checkpoint_id: String,
    /// The `Entire-Session` trailer of its tip (empty when none).
    pub session_id: String,
    /// Its tip.
    pub tip: ObjectId,
    /// When the tip was written (Unix seconds): its
    /// `Snapshot-Written-Ns` trailer, else its committer time.
    pub seconds: i64,
    /// Retention's order, newest greatest: the `Snapshot-Written-Ns`
    /// trailer (the store's own clock, to the nanosecond), else the
    /// committer time in nanoseconds (a tip some other writer made).
    pub written_ns: i128,
    /// The SHA-256 of the snapshot file the tip names (`None`: a snapshot
    /// kept in the object database, written before the files).
    pub file_sha: Option<String>,
}

/// Every snapshot ref (symbolic ones skipped), sorted by name.
///
/// # Errors
/// `corrupt_object` for a tip that cannot be read.
pub(crate) fn list(repo: &gix::Repository) -> Result<Vec<SnapshotRef>> {
    let mut out = Vec::new();
    for (name, value) in ref_store::list(repo, SNAPSHOT_REF_PREFIX)? {
        let Value::Object(tip) = value else { continue };
        out.push(read(repo, name, tip)?);
    }
    Ok(out)
}

fn read(repo: &gix::Repository, ref_name: String, tip: ObjectId) -> Result<SnapshotRef> {
    let what = format!("undo snapshot {ref_name:?}");
    let mut buf = Vec::new();
    read_object(repo, &tip, gix::objs::Kind::Commit, &what, &mut buf)?;
    let commit = gix::objs::CommitRef::from_bytes(&buf, repo.object_hash())
        .map_err(|e| corrupt(&what, e))?;
    let seconds = commit
        .committer()
        .map_err(|e| corrupt(&what, e))?
        .time()
        .map_err(|e| corrupt(&what, e))?
        .seconds;
    let message = String::from_utf8_lossy(commit.message);
    let written_ns = trailer(&message, SNAPSHOT_WRITTEN_TRAILER)
        .and_then(|ns| ns.parse::<u64>().ok())
        .map_or(i128::from(seconds) * 1_000_000_000, i128::from);
    let seconds = i64::try_from(written_ns.div_euclid(1_000_000_000)).unwrap_or(seconds);
    let session_id = trailer(&message, SESSION_TRAILER)
        .unwrap_or_default()
        .to_owned();
    let tree = commit.tree();
    let entries = objects::read_tree(repo, &tree, &what)?;
    let file_sha = match objects::find(&entries, SNAPSHOT_POINTER) {
        Some(pointer) => {
            let named = objects::read_blob(repo, &pointer.oid, &what)?;
            let sha = String::from_utf8_lossy(&named).trim().to_owned();
            let valid = sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit());
            valid.then_some(sha)
        }
        None => None,
    };
    let checkpoint_id = ref_name.rsplit('/').next().unwrap_or_default().to_owned();
    Ok(SnapshotRef {
        ref_name,
        checkpoint_id,
        session_id,
        tip,
        seconds,
        written_ns,
        file_sha,
    })
}
