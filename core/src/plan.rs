//! Preview: what a rollback would do to each path, touching nothing.
//!
//! [`plan_rollback`] and [`crate::rollback`] are one decision: rollback
//! computes exactly this plan and then carries it out, so what the plan
//! says is what rollback does, path by path (it reports the plan it
//! carried out in `RollbackReport::plan`).

pub(crate) mod decide;
mod removable;

use crate::diff::PathDiff;
use crate::error::{ErrorCode, Result};
use crate::options::PlanOptions;
use crate::root::Root;
use crate::snapshot::Snapshot;

/// What rollback does to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum PlanAction {
    /// Already as captured (or a directory that stays): nothing to do.
    Keep,
    /// Write the captured file or link.
    Write,
    /// Remove what the batch created (a file, a link, or an empty directory).
    Remove,
    /// Remove a directory the batch created (it is empty by then).
    Rmdir,
    /// Changed after the batch: left alone (`on_conflict = skip`).
    Conflict,
    /// Cannot be restored without destroying something the snapshot does
    /// not cover (a directory holding other files, a parent that is a
    /// symlink): left alone and reported, with a code and a reason.
    Refuse,
}

impl PlanAction {
    /// `keep`, `write`, `remove`, `rmdir`, `conflict` or `refuse`.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanAction::Keep => "keep",
            PlanAction::Write => "write",
            PlanAction::Remove => "remove",
            PlanAction::Rmdir => "rmdir",
            PlanAction::Conflict => "conflict",
            PlanAction::Refuse => "refuse",
        }
    }
}

/// One line of a rollback plan.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PlanItem {
    /// The captured path, created directory, or empty directory in the way.
    pub path: String,
    /// What rollback does.
    pub action: PlanAction,
    /// Whether the path changed after the batch (needs `record_applied`);
    /// with `on_conflict = overwrite` it is still written or removed.
    pub conflict: bool,
    /// For `refuse`: the error code rollback reports for the path.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub code: Option<ErrorCode>,
    /// Why, when the action needs a word: what a kept directory holds, why
    /// a path is refused, that set-id bits are not restored.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub reason: Option<String>,
    /// What the change would be, when the plan was asked for diffs
    /// ([`crate::PlanOptions::diff`]) and the action changes the path.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub diff: Option<PathDiff>,
}

/// What a rollback of a snapshot under a root would do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Plan {
    /// One item per captured path, created directory and directory in the
    /// way, sorted by path.
    pub items: Vec<PlanItem>,
    /// The root the snapshot was taken under, when it records one and it
    /// differs from the root given (the rollback still goes on unless
    /// `strict_root`).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub other_root: Option<String>,
}

impl Plan {
    /// The items whose action is `action`.
    pub fn with_action(&self, action: PlanAction) -> impl Iterator<Item = &PlanItem> {
        self.items.iter().filter(move |i| i.action == action)
    }
}

/// Checks `snapshot` exactly as [`crate::rollback`] would (MAC, digests,
/// links, root), then says what it would do to every captured path and
/// created directory. Reads the tree; writes nothing. A refused snapshot is
/// an `Err` here as it is there.
pub fn plan_rollback<R: Root + ?Sized>(
    root: &R,
    snapshot: &Snapshot,
    options: &PlanOptions,
) -> Result<Plan> {
    let decided = decide::decide(root, snapshot, options, decide::Observe::plan())?;
    let mut plan = decided.plan();
    if let Some(diff) = &options.diff {
        let deadline = crate::diff::plan_deadline();
        for (item, decision) in plan.items.iter_mut().zip(&decided.decisions) {
            item.diff = crate::diff::describe(root, decision, diff, deadline)?;
        }
    }
    Ok(plan)
}
