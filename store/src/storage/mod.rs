//! **\[ours\]** Bounded storage: what the checkpoints take on disk
//! ([`crate::Store::du`]) and getting it back ([`crate::Store::gc`]), with
//! the undo-snapshot retention captures apply on the fly and the shadow-branch
//! cleaning a shadow step applies when it starts a new branch.
//!
//! Bytes are counted as git counts them: the objects reachable from the
//! store's refs (persistent checkpoints, undo snapshots, shadow branches)
//! and from no other ref (the user's branches, tags, stash, `HEAD`, remote
//! refs), each at its size on disk (`%(objectsize:disk)`: packed or loose),
//! the sum `git rev-list --objects --disk-usage` gives for the same refs;
//! plus the undo snapshots' own files (`entire-snapshots/`), which are
//! outside git's object database.

mod du;
mod fields;
mod gc;
mod objects;
mod retention;
mod shadow_retention;
mod snapshot_refs;

pub use du::{DuEntry, DuReport, EntryKind, SessionUsage, Usage, DEFAULT_DU_TOP};
pub use gc::{GcOptions, GcReport, RemovedCheckpoint, RemovedSnapshot};
pub(crate) use retention::apply_on_write;
pub use retention::{
    parse_age, Retention, DEFAULT_SNAPSHOT_MAX_AGE, DEFAULT_SNAPSHOT_RETENTION, MAX_AGE_CONFIG,
    RETENTION_CONFIG,
};
pub(crate) use shadow_retention::clean_on_new_branch;
pub use shadow_retention::SHADOW_AUTO_CLEAN_CONFIG;
