//! The naming layer agents use to file checkpoints in git, interoperable
//! with the Entire CLI's Go package: checkpoint IDs (12-hex legacy and
//! ULID), sharding and tree layout ([`id`]), per-checkpoint ref names and
//! shadow-branch names ([`refs`]), prompt files ([`prompts`]) and the
//! lock-protected push queue ([`queue`]).
//!
//! Every function takes any `&str` and never panics; errors are the core's
//! [`agent_checkpoint::Error`], with the codes `invalid_checkpoint_id` and
//! `invalid_ref_name`.
//!
//! ```
//! use agent_checkpoint_naming::{id, refs};
//!
//! let id = id::validate_checkpoint_id("a1b2c3d4e5f6")?;
//! assert_eq!(id.kind(), id::IdKind::Legacy);
//! assert_eq!(refs::ref_name(id.as_str())?, "refs/entire/checkpoints/f6/a1b2c3d4e5f6");
//! assert_eq!(refs::parse_ref("refs/entire/checkpoints/f6/a1b2c3d4e5f6").as_deref(), Some("a1b2c3d4e5f6"));
//! # Ok::<(), agent_checkpoint::Error>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod id;
pub mod lock_wait;
pub mod prompts;
pub mod queue;
pub mod refs;
pub mod sharing;

pub use id::{CheckpointId, IdKind};
pub use queue::{Drained, PushQueue};
