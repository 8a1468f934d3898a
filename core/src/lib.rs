//! agent-checkpoint: targeted path snapshot and rollback for atomic batch edits.
//!
//! The naming layer agents use to file checkpoints in git (IDs, refs, shadow
//! branches, prompts, the push queue) is the `agent-checkpoint-naming` crate.
//!
//! Before a batch of edits, [`capture`] records exactly the paths the batch
//! will touch into one self-contained JSON snapshot; [`rollback`] later
//! restores exactly those paths, atomically per file, and reports what came
//! back and what could not. All filesystem access goes through a [`Root`].
//!
//! ```
//! use agent_checkpoint::{capture, rollback, CaptureOptions, MemRoot, ParseOptions, RelPath, RollbackOptions};
//! use agent_checkpoint::root::MemNode;
//!
//! let root = MemRoot::new();
//! let a = RelPath::try_from("src/a.py")?;
//! root.insert(&a, MemNode::File { bytes: b"old".to_vec(), mode: 0o644 });
//!
//! let json = capture(&root, ["src/a.py", "./gen/new.py"], &CaptureOptions::default())?;
//!
//! // The batch: modify a.py, create gen/new.py.
//! root.insert(&a, MemNode::File { bytes: b"new".to_vec(), mode: 0o644 });
//! root.insert(&RelPath::try_from("gen/new.py")?, MemNode::File { bytes: b"x".to_vec(), mode: 0o644 });
//!
//! let snapshot = json.parse(&ParseOptions::default())?;
//! let report = rollback(&root, &snapshot, &RollbackOptions::default())?;
//! assert!(report.ok());
//! assert_eq!(root.get("src/a.py"), Some(MemNode::File { bytes: b"old".to_vec(), mode: 0o644 }));
//! assert_eq!(root.get("gen"), None); // the batch created it, rollback pruned it
//! # Ok::<(), agent_checkpoint::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod applied;
mod capture;
mod casefold;
#[doc(hidden)]
pub mod codec;
mod diff;
mod digest;
mod error;
mod fields;
mod guard;
mod observe;
mod options;
mod parallel;
mod plan;
mod progress;
mod relpath;
mod resolve;
mod rollback;
pub mod root;
mod seal;
mod snapshot;

pub use applied::record_applied;
pub use capture::{capture, capture_report, Captured};
pub use diff::{
    DiffLine, DiffLineKind, DiffOptions, Hunk, PathDiff, DEFAULT_DIFF_CONTEXT,
    DEFAULT_DIFF_MAX_BYTES,
};
pub use digest::{PathState, Sha256Digest};
pub use error::{Error, ErrorCategory, ErrorCode, Result};
pub use guard::OnConflict;
pub use options::{
    CaptureOptions, PlanOptions, RecordOptions, RollbackOptions, DEFAULT_MAX_FILE_BYTES,
};
pub use plan::{plan_rollback, Plan, PlanAction, PlanItem};
pub use progress::{OnProgress, Progress, ProgressStage};
pub use relpath::{RelPath, MAX_NAME_BYTES, MAX_PATH_BYTES};
pub use rollback::{
    rollback, rollback_text, NotCovered, NotInRedo, Redo, RollbackOutcome, RollbackReport,
    Unrestored,
};
#[cfg(all(feature = "cap-std", any(unix, windows)))]
#[cfg_attr(docsrs, doc(cfg(feature = "cap-std")))]
pub use root::CapRoot;
pub use root::{MemRoot, Root};
pub use seal::SealKey;
pub use snapshot::{
    inspect_snapshot, snapshot_paths, CapturedKind, CapturedPath, Limits, ParseOptions, Snapshot,
    SnapshotJson, KNOWN_EXTENSIONS, SNAPSHOT_VERSION,
};

/// Internals the fuzz targets and benchmarks drive directly. Not part of
/// the API: they may change in any release.
#[doc(hidden)]
pub mod internals {
    pub use crate::digest::{sha256, to_hex};
    pub use crate::resolve::resolve;
    #[cfg(all(feature = "cap-std", any(unix, windows)))]
    pub use crate::root::cap::resolves_with_openat2;
}

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
