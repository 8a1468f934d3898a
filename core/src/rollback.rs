//! Rollback: restore exactly the captured paths, atomically per file.
//!
//! First everything is checked: the snapshot's format, its MAC when a key
//! is given. Then, when asked, the current state of every captured path is
//! recorded as the `redo` snapshot and paths a human changed after the
//! batch are set aside (`on_conflict = skip`). Then the phases, in an order
//! that handles type flips: remove paths that did not exist before, prune
//! the listed created dirs deepest first (only when empty, never the root),
//! restore files (digest checked before writing, file read back after) and
//! links, creating missing parents. Every path is attempted even after a
//! failure; each failure is reported with its reason. Directories touched are
//! fsync-ed once each at the end (when `durable`).

mod apply;
mod redo;

pub(crate) use apply::holds_captured_content;

use std::collections::{BTreeMap, BTreeSet};

use crate::digest::observe;
use crate::error::{Error, ErrorCode};
use crate::guard::{is_conflict, OnConflict};
use crate::root::Root;
use crate::seal;
use crate::snapshot::{ParseOptions, Snapshot};

/// Options of [`rollback`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RollbackOptions {
    /// fsync each restored file and each touched directory (default `true`).
    pub durable: bool,
    /// Accept snapshot keys with a `.git` component (refused by default).
    pub allow_git_dir: bool,
    /// What to do with paths changed after the batch (needs `record_applied`).
    pub on_conflict: OnConflict,
    /// Refuse the snapshot unless it is sealed with this key.
    pub key: Option<Vec<u8>>,
    /// Return the `redo` snapshot (default `true`); `false` saves reading
    /// every captured path before rewriting it.
    pub redo: bool,
}

impl Default for RollbackOptions {
    fn default() -> RollbackOptions {
        RollbackOptions {
            durable: true,
            allow_git_dir: false,
            on_conflict: OnConflict::Overwrite,
            key: None,
            redo: true,
        }
    }
}

/// One path rollback could not restore, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrestored {
    /// The canonical path.
    pub path: String,
    /// What went wrong.
    pub reason: String,
}

/// What a rollback did.
#[derive(Debug, Default)]
pub struct RollbackReport {
    /// Paths now as captured, sorted.
    pub restored: Vec<String>,
    /// Paths that could not be restored, sorted, each with a reason.
    pub unrestored: Vec<Unrestored>,
    /// Paths left as they were because they changed after the batch
    /// (`on_conflict = skip`), sorted. Neither restored nor unrestored.
    pub conflicts: Vec<String>,
    /// The captured paths as they were just before this rollback: rolling
    /// it back brings the batch's result back. `None` when not asked for.
    pub redo: Option<String>,
    /// Why the snapshot was refused; `None` when it was valid.
    pub error: Option<Error>,
}

impl RollbackReport {
    /// Whether the snapshot was well-formed (and so was applied).
    pub fn valid(&self) -> bool {
        self.error.is_none()
    }

    /// Valid, and every path restored (conflicts left alone do not count
    /// against it: they were left on purpose).
    pub fn ok(&self) -> bool {
        self.valid() && self.unrestored.is_empty()
    }

    /// The code of the refusal, if the snapshot was refused.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(Error::code)
    }

    /// Unrestored paths and their reasons, as a map.
    pub fn failures(&self) -> BTreeMap<String, String> {
        self.unrestored
            .iter()
            .map(|u| (u.path.clone(), u.reason.clone()))
            .collect()
    }

    fn refused(error: Error) -> RollbackReport {
        RollbackReport {
            error: Some(error),
            ..RollbackReport::default()
        }
    }
}

/// Parses `json` (refusing it whole, with nothing touched, if malformed) and
/// restores every captured path under `root`.
pub fn rollback<R: Root + ?Sized>(
    root: &R,
    json: &str,
    options: &RollbackOptions,
) -> RollbackReport {
    match Snapshot::parse(json, &ParseOptions::allowing_git_dir(options.allow_git_dir)) {
        Ok(snapshot) => rollback_snapshot(root, &snapshot, options),
        Err(e) => RollbackReport::refused(e),
    }
}

/// Restores every path of an already parsed snapshot (validated again here).
pub fn rollback_snapshot<R: Root + ?Sized>(
    root: &R,
    snapshot: &Snapshot,
    options: &RollbackOptions,
) -> RollbackReport {
    if let Err(e) = snapshot.validate(options.allow_git_dir) {
        return RollbackReport::refused(e);
    }
    if let Some(key) = &options.key {
        if let Err(e) = seal::verify(snapshot, key) {
            return RollbackReport::refused(e);
        }
    }
    let guard = options.on_conflict == OnConflict::Skip && !snapshot.applied.is_empty();
    let mut observed = BTreeMap::new();
    if options.redo || guard {
        for path in snapshot.entries.keys().chain(snapshot.links.keys()) {
            // A path that cannot be looked at is left to the phases, which
            // report why it cannot be restored.
            if let Ok(now) = observe(root, path) {
                observed.insert(path.clone(), now);
            }
        }
    }
    let skip: BTreeSet<_> = if guard {
        observed
            .iter()
            .filter(|(path, now)| is_conflict(snapshot, path, &now.state))
            .map(|(path, _)| path.clone())
            .collect()
    } else {
        BTreeSet::new()
    };
    let redo = if options.redo {
        redo::build(root, &observed, options.key.as_deref())
    } else {
        None
    };
    let mut run = apply::Run {
        root,
        durable: options.durable,
        skip,
        failures: BTreeMap::new(),
        unremoved: BTreeMap::new(),
        unpruned: BTreeMap::new(),
        dirty_dirs: BTreeMap::new(),
    };
    run.remove_stray_temps(snapshot);
    run.remove_new_paths(snapshot);
    run.prune_created_dirs(snapshot);
    run.restore_files(snapshot);
    run.restore_links(snapshot);
    run.recheck_new_paths(snapshot);
    run.sync_dirs();
    let conflicts: Vec<String> = run.skip.iter().map(|p| p.to_string()).collect();
    let failures = run.failures;
    let restored = snapshot
        .paths()
        .into_iter()
        .filter(|p| !failures.contains_key(p) && !conflicts.contains(p))
        .collect();
    let unrestored = failures
        .into_iter()
        .map(|(path, reason)| Unrestored { path, reason })
        .collect();
    RollbackReport {
        restored,
        unrestored,
        conflicts,
        redo,
        error: None,
    }
}
