//! The `git` runner the CLI's unit tests share: no system or user
//! configuration leaks in, and a failure fails the test with git's stderr.

use std::path::Path;
use std::process::Command;

/// Runs `git <args>` in `dir` with `home` as its private home (created
/// when missing) and returns what it printed; panics when git fails.
pub(crate) fn git_with_home(dir: &Path, home: &Path, args: &[&str]) -> String {
    std::fs::create_dir_all(home).unwrap();
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("HOME", home)
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
