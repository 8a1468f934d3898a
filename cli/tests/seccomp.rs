//! The CLI's capture, plan and rollback of nested paths under a seccomp
//! filter that answers `openat2` with `EPERM`, `ENOSYS`, `E2BIG` or
//! `EAGAIN` (container profiles and sandboxes): it works as without one
//! (issue 32; before, `error[permission_denied]: src/deep: Operation not
//! permitted`).
#![cfg(target_os = "linux")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

#[path = "../../tests/seccomp/helper.rs"]
mod helper;

use std::path::Path;
use std::process::{Command, Output};

fn under(deny: &Path, errno: &str, args: &[&str], dir: &Path) -> Output {
    Command::new(deny)
        .arg(errno)
        .arg(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("helper runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn nested_round_trip_under_each_filter() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(deny) = helper::deny_openat2(tmp.path()) else {
        return;
    };
    for errno in helper::ERRNOS {
        let work = tempfile::tempdir().unwrap();
        let root = work.path().join("proj");
        std::fs::create_dir_all(root.join("src/deep/er")).unwrap();
        std::fs::write(root.join("src/deep/a.txt"), "a\n").unwrap();
        std::fs::write(root.join("src/deep/er/b.txt"), "b\n").unwrap();
        let snap = work.path().join("snap.json");
        let (root_s, snap_s) = (root.to_str().unwrap(), snap.to_str().unwrap());
        let paths = ["src/deep/a.txt", "src/deep/er/b.txt", "src/new/c.txt"];
        let mut args = vec!["capture", "--root", root_s, "-o", snap_s];
        args.extend(paths);
        let out = under(&deny, errno, &args, work.path());
        assert!(out.status.success(), "{errno}: {}", text(&out.stderr));

        std::fs::write(root.join("src/deep/a.txt"), "edited\n").unwrap();
        std::fs::remove_dir_all(root.join("src/deep/er")).unwrap();
        std::fs::create_dir(root.join("src/new")).unwrap();
        std::fs::write(root.join("src/new/c.txt"), "c\n").unwrap();

        let out = under(
            &deny,
            errno,
            &["plan", "--root", root_s, snap_s],
            work.path(),
        );
        assert!(out.status.success(), "{errno}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("src/deep/er/b.txt"), "{errno}");

        let rollback = ["rollback", "--root", root_s, snap_s, "--no-durable"];
        let out = under(&deny, errno, &rollback, work.path());
        assert_eq!(out.status.code(), Some(0), "{errno}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("3 restored, 0 unrestored, 0 conflicts: ok"),
            "{errno}: {}",
            text(&out.stdout)
        );
        let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
        assert_eq!(read("src/deep/a.txt"), "a\n");
        assert_eq!(read("src/deep/er/b.txt"), "b\n");
        assert!(!root.join("src/new").exists(), "{errno}");
        println!("seccomp: openat2 -> {errno}: CLI capture, plan, rollback ok");
    }
}
