//! Whose repository the store uses (issue 29 points 1 and 2, issue 30
//! point 6): a repository another user owns is refused as git refuses it,
//! before any git process runs or anything is written, unless git's
//! `safe.directory` trusts it; a `.git` planted in a shared parent is never
//! used; discovery stops at `GIT_CEILING_DIRECTORIES`.
//!
//! These tests need root (they make files owned by uid 65534, `nobody`);
//! run as another user they say so and pass without checking anything.
//! Tests that need a different environment (a global config, a ceiling)
//! or another user run this binary again for one test, with that
//! environment.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{SessionWrite, Store};

const NOBODY: u32 = 65_534;
const CHILD: &str = "TRUST_TEST_CHILD";
const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

/// A snapshot the core accepts.
fn snapshot() -> String {
    let mem = agent_checkpoint::MemRoot::new();
    agent_checkpoint::capture(&mem, ["a"], &agent_checkpoint::CaptureOptions::default())
        .unwrap()
        .into_string()
}

fn is_root() -> bool {
    let dir = tempfile::tempdir().unwrap();
    let probe = dir.path().join("probe");
    std::fs::write(&probe, "").unwrap();
    std::fs::metadata(&probe).unwrap().uid() == 0
}

fn sh(args: &[&str]) {
    let out = Command::new(args[0]).args(&args[1..]).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// git as root in a repository whatever its owner (the test's own setup).
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-c")
        .arg("safe.directory=*")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A world-traversable scratch dir.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Every path below `dir` with its owner, sorted.
fn listing(dir: &Path) -> Vec<(PathBuf, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            }
            out.push((entry.path(), meta.uid()));
        }
    }
    out.sort();
    out
}

/// A repository owned by `nobody` whose own config names a remote with an
/// `uploadpack` that leaves `marker` when git runs it (and trusts every
/// repository in `safe.directory`, which git ignores there).
struct Foreign {
    tmp: tempfile::TempDir,
    repo: PathBuf,
    marker: PathBuf,
}

