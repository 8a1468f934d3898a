//! `store rollback` / `store plan` without `--root` refuse a snapshot
//! captured under a subdirectory of the working tree (`root_mismatch`,
//! exit 2, nothing touched); with `--root` it rolls back there.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

fn bin(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("binary runs")
}

fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_subdirectory_snapshot_needs_its_root_named() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(top)
        .env("HOME", top)
        .output()
        .unwrap();
    assert!(init.status.success());
    fs::create_dir(top.join("sub")).unwrap();
    fs::write(top.join("a.txt"), "top\n").unwrap();
    fs::write(top.join("sub/a.txt"), "sub\n").unwrap();
    ok(&bin(
        &["capture", "--root", "sub", "a.txt", "-o", "snap.json"],
        top,
    ));
    fs::write(top.join("sub/a.txt"), "edited\n").unwrap();
    ok(&bin(
        &[
            "store",
            "write",
            "--id",
            ID,
            "--session",
            "s",
            "--snapshot",
            "snap.json",
        ],
        top,
    ));

    for command in ["rollback", "plan"] {
        let out = bin(&["store", command, ID], top);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command}: {stderr}");
        assert!(
            stderr.starts_with("error[root_mismatch]"),
            "{command}: {stderr}"
        );
    }
    assert_eq!(fs::read_to_string(top.join("a.txt")).unwrap(), "top\n");
    assert_eq!(
        fs::read_to_string(top.join("sub/a.txt")).unwrap(),
        "edited\n"
    );

    ok(&bin(
        &["store", "rollback", ID, "--root", "sub", "--no-durable"],
        top,
    ));
    assert_eq!(fs::read_to_string(top.join("sub/a.txt")).unwrap(), "sub\n");
    assert_eq!(fs::read_to_string(top.join("a.txt")).unwrap(), "top\n");
}
