//! Attacks on the two-thread rollback writes (`MIN_PARALLEL_WRITES`),
//! the look-again of a path that changed type while looked at, and
//! `CapRoot::replace_with` re-checking a directory raced away before its
//! removal. Every test captures 40+ files so the two-thread paths run.
//! Run it a second time with `AGENT_CHECKPOINT_PORTABLE_WALK=1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;

use common::hooked::Hooked;

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, plan_rollback, record_applied, CapRoot, CaptureOptions, ErrorCode, OnConflict,
    OnProgress, PlanAction, ProgressStage, RecordOptions, RollbackOptions,
};

fn cap(dir: &Path) -> CapRoot {
    CapRoot::open(dir, ambient_authority()).unwrap()
}

/// A progress call: the thread, the stage, done, total.
type Seen = (std::thread::ThreadId, ProgressStage, u64, u64);

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

/// A root and a sentinel `outside/` next to it, holding `b/` (so a raced
/// link to it has a `b` to walk into) and files named like the captured
/// ones.
fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().canonicalize().unwrap();
    let root = top.join("root");
    let outside = top.join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(outside.join("b")).unwrap();
    for i in 0..45 {
        std::fs::write(outside.join(format!("b/f{i:02}")), "OUTSIDE").unwrap();
        std::fs::write(outside.join(format!("f{i:02}")), "OUTSIDE").unwrap();
    }
    std::fs::write(outside.join("t"), "OUTSIDE t").unwrap();
    Setup {
        _tmp: tmp,
        root,
        outside,
    }
}

fn content(i: usize) -> String {
    format!("captured {i} {}", "x".repeat(i))
}

/// `gen/a/b/f00..f39` and `top/g00..g39` with their captured bytes; the
/// snapshot of them (taken as they are).
fn deep_tree(dir: &Path) -> String {
    std::fs::create_dir_all(dir.join("gen/a/b")).unwrap();
    std::fs::create_dir_all(dir.join("top")).unwrap();
    let mut paths = Vec::new();
    for i in 0..40 {
        std::fs::write(dir.join(format!("gen/a/b/f{i:02}")), content(i)).unwrap();
        std::fs::write(dir.join(format!("top/g{i:02}")), content(i)).unwrap();
        paths.push(format!("gen/a/b/f{i:02}"));
        paths.push(format!("top/g{i:02}"));
    }
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    capture(&cap(dir), &paths, &CaptureOptions::default())
        .unwrap()
        .into_string()
}

fn deep_paths() -> Vec<String> {
    (0..40)
        .flat_map(|i| [format!("gen/a/b/f{i:02}"), format!("top/g{i:02}")])
        .collect()
}

fn captured_of(path: &str) -> String {
    content(path[path.len() - 2..].parse().unwrap())
}

/// Edits every captured file and removes `gen` altogether.
fn batch_on_deep_tree(dir: &Path) {
    std::fs::remove_dir_all(dir.join("gen")).unwrap();
    for i in 0..40 {
        std::fs::write(dir.join(format!("top/g{i:02}")), "batch").unwrap();
    }
}

// ---------------------------------------------------------------------------
// 1. Shared missing parents.

/// 80 writes, 40 of them below the same three missing directories, made by
/// whichever thread comes first: all restored, report ok, every byte back.
#[test]
fn shared_missing_parents_are_made_once_and_all_restored() {
    for _ in 0..20 {
        let s = setup();
        let dir = &s.root;
        let text = deep_tree(dir);
        batch_on_deep_tree(dir);
        let report = common::rollback_text(&cap(dir), &text, &RollbackOptions::default());
        assert!(report.ok(), "{report:?}");
        assert_eq!(report.restored.len(), 80);
        for p in deep_paths() {
            assert_eq!(
                std::fs::read_to_string(dir.join(&p)).unwrap(),
                captured_of(&p),
                "{p}"
            );
        }
        // Durable (the default) and not: also with the hooked root on two threads.
        std::fs::remove_dir_all(dir.join("gen")).unwrap();
        let root = cap(dir);
        let hooked = Hooked::over(&root, true);
        let options = RollbackOptions::default().with_durable(false);
        let report = common::rollback_text(&hooked, &text, &options);
        assert!(report.ok(), "{report:?}");
    }
}