fn foreign_repository() -> Foreign {
    let tmp = scratch();
    let remote = tmp.path().join("remote.git");
    git(
        tmp.path(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    let marker = tmp.path().join("marker");
    let hook = tmp.path().join("upload-pack.sh");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\ntouch '{}'\nexec git-upload-pack \"$@\"\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = tmp.path().join("repo");
    git(tmp.path(), &["init", "-q", repo.to_str().unwrap()]);
    git(&repo, &["config", "user.name", "Owner"]);
    git(&repo, &["config", "user.email", "owner@example.com"]);
    git(&repo, &["config", "safe.directory", "*"]);
    git(
        &repo,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    git(
        &repo,
        &["config", "remote.origin.uploadpack", hook.to_str().unwrap()],
    );
    sh(&[
        "chown",
        "-R",
        &format!("{NOBODY}:{NOBODY}"),
        repo.to_str().unwrap(),
    ]);
    Foreign { tmp, repo, marker }
}

/// Runs `test` of this binary again with `env` (as `uid`/`gid` when
/// given); asserts it passed.
fn rerun(test: &str, env: &[(&str, &str)], user: Option<(u32, u32)>, dir: &Path) {
    let exe = dir.join("trust-test");
    if !exe.exists() {
        std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let home = dir.join("child-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut cmd = Command::new(&exe);
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", &home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("SUDO_UID")
        .env_remove("GIT_CEILING_DIRECTORIES");
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some((uid, gid)) = user {
        cmd.uid(uid).gid(gid);
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{test} with {env:?}:\n{text}");
    assert!(text.contains("1 passed"), "{test} did not run:\n{text}");
}

fn child_env(name: &str) -> Option<String> {
    std::env::var_os(CHILD)?;
    std::env::var(name).ok()
}

// ---------------------------------------------------------------------------
// 29.1 and 30.6: another user's repository.

/// Root opening nobody's repository gets `permission_denied` with the
/// command that trusts it; the repository's `uploadpack` never runs
/// (without the check a `list_remote` ran it as root); nothing is created
/// in the repository; its owner then writes as before.
#[test]
fn another_users_repository_is_refused_before_git_runs() {
    if std::env::var_os(CHILD).is_some() || !is_root() {
        eprintln!("needs root");
        return;
    }
    let f = foreign_repository();
    let before = listing(&f.repo);
    let opened = Store::open(&f.repo);
    if let Ok(store) = &opened {
        // What a caller does next: both run git or write.
        let _ = store.list_remote("origin");
        let _ = store.write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot()));
    }
    assert!(!f.marker.exists(), "the repository's uploadpack ran");
    let e = opened.expect_err("another user's repository was opened");
    assert_eq!(e.code(), ErrorCode::PermissionDenied, "{e}");
    let message = e.to_string();
    assert!(
        message.contains("git config --global --add safe.directory")
            && message.contains(f.repo.to_str().unwrap()),
        "{message}"
    );
    assert_eq!(listing(&f.repo), before, "something was created");
    // Its owner writes fine afterwards.
    rerun(
        "child_writes_a_checkpoint",
        &[("TRUST_REPO", f.repo.to_str().unwrap())],
        Some((NOBODY, NOBODY)),
        f.tmp.path(),
    );
}

/// A subdirectory of another user's repository is refused as well.
#[test]
fn a_subdirectory_of_another_users_repository_is_refused() {
    if std::env::var_os(CHILD).is_some() || !is_root() {
        return;
    }
    let f = foreign_repository();
    let sub = f.repo.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let e = Store::open(&sub).expect_err("opened");
    assert_eq!(e.code(), ErrorCode::PermissionDenied, "{e}");
}

/// Run by the tests above as the repository's owner.
#[test]
fn child_writes_a_checkpoint() {
    let Some(repo) = child_env("TRUST_REPO") else {
        return;
    };
    let store = Store::open(&repo).unwrap();
    store
        .write_session(
            &SessionWrite::new(ID, "s1")
                .prompt("p")
                .transcript(b"{}\n".to_vec())
                .snapshot(snapshot()),
        )
        .unwrap();
    assert_eq!(store.read_session(ID, 0).unwrap().prompts, ["p"]);
    assert_eq!(store.snapshot(ID).unwrap(), Some(snapshot()));
}

/// `safe.directory` from the global config (the exact path, a `/*`
/// prefix, `*`) and from the command line (`git -c`, as
/// `GIT_CONFIG_PARAMETERS`) trusts the repository: it opens and its
/// remote's `uploadpack` runs, as it would for git.
#[test]
fn safe_directory_trusts_another_users_repository() {
    if std::env::var_os(CHILD).is_some() || !is_root() {
        return;
    }
    let f = foreign_repository();
    let repo = f.repo.to_str().unwrap().to_owned();
    let parent = format!("{}/*", f.tmp.path().display());
    for value in [repo.as_str(), parent.as_str(), "*"] {
        let global = f.tmp.path().join("global.gitconfig");
        std::fs::write(&global, format!("[safe]\n\tdirectory = {value}\n")).unwrap();
        let _ = std::fs::remove_file(&f.marker);
        rerun(
            "child_lists_the_remote",
            &[
                ("TRUST_REPO", &repo),
                ("GIT_CONFIG_GLOBAL", global.to_str().unwrap()),
            ],
            None,
            f.tmp.path(),
        );
        assert!(f.marker.exists(), "trusted by {value:?}, git did not run");
    }
    let _ = std::fs::remove_file(&f.marker);
    let params = format!("'safe.directory'='{repo}'");
    rerun(
        "child_lists_the_remote",
        &[("TRUST_REPO", &repo), ("GIT_CONFIG_PARAMETERS", &params)],
        None,
        f.tmp.path(),
    );
    assert!(f.marker.exists());
    // A later empty value resets the list, as in git.
    let global = f.tmp.path().join("global.gitconfig");
    std::fs::write(
        &global,
        format!("[safe]\n\tdirectory = {repo}\n\tdirectory =\n"),
    )
    .unwrap();
    rerun(
        "child_is_refused",
        &[
            ("TRUST_REPO", &repo),
            ("GIT_CONFIG_GLOBAL", global.to_str().unwrap()),
        ],
        None,
        f.tmp.path(),
    );
}

#[test]
fn child_lists_the_remote() {
    let Some(repo) = child_env("TRUST_REPO") else {
        return;
    };
    let store = Store::open(&repo).unwrap();
    assert!(store.list_remote("origin").unwrap().is_empty());
}

#[test]
fn child_is_refused() {
    let Some(repo) = child_env("TRUST_REPO") else {
        return;
    };
    let e = Store::open(&repo).expect_err("opened");
    assert_eq!(e.code(), ErrorCode::PermissionDenied, "{e}");
}

// ---------------------------------------------------------------------------
// 29.2: discovery.

/// A `.git` another user made in a shared, world-writable parent (as in
/// `/tmp`) is not used for a project below it that is no repository: the
/// open fails, nothing is captured into the attacker's objects.
#[test]
fn a_planted_repository_in_a_shared_parent_is_not_used() {
    if std::env::var_os(CHILD).is_some() || !is_root() {
        return;
    }
    let tmp = scratch();
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let planted = shared.join(".git");
    git(&shared, &["init", "-q"]);
    sh(&[
        "chown",
        "-R",
        &format!("{NOBODY}:{NOBODY}"),
        planted.to_str().unwrap(),
    ]);
    let project = shared.join("project");
    std::fs::create_dir(&project).unwrap();
    std::fs::set_permissions(&project, std::fs::Permissions::from_mode(0o700)).unwrap();
    let before = listing(&planted);
    let opened = Store::open(&project);
    if let Ok(store) = &opened {
        let _ = store.write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot()));
    }
    let e = opened.expect_err("the planted repository was used");
    assert_eq!(e.code(), ErrorCode::PermissionDenied, "{e}");
    assert_eq!(listing(&planted), before);
}

/// Discovery stops at `GIT_CEILING_DIRECTORIES`, as git's does.
#[test]
fn discovery_stops_at_ceiling_directories() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let repo = common::TestRepo::new();
    let ceiling = repo.path().join("sub");
    let start = ceiling.join("deeper");
    std::fs::create_dir_all(&start).unwrap();
    assert!(Store::open(&start).is_ok());
    rerun(
        "child_finds_no_repository",
        &[
            ("TRUST_REPO", start.to_str().unwrap()),
            ("GIT_CEILING_DIRECTORIES", ceiling.to_str().unwrap()),
        ],
        None,
        repo.path(),
    );
}

#[test]
fn child_finds_no_repository() {
    let Some(start) = child_env("TRUST_REPO") else {
        return;
    };
    let e = Store::open(&start).expect_err("found a repository above the ceiling");
    assert_eq!(e.code(), ErrorCode::NotARepository, "{e}");
}
