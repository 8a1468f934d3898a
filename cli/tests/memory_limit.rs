//! Issue 21, finding 3, through the binary as a user runs it: a 40-byte
//! snapshot `{"version":1,"entries":{"big.bin":null}}` against a sparse
//! `big.bin` larger than the memory the process may use (`ulimit -v`).
//! `plan`, the default `rollback`, `rollback --redo-out`, `record-applied`
//! and `plan`/`rollback --on-conflict skip` after it each finish (no
//! SIGABRT): they succeed, and the redo reports `too_large` for the file.
//!
//! Steps that only look at the file run against 8 GiB under a 3 GB limit,
//! as in the issue. Steps that hash the file (`record-applied` and the
//! guarded plan and rollback after it) stream all of it, which takes
//! minutes in a debug build for 8 GiB: by default they run against 96 MiB
//! under a 64 MiB limit (the point is the same: the file does not fit),
//! and against 8 GiB under 3 GB with `RELIABILITY_LONG=1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::os::unix::fs::MetadataExt as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::{Command, Output};

/// The snapshot of the issue: 40 bytes.
const SNAPSHOT: &str = r#"{"version":1,"entries":{"big.bin":null}}"#;

fn long_run() -> bool {
    std::env::var("RELIABILITY_LONG").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Runs the binary with `args` in `dir` under `ulimit -v <limit_kib>`.
fn limited(limit_kib: u64, args: &[&str], dir: &Path) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v "$0" && exec "$@""#)
        .arg(limit_kib.to_string())
        .arg(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("sh runs")
}

/// (Re)creates `big.bin` as a sparse file of `size` bytes; `false` when
/// the filesystem cannot hold it sparse.
fn make_big(dir: &Path, size: u64) -> bool {
    let file = std::fs::File::create(dir.join("big.bin")).unwrap();
    if file.set_len(size).is_err() {
        return false;
    }
    file.metadata().unwrap().blocks() < 1 << 16
}

/// Checks that a run finished by itself with exit code 0, and returns its
/// stdout.
fn finished(what: &str, out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        None,
        "{what} was killed by a signal (out of memory?)\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what}\nstdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

#[test]
fn a_forty_byte_snapshot_does_not_run_the_binary_out_of_memory() {
    const BIG: u64 = 8 << 30;
    const BIG_LIMIT_KIB: u64 = 3_000_000;
    let (hashed, hashed_limit_kib) = if long_run() {
        (BIG, BIG_LIMIT_KIB)
    } else {
        (96 << 20, 64 << 10)
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    if !make_big(dir, BIG) {
        eprintln!(
            "memory_limit: SKIPPED: {} cannot hold a sparse file of 8 GiB",
            dir.display()
        );
        return;
    }
    std::fs::write(dir.join("s.json"), SNAPSHOT).unwrap();
    assert_eq!(SNAPSHOT.len(), 40);
    // The limit is real: the binary cannot read the file into memory.
    assert!(BIG > BIG_LIMIT_KIB << 10 && hashed > hashed_limit_kib << 10);

    let out = limited(BIG_LIMIT_KIB, &["plan", "s.json"], dir);
    assert_eq!(finished("plan", &out), "remove    big.bin\n");

    let out = limited(
        BIG_LIMIT_KIB,
        &["rollback", "s.json", "--redo-out", "redo.json", "--json"],
        dir,
    );
    let report: serde_json::Value =
        serde_json::from_str(&finished("rollback --redo-out", &out)).unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["not_in_redo"][0]["path"], "big.bin", "{report}");
    assert_eq!(report["not_in_redo"][0]["code"], "too_large", "{report}");
    assert!(dir.join("redo.json").exists());
    assert!(!dir.join("big.bin").exists());

    assert!(make_big(dir, BIG));
    let out = limited(BIG_LIMIT_KIB, &["rollback", "s.json"], dir);
    assert!(finished("rollback", &out).contains("1 restored, 0 unrestored, 0 conflicts: ok"));
    assert!(!dir.join("big.bin").exists());

    assert!(make_big(dir, hashed));
    let out = limited(
        hashed_limit_kib,
        &["record-applied", "s.json", "-o", "applied.json"],
        dir,
    );
    finished("record-applied", &out);
    let applied = std::fs::read_to_string(dir.join("applied.json")).unwrap();
    assert!(
        applied.contains(r#""applied":{"big.bin":"sha256:"#),
        "{applied}"
    );

    let out = limited(
        hashed_limit_kib,
        &["plan", "applied.json", "--on-conflict", "skip"],
        dir,
    );
    assert_eq!(
        finished("plan --on-conflict skip", &out),
        "remove    big.bin\n"
    );

    let out = limited(
        hashed_limit_kib,
        &["rollback", "applied.json", "--on-conflict", "skip"],
        dir,
    );
    assert!(finished("rollback --on-conflict skip", &out)
        .contains("1 restored, 0 unrestored, 0 conflicts: ok"));
    assert!(!dir.join("big.bin").exists());
    eprintln!(
        "reliability memory: the CLI under ulimit -v: a 40-byte snapshot, an {} GiB sparse big.bin under -v {BIG_LIMIT_KIB} \
         (plan, rollback, rollback --redo-out: not in redo, too_large) and a {} MiB one under -v {hashed_limit_kib} \
         (record-applied, plan and rollback --on-conflict skip, streamed): 6 runs, 0 killed",
        BIG >> 30,
        hashed >> 20,
    );
}
