//! The new-user fixes of issue 40, driven through the binary: wording,
//! help texts, text output by default, flags that do something or are
//! refused, the demo's per-path story and `--keep`.
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
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
}

fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    dir
}

#[test]
fn a_step_without_a_transcript_says_so_once() {
    let dir = repo();
    let out = bin(&["shadow", "step", "--session", "s1"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let commit = stdout.split_whitespace().nth(1).unwrap().to_owned();
    let out = bin(&["shadow", "transcript", &commit], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!("error[no_transcript]: step {commit} has no transcript\n")
    );
}

#[test]
fn shadow_step_prints_text_and_json_on_request() {
    let dir = repo();
    let out = bin(&["shadow", "step", "--session", "s1"], dir.path());
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("recorded "), "{stdout}");
    assert!(serde_json::from_str::<serde_json::Value>(&stdout).is_err());
    std::fs::write(dir.path().join("a.txt"), "b\n").unwrap();
    let out = bin(
        &[
            "--json",
            "shadow",
            "step",
            "--session",
            "s1",
            "--file",
            "a.txt",
        ],
        dir.path(),
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["skipped"], false);
}

#[test]
fn a_session_without_a_transcript_reads_back_with_a_null_one() {
    let dir = repo();
    let id = "01KVBJCWYA4YW6J5M9GP655HZN";
    let out = bin(
        &[
            "store",
            "write",
            "--id",
            id,
            "--session",
            "s",
            "--prompt",
            "hi",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = bin(&["store", "session", id], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["transcript"], serde_json::Value::Null);
    assert_eq!(doc["prompts"], serde_json::json!(["hi"]));
}

#[test]
fn help_texts_fit_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let help = text(&bin(&["--help"], dir.path()).stdout);
    let store_line = help
        .lines()
        .find(|l| l.trim_start().starts_with("store"))
        .unwrap();
    assert!(store_line.contains("plan"), "{store_line}");
    let show = text(&bin(&["store", "show", "--help"], dir.path()).stdout);
    assert!(!show.contains("Where new checkpoints go"), "{show}");
    assert!(show.contains("legacy 12-hex ID"), "{show}");
}

#[test]
fn mcp_refuses_flags_that_would_do_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--json", "--quiet"] {
        let out = bin(&[flag, "mcp"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("invalid_argument"), "{stderr}");
        assert!(stderr.contains(flag), "{stderr}");
    }
}

#[test]
fn demo_says_what_the_batch_did_and_honours_its_flags() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin(&["demo"], dir.path());
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("  README.md  modified, mode 600 -> 644\n"),
        "{stdout}"
    );
    assert!(stdout.contains("  src/util.py  deleted\n"), "{stdout}");
    assert!(
        stdout.contains("  gen/models/user.py  created\n"),
        "{stdout}"
    );

    let out = bin(&["--quiet", "demo"], dir.path());
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        "check: tree after rollback is identical to the tree before the batch; report ok = true\n"
    );

    let out = bin(&["--json", "demo", "--keep"], dir.path());
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["identical"], true);
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["kept"], true);
    assert_eq!(doc["batch"]["src/util.py"], "deleted");
    let project = Path::new(doc["project"].as_str().unwrap()).to_path_buf();
    assert!(
        project.join("src/app.py").is_file(),
        "--keep leaves the project"
    );
    std::fs::remove_dir_all(&project).unwrap();

    let out = bin(&["--json", "demo"], dir.path());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["kept"], false);
    assert!(!Path::new(doc["project"].as_str().unwrap()).exists());
}

#[test]
fn a_root_that_is_a_file_is_not_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), "x").unwrap();
    let out = bin(&["capture", "--root", "f", "a.txt"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error[not_a_directory]: \"f\" is a file, not a directory\n"
    );
}
