//! `agent-checkpoint redact`, driven as a user would: stdin and files, the
//! modes, findings, rules, personal data and errors.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const GITHUB: &str = "ghp_7Hq2Lx9Vb4Nc8Rt1Yw5Ze3Ka6Md0Pf2Sg4Jx";
const AWS: &str = "AKIAYRWQG5EJLPZLBYNP";
/// A high-entropy value in a `session_id`: kept in JSON-aware mode (an ID
/// key), redacted as text.
const SESSION: &str = "q8Zr2LmX0vB7nK4tY1wE9cH6jP3sD5fGaQ";

/// Runs the binary in `dir` with `stdin` piped in.
fn redact(args: &[&str], dir: &Path, stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .arg("redact")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    // A command that fails before reading (a bad --rule) closes its stdin.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "stderr: {}", text(&out.stderr));
    text(&out.stdout)
}

fn jsonl() -> String {
    format!("{{\"session_id\":\"{SESSION}\",\"text\":\"token {GITHUB}\"}}\n")
}

#[test]
fn stdin_is_redacted_as_text_onto_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let input = format!("key={AWS} {AWS}\nDB_PASSWORD=secret123\nPWD=/workspace/project\n");
    let out = redact(&[], tmp.path(), input.as_bytes());
    assert_eq!(
        ok(&out),
        "key=REDACTED REDACTED\nDB_PASSWORD=REDACTED\nPWD=/workspace/project\n"
    );
    // `-` is stdin too.
    let out = redact(&["-"], tmp.path(), input.as_bytes());
    assert_eq!(
        ok(&out),
        "key=REDACTED REDACTED\nDB_PASSWORD=REDACTED\nPWD=/workspace/project\n"
    );
}

#[test]
fn nothing_found_comes_back_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    for input in [
        "hello world, this is normal text",
        "no newline at the end",
        "\n\n  \r\n",
    ] {
        let out = redact(&[], tmp.path(), input.as_bytes());
        assert_eq!(out.stdout, input.as_bytes());
    }
}

#[test]
fn files_by_extension_and_json_on_request() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("t.jsonl"), jsonl()).unwrap();
    std::fs::write(tmp.path().join("t.txt"), jsonl()).unwrap();
    let json_aware = format!("{{\"session_id\":\"{SESSION}\",\"text\":\"token REDACTED\"}}\n");
    let as_text = "{\"session_id\":\"REDACTED\",\"text\":\"token REDACTED\"}\n";

    assert_eq!(ok(&redact(&["t.jsonl"], tmp.path(), b"")), json_aware);
    assert_eq!(ok(&redact(&["t.txt"], tmp.path(), b"")), as_text);
    // --json: JSON-aware whatever the name, and for stdin.
    assert_eq!(
        ok(&redact(&["--json", "t.txt"], tmp.path(), b"")),
        json_aware
    );
    assert_eq!(ok(&redact(&[], tmp.path(), jsonl().as_bytes())), as_text);
    assert_eq!(
        ok(&redact(&["--json"], tmp.path(), jsonl().as_bytes())),
        json_aware
    );
    // The global flag before the command means the same.
    let out = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(["--json", "redact", "t.txt"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(ok(&out), json_aware);
    // A whole JSON document keeps its formatting.
    let doc = format!("{{\n  \"db\": {{\"password\": \"correct-horse-db\", \"host\": \"db.example.com\", \"user\": \"svc\"}},\n  \"note\": \"{GITHUB}\"\n}}\n");
    std::fs::write(tmp.path().join("meta.JSON"), &doc).unwrap();
    assert_eq!(
        ok(&redact(&["meta.JSON"], tmp.path(), b"")),
        doc.replace("correct-horse-db", "REDACTED")
            .replace(GITHUB, "REDACTED")
    );
}

#[test]
fn binary_input_is_never_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0key=".to_vec();
    png.extend_from_slice(AWS.as_bytes());
    std::fs::write(tmp.path().join("image.png"), &png).unwrap();
    assert_eq!(redact(&["image.png"], tmp.path(), b"").stdout, png);
    assert_eq!(
        redact(&["--json", "image.png"], tmp.path(), b"").stdout,
        png
    );
    assert_eq!(redact(&[], tmp.path(), &png).stdout, png);
    // Text that is not UTF-8 is still text: redacted, its invalid bytes kept.
    let mut not_utf8 = vec![0xff, 0xfe];
    not_utf8.extend_from_slice(format!(" token={GITHUB}").as_bytes());
    assert_eq!(
        redact(&[], tmp.path(), &not_utf8).stdout,
        b"\xff\xfe REDACTED"
    );
}

