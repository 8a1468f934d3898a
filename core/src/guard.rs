//! The human-edit guard: has a path changed since the batch was applied?

use crate::digest::{sha256, PathState};
use crate::relpath::RelPath;
use crate::snapshot::Snapshot;

/// What to do with a path a human edited after the batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum OnConflict {
    /// Restore it anyway (the seed's behaviour).
    #[default]
    Overwrite,
    /// Leave it as it is and report it in `conflicts`.
    Skip,
}

impl OnConflict {
    /// `overwrite` or `skip`.
    pub fn as_str(self) -> &'static str {
        match self {
            OnConflict::Overwrite => "overwrite",
            OnConflict::Skip => "skip",
        }
    }

    /// Parses `overwrite` or `skip`.
    pub fn from_name(name: &str) -> Option<OnConflict> {
        match name {
            "overwrite" => Some(OnConflict::Overwrite),
            "skip" => Some(OnConflict::Skip),
            _ => None,
        }
    }
}

/// The state the snapshot restores `path` to.
pub(crate) fn captured_state(snapshot: &Snapshot, path: &RelPath) -> PathState {
    if let Some(target) = snapshot.links.get(path) {
        return PathState::Symlink(target.clone());
    }
    match snapshot.entries.get(path) {
        Some(Some(bytes)) => PathState::File(
            snapshot
                .digests
                .get(path)
                .copied()
                .unwrap_or_else(|| sha256(bytes)),
        ),
        _ => PathState::Absent,
    }
}

/// Whether `path`, now in state `current`, was changed after the batch:
/// it differs from the recorded post-batch state and is not already as
/// captured. Without a recorded state there is nothing to compare with.
pub(crate) fn is_conflict(snapshot: &Snapshot, path: &RelPath, current: &PathState) -> bool {
    match snapshot.applied.get(path) {
        Some(applied) => current != applied && *current != captured_state(snapshot, path),
        None => false,
    }
}
