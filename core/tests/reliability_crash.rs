//! Real crashes: a child process rolls back large files (1-8 MiB, durable)
//! and 40 small ones (enough for the writes to go on two threads)
//! and is killed with SIGKILL after a random delay, over and over.
//!
//! It proves that after every kill each captured path holds wholly its
//! pre-rollback or wholly its snapshot content (bytes and mode compared),
//! never a torn mix; that the next rollback converges to the snapshot
//! and removes any temp file the killed one left; and that nothing else in
//! the root is touched. Children are this test binary itself, re-run with
//! `--exact crash_child` and an environment variable naming their role.
//!
//! Default: a few runs; `RELIABILITY_LONG=1`: 240 (or
//! `RELIABILITY_CRASH_RUNS`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{capture, CapRoot, CaptureOptions, RollbackOptions};
use reliability_sentinel::{env_count, figure, long_run, stray_temps, Rng};

const ROLE: &str = "AGENT_CHECKPOINT_CRASH_TEST_ROLE";
const DIR: &str = "AGENT_CHECKPOINT_CRASH_TEST_DIR";
const MIB: usize = 1 << 20;

/// The child: one durable rollback of `snapshot.json` into `root/`.
#[test]
fn crash_child() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    assert_eq!(role, "rollback");
    let dir = PathBuf::from(std::env::var(DIR).unwrap());
    let root = CapRoot::open(dir.join("root"), ambient_authority()).unwrap();
    let snap = std::fs::read_to_string(dir.join("snapshot.json")).unwrap();
    let options = RollbackOptions::default().with_redo(false);
    std::fs::write(dir.join("started"), b"").unwrap();
    let report = common::rollback_text(&root, &snap, &options);
    assert!(report.ok(), "{report:?}");
}

/// A file's bytes and mode, or `None` when nothing is there.
type State = Option<(Vec<u8>, u32)>;

/// One captured path: its snapshot state and its state after the batch
/// (whole bytes: comparing them is exact, and cheaper than hashing).
struct Expect {
    path: &'static str,
    snapshot: State,
    batch: State,
}

fn state(root: &Path, path: &str) -> State {
    let full = root.join(path);
    let meta = std::fs::symlink_metadata(&full).ok()?;
    assert!(meta.is_file(), "{path} is not a file");
    Some((
        std::fs::read(&full).unwrap(),
        meta.permissions().mode() & 0o7777,
    ))
}

fn put(root: &Path, path: &str, bytes: &[u8], mode: u32) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&full);
    std::fs::write(&full, bytes).unwrap();
    std::fs::set_permissions(&full, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Puts the root in its after-the-batch state.
fn apply_batch(root: &Path, batch: &BTreeMap<&'static str, Option<(Vec<u8>, u32)>>) {
    for (path, content) in batch {
        match content {
            Some((bytes, mode)) => put(root, path, bytes, *mode),
            None => {
                let _ = std::fs::remove_file(root.join(path));
            }
        }
    }
}

/// The type-flipped path: a file before the batch, a directory holding
/// `inner` after it.
const FLIP: &str = "flip.bin";

/// What is at [`FLIP`]: `"file"`, `"dir"` or `"missing"`.
fn flip_state(root: &Path) -> &'static str {
    match std::fs::symlink_metadata(root.join(FLIP)) {
        Ok(m) if m.is_file() => "file",
        Ok(m) if m.is_dir() => "dir",
        Ok(_) => "other",
        Err(_) => "missing",
    }
}

/// The batch's flip: the file goes, a directory with a file comes.
fn apply_flip(root: &Path) {
    let full = root.join(FLIP);
    if full.is_file() {
        std::fs::remove_file(&full).unwrap();
    }
    std::fs::create_dir_all(&full).unwrap();
    std::fs::write(full.join("inner"), b"the batch's").unwrap();
}

