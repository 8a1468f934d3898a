//! Concurrency on a real directory (40 files per test, so rollbacks look at
//! and write them on two threads):
//!
//! - two and four rollbacks of one snapshot at once, round after round:
//!   the tree ends exactly as captured, no report calls a path unrestored
//!   that ends up restored, and no temp file is left (a run never deletes
//!   another run's temp file in flight);
//! - a human editing captured files while a guarded rollback
//!   (`on_conflict = skip`) runs: an edit that lands before a path's last
//!   look is kept and reported as a conflict; the only edits lost are those
//!   that land between that look and the rename, and the test measures how
//!   many there are and how wide that window is.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, rollback, CapRoot, CaptureOptions, OnConflict, ParseOptions, RecordOptions,
    RollbackOptions,
};
use common::{check_tree, read_native, TreeNode};
use reliability_sentinel::{env_count, figure, long_run, stray_temps, Rng};

/// Files of each test: enough for a rollback to look at and write them on
/// two threads (32 or more).
const SOURCES: usize = 40;

/// The project before the batch: files of a few sizes, a file the batch
/// turns into a directory, nested files.
fn seed(root: &Path, rng: &mut Rng) -> Vec<String> {
    let mut captured = Vec::new();
    for i in 0..SOURCES {
        let path = format!("src/m{i:02}.rs");
        let size = 1 + rng.below(64 << 10) as usize;
        common::write_native(
            root,
            &path,
            &TreeNode::File {
                bytes: rng.bytes(size),
                mode: 0o644,
            },
        )
        .unwrap();
        captured.push(path);
    }
    common::write_native(
        root,
        "flip",
        &TreeNode::File {
            bytes: b"a file".to_vec(),
            mode: 0o600,
        },
    )
    .unwrap();
    captured.extend(["flip".into(), "flip/inner".into()]);
    captured.extend([
        "gen/a/new1.rs".into(),
        "gen/a/new2.rs".into(),
        "gen/b.rs".into(),
    ]);
    captured
}

/// The batch: rewrite every source, flip `flip`, create the new files.
fn batch(root: &Path, rng: &mut Rng) {
    for i in 0..SOURCES {
        let full = root.join(format!("src/m{i:02}.rs"));
        let size = 1 + rng.below(64 << 10) as usize;
        std::fs::write(&full, rng.bytes(size)).unwrap();
    }
    std::fs::remove_file(root.join("flip")).unwrap();
    std::fs::create_dir(root.join("flip")).unwrap();
    std::fs::write(root.join("flip/inner"), b"inner").unwrap();
    std::fs::create_dir_all(root.join("gen/a")).unwrap();
    for p in ["gen/a/new1.rs", "gen/a/new2.rs", "gen/b.rs"] {
        std::fs::write(root.join(p), b"new").unwrap();
    }
}

