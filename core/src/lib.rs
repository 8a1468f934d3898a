//! agent-checkpoint: targeted path snapshot and rollback for atomic batch edits,
//! plus the naming layer agents use to file checkpoints in git.
//!
//! Before a batch of edits, [`capture`] records exactly the paths the batch
//! will touch into one self-contained JSON snapshot; [`rollback`] later
//! restores exactly those paths, atomically per file, and reports what came
//! back and what could not. All filesystem access goes through a [`Root`].
//!
//! ```
//! use agent_checkpoint::{capture, rollback, CaptureOptions, MemRoot, RelPath, RollbackOptions};
//! use agent_checkpoint::root::{MemNode, Root};
//!
//! let root = MemRoot::new();
//! let a = RelPath::try_from("src/a.py")?;
//! root.insert(&a, MemNode::File { bytes: b"old".to_vec(), mode: 0o644 });
//!
//! let snapshot = capture(&root, ["src/a.py", "./gen/new.py"], &CaptureOptions::default())?;
//!
//! // The batch: modify a.py, create gen/new.py.
//! root.write_file(&a, b"new", 0o644, false)?;
//! root.insert(&RelPath::try_from("gen/new.py")?, MemNode::File { bytes: b"x".to_vec(), mode: 0o644 });
//!
//! let report = rollback(&root, &snapshot, &RollbackOptions::default());
//! assert!(report.ok());
//! assert_eq!(root.get("src/a.py"), Some(MemNode::File { bytes: b"old".to_vec(), mode: 0o644 }));
//! assert_eq!(root.get("gen"), None); // the batch created it, rollback pruned it
//! # Ok::<(), agent_checkpoint::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod applied;
pub mod capture;
pub mod codec;
pub mod digest;
pub mod error;
pub mod guard;
pub mod id;
mod parallel;
pub mod plan;
pub mod prompts;
pub mod queue;
pub mod refs;
pub mod relpath;
pub mod resolve;
pub mod rollback;
pub mod root;
pub mod seal;
pub mod snapshot;

pub use applied::record_applied;
pub use capture::{capture, CaptureOptions};
pub use error::{Error, ErrorCode, Result};
pub use guard::OnConflict;
pub use plan::{plan_rollback, PlanAction, PlanItem};
pub use relpath::RelPath;
pub use rollback::{rollback, rollback_snapshot, RollbackOptions, RollbackReport, Unrestored};
#[cfg(all(feature = "cap-std", unix))]
pub use root::CapRoot;
pub use root::{MemRoot, Root};
pub use snapshot::{
    inspect_snapshot, snapshot_paths, CapturedKind, CapturedPath, ParseOptions, Snapshot,
};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
