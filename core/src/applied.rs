//! `record_applied`: remember the state each captured path is in right after
//! the batch, so that rollback can tell a human's later edits from the batch's.

use crate::error::{Error, Result};
use crate::observe::{observe, Now, Want};
use crate::options::RecordOptions;
use crate::root::Root;
use crate::seal;
use crate::snapshot::{Snapshot, SnapshotJson};

/// Returns `snapshot` with the current (post-batch) state of each captured
/// path in `applied`. A sealed snapshot needs its key: it is verified, and
/// the result sealed again with it. Files are hashed as they are read, so
/// a file of any size is recorded without being held in memory.
pub fn record_applied<R: Root + ?Sized>(
    root: &R,
    snapshot: &Snapshot,
    options: &RecordOptions,
) -> Result<SnapshotJson> {
    match (&options.key, snapshot.mac.is_some()) {
        (Some(key), _) => seal::verify(snapshot, key)?,
        (None, true) => {
            return Err(Error::Unauthenticated {
                reason: "the snapshot is sealed: pass its key to record the applied state".into(),
            })
        }
        (None, false) => {}
    }
    let mut recorded = snapshot.clone();
    let want = Want {
        digest: true,
        ..Want::default()
    };
    for path in snapshot.entries.keys().chain(snapshot.links.keys()) {
        let now = observe(root, path, want)?;
        let state = match (now.state(), &now) {
            (Some(state), _) => state,
            (None, Now::Symlink { .. }) => {
                return Err(Error::escapes(
                    path.as_str(),
                    "a symlink whose target the host will not reveal (an absolute target): its state cannot be recorded",
                ))
            }
            (None, Now::File { readable: false, .. }) => {
                return Err(Error::io(
                    path.as_str(),
                    std::io::Error::new(
                        std::io::ErrorKind::PermissionDenied,
                        "a file this process may not read: its state cannot be recorded",
                    ),
                ))
            }
            (None, _) => return Err(Error::io(path.as_str(), std::io::Error::other("no digest"))),
        };
        recorded.applied.insert(path.clone(), state);
    }
    recorded.mac = None;
    Ok(SnapshotJson(match &options.key {
        Some(key) => seal::seal_text(recorded.canonical_unsealed(), key)?,
        None => recorded.to_json().into_string(),
    }))
}