fn spawn_child(dir: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "crash_child", "--nocapture", "--test-threads=1"])
        .env(ROLE, "rollback")
        .env(DIR, dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn wait_for(path: &Path, child: &mut std::process::Child) {
    let deadline = Instant::now() + Duration::from_secs(300);
    while !path.exists() {
        assert!(Instant::now() < deadline, "the child never started");
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the child exited before starting: {status}");
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Small files captured beside the large ones.
const SMALL_FILES: usize = 40;

#[test]
fn killed_rollbacks_never_leave_a_torn_file() {
    let runs = env_count("RELIABILITY_CRASH_RUNS", if long_run() { 300 } else { 8 });
    let mut rng = Rng::from_env("crash");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let root = dir.join("root");
    std::fs::create_dir(&root).unwrap();
    // The tree before the batch; "keep.txt" is never captured.
    let sizes: [(&str, usize, u32); 5] = [
        ("big/a.bin", MIB, 0o644),
        ("big/b.bin", 2 * MIB, 0o755),
        ("c.bin", 3 * MIB, 0o600),
        ("deep/er/d.bin", 8 * MIB, 0o644),
        ("gone.bin", MIB + 7, 0o640),
    ];
    for (path, size, mode) in sizes {
        put(&root, path, &rng.bytes(size), mode);
    }
    put(&root, "keep.txt", b"never captured", 0o644);
    put(&root, FLIP, &rng.bytes(2 * MIB), 0o644);
    // Enough small files too for the writes to go on two threads (32 or
    // more): the kills land in that path as well.
    let small: Vec<&'static str> = (0..SMALL_FILES)
        .map(|i| &*Box::leak(format!("many/s{i:02}.txt").into_boxed_str()))
        .collect();
    for (i, path) in small.iter().enumerate() {
        put(&root, path, &rng.bytes(4096 + i), 0o644);
    }
    let mut captured = vec![
        "big/a.bin",
        "big/b.bin",
        "c.bin",
        "deep/er/d.bin",
        "gone.bin",
        "gen/new.bin",
        FLIP,
        "flip.bin/inner",
    ];
    captured.extend(&small);
    let flip_before = std::fs::read(root.join(FLIP)).unwrap();
    let cap = CapRoot::open(&root, ambient_authority()).unwrap();
    let snap = capture(&cap, &captured, &CaptureOptions::default()).unwrap();
    std::fs::write(dir.join("snapshot.json"), snap.as_str()).unwrap();
    let keep = state(&root, "keep.txt");

    // The batch rewrites every file (new sizes), deletes gone.bin and
    // creates gen/new.bin.
    let mut batch: BTreeMap<&'static str, Option<(Vec<u8>, u32)>> = BTreeMap::new();
    for (path, size, _) in sizes.iter().take(4) {
        batch.insert(path, Some((rng.bytes(size + MIB / 2), 0o644)));
    }
    batch.insert("gone.bin", None);
    batch.insert("gen/new.bin", Some((rng.bytes(MIB), 0o644)));
    for path in &small {
        batch.insert(path, Some((rng.bytes(5000), 0o600)));
    }
    let expects: Vec<Expect> = captured
        .iter()
        .filter(|path| !path.starts_with(FLIP))
        .map(|path| Expect {
            path,
            snapshot: state(&root, path),
            batch: batch[path].clone(),
        })
        .collect();

    // How long an uninterrupted child takes, to spread the kills over it.
    apply_batch(&root, &batch);
    apply_flip(&root);
    let mut child = spawn_child(&dir);
    wait_for(&dir.join("started"), &mut child);
    let started = Instant::now();
    assert!(
        child.wait().unwrap().success(),
        "the calibration child failed"
    );
    let span = started.elapsed();
    std::fs::remove_file(dir.join("started")).unwrap();
    for e in &expects {
        assert!(
            state(&root, e.path) == e.snapshot,
            "calibration: {}",
            e.path
        );
    }

    let converge = RollbackOptions::default().with_redo(false);
    let (mut killed, mut mixed, mut with_temps, mut torn) = (0, 0, 0, Vec::new());
    let mut flip_missing = 0;
    for run in 0..runs {
        apply_batch(&root, &batch);
        apply_flip(&root);
        let mut child = spawn_child(&dir);
        wait_for(&dir.join("started"), &mut child);
        let delay = span.mul_f64(rng.below(1_100) as f64 / 1_000.0);
        std::thread::sleep(delay);
        let finished = child.try_wait().unwrap().is_some();
        let _ = child.kill();
        child.wait().unwrap();
        std::fs::remove_file(dir.join("started")).unwrap();
        killed += usize::from(!finished);

        let (mut old, mut new) = (0, 0);
        for e in &expects {
            let now = state(&root, e.path);
            if now == e.snapshot {
                old += 1;
            } else if now == e.batch {
                new += 1;
            } else {
                torn.push(format!("run {run}: {} is neither", e.path));
            }
        }
        mixed += usize::from(old > 0 && new > 0);
        // The flipped path: the old file or the batch's directory; nothing
        // there only if the kill fell between removing the (by then empty)
        // directory and the rename that puts the file back.
        match flip_state(&root) {
            "file" => assert_eq!(std::fs::read(root.join(FLIP)).unwrap(), flip_before),
            "dir" => {}
            "missing" => flip_missing += 1,
            other => torn.push(format!("run {run}: {FLIP} is a {other}")),
        }
        if !stray_temps(&root).is_empty() {
            with_temps += 1;
        }
        assert_eq!(
            state(&root, "keep.txt"),
            keep,
            "run {run}: keep.txt changed"
        );

        // The next rollback converges and clears the temp files.
        let report = common::rollback_text(&cap, &snap, &converge);
        assert!(report.ok(), "run {run}: {report:?}");
        for e in &expects {
            assert!(state(&root, e.path) == e.snapshot, "run {run}: {}", e.path);
        }
        assert_eq!(std::fs::read(root.join(FLIP)).unwrap(), flip_before);
        assert_eq!(
            stray_temps(&root),
            Vec::<String>::new(),
            "run {run}: temp files left after the next rollback"
        );
    }
    figure(
        "crash",
        &format!(
            "{runs} runs, {killed} killed mid-rollback ({mixed} with old and new files side \
             by side, {with_temps} leaving temp files, all removed by the next rollback), \
             {} torn files; the type-flipped path missing after {flip_missing} kills (the \
             one-rename window)",
            torn.len()
        ),
    );
    assert!(torn.is_empty(), "{torn:#?}");
}
