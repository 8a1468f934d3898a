//! Preview: what a rollback would do to each path, touching nothing.

use crate::digest::{observe, PathState};
use crate::error::Result;
use crate::guard::{captured_state, is_conflict, OnConflict};
use crate::relpath::RelPath;
use crate::rollback::RollbackOptions;
use crate::root::{EntryKind, Root};
use crate::seal;
use crate::snapshot::{ParseOptions, Snapshot};

/// What rollback would do to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanAction {
    /// Already as captured: nothing to do.
    Keep,
    /// Write the captured file or link.
    Write,
    /// Remove what the batch created.
    Remove,
    /// Remove a directory the batch created (only if it is empty by then).
    Rmdir,
    /// Changed after the batch: left alone (`on_conflict = skip`).
    Conflict,
}

impl PlanAction {
    /// `keep`, `write`, `remove`, `rmdir` or `conflict`.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanAction::Keep => "keep",
            PlanAction::Write => "write",
            PlanAction::Remove => "remove",
            PlanAction::Rmdir => "rmdir",
            PlanAction::Conflict => "conflict",
        }
    }
}

/// One line of a rollback plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanItem {
    /// The captured path or created directory.
    pub path: String,
    /// What rollback would do.
    pub action: PlanAction,
    /// Whether the path changed after the batch (needs `record_applied`);
    /// with `on_conflict = overwrite` it is still written or removed.
    pub conflict: bool,
}

/// Parses and checks `json` exactly as [`crate::rollback`] would (format,
/// MAC), then says what it would do to every captured path and created
/// directory, sorted by path. Reads the tree; writes nothing.
pub fn plan_rollback<R: Root + ?Sized>(
    root: &R,
    json: &str,
    options: &RollbackOptions,
) -> Result<Vec<PlanItem>> {
    let snapshot = Snapshot::parse(json, &ParseOptions::allowing_git_dir(options.allow_git_dir))?;
    if let Some(key) = &options.key {
        seal::verify(&snapshot, key)?;
    }
    let mut items = Vec::new();
    for path in snapshot.entries.keys().chain(snapshot.links.keys()) {
        items.push(plan_path(root, &snapshot, path, options.on_conflict)?);
    }
    for dir in &snapshot.created_dirs {
        let exists = root
            .metadata(dir)?
            .is_some_and(|m| m.kind == EntryKind::Dir);
        if exists && !snapshot.entries.contains_key(dir) {
            items.push(PlanItem {
                path: dir.to_string(),
                action: PlanAction::Rmdir,
                conflict: false,
            });
        }
    }
    items.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(items)
}

fn plan_path<R: Root + ?Sized>(
    root: &R,
    snapshot: &Snapshot,
    path: &RelPath,
    on_conflict: OnConflict,
) -> Result<PlanItem> {
    let now = observe(root, path)?;
    let conflict = is_conflict(snapshot, path, &now.state);
    let wanted = captured_state(snapshot, path);
    let mode_ok = match (&now.file, snapshot.modes.get(path)) {
        (Some((_, mode)), Some(want)) => mode == want,
        _ => true,
    };
    let action = if conflict && on_conflict == OnConflict::Skip {
        PlanAction::Conflict
    } else if (now.state == wanted && mode_ok)
        || (wanted == PathState::Absent && kept_dir(snapshot, path, &now.state))
    {
        PlanAction::Keep
    } else if wanted == PathState::Absent {
        PlanAction::Remove
    } else {
        PlanAction::Write
    };
    Ok(PlanItem {
        path: path.to_string(),
        action,
        conflict,
    })
}

/// A directory at a `null` entry that holds captured files stays (type flip).
fn kept_dir(snapshot: &Snapshot, path: &RelPath, now: &PathState) -> bool {
    *now == PathState::Dir && crate::rollback::holds_captured_content(snapshot, path)
}
