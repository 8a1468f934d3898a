//! Attacks on main's changes: the stray-temp sweep's raw listing
//! (`temps_in`), the root named from its descriptor (`canonical_of`), the
//! lazy redo under a sealing key and late conflicts left out of it.
//! Run also under `AGENT_CHECKPOINT_PORTABLE_WALK=1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;

use common::blocking::{mkfifo, within};
use common::hooked::Hooked;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::symlink;
use std::path::Path;

use agent_checkpoint::root::temp::temp_name;
use agent_checkpoint::root::{ambient_authority, Root};
use agent_checkpoint::{
    capture, rollback, CapRoot, CaptureOptions, ParseOptions, RollbackOptions, SealKey, Snapshot,
};

fn open(root: &Path) -> CapRoot {
    CapRoot::open(root, ambient_authority()).unwrap()
}

/// `d/t.txt` captured, then edited; returns the snapshot.
fn captured(root: &Path) -> Snapshot {
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::write(root.join("d/t.txt"), b"before").unwrap();
    let text = capture(&open(root), ["d/t.txt"], &CaptureOptions::default()).unwrap();
    std::fs::write(root.join("d/t.txt"), b"after").unwrap();
    Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap()
}

// ---- 6. temps_in --------------------------------------------------------

#[test]
fn stray_temps_in_a_directory_larger_than_the_listing_buffer_are_swept() {
    let top = tempfile::tempdir().unwrap();
    let snap = captured(top.path());
    let d = top.path().join("d");
    let mut strays = Vec::new();
    // Strays early, in the middle and last; 3,000 names of 200 bytes
    // (about 700 KiB of dirents, > 32 KiB) and a non-UTF-8 name.
    for i in 0..3000 {
        if i % 1000 == 0 {
            let t = temp_name("t.txt").unwrap();
            std::fs::write(d.join(&t), b"stray").unwrap();
            strays.push(t);
        }
        let name = format!("{i:05}{}", "n".repeat(195));
        std::fs::write(d.join(name), b"").unwrap();
    }
    std::fs::write(d.join(OsStr::from_bytes(b"bad\xff\xfename")), b"").unwrap();
    let last = temp_name("t.txt").unwrap();
    std::fs::write(d.join(&last), b"stray").unwrap();
    strays.push(last);
    let report = rollback(&open(top.path()), &snap, &RollbackOptions::default()).unwrap();
    assert!(report.ok(), "{:?}", report.failures());
    assert_eq!(std::fs::read(d.join("t.txt")).unwrap(), b"before");
    for t in &strays {
        assert!(!d.join(t).exists(), "stray temp {t} left behind");
    }
    assert!(d.join(OsStr::from_bytes(b"bad\xff\xfename")).exists());
    assert!(d.join(format!("{:05}{}", 2999, "n".repeat(195))).exists());
}

/// A FIFO (or socket) named like one of our temp files for a restored
/// name: the sweep must neither block on it nor remove it as a temp.
#[test]
fn a_fifo_named_like_a_temp_never_blocks_the_sweep() {
    let top = tempfile::tempdir().unwrap();
    let snap = captured(top.path());
    let fifo = top.path().join("d").join(temp_name("t.txt").unwrap());
    mkfifo(&fifo);
    let root = top.path().to_owned();
    let ok = within(10, "rollback with a temp-named FIFO", move || {
        rollback(&open(&root), &snap, &RollbackOptions::default())
            .unwrap()
            .ok()
    });
    assert!(ok);
    assert!(fifo.exists(), "a FIFO is not our temp file");
}

// ---- 7. canonical_of -----------------------------------------------------

fn recorded_root(root: &CapRoot, file: &str) -> Option<String> {
    let text = capture(root, [file], &CaptureOptions::default()).unwrap();
    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    snap.root().map(str::to_owned)
}

