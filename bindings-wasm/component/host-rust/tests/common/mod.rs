//! The core's vector-runner pieces (`core/tests/common/mod.rs`: loading
//! cases, trees, comparisons), used as they are rather than copied.
//!
//! That file finds `tests/vectors` as `../tests/vectors` from
//! `env!("CARGO_MANIFEST_DIR")`, which is right for a crate one level below
//! the repository; this one is three levels below. So `env!` is shadowed
//! for it (a `macro_rules!` in scope takes precedence over the built-in)
//! and names the core's manifest directory: `core/`, whose `../tests/vectors`
//! are the shared vectors.

macro_rules! env {
    ("CARGO_MANIFEST_DIR") => {
        concat!(std::env!("CARGO_MANIFEST_DIR"), "/../../../core")
    };
}

#[path = "../../../../../core/tests/common/mod.rs"]
mod core_common;

pub use core_common::*;
