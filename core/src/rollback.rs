//! Rollback: restore exactly the captured paths, atomically per file.
//!
//! Rollback is [`crate::plan_rollback`] carried out: the same checks refuse
//! the whole snapshot (nothing touched, an `Err`), the same decision says
//! what happens to each path, and the report carries that plan. Before
//! anything is written, the state of every captured path is recorded as the
//! `redo` snapshot (when asked). Then, in an order that handles type flips:
//! remove what the batch created, prune directories deepest first (only
//! empty ones, never the root), write files and links (a directory in the
//! way goes right before the rename that replaces it), creating missing
//! parents. Every path is attempted even after a failure; each failure is
//! reported with its code and reason. Directories touched are fsync-ed
//! once each at the end (when `durable`).

mod execute;
mod outcome;
mod redo;
mod redo_text;
mod write;

pub use outcome::{rollback_text, RollbackOutcome};
pub use redo_text::Redo;

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{ErrorCode, Result};
use crate::options::RollbackOptions;
use crate::plan::decide::{decide, Observe};
use crate::plan::Plan;
use crate::root::Root;
use crate::snapshot::Snapshot;

/// One path rollback could not restore, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Unrestored {
    /// The canonical path.
    pub path: String,
    /// The error's stable code.
    pub code: ErrorCode,
    /// What went wrong.
    pub reason: String,
}

/// One captured path the `redo` snapshot cannot carry, and why (a
/// directory holding uncaptured files, a special file, an absolute
/// symlink, a file over the size limit, a path the guard found changed at
/// the last moment and left as it is).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NotInRedo {
    /// The canonical path.
    pub path: String,
    /// Why, as a code.
    pub code: ErrorCode,
    /// Why, in words.
    pub reason: String,
}

/// One path a snapshot does not cover: the capture was asked for it but
/// left it out (a file over `max_file_bytes`, never read), so a rollback
/// can neither restore nor remove it, and leaves it as it is. Listed by
/// [`crate::Captured::skipped`] and [`RollbackReport::not_covered`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NotCovered {
    /// The canonical path.
    pub path: String,
    /// Its size in bytes when the capture looked at it.
    pub size: u64,
    /// Why it was left out: `too_large`.
    pub code: ErrorCode,
}

/// What a rollback did.
#[derive(Debug, Default)]
#[non_exhaustive]
#[must_use = "a rollback may leave paths unrestored: look at `ok()` and `unrestored`"]
pub struct RollbackReport {
    /// Captured paths now as captured, sorted.
    pub restored: Vec<String>,
    /// Captured paths that could not be restored, sorted, each with a code
    /// and a reason.
    pub unrestored: Vec<Unrestored>,
    /// Paths left as they were because they changed after the batch
    /// (`on_conflict = skip`), sorted. Neither restored nor unrestored.
    pub conflicts: Vec<String>,
    /// The plan this rollback carried out (what `plan_rollback` says).
    pub plan: Plan,
    /// The captured paths as they were just before this rollback: rolling
    /// it back brings the batch's result back. `None` when not asked for.
    /// Its text is made when first read ([`Redo::as_str`]).
    pub redo: Option<Redo>,
    /// Captured paths the redo leaves out, and why.
    pub not_in_redo: Vec<NotInRedo>,
    /// Paths the capture left out (see [`crate::Snapshot::skipped`]),
    /// sorted: neither restored nor removed, left as they are. They do not
    /// count against [`RollbackReport::ok`], which is about captured paths.
    pub not_covered: Vec<NotCovered>,
}

impl RollbackReport {
    /// Every captured path restored (conflicts left alone do not count
    /// against it: they were left on purpose).
    pub fn ok(&self) -> bool {
        self.unrestored.is_empty()
    }

    /// Unrestored paths and their reasons, as a map.
    pub fn failures(&self) -> BTreeMap<String, String> {
        self.unrestored
            .iter()
            .map(|u| (u.path.clone(), u.reason.clone()))
            .collect()
    }