#[test]
fn concurrent_rollbacks_of_one_snapshot_converge_and_tell_the_truth() {
    let rounds = env_count(
        "RELIABILITY_CONCURRENCY_ROUNDS",
        if long_run() { 1_000 } else { 100 },
    );
    let mut rng = Rng::from_env("concurrency");
    let tmp = tempfile::tempdir().unwrap();
    let root_dir = tmp.path().join("root");
    std::fs::create_dir(&root_dir).unwrap();
    let captured = seed(&root_dir, &mut rng);
    let original = read_native(&root_dir).unwrap();
    let root = CapRoot::open(&root_dir, ambient_authority()).unwrap();
    let text = capture(&root, &captured, &CaptureOptions::default()).unwrap();
    let snapshot = Arc::new(text.parse(&ParseOptions::default()).unwrap());
    let (mut runs, mut untruthful) = (0, Vec::new());
    for round in 0..rounds {
        let parallel = if round % 2 == 0 { 2 } else { 4 };
        batch(&root_dir, &mut rng);
        let barrier = Arc::new(Barrier::new(parallel));
        let handles: Vec<_> = (0..parallel)
            .map(|i| {
                let (barrier, snapshot, dir) =
                    (barrier.clone(), snapshot.clone(), root_dir.clone());
                std::thread::spawn(move || {
                    let root = CapRoot::open(&dir, ambient_authority()).unwrap();
                    let options = RollbackOptions::default()
                        .with_durable(i % 2 == 0)
                        .with_redo(i == 0);
                    barrier.wait();
                    rollback(&root, &snapshot, &options).unwrap()
                })
            })
            .collect();
        let reports: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        runs += parallel;
        check_tree(&original, &read_native(&root_dir).unwrap())
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        for report in &reports {
            // Every path ends restored: no report may say otherwise.
            for u in &report.unrestored {
                untruthful.push(format!(
                    "round {round}: {} [{}] {}",
                    u.path, u.code, u.reason
                ));
            }
        }
        assert_eq!(
            stray_temps(&root_dir),
            Vec::<String>::new(),
            "round {round}"
        );
    }
    figure(
        "concurrency",
        &format!(
            "{rounds} rounds of 2 and 4 rollbacks of one snapshot at once ({runs} rollbacks): \
             tree exact every round, {} paths wrongly reported unrestored, 0 temp files left",
            untruthful.len()
        ),
    );
    assert!(untruthful.is_empty(), "{untruthful:#?}");
}

/// One human edit: which file, what it wrote, and when it finished.
struct Edit {
    path: String,
    bytes: Vec<u8>,
    done: Instant,
}

