//! The server driven over its framing, in process (the same `serve` that
//! `agent-checkpoint mcp` runs on stdin / stdout). The Python and Node
//! suites under `mcp/tests/` drive the real binary with the official SDKs.
#![allow(clippy::unwrap_used, missing_docs)]

mod applied;
mod attack;
mod capture_peak;
mod client;
mod confinement;
mod diffs;
mod git_store;
mod golden;
mod large_files;
mod measure;
mod memory;
mod protocol;
mod shadow;
mod transcript;