    /// The root the snapshot was taken under, when it is not the one the
    /// rollback ran under.
    pub fn other_root(&self) -> Option<&str> {
        self.plan.other_root.as_deref()
    }
}

/// One JSON shape for the report: `ok`, then every field.
#[cfg(feature = "serde")]
impl serde::Serialize for RollbackReport {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let mut s = serializer.serialize_struct("RollbackReport", 8)?;
        s.serialize_field("ok", &self.ok())?;
        s.serialize_field("restored", &self.restored)?;
        s.serialize_field("unrestored", &self.unrestored)?;
        s.serialize_field("conflicts", &self.conflicts)?;
        s.serialize_field("plan", &self.plan)?;
        s.serialize_field("redo", &self.redo)?;
        s.serialize_field("not_in_redo", &self.not_in_redo)?;
        s.serialize_field("not_covered", &self.not_covered)?;
        s.end()
    }
}

/// Restores every captured path of `snapshot` under `root`.
///
/// A snapshot refused as a whole (wrong or missing MAC with a key, bytes
/// that contradict their digests, a link that would leave the root, another
/// root with `strict_root`) is an `Err`, and nothing is touched. Otherwise
/// every path is attempted and the report says what came back.
pub fn rollback<R: Root + ?Sized>(
    root: &R,
    snapshot: &Snapshot,
    options: &RollbackOptions,
) -> Result<RollbackReport> {
    let observe = Observe {
        bytes_up_to: options.redo.then_some(options.max_file_bytes),
    };
    let mut decided = decide(root, snapshot, &options.plan_options(), observe)?;
    let (redo, mut not_in_redo) = if options.redo {
        redo::build(root, snapshot, &mut decided, options.key.as_ref())
    } else {
        (None, Vec::new())
    };
    let plan = decided.plan();
    let outcome = execute::execute(
        root,
        snapshot,
        decided,
        options.durable,
        options.progress.as_ref(),
    );
    let redo = redo
        .map(|redo| leave_out_late_conflicts(redo, &plan, &outcome.conflicts, &mut not_in_redo));
    Ok(RollbackReport {
        restored: outcome.restored,
        unrestored: outcome.unrestored,
        conflicts: outcome.conflicts,
        plan,
        redo,
        not_in_redo,
        not_covered: not_covered(snapshot),
    })
}

/// The paths `snapshot` says its capture left out, as a report lists them.
pub(crate) fn not_covered(snapshot: &Snapshot) -> Vec<NotCovered> {
    snapshot
        .skipped()
        .map(|(path, size)| NotCovered {
            path: path.to_string(),
            size,
            code: ErrorCode::TooLarge,
        })
        .collect()
}

/// Takes out of the redo every path the guard found changed at the last
/// moment (a conflict the plan did not foresee): it was left as the user
/// made it, so the bytes the redo read before are not what is there, and
/// rolling the redo back would overwrite the user's change. Each is listed
/// in `not_in_redo` with code `conflict`.
fn leave_out_late_conflicts(
    mut redo: Redo,
    plan: &Plan,
    conflicts: &[String],
    not_in_redo: &mut Vec<NotInRedo>,
) -> Redo {
    let foreseen: BTreeSet<&str> = plan
        .items
        .iter()
        .filter(|item| item.action == crate::plan::PlanAction::Conflict)
        .map(|item| item.path.as_str())
        .collect();
    let listed: BTreeSet<String> = not_in_redo.iter().map(|n| n.path.clone()).collect();
    let late: BTreeSet<&str> = conflicts
        .iter()
        .map(String::as_str)
        .filter(|path| !foreseen.contains(path) && !listed.contains(*path))
        .collect();
    for path in &late {
        not_in_redo.push(NotInRedo {
            path: (*path).to_owned(),
            code: ErrorCode::Conflict,
            reason: "it changed at the last moment and was left as it is; the redo would overwrite that change".into(),
        });
    }
    not_in_redo.sort_by(|a, b| a.path.cmp(&b.path));
    redo.leave_out(&late);
    redo
}