#[test]
fn findings_are_one_json_document_without_the_secrets() {
    let tmp = tempfile::tempdir().unwrap();
    let input = format!("key={AWS} and {GITHUB}");
    let out = redact(&["--findings"], tmp.path(), input.as_bytes());
    let stdout = ok(&out);
    assert!(
        !stdout.contains(AWS) && !stdout.contains(GITHUB),
        "{stdout}"
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        doc,
        serde_json::json!({"findings": [
            {"rule": "aws_access_key_id", "start": 4, "end": 24},
            {"rule": "github_pat", "start": 29, "end": 69},
        ]})
    );
    let out = redact(&["--findings"], tmp.path(), b"nothing here");
    let doc: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(doc, serde_json::json!({"findings": []}));
    std::fs::write(tmp.path().join("t.jsonl"), jsonl()).unwrap();
    let out = redact(&["--findings", "t.jsonl"], tmp.path(), b"");
    let doc: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(
        doc,
        serde_json::json!({"findings": [{"rule": "github_pat", "start": 65, "end": 105}]})
    );
}

#[test]
fn personal_data_and_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let input =
        b"TICKET-123456 from jane@example.com on build-7.corp.internal, not noreply@github.com";
    assert_eq!(ok(&redact(&[], tmp.path(), input)), text(input));
    assert_eq!(
        ok(&redact(&["--personal-data"], tmp.path(), input)),
        "TICKET-123456 from [REDACTED_EMAIL] on build-7.corp.internal, not noreply@github.com"
    );
    let out = redact(
        &[
            "--personal-data",
            "--rule",
            "ticket=TICKET-[0-9]{6}",
            "--rule=host=[a-z0-9-]+\\.corp\\.internal",
            "--findings",
        ],
        tmp.path(),
        input,
    );
    let doc: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    let rules: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["ticket", "email", "host"]);
}

#[test]
fn bad_rules_and_inputs_exit_2_with_a_code() {
    let tmp = tempfile::tempdir().unwrap();
    let out = redact(&["--rule", "broken=(unclosed"], tmp.path(), b"x");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr),
        "error[invalid_pattern]: invalid pattern \"(unclosed\": rule \"broken\": unclosed group at byte 0\n"
    );
    let out = redact(&["--rule", "no-equals-sign"], tmp.path(), b"x");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error[invalid_argument]: invalid --rule"));
    // With --json the error is a JSON object.
    let out = redact(&["--json", "--rule", "b=["], tmp.path(), b"x");
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_str(&text(&out.stderr)).unwrap();
    assert_eq!(doc["error"]["code"], "invalid_pattern");
    let out = redact(&["missing.txt"], tmp.path(), b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("error[not_found]: missing.txt"));
}

#[test]
fn help_documents_the_modes_and_the_findings_output() {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(["redact", "--help"])
        .output()
        .unwrap();
    let help = ok(&out);
    for needle in [
        "--findings",
        "--personal-data",
        "--rule <NAME=REGEX>",
        ".json/.jsonl JSON-aware",
        "{\"findings\": [{\"rule\"",
        "Binary input",
    ] {
        assert!(help.contains(needle), "help lacks {needle:?}:\n{help}");
    }
}
