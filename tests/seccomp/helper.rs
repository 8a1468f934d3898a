//! Builds `deny_openat2` (tests/seccomp/deny_openat2.c: a seccomp filter
//! answering every `openat2` with one errno, then an exec) for the tests
//! that run the core and the CLI as a container profile would let them.
//! Shared by core/tests/seccomp_openat2.rs and cli/tests/seccomp.rs
//! (`#[path]`).
//!
//! Without `cc`, libseccomp or seccomp itself the tests say so and skip,
//! unless `AGENT_CHECKPOINT_REQUIRE_SECCOMP=1` (set by scripts/core, which
//! installs libseccomp-dev first): then a skip is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The answers a filter gives: a profile's `EPERM`, a sandbox's `ENOSYS`,
/// and `EAGAIN` (the kernel's "a rename raced", forever). Not `E2BIG`:
/// cap-std 4's own lookups take only those three as "no openat2", so under
/// an `E2BIG` filter its calls fail (the core's own handles it).
pub const ERRNOS: [&str; 3] = ["EPERM", "ENOSYS", "EAGAIN"];

/// The helper built in `dir`, or `None` (with the reason printed) when
/// this machine cannot build or run it.
pub fn deny_openat2(dir: &Path) -> Option<PathBuf> {
    match build(dir) {
        Ok(helper) => Some(helper),
        Err(why) => {
            let required =
                std::env::var_os("AGENT_CHECKPOINT_REQUIRE_SECCOMP").is_some_and(|v| v == "1");
            assert!(!required, "seccomp helper required but unavailable: {why}");
            eprintln!("SKIPPED: the seccomp (openat2 refused) tests did not run: {why}");
            None
        }
    }
}

fn build(dir: &Path) -> Result<PathBuf, String> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/seccomp/deny_openat2.c");
    let helper = dir.join("deny_openat2");
    let built = Command::new("cc")
        .arg(&source)
        .arg("-o")
        .arg(&helper)
        .arg("-lseccomp")
        .output()
        .map_err(|e| format!("no C compiler `cc`: {e}"))?;
    if !built.status.success() {
        return Err(format!(
            "`cc ... -lseccomp` failed (is libseccomp-dev installed?): {}",
            String::from_utf8_lossy(&built.stderr).trim()
        ));
    }
    let probe = Command::new(&helper)
        .args(["EPERM", "true"])
        .output()
        .map_err(|e| format!("cannot run the helper: {e}"))?;
    if !probe.status.success() {
        return Err(format!(
            "this system refuses seccomp filters: {}",
            String::from_utf8_lossy(&probe.stderr).trim()
        ));
    }
    Ok(helper)
}
