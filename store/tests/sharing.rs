//! The store follows `core.sharedRepository` (issue 30 point 8): the lock
//! directories and files, the push queue and the undo-snapshot files it
//! creates get git's shared modes (group-writable, setgid directories), so
//! a second member of the group writes where `git update-ref` works for
//! them; unshared, they are owner-only whatever the umask.
//!
//! The second-member test needs root (it creates a throwaway group, removed
//! after, and runs this binary again as uid 65534 in that group); run as
//! another user it says so and passes without checking anything.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_checkpoint_store::{SessionWrite, Store};

const CHILD: &str = "SHARING_TEST_CHILD";
const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
const REF: &str = "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN";

fn is_root() -> bool {
    let dir = tempfile::tempdir().unwrap();
    std::fs::metadata(dir.path()).unwrap().uid() == 0
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn snapshot(paths: &[&str]) -> String {
    let mem = agent_checkpoint::MemRoot::new();
    agent_checkpoint::capture(
        &mem,
        paths.iter().copied(),
        &agent_checkpoint::CaptureOptions::default(),
    )
    .unwrap()
    .into_string()
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "safe.directory=*", "-C"])
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
}

/// What a write creates, with the modes `sharing` gives them.
fn created(git_dir: &Path) -> Vec<(PathBuf, bool)> {
    let locks = git_dir.join(agent_checkpoint_store::ref_update::LOCK_DIR);
    let snaps = git_dir.join(agent_checkpoint_store::snapshots::SNAPSHOT_DIR);
    let mut out = vec![
        (locks.clone(), true),
        (
            agent_checkpoint_store::ref_update::lock_path(git_dir, REF),
            false,
        ),
        (
            git_dir.join(agent_checkpoint_naming::queue::PUSH_QUEUE_FILE),
            false,
        ),
        (
            git_dir.join(agent_checkpoint_naming::queue::PUSH_QUEUE_LOCK_FILE),
            false,
        ),
        (snaps.clone(), true),
    ];
    for entry in std::fs::read_dir(&snaps).unwrap() {
        out.push((entry.unwrap().path(), false));
    }
    out
}

/// Under the default umask, each sharing mode gives exactly git's modes.
#[test]
fn created_files_follow_the_sharing_mode() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    for (value, file, dir) in [
        (None, 0o600, 0o700),
        (Some("group"), 0o660, 0o2770),
        (Some("all"), 0o664, 0o2775),
        (Some("0640"), 0o640, 0o2750),
    ] {
        let repo = common::TestRepo::new();
        if let Some(value) = value {
            repo.git(&["config", "core.sharedRepository", value]);
        }
        let store = Store::open(repo.path()).unwrap();
        store
            .write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot(&["a"])))
            .unwrap();
        for (path, is_dir) in created(&repo.path().join(".git")) {
            let want = if is_dir { dir } else { file };
            assert_eq!(mode(&path), want, "{value:?}: {}", path.display());
        }
    }
}

/// A throwaway group, removed when dropped.
struct Group {
    name: String,
    gid: u32,
}

impl Group {
    fn new() -> Group {
        let name = format!("ckshare{}", std::process::id());
        let out = Command::new("groupadd").arg(&name).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new("getent")
            .args(["group", &name])
            .output()
            .unwrap();
        let line = String::from_utf8(out.stdout).unwrap();
        let gid = line.split(':').nth(2).unwrap().parse().unwrap();
        Group { name, gid }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let _ = Command::new("groupdel").arg(&self.name).output();
    }
}

/// Runs `child_writes` as `uid:gid` with umask 002 (as members of a shared
/// repository's group run git), trusting `repo` by `safe.directory`.
fn write_as(uid: u32, gid: u32, repo: &Path, session: &str, dir: &Path) {
    let exe = dir.join("sharing-test");
    if !exe.exists() {
        std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let global = dir.join("global.gitconfig");
    std::fs::write(
        &global,
        format!("[safe]\n\tdirectory = {}\n", repo.display()),
    )
    .unwrap();
    std::fs::set_permissions(&global, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("umask 002; exec \"$0\" --exact child_writes --nocapture --test-threads=1")
        .arg(&exe)
        .env(CHILD, "1")
        .env("SHARING_REPO", repo)
        .env("SHARING_SESSION", session)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", &global)
        .uid(uid)
        .gid(gid)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("1 passed"),
        "uid {uid}:\n{text}"
    );
}

/// In a `core.sharedRepository=group` repository root created, a second
/// member of the group writes the same checkpoint (same ref lock, queue
/// and snapshot directory) and reads it back.
#[test]
fn a_second_group_member_writes() {
    if std::env::var_os(CHILD).is_some() || !is_root() {
        eprintln!("needs root");
        return;
    }
    let group = Group::new();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = tmp.path().join("repo");
    git(
        tmp.path(),
        &["init", "-q", "--shared=group", repo.to_str().unwrap()],
    );
    git(&repo, &["config", "user.name", "Team"]);
    git(&repo, &["config", "user.email", "team@example.com"]);
    let status = Command::new("chgrp")
        .args(["-R", &group.name])
        .arg(&repo)
        .status()
        .unwrap();
    assert!(status.success());
    write_as(0, group.gid, &repo, "s1", tmp.path());
    for (path, _) in created(&repo.join(".git")) {
        assert_eq!(
            std::fs::metadata(&path).unwrap().gid(),
            group.gid,
            "{}",
            path.display()
        );
    }
    write_as(65_534, group.gid, &repo, "s2", tmp.path());
    let store = Store::open(&repo).unwrap();
    assert_eq!(store.list().unwrap()[0].session_ids, ["s1", "s2"]);
}

#[test]
fn child_writes() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let repo = std::env::var("SHARING_REPO").unwrap();
    let session = std::env::var("SHARING_SESSION").unwrap();
    let store = Store::open(&repo).unwrap();
    let text = snapshot(&["a", session.as_str()]);
    store
        .write_session(&SessionWrite::new(ID, &session).snapshot(text.clone()))
        .unwrap();
    assert_eq!(store.snapshot(ID).unwrap(), Some(text));
}
