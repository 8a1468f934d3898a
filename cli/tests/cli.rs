//! The `agent-checkpoint` binary, driven as a user would.
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
        .output()
        .expect("binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn capture_then_rollback_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proj");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.txt"), "original").unwrap();
    let snap = tmp.path().join("snap.json");
    let root_s = root.to_str().unwrap();
    let out = bin(
        &[
            "capture",
            "--root",
            root_s,
            "a.txt",
            "new/b.txt",
            "-o",
            snap.to_str().unwrap(),
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));

    std::fs::write(root.join("a.txt"), "changed").unwrap();
    std::fs::create_dir(root.join("new")).unwrap();
    std::fs::write(root.join("new/b.txt"), "b").unwrap();

    let out = bin(&["paths", snap.to_str().unwrap()], tmp.path());
    assert_eq!(text(&out.stdout), "a.txt\nnew/b.txt\n");

    let out = bin(
        &[
            "rollback",
            "--root",
            root_s,
            snap.to_str().unwrap(),
            "--no-durable",
        ],
        tmp.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("2 restored, 0 unrestored, 0 conflicts: ok"));
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "original"
    );
    assert!(!root.join("new").exists());
}

#[test]
fn capture_to_stdout_then_rollback_from_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("f"), "1").unwrap();
    let out = bin(&["capture", "--root", ".", "f"], tmp.path());
    assert!(out.status.success());
    assert!(text(&out.stdout).starts_with("{\"version\":1,"));
    std::fs::write(tmp.path().join("f"), "2").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(["rollback", "--root", ".", "-"])
        .current_dir(tmp.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&out.stdout).unwrap();
    let done = child.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(tmp.path().join("f")).unwrap(), "1");
}

#[test]
fn bad_input_is_one_line_with_its_code_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, code) in [
        (
            vec!["capture", "--root", ".", "../outside"],
            "path_escapes_root",
        ),
        (
            vec!["capture", "--root", ".", "/etc/passwd"],
            "path_escapes_root",
        ),
        (
            vec!["capture", "--root", "./missing-root", "a"],
            "not_found",
        ),
        (
            vec!["capture", "--root", ".", ".git/config"],
            "invalid_path",
        ),
        (vec!["paths", "missing.json"], "not_found"),
    ] {
        let out = bin(&args, tmp.path());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with(&format!("error[{code}]: ")),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn malformed_snapshot_is_reported_and_touches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("keep"), "k").unwrap();
    std::fs::write(
        tmp.path().join("bad.json"),
        r#"{"version":1,"entries":{"keep":null},"created_dirs":["."]}"#,
    )
    .unwrap();
    let out = bin(&["rollback", "--root", ".", "bad.json"], tmp.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("invalid snapshot [malformed_snapshot]"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("keep")).unwrap(),
        "k"
    );
    let out = bin(&["paths", "bad.json"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn demo_passes() {
    let tmp = tempfile::tempdir().unwrap();
    let out = bin(&["demo"], tmp.path());
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("is identical to the tree before the batch; report ok = true")
    );
}

#[test]
fn plan_record_applied_guard_redo_and_inspect() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("a"), "orig a").unwrap();
    std::fs::write(d.join("b"), "orig b").unwrap();
    std::fs::write(d.join("key"), b"\x00secret\xff").unwrap();
    let out = bin(
        &[
            "capture",
            "--root",
            ".",
            "a",
            "b",
            "n",
            "--key-file",
            "key",
            "-o",
            "s.json",
        ],
        d,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));

    // The batch, then its record, then a human edit.
    std::fs::write(d.join("a"), "agent a").unwrap();
    std::fs::write(d.join("b"), "agent b").unwrap();
    std::fs::write(d.join("n"), "agent n").unwrap();
    let out = bin(
        &["record-applied", "--root", ".", "s.json", "-o", "s.json"],
        d,
    );
    assert_eq!(
        out.status.code(),
        Some(2),
        "a sealed snapshot needs its key"
    );
    assert!(text(&out.stderr).starts_with("error[unauthenticated]"));
    let out = bin(
        &[
            "record-applied",
            "--root",
            ".",
            "s.json",
            "--key-file",
            "key",
            "-o",
            "s.json",
        ],
        d,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(d.join("a"), "human a").unwrap();

    let out = bin(
        &[
            "plan",
            "--root",
            ".",
            "s.json",
            "--key-file",
            "key",
            "--on-conflict",
            "skip",
        ],
        d,
    );
    assert_eq!(
        text(&out.stdout),
        "conflict  a  (changed after the batch)\nwrite     b\nremove    n\n"
    );
    let out = bin(&["inspect", "s.json"], d);
    let listing = text(&out.stdout);
    assert!(
        listing.contains("file  a  6 bytes  mode 644  sha256 "),
        "{listing}"
    );
    assert!(listing.contains("new   n"), "{listing}");

    let out = bin(
        &[
            "rollback",
            "--root",
            ".",
            "s.json",
            "--key-file",
            "wrong-key",
        ],
        d,
    );
    assert_eq!(out.status.code(), Some(2), "missing key file is an error");
    std::fs::write(d.join("wrong"), "nope").unwrap();
    let out = bin(
        &["rollback", "--root", ".", "s.json", "--key-file", "wrong"],
        d,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("invalid snapshot [unauthenticated]"));
    assert_eq!(
        std::fs::read_to_string(d.join("b")).unwrap(),
        "agent b",
        "nothing touched"
    );

    let args = [
        "rollback",
        "--root",
        ".",
        "s.json",
        "--key-file",
        "key",
        "--on-conflict",
        "skip",
        "--redo-out",
        "redo.json",
    ];
    let out = bin(&args, d);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("CONFLICT    a"));
    assert_eq!(std::fs::read_to_string(d.join("a")).unwrap(), "human a");
    assert_eq!(std::fs::read_to_string(d.join("b")).unwrap(), "orig b");
    assert!(!d.join("n").exists());

    // Rolling back the redo brings the batch's result (and the human edit) back.
    let out = bin(
        &["rollback", "--root", ".", "redo.json", "--key-file", "key"],
        d,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(std::fs::read_to_string(d.join("b")).unwrap(), "agent b");
    assert_eq!(std::fs::read_to_string(d.join("n")).unwrap(), "agent n");
    assert_eq!(std::fs::read_to_string(d.join("a")).unwrap(), "human a");
}