/// While the writes run, `gen/a` (made by the rollback) is swapped for a
/// symlink to the outside (which has a `b/` with files named like the
/// captured ones): nothing outside changes; paths below `gen/a` are either
/// restored (written before the swap, into the moved directory) or
/// unrestored with a typed error; `top/*` all restored.
#[test]
fn parent_raced_into_an_outside_symlink_during_parallel_writes() {
    for at in ["gen/a/b/f00", "gen/a/b/f05", "gen/a/b/f17", "gen/a/b/f33"] {
        for relative in [false, true] {
            let s = setup();
            let dir = &s.root;
            let text = deep_tree(dir);
            batch_on_deep_tree(dir);
            let outside_before = common::entries_under(&s.outside);
            let root = cap(dir);
            let (a, outside) = (dir.join("gen/a"), s.outside.clone());
            // The other thread may be making `gen/a` right now: retry.
            let swap = move || loop {
                let _ = std::fs::rename(&a, a.with_file_name("a.moved"));
                let linked = if relative {
                    symlink("../../outside", &a)
                } else {
                    symlink(&outside, &a)
                };
                match linked {
                    Ok(()) => break,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        let _ = std::fs::create_dir_all(a.parent().unwrap());
                    }
                    Err(_) => {}
                }
            };
            let hooked = Hooked::over(&root, true).on_write(at, swap);
            let report = common::rollback_text(&hooked, &text, &RollbackOptions::default());
            assert!(report.valid(), "{report:?}");
            assert_eq!(
                common::entries_under(&s.outside),
                outside_before,
                "{at}: written outside"
            );
            assert!(
                std::fs::read_link(dir.join("gen/a")).is_ok(),
                "the link itself is left"
            );
            let unrestored: BTreeMap<&str, ErrorCode> = report
                .unrestored
                .iter()
                .map(|u| (u.path.as_str(), u.code))
                .collect();
            for p in deep_paths() {
                let restored = report.restored.contains(&p);
                assert_ne!(restored, unrestored.contains_key(p.as_str()), "{p}");
                if p.starts_with("top/") {
                    assert!(restored, "{p}");
                    assert_eq!(
                        std::fs::read_to_string(dir.join(&p)).unwrap(),
                        captured_of(&p)
                    );
                } else if restored {
                    // Written before the swap: it is in the moved directory.
                    let moved = dir.join("gen/a.moved").join(&p["gen/a/".len()..]);
                    assert_eq!(
                        std::fs::read_to_string(moved).unwrap(),
                        captured_of(&p),
                        "{p}"
                    );
                } else {
                    let code = unrestored[p.as_str()];
                    assert!(
                        matches!(
                            code,
                            ErrorCode::NotADirectory
                                | ErrorCode::PathEscapesRoot
                                | ErrorCode::Io
                                | ErrorCode::NotFound
                        ),
                        "{p}: {code:?}"
                    );
                }
            }
            assert!(
                !unrestored.is_empty() || at == "gen/a/b/f33",
                "{at}: nothing refused: {report:?}"
            );
        }
    }
}

