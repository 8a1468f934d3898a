//! The minimum git version, checked at run time: a `git` on `PATH` that
//! says it is 2.40.0 (too old for reftable, enough for the rest) makes a
//! reftable repository's first ref access the typed `GitTooOld` error,
//! naming both versions, while a files repository works.
//!
//! The version is asked once per process, so the store runs in a child
//! process (this test binary, through the ignored `worker` test) whose
//! `PATH` starts with a fake `git` that answers `--version` itself and
//! hands everything else to the real one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{SessionWrite, Store};
use common::{Format, TestRepo};

const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

#[test]
#[ignore = "run as a child process by the other test of this file"]
fn worker() {
    let Ok(repo) = std::env::var("GIT_VERSION_WORKER_REPO") else {
        return;
    };
    let store = Store::open(&repo).unwrap();
    match store.write_session(&SessionWrite::new(ULID, "s1")) {
        Ok(_) => println!("wrote"),
        Err(err) => println!("error {} {err}", err.code().as_str()),
    }
}

fn run_worker(repo: &TestRepo, fake_dir: &std::path::Path) -> String {
    let path = format!(
        "{}:{}",
        fake_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "worker", "--nocapture", "-q"])
        .env("GIT_VERSION_WORKER_REPO", repo.path())
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_git_too_old_for_reftable_is_a_typed_error_naming_both_versions() {
    let real = String::from_utf8(
        Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let fake_dir = tempfile::tempdir().unwrap();
    let fake = fake_dir.path().join("git");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'git version 2.40.0'; exit 0; fi\nexec {} \"$@\"\n",
            real.trim()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&fake, perms).unwrap();

    let reftable = TestRepo::with_format(Format {
        refs: "reftable",
        objects: "sha1",
    });
    let said = run_worker(&reftable, fake_dir.path());
    assert!(
        said.contains(&format!("error {}", ErrorCode::Io.as_str())),
        "{said}"
    );
    assert!(
        said.contains("git 2.40.0 is too old for reftable repositories")
            && said.contains("needs git 2.45.0"),
        "{said}"
    );
    assert_eq!(reftable.refs(), Vec::<String>::new());

    let files = TestRepo::with_format(Format::FILES_SHA1);
    let said = run_worker(&files, fake_dir.path());
    assert!(said.contains("wrote"), "{said}");
    assert_eq!(files.refs().len(), 1);
}
