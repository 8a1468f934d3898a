//! The options of every operation, each a struct with `with_*` setters, so
//! an option added later breaks no caller.

use crate::diff::DiffOptions;
use crate::guard::OnConflict;
use crate::progress::OnProgress;
use crate::seal::SealKey;

/// The largest file read into memory by default: 100 MiB. Capture skips
/// (and reports) a larger file instead of reading it, and a rollback leaves
/// a larger current file out of its redo; raise the limit explicitly for
/// such files (a snapshot holds files as base64 text, in memory).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 100 << 20;

/// Options of [`crate::capture`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CaptureOptions {
    /// Accept paths with a `.git` component (refused by default).
    pub allow_git_dir: bool,
    /// Skip any file larger than this many bytes, unread: it is listed in
    /// the snapshot's `skipped` member with its size, and a rollback
    /// reports it as not covered. Default [`DEFAULT_MAX_FILE_BYTES`]; a
    /// file of exactly this size is captured.
    pub max_file_bytes: u64,
    /// Seal the snapshot with an HMAC-SHA256 under this key (`mac`).
    pub key: Option<SealKey>,
    /// Record the root's canonical path in the snapshot (`root`), so a
    /// rollback under another directory can tell (default `true`).
    pub record_root: bool,
    /// Called once per file read (see [`crate::Progress`]); `None` by default.
    pub progress: Option<OnProgress>,
}

impl Default for CaptureOptions {
    fn default() -> CaptureOptions {
        CaptureOptions {
            allow_git_dir: false,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            key: None,
            record_root: true,
            progress: None,
        }
    }
}

impl CaptureOptions {
    /// Sets [`CaptureOptions::allow_git_dir`].
    pub fn with_allow_git_dir(mut self, allow: bool) -> CaptureOptions {
        self.allow_git_dir = allow;
        self
    }

    /// Sets [`CaptureOptions::max_file_bytes`].
    pub fn with_max_file_bytes(mut self, bytes: u64) -> CaptureOptions {
        self.max_file_bytes = bytes;
        self
    }

    /// Sets [`CaptureOptions::progress`].
    pub fn with_progress(mut self, progress: Option<OnProgress>) -> CaptureOptions {
        self.progress = progress;
        self
    }

    /// Sets [`CaptureOptions::key`].
    pub fn with_key(mut self, key: Option<SealKey>) -> CaptureOptions {
        self.key = key;
        self
    }

    /// Sets [`CaptureOptions::record_root`].
    pub fn with_record_root(mut self, record: bool) -> CaptureOptions {
        self.record_root = record;
        self
    }
}

/// Options of [`crate::plan_rollback`]: everything that changes what a
/// rollback decides. [`RollbackOptions::plan_options`] gives the plan of a
/// rollback with given options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PlanOptions {
    /// What to do with paths changed after the batch (needs `record_applied`).
    pub on_conflict: OnConflict,
    /// Refuse the snapshot unless it is sealed with this key.
    pub key: Option<SealKey>,
    /// Restore set-user-id and set-group-id bits (off by default: a
    /// rollback never creates a set-id file unless asked).
    pub restore_setid: bool,
    /// Refuse (`root_mismatch`) a snapshot taken under another root,
    /// instead of only saying so in the report.
    pub strict_root: bool,
    /// Describe each change ([`crate::PlanItem::diff`]): a unified diff
    /// where one can be shown, one line otherwise. Off by default (it
    /// reads every file the rollback would rewrite).
    pub diff: Option<DiffOptions>,
    /// Called once per path looked at (see [`crate::Progress`]); `None` by default.
    pub progress: Option<OnProgress>,
}

impl PlanOptions {
    /// Sets [`PlanOptions::diff`].
    pub fn with_diff(mut self, diff: Option<DiffOptions>) -> PlanOptions {
        self.diff = diff;
        self
    }

    /// Sets [`PlanOptions::on_conflict`].
    pub fn with_on_conflict(mut self, on_conflict: OnConflict) -> PlanOptions {
        self.on_conflict = on_conflict;
        self
    }

    /// Sets [`PlanOptions::progress`].
    pub fn with_progress(mut self, progress: Option<OnProgress>) -> PlanOptions {
        self.progress = progress;
        self
    }

