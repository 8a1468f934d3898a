//! Attacks on the trust, snapshot-privacy and lock fixes of issues 29 and
//! 30: what someone who can write inside the git common dir (a second
//! member of a `core.sharedRepository=group` repository, whose lock and
//! snapshot directories are group-writable) plants there must never make
//! the store write outside the repository.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, ErrorCode};
use agent_checkpoint_store::ref_update::lock_path;
use agent_checkpoint_store::snapshots::SNAPSHOT_DIR;
use agent_checkpoint_store::{SessionWrite, Store};
use common::TestRepo;

const ID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
const REF: &str = "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN";

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

fn snapshot_of(dir: &Path) -> String {
    std::fs::write(dir.join("a.txt"), "captured\n").unwrap();
    let root = CapRoot::open(dir, ambient_authority()).unwrap();
    agent_checkpoint::capture(&root, ["a.txt"], &CaptureOptions::default())
        .unwrap()
        .into_string()
}

/// Finding 1: a symlink planted at a ref's lock file was followed, and the
/// lock's progress counter overwrote the first 8 bytes of its target.
#[test]
fn finding_1_a_symlinked_ref_lock_is_never_followed() {
    let repo = TestRepo::new();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "precious contents\n").unwrap();
    let lock = lock_path(&repo.path().join(".git"), REF);
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&victim, &lock).unwrap();

    let store = Store::open(repo.path()).unwrap();
    let written = store.write_session(&SessionWrite::new(ID, "s1"));
    assert_eq!(
        std::fs::read(&victim).unwrap(),
        b"precious contents\n",
        "the symlink's target was written through the lock"
    );
    let err = written.expect_err("a symlinked lock file is refused");
    assert_eq!(err.code(), ErrorCode::Io, "{err}");
    assert!(repo.refs().iter().all(|r| r != REF), "nothing written");
}

/// Finding 1 (FIFO): a FIFO planted at a ref's lock file is refused, not
/// used as a lock.
#[test]
fn finding_1_a_fifo_ref_lock_is_refused() {
    let repo = TestRepo::new();
    let lock = lock_path(&repo.path().join(".git"), REF);
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    mkfifo(&lock);
    let store = Store::open(repo.path()).unwrap();
    let err = store
        .write_session(&SessionWrite::new(ID, "s1"))
        .expect_err("a FIFO lock file is refused");
    assert_eq!(err.code(), ErrorCode::Io, "{err}");
}

/// Finding 2: a symlink planted at the lock directory sent lock files
/// into the directory it names.
#[test]
fn finding_2_a_symlinked_lock_directory_is_never_followed() {
    let repo = TestRepo::new();
    let outside = tempfile::tempdir().unwrap();
    let lock = lock_path(&repo.path().join(".git"), REF);
    std::os::unix::fs::symlink(outside.path(), lock.parent().unwrap()).unwrap();

    let store = Store::open(repo.path()).unwrap();
    let written = store.write_session(&SessionWrite::new(ID, "s1"));
    let planted: Vec<_> = std::fs::read_dir(outside.path()).unwrap().collect();
    assert!(planted.is_empty(), "files made outside: {planted:?}");
    assert!(written.is_err(), "a symlinked lock directory is refused");
}

/// Finding 2: a symlink planted at `entire-snapshots` sent the captured
/// bytes into the directory it names (a root writer: any directory).
#[test]
fn finding_2_a_symlinked_snapshot_directory_is_never_followed() {
    let repo = TestRepo::new();
    let work = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path().join(".git").join(SNAPSHOT_DIR))
        .unwrap();

    let store = Store::open(repo.path()).unwrap();
    let written =
        store.write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot_of(work.path())));
    let planted: Vec<_> = std::fs::read_dir(outside.path()).unwrap().collect();
    assert!(
        planted.is_empty(),
        "snapshot bytes written outside: {planted:?}"
    );
    let err = written.expect_err("a symlinked snapshot directory is refused");
    assert_eq!(err.code(), ErrorCode::Io, "{err}");
}

/// Finding 2 (read side): a FIFO planted at a snapshot's file name makes
/// the read fail (`corrupt_object`), never wait for a writer.
#[test]
fn finding_2_a_fifo_at_a_snapshot_file_is_refused() {
    let repo = TestRepo::new();
    let work = tempfile::tempdir().unwrap();
    let store = Store::open(repo.path()).unwrap();
    store
        .write_session(&SessionWrite::new(ID, "s1").snapshot(snapshot_of(work.path())))
        .unwrap();
    let dir = repo.path().join(".git").join(SNAPSHOT_DIR);
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    mkfifo(&file);
    let err = store.snapshot(ID).expect_err("a FIFO is not a snapshot");
    assert_eq!(err.code(), ErrorCode::CorruptObject, "{err}");
}

