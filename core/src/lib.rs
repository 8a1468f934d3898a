//! agent-checkpoint: targeted path snapshot and rollback for atomic batch edits.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod error;
pub mod id;
pub mod prompts;
pub mod queue;
pub mod refs;

pub use error::{Error, ErrorCode, Result};