    /// Sets [`PlanOptions::key`].
    pub fn with_key(mut self, key: Option<SealKey>) -> PlanOptions {
        self.key = key;
        self
    }

    /// Sets [`PlanOptions::restore_setid`].
    pub fn with_restore_setid(mut self, restore: bool) -> PlanOptions {
        self.restore_setid = restore;
        self
    }

    /// Sets [`PlanOptions::strict_root`].
    pub fn with_strict_root(mut self, strict: bool) -> PlanOptions {
        self.strict_root = strict;
        self
    }
}

/// Options of [`crate::rollback`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RollbackOptions {
    /// fsync each restored file and each touched directory (default `true`).
    pub durable: bool,
    /// What to do with paths changed after the batch (needs `record_applied`).
    pub on_conflict: OnConflict,
    /// Refuse the snapshot unless it is sealed with this key.
    pub key: Option<SealKey>,
    /// Return the `redo` snapshot (default `true`); `false` saves reading
    /// every captured path before rewriting it.
    pub redo: bool,
    /// Restore set-user-id and set-group-id bits (default `false`).
    pub restore_setid: bool,
    /// Refuse a snapshot taken under another root (default `false`: say so
    /// in the report and go on).
    pub strict_root: bool,
    /// The largest current file read into memory for the redo; a larger
    /// one is left out of it and listed in `not_in_redo`.
    pub max_file_bytes: u64,
    /// Called once per path looked at, then once per path written or
    /// removed (see [`crate::Progress`]); `None` by default. If it panics
    /// while paths are being written or removed, it is not called again,
    /// every remaining change is made, and then the panic goes on.
    pub progress: Option<OnProgress>,
}

impl Default for RollbackOptions {
    fn default() -> RollbackOptions {
        RollbackOptions {
            durable: true,
            on_conflict: OnConflict::Overwrite,
            key: None,
            redo: true,
            restore_setid: false,
            strict_root: false,
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            progress: None,
        }
    }
}

impl RollbackOptions {
    /// Sets [`RollbackOptions::durable`].
    pub fn with_durable(mut self, durable: bool) -> RollbackOptions {
        self.durable = durable;
        self
    }

    /// Sets [`RollbackOptions::on_conflict`].
    pub fn with_on_conflict(mut self, on_conflict: OnConflict) -> RollbackOptions {
        self.on_conflict = on_conflict;
        self
    }

    /// Sets [`RollbackOptions::progress`].
    pub fn with_progress(mut self, progress: Option<OnProgress>) -> RollbackOptions {
        self.progress = progress;
        self
    }

    /// Sets [`RollbackOptions::key`].
    pub fn with_key(mut self, key: Option<SealKey>) -> RollbackOptions {
        self.key = key;
        self
    }

    /// Sets [`RollbackOptions::redo`].
    pub fn with_redo(mut self, redo: bool) -> RollbackOptions {
        self.redo = redo;
        self
    }

    /// Sets [`RollbackOptions::restore_setid`].
    pub fn with_restore_setid(mut self, restore: bool) -> RollbackOptions {
        self.restore_setid = restore;
        self
    }

    /// Sets [`RollbackOptions::strict_root`].
    pub fn with_strict_root(mut self, strict: bool) -> RollbackOptions {
        self.strict_root = strict;
        self
    }

    /// Sets [`RollbackOptions::max_file_bytes`].
    pub fn with_max_file_bytes(mut self, bytes: u64) -> RollbackOptions {
        self.max_file_bytes = bytes;
        self
    }

    /// The options of the plan this rollback carries out.
    pub fn plan_options(&self) -> PlanOptions {
        PlanOptions {
            on_conflict: self.on_conflict,
            key: self.key.clone(),
            restore_setid: self.restore_setid,
            strict_root: self.strict_root,
            diff: None,
            progress: self.progress.clone(),
        }
    }
}

/// Options of [`crate::record_applied`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RecordOptions {
    /// The key of a sealed snapshot: it is verified, and the result sealed
    /// again with it.
    pub key: Option<SealKey>,
}

impl RecordOptions {
    /// Sets [`RecordOptions::key`].
    pub fn with_key(mut self, key: Option<SealKey>) -> RecordOptions {
        self.key = key;
        self
    }
}