#[test]
fn the_recorded_root_is_canonical_whatever_happens_to_its_name() {
    let top = tempfile::tempdir().unwrap();
    let top_real = std::fs::canonicalize(top.path()).unwrap();
    let real = top_real.join("real");
    let other = top_real.join("other");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(real.join("a"), b"a").unwrap();
    let link = top_real.join("link");
    symlink(&real, &link).unwrap();
    // Opened through a link, which is then retargeted.
    let root = open(&link);
    std::fs::remove_file(&link).unwrap();
    symlink(&other, &link).unwrap();
    assert_eq!(recorded_root(&root, "a").as_deref(), real.to_str());
    assert_eq!(root.canonical_path().as_deref(), real.to_str());
    // Renamed after it was opened: named as when opened (never the new
    // name's "(deleted)" or anything else).
    let root = open(&real);
    std::fs::rename(&real, top_real.join("renamed")).unwrap();
    let r = recorded_root(&root, "a").unwrap();
    assert!(
        Path::new(&r).is_absolute() && !r.contains("(deleted)"),
        "{r}"
    );
    // Removed after it was opened.
    let gone = top_real.join("gone");
    std::fs::create_dir(&gone).unwrap();
    let root = open(&gone);
    std::fs::remove_dir(&gone).unwrap();
    let text = capture(&root, ["x"], &CaptureOptions::default());
    if let Ok(text) = text {
        let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
        if let Some(r) = snap.root() {
            assert!(!r.contains("(deleted)"), "{r}");
        }
    }
    // A directory whose real name ends in " (deleted)": named correctly.
    let odd = top_real.join("odd (deleted)");
    std::fs::create_dir(&odd).unwrap();
    std::fs::write(odd.join("a"), b"a").unwrap();
    let root = open(&odd);
    assert_eq!(recorded_root(&root, "a").as_deref(), odd.to_str());
}

// ---- 8. lazy redo under a key; late conflicts ----------------------------

#[test]
fn a_sealed_lazy_redo_verifies_and_leaves_late_conflicts_out() {
    let top = tempfile::tempdir().unwrap();
    let p = top.path();
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(p.join("src/a.txt"), b"A1").unwrap();
    std::fs::write(p.join("src/b.txt"), b"B1").unwrap();
    let key = SealKey::new(vec![9u8; 32]).unwrap();
    let cap = open(p);
    let paths = ["src/a.txt", "src/b.txt", "gen/deep/new.txt"];
    let text = capture(
        &cap,
        paths,
        &CaptureOptions::default().with_key(Some(key.clone())),
    )
    .unwrap();
    let parse = ParseOptions::default().with_key(Some(key.clone()));
    let snap = Snapshot::parse(text.as_str(), &parse).unwrap();
    // The batch.
    std::fs::write(p.join("src/a.txt"), b"A2").unwrap();
    std::fs::write(p.join("src/b.txt"), b"B2").unwrap();
    std::fs::create_dir_all(p.join("gen/deep")).unwrap();
    std::fs::write(p.join("gen/deep/new.txt"), b"N").unwrap();
    // The batch's end recorded (sealed), so that a later edit is a conflict.
    let applied = agent_checkpoint::record_applied(
        &cap,
        &snap,
        &agent_checkpoint::RecordOptions::default().with_key(Some(key.clone())),
    )
    .unwrap();
    let snap = Snapshot::parse(applied.as_str(), &parse).unwrap();
    // The user edits src/a.txt right before its restore.
    let user = p.join("src/a.txt");
    let hooked = Hooked::new(&cap, "src/a.txt", move || {
        std::fs::write(&user, b"USER EDIT, longer").unwrap();
    });
    let options = RollbackOptions::default()
        .with_key(Some(key.clone()))
        .with_on_conflict(agent_checkpoint::OnConflict::Skip)
        .with_redo(true);
    let report = rollback(&hooked, &snap, &options).unwrap();
    eprintln!(
        "late conflict: {:?} not_in_redo {:?}",
        report.failures(),
        report.not_in_redo
    );
    assert_eq!(
        std::fs::read(p.join("src/a.txt")).unwrap(),
        b"USER EDIT, longer"
    );
    let redo = report.redo.as_ref().expect("a redo");
    let redo_text = redo.as_str().to_owned();
    // The MAC verifies; without the key or with one byte changed it does not.
    let redo_snap =
        Snapshot::parse(&redo_text, &parse).unwrap_or_else(|e| panic!("{e}: {redo_text}"));
    assert!(redo_snap.is_sealed());
    let flipped = redo_text.replacen("QjI", "QjM", 1);
    assert_ne!(flipped, redo_text);
    assert!(Snapshot::parse(&flipped, &parse).is_err());
    let keys: Vec<String> = redo_snap.paths();
    assert!(!keys.contains(&"src/a.txt".to_owned()), "{keys:?}");
    assert!(report.not_in_redo.iter().any(|n| n.path == "src/a.txt"));
    // Rolling the redo forward: the batch's state back, the user's edit kept.
    let again = rollback(
        &cap,
        &redo_snap,
        &RollbackOptions::default().with_key(Some(key)),
    )
    .unwrap();
    assert!(again.ok(), "{:?}", again.failures());
    assert_eq!(
        std::fs::read(p.join("src/a.txt")).unwrap(),
        b"USER EDIT, longer"
    );
    assert_eq!(std::fs::read(p.join("src/b.txt")).unwrap(), b"B2");
    assert_eq!(std::fs::read(p.join("gen/deep/new.txt")).unwrap(), b"N");
}
