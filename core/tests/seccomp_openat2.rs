//! In a container whose seccomp profile refuses `openat2` (older Docker and
//! containerd profiles answer `EPERM`, sandboxes `ENOSYS` or `E2BIG`), and
//! under a kernel that keeps answering `EAGAIN`, capture, plan and rollback
//! of nested paths work and still confine: the refusal is never an error
//! (issue 32). This test re-runs itself under each filter
//! (tests/seccomp/deny_openat2.c); scripts/reliability runs the shared
//! vectors under them too.
#![cfg(all(feature = "cap-std", target_os = "linux"))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/seccomp/helper.rs"]
mod helper;

use std::process::Command;

use agent_checkpoint::internals::resolves_with_openat2;
use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, plan_rollback, rollback, CapRoot, CaptureOptions, ErrorCode, ParseOptions,
    PlanOptions, RollbackOptions, Snapshot,
};

/// Set to the errno of the filter the inner run is under.
const INNER: &str = "SECCOMP_OPENAT2_INNER";

#[test]
fn nested_round_trip_under_each_filter() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(deny) = helper::deny_openat2(tmp.path()) else {
        return;
    };
    let me = std::env::current_exe().unwrap();
    for errno in helper::ERRNOS {
        let out = Command::new(&deny)
            .arg(errno)
            .arg(&me)
            .args([
                "--exact",
                "inner_round_trip",
                "--include-ignored",
                "--nocapture",
            ])
            .env(INNER, errno)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("inner round trip: ok"),
            "under openat2 -> {errno}:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        println!("seccomp: openat2 -> {errno}: nested capture, plan, rollback ok");
    }
}

/// The body, run only by the test above under a filter.
#[test]
#[ignore = "run by nested_round_trip_under_each_filter under a seccomp filter"]
fn inner_round_trip() {
    let Some(errno) = std::env::var_os(INNER) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("src/deep/er")).unwrap();
    std::fs::write(d.join("src/deep/a.txt"), "a\n").unwrap();
    std::fs::write(d.join("src/deep/er/b.txt"), "b\n").unwrap();
    std::os::unix::fs::symlink("/etc", d.join("src/out")).unwrap();
    let root = CapRoot::open(d, ambient_authority()).unwrap();
    let paths = ["src/deep/a.txt", "src/deep/er/b.txt", "src/deep/new.txt"];
    let json = capture(&root, paths, &CaptureOptions::default()).unwrap();
    let snapshot = Snapshot::parse(json.as_str(), &ParseOptions::default()).unwrap();

    std::fs::write(d.join("src/deep/a.txt"), "edited\n").unwrap();
    std::fs::remove_file(d.join("src/deep/er/b.txt")).unwrap();
    std::fs::write(d.join("src/deep/new.txt"), "new\n").unwrap();
    let plan = plan_rollback(&root, &snapshot, &PlanOptions::default()).unwrap();
    assert_eq!(plan.items.len(), 3, "{plan:?}");
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert!(report.unrestored.is_empty(), "{report:?}");
    assert_eq!(std::fs::read(d.join("src/deep/a.txt")).unwrap(), b"a\n");
    assert_eq!(std::fs::read(d.join("src/deep/er/b.txt")).unwrap(), b"b\n");
    assert!(!d.join("src/deep/new.txt").exists());

    // The walk that answers instead still refuses a symlink out.
    let escaped = capture(&root, ["src/out/passwd"], &CaptureOptions::default()).unwrap_err();
    assert_eq!(escaped.code(), ErrorCode::PathEscapesRoot);
    // A refusal switches the walk on for the process; `EAGAIN` is a race
    // that is retried, then walked around once, and never switches it.
    assert_eq!(resolves_with_openat2(), errno == "EAGAIN", "{errno:?}");
    println!("inner round trip: ok");
}
