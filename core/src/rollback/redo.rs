//! The `redo` snapshot: the captured paths as they are just before rollback.

use std::collections::BTreeMap;

use super::apply::holds_captured_content;
use crate::capture::created_dirs;
use crate::digest::{sha256, Observed, PathState};
use crate::relpath::RelPath;
use crate::root::Root;
use crate::seal::seal_text;
use crate::snapshot::validate::check_link_target;
use crate::snapshot::Snapshot;

/// Builds the redo snapshot from what was observed. Paths that a snapshot
/// cannot hold (a directory, a special file, a link the format refuses) are
/// left out; `None` if the result would not be a valid snapshot.
pub(super) fn build<R: Root + ?Sized>(
    root: &R,
    observed: &BTreeMap<RelPath, Observed>,
    key: Option<&[u8]>,
) -> Option<String> {
    let mut redo = Snapshot::default();
    for (path, now) in observed {
        match (&now.state, &now.file) {
            (PathState::Absent, _) => {
                redo.entries.insert(path.clone(), None);
            }
            (PathState::File(_), Some((bytes, mode))) => {
                redo.digests.insert(path.clone(), sha256(bytes));
                redo.modes.insert(path.clone(), *mode);
                redo.entries.insert(path.clone(), Some(bytes.clone()));
            }
            (PathState::Symlink(target), _) if check_link_target(path, target, true).is_ok() => {
                redo.links.insert(path.clone(), target.clone());
            }
            _ => {}
        }
    }
    // A directory at a captured path (a type flip) is "no file here": a `null`
    // entry, kept as a directory when it holds captured files.
    for (path, now) in observed {
        if now.state == PathState::Dir && holds_captured_content(&redo, path) {
            redo.entries.insert(path.clone(), None);
        }
    }
    let missing = redo
        .entries
        .iter()
        .filter(|(_, c)| c.is_none())
        .map(|(p, _)| p);
    redo.created_dirs = created_dirs(root, missing).ok()?;
    // A directory the batch removed may hold captured files again after a
    // type flip; the format cannot express both, so such a dir is not pruned.
    let occupied: Vec<RelPath> = redo
        .entries
        .iter()
        .filter(|(_, c)| c.is_some())
        .map(|(p, _)| p.clone())
        .chain(redo.links.keys().cloned())
        .collect();
    redo.created_dirs
        .retain(|d| !occupied.iter().any(|p| d.is_ancestor_of(p)));
    redo.validate(true).ok()?;
    match key {
        Some(key) => seal_text(redo.canonical_unsealed(), key).ok(),
        None => Some(redo.to_json()),
    }
}