#[test]
fn edits_during_a_guarded_rollback_are_kept_as_conflicts() {
    let wanted = env_count(
        "RELIABILITY_GUARD_EDITS",
        if long_run() { 5_000 } else { 500 },
    );
    let mut rng = Rng::from_env("guard");
    let tmp = tempfile::tempdir().unwrap();
    let root_dir = tmp.path().join("root");
    std::fs::create_dir(&root_dir).unwrap();
    let names: Vec<String> = (0..SOURCES).map(|i| format!("f{i:02}.txt")).collect();
    let (mut edits_total, mut kept, mut lost, mut after_rename, mut rounds) = (0, 0, 0, 0, 0);
    let mut kept_at_last_look = 0;
    // How long one guarded rollback takes here, to spread the edits over it.
    let mut span = Duration::from_millis(100);
    while edits_total < wanted {
        rounds += 1;
        for name in &names {
            std::fs::write(root_dir.join(name), rng.bytes(1 << 20)).unwrap();
        }
        let root = CapRoot::open(&root_dir, ambient_authority()).unwrap();
        let text = capture(&root, &names, &CaptureOptions::default()).unwrap();
        let captured = text.parse(&ParseOptions::default()).unwrap();
        // The batch, then its record.
        for name in &names {
            std::fs::write(root_dir.join(name), rng.bytes(900 << 10)).unwrap();
        }
        let applied = agent_checkpoint::record_applied(&root, &captured, &RecordOptions::default())
            .unwrap()
            .parse(&ParseOptions::default())
            .unwrap();
        // The human edits while the rollback runs, in place, as an editor saves.
        let stop = Arc::new(AtomicBool::new(false));
        let log: Arc<Mutex<Vec<Edit>>> = Arc::default();
        let started = Arc::new(AtomicUsize::new(0));
        let editor = {
            let (stop, log, started, dir, names) = (
                stop.clone(),
                log.clone(),
                started.clone(),
                root_dir.clone(),
                names.clone(),
            );
            let mut rng = Rng::new(rounds as u64);
            // Edits start at a different moment of each rollback: before its
            // decision, or while it writes (the first round only measures).
            let delay = if rounds == 1 {
                Duration::from_secs(3600)
            } else {
                span.mul_f64(rng.below(1_000) as f64 / 1_000.0)
            };
            std::thread::spawn(move || {
                started.store(1, Ordering::SeqCst);
                let begin = Instant::now();
                while !stop.load(Ordering::SeqCst) && begin.elapsed() < delay {
                    std::thread::sleep(Duration::from_micros(200));
                }
                while !stop.load(Ordering::SeqCst) {
                    let path = names[rng.below(names.len() as u64) as usize].clone();
                    let bytes = format!("human edit {} {}", rng.below(u64::MAX), path).into_bytes();
                    std::fs::write(dir.join(&path), &bytes).unwrap();
                    log.lock().unwrap().push(Edit {
                        path,
                        bytes,
                        done: Instant::now(),
                    });
                    std::thread::sleep(Duration::from_micros(2_000));
                }
            })
        };
        while started.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        let options = RollbackOptions::default()
            .with_durable(false)
            .with_on_conflict(OnConflict::Skip);
        let began = Instant::now();
        let report = rollback(&root, &applied, &options).unwrap();
        let finished = Instant::now();
        if rounds == 1 {
            span = finished - began;
        }
        // Conflicts the decision saw, and those the last look before a
        // rename caught (the path changed while the rollback ran).
        let decided = report
            .plan
            .with_action(agent_checkpoint::PlanAction::Conflict)
            .count();
        kept_at_last_look += report.conflicts.len() - decided;
        stop.store(true, Ordering::SeqCst);
        editor.join().unwrap();
        let edits = std::mem::take(&mut *log.lock().unwrap());
        // The last edit of each path that landed before the rollback ended.
        let mut last: BTreeMap<&str, &Edit> = BTreeMap::new();
        for edit in edits.iter().filter(|e| e.done <= finished) {
            last.insert(edit.path.as_str(), edit);
        }
        edits_total += edits.len();
        for (path, edit) in &last {
            let now = std::fs::read(root_dir.join(path)).unwrap();
            if report.conflicts.iter().any(|c| c == path) {
                kept += 1;
                assert!(
                    edits.iter().any(|e| e.path == *path && e.bytes == now),
                    "{path}: a conflict, but its edit is gone"
                );
            } else if edits.iter().any(|e| e.path == *path && e.bytes == now) {
                // Edited again after the rollback wrote it: nothing lost.
                after_rename += 1;
            } else {
                // Restored over an edit: it landed between the last look and the rename.
                let _ = edit;
                lost += 1;
            }
        }
    }
    let window = measure_window(&root_dir);
    figure(
        "guard",
        &format!(
            "{edits_total} edits in {rounds} guarded rollbacks: {kept} paths kept as conflicts \
             ({kept_at_last_look} of them caught by the last look before the rename), \
             {after_rename} edited again after their rename, {lost} edits lost inside the \
             last-look-to-rename window (an lstat and a rename take {:.1} us on this disk)",
            window.as_secs_f64() * 1e6
        ),
    );
    assert!(
        kept > 0,
        "no edit landed during a rollback: the test proves nothing"
    );
    assert!(
        kept_at_last_look > 0,
        "no edit landed while the rollback wrote: the last look was never tested"
    );
    // What is lost can only be the few instructions of the window.
    assert!(
        lost * 20 <= kept.max(1),
        "{lost} edits lost against {kept} kept: more than the window explains"
    );
}

/// How long the window is: the last look (an `lstat`) to the rename, timed
/// over many renames of a small file in `dir`.
fn measure_window(dir: &Path) -> Duration {
    let target = dir.join("window-probe");
    let temp = dir.join(".window-probe.tmp");
    std::fs::write(&target, b"x").unwrap();
    let n = 2_000;
    let mut total = Duration::ZERO;
    for _ in 0..n {
        std::fs::write(&temp, b"y").unwrap();
        let start = Instant::now();
        let _ = std::fs::symlink_metadata(&target).unwrap();
        std::fs::rename(&temp, &target).unwrap();
        total += start.elapsed();
    }
    std::fs::remove_file(&target).unwrap();
    total / n
}