/// A real racing thread flips `gen/a` between missing, a directory and a
/// symlink to the outside while 80 writes run on two threads: nothing
/// outside ever changes.
#[test]
fn racing_thread_flips_a_parent_into_an_outside_symlink() {
    let runs = 30;
    for _ in 0..runs {
        let s = setup();
        let dir = &s.root;
        let text = deep_tree(dir);
        batch_on_deep_tree(dir);
        let outside_before = common::entries_under(&s.outside);
        let stop = Arc::new(AtomicBool::new(false));
        let racer = {
            let (stop, a, outside) = (stop.clone(), dir.join("gen/a"), s.outside.clone());
            std::thread::spawn(move || {
                let moved = a.with_file_name("a.moved");
                let mut n = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let _ = std::fs::remove_dir_all(&moved);
                    if std::fs::rename(&a, &moved).is_ok() || n.is_multiple_of(3) {
                        let _ = symlink(&outside, &a);
                        std::thread::yield_now();
                        let _ = std::fs::remove_file(&a);
                    }
                }
            })
        };
        let report = common::rollback_text(&cap(dir), &text, &RollbackOptions::default());
        stop.store(true, Ordering::Relaxed);
        racer.join().unwrap();
        assert!(report.valid(), "{report:?}");
        assert_eq!(
            common::entries_under(&s.outside),
            outside_before,
            "written outside"
        );
        for p in deep_paths() {
            let restored = report.restored.contains(&p);
            let unrestored = report.unrestored.iter().any(|u| u.path == p);
            assert_ne!(restored, unrestored, "{p}");
            if p.starts_with("top/") {
                assert!(restored, "{p}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 2. A file raced where a missing parent must be made.

/// When the racing file appears at `gen/a`.
#[derive(Clone, Copy)]
enum Plant {
    /// Right after the rollback makes `gen`.
    AfterMkdirOfGen,
    /// After the rollback looked at `gen/a` (missing), right before it
    /// makes the directory there.
    BeforeMkdirOfGenA,
}

/// Rolls the deep tree back while a file appears at `gen/a` at `when`,
/// and returns the run in which the file got there first. With two
/// threads, the other writer may make `gen/a` before the hook writes the
/// file (the hook runs once, on the thread that reached its moment): then
/// nothing raced, every path must be restored (checked), and it runs again.
fn rollback_with_a_file_raced_at_gen_a(sync: bool, when: Plant) -> (Setup, common::TextReport) {
    for _ in 0..50 {
        let s = setup();
        let dir = &s.root;
        let text = deep_tree(dir);
        batch_on_deep_tree(dir);
        let root = cap(dir);
        let planted = Arc::new(AtomicBool::new(false));
        let plant = {
            let (planted, a) = (planted.clone(), dir.join("gen/a"));
            // Fails only when `gen/a` is a directory already.
            move || {
                planted.store(
                    std::fs::write(&a, "a file, not a dir").is_ok(),
                    Ordering::SeqCst,
                )
            }
        };
        let hooked = match when {
            Plant::AfterMkdirOfGen => Hooked::over(&root, sync).on_mkdir("gen", plant),
            Plant::BeforeMkdirOfGenA => Hooked::over(&root, sync).before_mkdir("gen/a", plant),
        };
        let report = common::rollback_text(&hooked, &text, &RollbackOptions::default());
        assert!(report.valid(), "{report:?}");
        if planted.load(Ordering::SeqCst) {
            assert_eq!(
                std::fs::read_to_string(dir.join("gen/a")).unwrap(),
                "a file, not a dir"
            );
            return (s, report);
        }
        assert!(sync, "on one thread the file always gets there first");
        assert!(report.ok(), "nothing raced, so all restored: {report:?}");
    }
    panic!("the other writer made gen/a first in 50 runs");
}

/// Right after the rollback makes `gen`, a file appears at `gen/a` (the
/// next parent to make): every path below it is unrestored with
/// `not_a_directory`, nothing is written through or over the file.
#[test]
fn file_raced_where_a_missing_parent_is_made() {
    for sync in [true, false] {
        let (_s, report) = rollback_with_a_file_raced_at_gen_a(sync, Plant::AfterMkdirOfGen);
        let codes: BTreeMap<&str, ErrorCode> = report
            .unrestored
            .iter()
            .map(|u| (u.path.as_str(), u.code))
            .collect();
        for p in deep_paths() {
            if p.starts_with("gen/") {
                assert_eq!(
                    codes.get(p.as_str()),
                    Some(&ErrorCode::NotADirectory),
                    "sync {sync}: {p}: {:?}",
                    report.unrestored.iter().find(|u| u.path == p)
                );
            } else {
                assert!(report.restored.contains(&p));
            }
        }
    }
}

/// The file appears at `gen/a` after the rollback looked (missing) and
/// right before it makes the directory there: the paths below it are
/// unrestored with `not_a_directory` too (what a look a moment later says),
/// not with the `mkdir`'s "file exists".
#[test]
fn file_raced_between_the_look_and_the_mkdir_of_a_parent() {
    for sync in [true, false] {
        let (_s, report) = rollback_with_a_file_raced_at_gen_a(sync, Plant::BeforeMkdirOfGenA);
        for p in deep_paths() {
            if p.starts_with("gen/") {
                let u = report.unrestored.iter().find(|u| u.path == p);
                assert_eq!(
                    u.map(|u| u.code),
                    Some(ErrorCode::NotADirectory),
                    "sync {sync}: {p}: {u:?}"
                );
            } else {
                assert!(report.restored.contains(&p));
            }
        }
    }
}

/// The same with the file placed before the first write (the parent is
/// missing at the plan, a file at the write).
#[test]
fn file_placed_where_a_missing_parent_goes_before_the_writes() {
    let s = setup();
    let dir = &s.root;
    let text = deep_tree(dir);
    batch_on_deep_tree(dir);
    let root = cap(dir);
    // The first write of each thread (blocks of 16: f00 and f16): whichever hook runs
    // first places the file, both writes come after it.
    let place = |gen: PathBuf| {
        move || {
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&gen)
                .map(|mut f| std::io::Write::write_all(&mut f, b"a file").unwrap());
        }
    };
    let hooked = Hooked::over(&root, true)
        .on_write("gen/a/b/f00", place(dir.join("gen")))
        .on_write("gen/a/b/f16", place(dir.join("gen")));
    let report = common::rollback_text(&hooked, &text, &RollbackOptions::default());
    assert_eq!(std::fs::read_to_string(dir.join("gen")).unwrap(), "a file");
    for p in deep_paths().iter().filter(|p| p.starts_with("gen/")) {
        let u = report.unrestored.iter().find(|u| &u.path == p).unwrap();
        assert_eq!(u.code, ErrorCode::NotADirectory, "{u:?}");
    }
    assert_eq!(report.restored.len(), 40);
}

trait ParseSnapshot {
    fn parse_snapshot(&self) -> agent_checkpoint::Snapshot;
}

impl ParseSnapshot for String {
    fn parse_snapshot(&self) -> agent_checkpoint::Snapshot {
        agent_checkpoint::Snapshot::parse(self, &Default::default()).unwrap()
    }
}

// ---------------------------------------------------------------------------
// 3. Guarded rollback with edits during it.

fn flat_tree(dir: &Path, n: usize) -> String {
    let mut paths = Vec::new();
    for i in 0..n {
        std::fs::write(dir.join(format!("f{i:02}")), content(i)).unwrap();
        paths.push(format!("f{i:02}"));
    }
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    capture(&cap(dir), &paths, &CaptureOptions::default())
        .unwrap()
        .into_string()
}

/// With nothing racing, `report.plan` is what `plan_rollback` said just
/// before, and the rollback does exactly that.
#[test]
fn guarded_rollback_does_what_the_plan_said() {
    let s = setup();
    let dir = &s.root;
    let text = flat_tree(dir, 48);
    for i in 0..48 {
        std::fs::write(dir.join(format!("f{i:02}")), format!("batch {i}")).unwrap();
    }
    let applied =
        record_applied(&cap(dir), &text.parse_snapshot(), &RecordOptions::default()).unwrap();
    // Some edited by the user after the batch: foreseen conflicts.
    for i in [3, 20, 41] {
        std::fs::write(dir.join(format!("f{i:02}")), "user, longer edit").unwrap();
    }
    let options = RollbackOptions::default().with_on_conflict(OnConflict::Skip);
    let snapshot = applied.into_string().parse_snapshot();
    let plan = plan_rollback(&cap(dir), &snapshot, &options.plan_options()).unwrap();
    let report = agent_checkpoint::rollback(&cap(dir), &snapshot, &options).unwrap();
    assert_eq!(report.plan, plan);
    let conflicts: Vec<String> = plan
        .with_action(PlanAction::Conflict)
        .map(|i| i.path.clone())
        .collect();
    assert_eq!(conflicts, ["f03", "f20", "f41"]);
    assert_eq!(report.conflicts, conflicts);
    assert_eq!(report.restored.len(), 45);
    for i in 0..48 {
        let now = std::fs::read_to_string(dir.join(format!("f{i:02}"))).unwrap();
        if [3, 20, 41].contains(&i) {
            assert_eq!(now, "user, longer edit");
        } else {
            assert_eq!(now, content(i));
        }
    }
}

/// Edits that land right before the write of their path (after the plan,
/// before the last look), on both threads: each is kept and reported a
/// conflict; every other path is restored.
#[test]
fn guarded_rollback_keeps_edits_landing_before_the_last_look() {
    let edited = [0usize, 7, 15, 16, 31, 32, 47, 63];
    for how in ["in place", "replaced", "removed", "dir", "link"] {
        let s = setup();
        let dir = &s.root;
        let text = flat_tree(dir, 64);
        for i in 0..64 {
            std::fs::write(dir.join(format!("f{i:02}")), format!("batch {i}")).unwrap();
        }
        let applied =
            record_applied(&cap(dir), &text.parse_snapshot(), &RecordOptions::default()).unwrap();
        let root = cap(dir);
        let mut hooked = Hooked::over(&root, true);
        for i in edited {
            let (f, outside) = (dir.join(format!("f{i:02}")), s.outside.clone());
            hooked = hooked.on_write(&format!("f{i:02}"), move || match how {
                "in place" => std::fs::write(&f, format!("user {i}")).unwrap(),
                "replaced" => {
                    let tmp = f.with_extension("tmp");
                    std::fs::write(&tmp, format!("batch {i}")).unwrap();
                    std::fs::rename(&tmp, &f).unwrap();
                }
                "removed" => std::fs::remove_file(&f).unwrap(),
                "dir" => {
                    std::fs::remove_file(&f).unwrap();
                    std::fs::create_dir(&f).unwrap();
                }
                _ => {
                    std::fs::remove_file(&f).unwrap();
                    symlink(outside.join("t"), &f).unwrap();
                }
            });
        }
        let options = RollbackOptions::default().with_on_conflict(OnConflict::Skip);
        let snapshot = applied.into_string().parse_snapshot();
        let report = agent_checkpoint::rollback(&hooked, &snapshot, &options).unwrap();
        let want: Vec<String> = edited.iter().map(|i| format!("f{i:02}")).collect();
        assert_eq!(report.conflicts, want, "{how}: {report:?}");
        assert!(report.unrestored.is_empty(), "{how}: {report:?}");
        assert_eq!(report.restored.len(), 64 - edited.len());
        assert_eq!(
            std::fs::read_to_string(s.outside.join("t")).unwrap(),
            "OUTSIDE t"
        );
        for i in 0..64 {
            let p = dir.join(format!("f{i:02}"));
            if !edited.contains(&i) {
                assert_eq!(std::fs::read_to_string(&p).unwrap(), content(i));
                continue;
            }
            match how {
                "in place" => assert_eq!(std::fs::read_to_string(&p).unwrap(), format!("user {i}")),
                "replaced" => {
                    assert_eq!(std::fs::read_to_string(&p).unwrap(), format!("batch {i}"))
                }
                "removed" => assert!(std::fs::symlink_metadata(&p).is_err()),
                "dir" => assert!(std::fs::symlink_metadata(&p).unwrap().is_dir()),
                _ => assert!(std::fs::symlink_metadata(&p)
                    .unwrap()
                    .file_type()
                    .is_symlink()),
            }
        }
    }
}

/// A real thread edits files (in place, with a new size) while a guarded
/// rollback runs: a path reported a conflict holds the user's edit; a path
/// reported restored holds the snapshot's bytes or an edit made after its
/// rename, never the batch's bytes.
#[test]
fn guarded_rollback_with_a_racing_editor() {
    for _ in 0..20 {
        let s = setup();
        let dir = &s.root;
        let text = flat_tree(dir, 64);
        for i in 0..64 {
            std::fs::write(dir.join(format!("f{i:02}")), format!("batch {i}")).unwrap();
        }
        let applied =
            record_applied(&cap(dir), &text.parse_snapshot(), &RecordOptions::default()).unwrap();
        let snapshot = applied.into_string().parse_snapshot();
        let go = Arc::new(AtomicBool::new(false));
        let editor = {
            let (go, dir) = (go.clone(), dir.clone());
            std::thread::spawn(move || {
                while !go.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
                for i in (0..64).step_by(5) {
                    std::fs::write(dir.join(format!("f{i:02}")), format!("user edit {i}")).unwrap();
                }
            })
        };
        let options = RollbackOptions::default().with_on_conflict(OnConflict::Skip);
        go.store(true, Ordering::Relaxed);
        let report = agent_checkpoint::rollback(&cap(dir), &snapshot, &options).unwrap();
        editor.join().unwrap();
        assert!(report.unrestored.is_empty(), "{report:?}");
        for i in 0..64 {
            let p = format!("f{i:02}");
            let now = std::fs::read_to_string(dir.join(&p)).unwrap();
            assert_ne!(
                now,
                format!("batch {i}"),
                "{p}: batch bytes left, {report:?}"
            );
            if report.conflicts.contains(&p) {
                assert_eq!(now, format!("user edit {i}"), "{p}");
            } else {
                assert!(report.restored.contains(&p));
                assert!(
                    now == content(i) || now == format!("user edit {i}"),
                    "{p}: {now}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 4. A directory in the way (type flip) raced at its removal.

/// `t` captured as a file, made an (empty) directory by the batch, with 48
/// other files: the snapshot, applied state recorded or not.
fn type_flip(dir: &Path) -> (String, String) {
    let text = {
        std::fs::write(dir.join("t"), "captured t").unwrap();
        let mut paths = vec!["t".to_owned()];
        for i in 0..48 {
            std::fs::write(dir.join(format!("f{i:02}")), content(i)).unwrap();
            paths.push(format!("f{i:02}"));
        }
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        capture(&cap(dir), &paths, &CaptureOptions::default())
            .unwrap()
            .into_string()
    };
    std::fs::remove_file(dir.join("t")).unwrap();
    std::fs::create_dir(dir.join("t")).unwrap();
    for i in 0..48 {
        std::fs::write(dir.join(format!("f{i:02}")), "batch").unwrap();
    }
    let applied = record_applied(&cap(dir), &text.parse_snapshot(), &RecordOptions::default())
        .unwrap()
        .into_string();
    (text, applied)
}

/// Right before the write of `t`, the directory there becomes a symlink to
/// the outside, a file, or a non-empty directory. Unguarded: the link or
/// file is replaced (never written through), a non-empty directory refused.
/// Guarded: each is a conflict, left as it is. Never an outside byte changed.
#[test]
fn directory_in_the_way_replaced_before_its_removal() {
    for guarded in [false, true] {
        for what in ["link", "file", "full dir", "gone"] {
            for sync in [true, false] {
                let s = setup();
                let dir = &s.root;
                let (text, applied) = type_flip(dir);
                let outside_before = common::entries_under(&s.outside);
                let root = cap(dir);
                let (t, outside) = (dir.join("t"), s.outside.clone());
                let hooked = Hooked::over(&root, sync).on_write("t", move || {
                    std::fs::remove_dir(&t).unwrap();
                    match what {
                        "link" => symlink(outside.join("t"), &t).unwrap(),
                        "file" => std::fs::write(&t, "user file").unwrap(),
                        "full dir" => {
                            std::fs::create_dir(&t).unwrap();
                            std::fs::write(t.join("x"), "user").unwrap();
                        }
                        _ => {}
                    }
                });
                let (snap, options) = if guarded {
                    (
                        applied.as_str(),
                        RollbackOptions::default().with_on_conflict(OnConflict::Skip),
                    )
                } else {
                    (text.as_str(), RollbackOptions::default())
                };
                let report = common::rollback_text(&hooked, snap, &options);
                let ctx = format!("guarded {guarded} {what} sync {sync}: {report:?}");
                assert!(report.valid(), "{ctx}");
                assert_eq!(common::entries_under(&s.outside), outside_before, "{ctx}");
                let t = dir.join("t");
                let meta = || std::fs::symlink_metadata(&t);
                let restored = report.restored.contains(&"t".to_owned());
                if restored {
                    assert_eq!(std::fs::read_to_string(&t).unwrap(), "captured t", "{ctx}");
                    assert!(meta().unwrap().is_file());
                }
                if guarded {
                    assert_eq!(report.conflicts, ["t"], "{ctx}");
                    match what {
                        "link" => assert!(meta().unwrap().file_type().is_symlink()),
                        "file" => assert_eq!(std::fs::read_to_string(&t).unwrap(), "user file"),
                        "full dir" => assert!(t.join("x").exists()),
                        _ => assert!(meta().is_err()),
                    }
                } else if what == "full dir" {
                    assert!(!restored, "{ctx}");
                    assert!(t.join("x").exists());
                } else {
                    assert!(restored, "{ctx}");
                }
                assert_eq!(
                    report.restored.len() + report.conflicts.len() + report.unrestored.len(),
                    49,
                    "{ctx}"
                );
            }
        }
    }
}

/// A real thread keeps replacing the directory `t` (captured a file) with a
/// symlink to the outside and back, while rollbacks (guarded or not) run on
/// two threads: no outside byte ever changes; a restored `t` was a file
/// with the captured bytes when reported.
#[test]
fn racing_thread_swaps_the_directory_in_the_way_for_an_outside_link() {
    let runs: usize = std::env::var("ATTACK_RACE_RUNS").map_or(60, |v| v.parse().unwrap());
    for run in 0..runs {
        let guarded = run % 2 == 1;
        let s = setup();
        let dir = &s.root;
        let (text, applied) = type_flip(dir);
        let outside_before = common::entries_under(&s.outside);
        let stop = Arc::new(AtomicBool::new(false));
        let racer = {
            let (stop, t, outside) = (stop.clone(), dir.join("t"), s.outside.clone());
            std::thread::spawn(move || {
                // A link cannot be renamed over a directory: the
                // directory is removed, then the link made (two steps, the
                // window `replace_with` re-checks), then back to a directory.
                let mut n = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    if std::fs::remove_dir(&t).is_ok() {
                        if n.is_multiple_of(2) {
                            let _ = symlink(outside.join("t"), &t);
                        } else {
                            let _ = std::fs::write(&t, "user file");
                        }
                        std::thread::yield_now();
                        // Only what the racer put there is taken back.
                        if std::fs::symlink_metadata(&t).is_ok_and(|m| {
                            m.file_type().is_symlink() || m.len() == "user file".len() as u64
                        }) {
                            let _ = std::fs::remove_file(&t);
                            let _ = std::fs::create_dir(&t);
                        }
                    }
                }
            })
        };
        let (snap, options) = if guarded {
            (
                applied.as_str(),
                RollbackOptions::default().with_on_conflict(OnConflict::Skip),
            )
        } else {
            (text.as_str(), RollbackOptions::default())
        };
        let report = common::rollback_text(&cap(dir), snap, &options);
        stop.store(true, Ordering::Relaxed);
        racer.join().unwrap();
        assert!(report.valid(), "{report:?}");
        assert_eq!(
            common::entries_under(&s.outside),
            outside_before,
            "run {run}: written outside"
        );
        assert_eq!(
            report.restored.len() + report.conflicts.len() + report.unrestored.len(),
            49
        );
    }
}

// ---------------------------------------------------------------------------
// 5. Progress with parallel writes.

/// A progress callback that records every call, and what it recorded.
fn recorder() -> (Arc<Mutex<Vec<Seen>>>, OnProgress) {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let on = {
        let seen = seen.clone();
        OnProgress::new(move |p| {
            seen.lock()
                .unwrap()
                .push((std::thread::current().id(), p.stage, p.done, p.total));
        })
    };
    (seen, on)
}

/// Every progress call came on this (the calling) thread; the restore
/// stage's counts never go back, its total is the number of changes
/// `plan` lists, and it ends there.
fn check_restore_progress(seen: &[Seen], plan: &agent_checkpoint::Plan) {
    let changes = plan
        .items
        .iter()
        .filter(|i| {
            matches!(
                i.action,
                PlanAction::Write | PlanAction::Remove | PlanAction::Rmdir
            )
        })
        .count() as u64;
    let me = std::thread::current().id();
    let restore: Vec<_> = seen
        .iter()
        .filter(|s| s.1 == ProgressStage::Restore)
        .collect();
    assert!(seen.iter().all(|s| s.0 == me), "called on another thread");
    assert!(
        restore.windows(2).all(|w| w[0].2 <= w[1].2),
        "not monotone: {restore:?}"
    );
    assert!(
        restore.iter().all(|s| s.3 == changes && s.2 <= s.3),
        "{restore:?}"
    );
    assert_eq!(restore.last().map(|s| s.2), Some(changes), "{restore:?}");
}

/// The callback is called on the calling thread, its counts never go back,
/// and the restore stage ends at the number of changes.
#[test]
fn progress_on_the_calling_thread_monotone_and_complete() {
    let s = setup();
    let dir = &s.root;
    let text = deep_tree(dir);
    batch_on_deep_tree(dir);
    std::fs::write(dir.join("top/new"), "new").unwrap();
    let (seen, on) = recorder();
    let options = RollbackOptions::default().with_progress(Some(on));
    let report = common::rollback_text(&cap(dir), &text, &options);
    assert!(report.ok(), "{report:?}");
    check_restore_progress(&seen.lock().unwrap(), &report.plan);
}

/// A callback that panics midway through the writes: the panic reaches the
/// caller only after every write was carried out (the tree fully restored).
#[test]
fn panicking_progress_does_not_leave_a_half_restored_tree() {
    for at in [0u64, 1, 20, 40, 79] {
        let s = setup();
        let dir = &s.root;
        let text = deep_tree(dir);
        batch_on_deep_tree(dir);
        let on = OnProgress::new(move |p| {
            if p.stage == ProgressStage::Restore && p.done == at {
                panic!("progress panics at {at}");
            }
        });
        let options = RollbackOptions::default().with_progress(Some(on));
        let root = cap(dir);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            common::rollback_text(&root, &text, &options)
        }));
        assert!(caught.is_err(), "the panic was swallowed");
        for p in deep_paths() {
            assert_eq!(
                std::fs::read_to_string(dir.join(&p)).unwrap(),
                captured_of(&p),
                "at {at}: {p} not restored"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// 6. The plan, the rollback and its progress agree on a mixed tree.

/// 48 edited files, removed ones, a type flip each way, a link, new files
/// in new directories to prune: `report.plan` is `plan_rollback`'s, every
/// step is carried out (a second plan keeps everything), the progress ends
/// at the number of changes, on the calling thread.
#[test]
fn mixed_tree_plan_rollback_and_progress_agree() {
    for guarded in [false, true] {
        let s = setup();
        let dir = &s.root;
        std::fs::create_dir_all(dir.join("d")).unwrap();
        std::fs::create_dir_all(dir.join("x")).unwrap();
        let mut paths = Vec::new();
        for i in 0..48 {
            std::fs::write(dir.join(format!("d/f{i:02}")), content(i)).unwrap();
            paths.push(format!("d/f{i:02}"));
        }
        std::fs::write(dir.join("flip"), "a file").unwrap();
        std::fs::write(dir.join("x/y"), "in x").unwrap();
        symlink("d/f00", dir.join("ln")).unwrap();
        paths.extend(["flip", "x/y", "ln", "n1/n2/new", "n1/other"].map(String::from));
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        let text = capture(&cap(dir), &paths, &CaptureOptions::default())
            .unwrap()
            .into_string();
        // The batch.
        for i in 0..48 {
            if i % 3 == 0 {
                std::fs::remove_file(dir.join(format!("d/f{i:02}"))).unwrap();
            } else {
                std::fs::write(dir.join(format!("d/f{i:02}")), "batch").unwrap();
            }
        }
        std::fs::remove_file(dir.join("flip")).unwrap();
        std::fs::create_dir(dir.join("flip")).unwrap();
        std::fs::remove_dir_all(dir.join("x")).unwrap();
        std::fs::write(dir.join("x"), "x is a file now").unwrap();
        std::fs::remove_file(dir.join("ln")).unwrap();
        symlink("d/f01", dir.join("ln")).unwrap();
        std::fs::create_dir_all(dir.join("n1/n2")).unwrap();
        std::fs::write(dir.join("n1/n2/new"), "new").unwrap();
        std::fs::write(dir.join("n1/other"), "new").unwrap();
        let snapshot = if guarded {
            record_applied(&cap(dir), &text.parse_snapshot(), &RecordOptions::default())
                .unwrap()
                .into_string()
                .parse_snapshot()
        } else {
            text.parse_snapshot()
        };
        let (seen, on) = recorder();
        let mut options = RollbackOptions::default().with_progress(Some(on));
        if guarded {
            options = options.with_on_conflict(OnConflict::Skip);
        }
        let plan = plan_rollback(&cap(dir), &snapshot, &options.plan_options()).unwrap();
        seen.lock().unwrap().clear();
        let report = agent_checkpoint::rollback(&cap(dir), &snapshot, &options).unwrap();
        assert_eq!(report.plan, plan, "guarded {guarded}");
        // `x` (a file the batch made where a captured directory was) is
        // refused by design, in the plan and the rollback alike.
        assert_eq!(report.unrestored.len(), 1, "guarded {guarded}: {report:?}");
        assert_eq!(report.unrestored[0].path, "x/y");
        assert_eq!(report.unrestored[0].code, ErrorCode::NotADirectory);
        assert_eq!(report.restored.len(), 48 + 4, "{report:?}");
        assert!(report.conflicts.is_empty());
        check_restore_progress(&seen.lock().unwrap(), &plan);
        let again = plan_rollback(&cap(dir), &snapshot, &options.plan_options()).unwrap();
        assert!(
            again
                .items
                .iter()
                .all(|i| i.action == PlanAction::Keep || i.path == "x/y"),
            "guarded {guarded}: {:?}",
            again
                .items
                .iter()
                .filter(|i| i.action != PlanAction::Keep)
                .collect::<Vec<_>>()
        );
        assert_eq!(std::fs::read_to_string(dir.join("flip")).unwrap(), "a file");
        assert_eq!(
            std::fs::read_to_string(dir.join("x")).unwrap(),
            "x is a file now"
        );
        assert_eq!(
            std::fs::read_link(dir.join("ln")).unwrap(),
            Path::new("d/f00")
        );
        assert!(!dir.join("n1").exists());
        for i in 0..48 {
            assert_eq!(
                std::fs::read_to_string(dir.join(format!("d/f{i:02}"))).unwrap(),
                content(i)
            );
        }
    }
}
