//! Checkpoints kept in git, readable by the Entire CLI (STORE.md §1-3, §6).
//!
//! A checkpoint is a directory tree: the root `metadata.json` (a
//! [`CheckpointSummary`] recomputed from every session on each write), one
//! slot per session (`0/`, `1/`, ... with `metadata.json`, the transcript
//! `full.jsonl` (+ `full.jsonl.001`, ... over 50 MiB), `content_hash.txt`,
//! `prompt.txt`) and `tasks/<toolUseID>/checkpoint.json` for subagent tasks.
//! It is stored either under its own ref `refs/entire/checkpoints/<shard>/<id>`
//! ([`Backend::GitRefs`], the default) or on the branch
//! `entire/checkpoints/v1` at `<id[:2]>/<id[2:]>/` ([`Backend::GitBranch`]).
//! Every ref update is a compare-and-swap under a per-ref lock file, so
//! concurrent writers lose nothing. Documents are written with the exact
//! bytes Go's JSON encoder gives them and read as leniently as Go reads them.
//!
//! **\[ours\]** A write may carry the core's capture snapshot of the batch: it
//! is kept byte for byte under the local-only ref
//! `refs/entire/snapshots/<shard>/<id>`, never in the checkpoint tree, and
//! [`Store::rollback`] restores the working tree from it after a restart.
//!
//! Prompts, transcripts and summaries pass through one [`Redact`] step
//! before they become blobs: [`Store::open`] uses the default redactor of
//! `agent-checkpoint-redact` (STORE.md §7); [`Store::open_with`] takes any
//! [`Redact`] (or [`NoRedaction`]).
//!
//! ```
//! use agent_checkpoint_store::{SessionWrite, Store};
//! # let dir = tempfile::tempdir()?;
//! # std::process::Command::new("git").args(["init", "-q"]).arg(dir.path()).status()?;
//! # let repo = dir.path();
//! let store = Store::open(repo)?;
//! let id = "01KVBJCWYA4YW6J5M9GP655HZN";
//! let written = store.write_session(
//!     &SessionWrite::new(id, "session-1")
//!         .agent("Claude Code")
//!         .prompt("add a test")
//!         .transcript(b"{\"type\":\"user\",\"text\":\"add a test\"}\n".to_vec())
//!         .files_touched(["src/lib.rs"]),
//! )?;
//! assert_eq!(written.ref_name, "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN");
//!
//! let summary = store.read(id)?;
//! assert_eq!(summary.files_touched, Some(vec!["src/lib.rs".to_owned()]));
//! let session = store.read_session(id, 0)?;
//! assert_eq!(session.prompts, ["add a test"]);
//! assert_eq!(store.list()?[0].session_ids, ["session-1"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod backend;
mod backfill;
mod branch_backend;
mod checkpoint;
pub mod documents;
mod fields;
mod git_names;
mod git_version;
pub mod layout;
mod locks;
pub mod message;
mod migrate;
mod migrate_history;
mod mirror;
mod nofollow;
mod objects;
mod read;
pub mod redaction;
mod ref_store;
pub mod ref_update;
mod refs_backend;
mod relocate;
mod remote;
mod session;
mod session_write;
pub mod shadow;
mod sharing;
mod signing;
pub mod snapshots;
pub mod storage;
mod store;
mod timestamp;
mod trust;
mod undo;
mod work_tree_undo;

pub use agent_checkpoint_naming::sharing::Sharing;
pub use backend::Backend;
pub use branch_backend::BRANCH_REF;
pub use documents::{
    Attribution, CheckpointSummary, CodeLearning, Document, LearningsSummary, Metadata, RawJson,
    SessionFilePaths, SessionMetrics, Summary, TaskCheckpoint, TokenUsage,
};
pub use migrate::{
    MigrateOptions, MigrateProgress, MigrateReport, MigratedCheckpoint, SkippedCheckpoint,
};
pub use mirror::{MirrorOutcome, MirrorWrite};
pub use objects::FileMode;
pub use read::{CheckpointInfo, Damage, SessionContent};
pub use redaction::{NoRedaction, Redact};
pub use remote::{
    check_remote, FetchOptions, FetchOutcome, FetchReport, FetchedRef, LocalCopy, MissingBlob,
    OutgoingCheckpoint, PushPlan, PushProgress, PushReport, RefFailure, RemoteCheckpoint,
    FETCH_TMP_PREFIX, MAX_PUSH_ROUNDS, MAX_SPLIT_PUSHES, PROMISOR_PREFIX,
};
pub use session::{validate_segment_id, Author, SessionWrite, TaskInfo, DEFAULT_STRATEGY};
pub use shadow::{
    CleanedBranch, Condensed, ShadowBranchInfo, ShadowLogQuery, ShadowStep, ShadowStepInfo,
    SkippedFile, StepResult, DEFAULT_MAX_UNTRACKED_BYTES,
};
pub use signing::{stderr_log, LogSink, SIGN_TIMEOUT};
pub use snapshots::{snapshot_ref, SNAPSHOT_REF_PREFIX};
pub use storage::{
    DuEntry, DuReport, EntryKind, GcOptions, GcReport, RemovedCheckpoint, RemovedSnapshot,
    Retention, SessionUsage, Usage,
};
pub use store::{SessionWritten, Store, StoreOptions, DEFAULT_LOCK_WAIT, MAX_WAIT_FACTOR};
pub use timestamp::Timestamp;

/// The README's Rust example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
