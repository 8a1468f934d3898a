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
    // The same exit code and stream for rollback and plan: an error, 2, stderr.
    for command in ["rollback", "plan"] {
        let out = bin(&[command, "bad.json"], tmp.path());
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(text(&out.stdout).is_empty(), "{command}");
        assert!(
            text(&out.stderr).starts_with("error[malformed_snapshot]: "),
            "{command}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("keep")).unwrap(),
        "k"
    );
    let out = bin(&["paths", "bad.json"], tmp.path());
    assert_eq!(out.status.code(), Some(2));
    // A snapshot file that is not UTF-8 is malformed too, not an I/O error.
    std::fs::write(tmp.path().join("bin.json"), b"{\"version\":1,\xff}").unwrap();
    for command in ["rollback", "plan", "paths", "inspect"] {
        let out = bin(&[command, "bin.json"], tmp.path());
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            text(&out.stderr).starts_with("error[malformed_snapshot]: "),
            "{command}: {}",
            text(&out.stderr)
        );
    }
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
    assert_eq!(text(&out.stdout), "conflict  a\nwrite     b\nremove    n\n");
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
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error[unauthenticated]: "));
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

#[test]
fn root_defaults_to_the_current_directory_and_messages_read_plainly() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("a.txt"), "A").unwrap();
    let out = bin(&["capture", "a.txt", "-o", "s.json"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(d.join("a.txt"), "changed").unwrap();
    let out = bin(&["plan", "s.json"], d);
    assert_eq!(text(&out.stdout), "write     a.txt\n");
    let out = bin(&["rollback", "s.json", "--no-durable"], d);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).ends_with("1 restored, 0 unrestored, 0 conflicts: ok\n"));
    assert_eq!(std::fs::read_to_string(d.join("a.txt")).unwrap(), "A");
    // An empty path is the core's invalid_path, not a parser complaint.
    let out = bin(&["capture", ""], d);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("error[invalid_path]: "),
        "{}",
        text(&out.stderr)
    );
    // Bad base64 reads like the other messages: no Rust debug forms.
    std::fs::write(
        d.join("b64.json"),
        r#"{"version":1,"entries":{"src/app.py":"!!"}}"#,
    )
    .unwrap();
    let out = bin(&["rollback", "b64.json"], d);
    let err = text(&out.stderr);
    assert!(err.contains("\"src/app.py\""), "{err}");
    assert!(!err.contains("RelPath("), "{err}");
    // An empty key file seals nothing: refused.
    std::fs::write(d.join("empty.key"), "").unwrap();
    let out = bin(&["capture", "a.txt", "--key-file", "empty.key"], d);
    assert!(
        text(&out.stderr).starts_with("error[invalid_argument]: "),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_snapshot_from_another_root_warns_or_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    for dir in [&one, &two] {
        std::fs::create_dir(dir).unwrap();
        std::fs::write(dir.join("a.txt"), "A").unwrap();
    }
    let snap = tmp.path().join("s.json");
    let snap = snap.to_str().unwrap();
    let out = bin(&["capture", "a.txt", "-o", snap], &one);
    assert!(out.status.success());
    std::fs::write(two.join("a.txt"), "changed").unwrap();
    let out = bin(&["rollback", snap, "--strict-root"], &two);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("error[root_mismatch]: "),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(two.join("a.txt")).unwrap(),
        "changed"
    );
    let out = bin(&["rollback", snap], &two);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).starts_with("warning: the snapshot was taken under "),
        "{}",
        text(&out.stderr)
    );
    let out = bin(&["--json", "plan", snap], &two);
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        plan["other_root"].as_str().unwrap().ends_with("/one")
            || (cfg!(windows) && plan["other_root"].as_str().unwrap().ends_with("\\one")),
        "{plan}"
    );
}

#[test]
fn json_output_has_one_documented_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("a.txt"), "A").unwrap();
    assert!(bin(&["capture", "a.txt", "new.txt", "-o", "s.json"], d)
        .status
        .success());
    std::fs::write(d.join("a.txt"), "B").unwrap();
    std::fs::write(d.join("new.txt"), "N").unwrap();
    let json = |args: &[&str]| -> serde_json::Value {
        let out = bin(args, d);
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&out.stdout)))
    };
    let plan = json(&["plan", "s.json", "--json"]);
    assert_eq!(plan["items"][0]["action"], "write");
    assert_eq!(plan["items"][1]["action"], "remove");
    let inspect = json(&["inspect", "s.json", "--json"]);
    assert_eq!(inspect[0]["kind"], "file");
    assert_eq!(
        json(&["paths", "s.json", "--json"]),
        serde_json::json!(["a.txt", "new.txt"])
    );
    let report = json(&["rollback", "s.json", "--json"]);
    assert_eq!(report["ok"], true);
    assert_eq!(report["restored"], serde_json::json!(["a.txt", "new.txt"]));
    assert_eq!(report["plan"], plan);
    assert_eq!(
        json(&["ref", "a1b2c3d4e5f6", "--json"])["ref"],
        "refs/entire/checkpoints/f6/a1b2c3d4e5f6"
    );
    assert_eq!(
        json(&["id", "check", "a1b2c3d4e5f6", "--json"])["kind"],
        "legacy"
    );
    assert_eq!(
        json(&["shadow-branch", "abc1234def", "--json"])["branch"],
        "entire/abc1234-e3b0c4"
    );
    // Errors with --json: one JSON object on stderr.
    let out = bin(&["--json", "plan", "missing.json"], d);
    let err: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(err["error"]["code"], "not_found");
    assert_eq!(out.status.code(), Some(2));
}