/// Finding 3 (fixed: the whole wait ends after `MAX_WAIT_FACTOR` times the
/// bound): the lock wait was bounded only while the lock's progress
/// counter stands still, and any holder that can write the lock file (the
/// owner's stuck tool, or any member of a shared repository: lock files
/// are `0660` there) bumps it itself, so the writer waits without end.
#[test]
fn finding_3_a_holder_faking_progress_still_ends_in_ref_busy() {
    use std::os::unix::fs::FileExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    let repo = TestRepo::new();
    let lock = lock_path(&repo.path().join(".git"), REF);
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    let held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock)
        .unwrap();
    held.lock().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let bumper = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut n: u64 = 1;
            while !stop.load(Ordering::Relaxed) {
                held.write_at(&n.to_le_bytes(), 0).unwrap();
                n += 1;
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let store = agent_checkpoint_store::Store::open_with(
        repo.path(),
        agent_checkpoint_store::StoreOptions::default().lock_wait(Duration::from_millis(200)),
    )
    .unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(
            store
                .write_session(&SessionWrite::new(ID, "s1"))
                .map(|_| ()),
        );
    });
    // Far beyond any bound derived from 200 ms: only an unbounded wait
    // gets here.
    let outcome = rx.recv_timeout(Duration::from_secs(60));
    stop.store(true, Ordering::Relaxed);
    bumper.join().unwrap();
    let err = outcome
        .expect("the writer is still waiting for a lock one holder kept")
        .expect_err("the lock was held throughout");
    assert_eq!(err.code(), ErrorCode::RefBusy, "{err}");
}

const CHILD: &str = "ATTACK_TRUST_CHILD";

/// Runs `test` of this binary in a child with `env` and its own empty
/// global configuration; asserts it passed.
fn rerun(test: &str, env: &[(&str, &str)]) {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_CONFIG_PARAMETERS")
        .env_remove("GIT_CONFIG_COUNT");
    for (k, v) in env {
        cmd.env(k, v);
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

/// Finding 4: `safe.bareRepository=explicit` (git's guard against a bare
/// repository embedded in a project, whose config runs commands) was not
/// honoured: discovery used a bare repository found above the directory
/// given, where git refuses it.
#[test]
fn finding_4_safe_bare_repository_explicit_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().join("project").join("evil");
    std::fs::create_dir_all(&bare).unwrap();
    let status = std::process::Command::new("git")
        .args(["init", "-q", "--bare"])
        .arg(&bare)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::create_dir(bare.join("sub")).unwrap();
    let start = bare.join("sub");
    let start = start.to_str().unwrap();
    let named = bare.to_str().unwrap();
    let explicit = "'safe.barerepository'='explicit'";
    rerun(
        "child_bare_open",
        &[
            ("ATTACK_START", start),
            ("ATTACK_OPENS", "0"),
            ("GIT_CONFIG_PARAMETERS", explicit),
        ],
    );
    rerun(
        "child_bare_open",
        &[
            ("ATTACK_START", named),
            ("ATTACK_OPENS", "1"),
            ("GIT_CONFIG_PARAMETERS", explicit),
        ],
    );
    rerun(
        "child_bare_open",
        &[
            ("ATTACK_START", start),
            ("ATTACK_OPENS", "1"),
            ("GIT_CONFIG_PARAMETERS", "'safe.barerepository'='all'"),
        ],
    );
    // git agrees with each.
    let git = |cwd: &str, value: &str| {
        std::process::Command::new("git")
            .args([
                "-c",
                &format!("safe.bareRepository={value}"),
                "rev-parse",
                "--git-dir",
            ])
            .current_dir(cwd)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap()
            .status
            .success()
    };
    assert!(!git(start, "explicit"));
    assert!(git(start, "all"));
}

#[test]
fn child_bare_open() {
    let Some(start) = child_env("ATTACK_START") else {
        return;
    };
    let opens = child_env("ATTACK_OPENS").as_deref() == Some("1");
    let opened = Store::open(&start);
    if opens {
        opened.unwrap();
    } else {
        let err = opened.expect_err("an implicit bare repository is refused");
        assert_eq!(err.code(), ErrorCode::PermissionDenied, "{err}");
    }
}
