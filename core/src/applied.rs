//! `record_applied`: remember the state each captured path is in right after
//! the batch, so that rollback can tell a human's later edits from the batch's.

use crate::digest::observe;
use crate::error::{Error, Result};
use crate::root::Root;
use crate::seal;
use crate::snapshot::{ParseOptions, Snapshot};

/// Returns `json` with the current (post-batch) state of each captured path
/// in `applied`. A sealed snapshot needs its `key`: it is verified, and the
/// result sealed again with it.
pub fn record_applied<R: Root + ?Sized>(
    root: &R,
    json: &str,
    allow_git_dir: bool,
    key: Option<&[u8]>,
) -> Result<String> {
    let mut snapshot = Snapshot::parse(json, &ParseOptions::allowing_git_dir(allow_git_dir))?;
    match (key, snapshot.mac.is_some()) {
        (Some(key), _) => seal::verify(&snapshot, key)?,
        (None, true) => {
            return Err(Error::Unauthenticated {
                reason: "the snapshot is sealed: pass its key to record the applied state".into(),
            })
        }
        (None, false) => {}
    }
    let paths: Vec<_> = snapshot
        .entries
        .keys()
        .chain(snapshot.links.keys())
        .cloned()
        .collect();
    for path in paths {
        let state = observe(root, &path)?.state;
        snapshot.applied.insert(path, state);
    }
    match key {
        Some(key) => seal::seal_text(snapshot.canonical_unsealed(), key),
        None => Ok(snapshot.to_json()),
    }
}
