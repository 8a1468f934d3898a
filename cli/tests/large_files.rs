//! `--max-file-bytes` (issue 37.3): `capture` skips larger files unread,
//! says so on stderr and in the snapshot's `skipped`; `rollback` reports
//! them as not covered and leaves them; `shadow step` leaves out larger
//! untracked files and lists them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::path::Path;
use std::process::{Command, Output};

fn bin(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

#[test]
fn capture_skips_a_file_over_max_file_bytes_and_rollback_leaves_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("big.bin"), "123456").unwrap();
    std::fs::write(root.join("at.txt"), "12345").unwrap();
    let snap = tmp.path().join("snap.json");
    let (root_s, snap_s) = (root.to_str().unwrap(), snap.to_str().unwrap());
    let out = bin(
        &[
            "capture",
            "--root",
            root_s,
            "--max-file-bytes",
            "5",
            "big.bin",
            "at.txt",
            "-o",
            snap_s,
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("skipped big.bin (6 bytes, over --max-file-bytes)"),
        "{}",
        text(&out.stderr)
    );
    let snapshot: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&snap).unwrap()).unwrap();
    assert_eq!(snapshot["skipped"], serde_json::json!({"big.bin": 6}));
    assert!(snapshot["entries"].get("at.txt").is_some());

    std::fs::write(root.join("big.bin"), "changed by the batch").unwrap();
    std::fs::write(root.join("at.txt"), "edit").unwrap();
    let out = bin(
        &["rollback", "--root", root_s, snap_s, "--no-durable"],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("NOT COVERED big.bin [too_large]: 6 bytes"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("big.bin")).unwrap(),
        "changed by the batch"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("at.txt")).unwrap(),
        "12345"
    );
    let out = bin(
        &[
            "rollback",
            "--root",
            root_s,
            snap_s,
            "--no-durable",
            "--json",
        ],
        tmp.path(),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["not_covered"],
        serde_json::json!([{"path": "big.bin", "size": 6, "code": "too_large"}])
    );
}

#[test]
fn shadow_step_takes_max_file_bytes() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    std::fs::write(dir.path().join("data.bin"), vec![b'd'; 100]).unwrap();
    let args = [
        "shadow",
        "step",
        "--session",
        "s1",
        "--file",
        "data.bin",
        "--max-file-bytes",
        "99",
    ];
    let out = bin(&args, dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("too large data.bin (100 bytes, over --max-file-bytes)"),
        "{stdout}"
    );
    std::fs::write(dir.path().join("data.bin"), vec![b'e'; 100]).unwrap();
    let mut at_limit = args;
    at_limit[7] = "100";
    let out = bin(&at_limit, dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("recorded "), "{stdout}");
    assert!(!stdout.contains("too large"), "{stdout}");
}
