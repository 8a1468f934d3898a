//! The symlink race: while rollbacks (and captures) run in a loop, another
//! thread keeps swapping a parent directory of the captured paths for a
//! symlink pointing outside the root (absolute and relative in turn), with
//! renames, at least 100,000 times.
//!
//! It proves that no interleaving makes a rollback write, create or remove
//! anything outside the root (the sentinel tree next to the root, which
//! holds files at the very names the snapshot restores and removes, is
//! fingerprinted with inodes and mtimes before and after), and that no
//! capture ever reads a byte from outside.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use std::io::ErrorKind;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use agent_checkpoint::root::{ambient_authority, Root};
use agent_checkpoint::{capture, CapRoot, CaptureOptions, RelPath, RollbackOptions};
use agent_checkpoint::{ParseOptions, Snapshot};
use reliability_sentinel::{changed_keys, env_count, figure, fingerprint_tree, long_run};

const INSIDE_A: &str = "inside a";
const INSIDE_C: &str = "inside c";
const OUTSIDE: [&str; 2] = ["OUTSIDE a", "OUTSIDE c"];

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Renames `from` to `to`, first removing a directory a rollback created at
/// `to` in the meantime (it can only be one of those: nothing else in the
/// root creates `victim`).
fn rename_clearing(from: &Path, to: &Path) {
    loop {
        match std::fs::rename(from, to) {
            Ok(()) => return,
            Err(e) if to.exists() || e.kind() == ErrorKind::DirectoryNotEmpty => {
                let m = std::fs::symlink_metadata(to).unwrap();
                assert!(m.is_dir(), "only a rollback-made dir can be in the way");
                let _ = std::fs::remove_dir_all(to);
            }
            Err(e) => panic!("rename {from:?} -> {to:?}: {e}"),
        }
    }
}

#[test]
fn parent_dir_swapped_for_an_outside_symlink_during_rollback() {
    let swaps_wanted = env_count(
        "RELIABILITY_RACE_SWAPS",
        if long_run() { 1_000_000 } else { 100_000 },
    );
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().canonicalize().unwrap();
    let root_dir = top.join("root");
    let outside = top.join("outside");
    write(&root_dir.join("victim/a.txt"), INSIDE_A);
    write(&root_dir.join("victim/b/c.txt"), INSIDE_C);
    // The outside holds every name the snapshot writes, removes or prunes.
    write(&outside.join("a.txt"), OUTSIDE[0]);
    write(&outside.join("b/c.txt"), OUTSIDE[1]);
    write(&outside.join("gone.txt"), "outside gone");
    write(&outside.join("newdir/x.txt"), "outside x");
    std::fs::create_dir(outside.join("emptydir")).unwrap();
    symlink(&outside, root_dir.join(".abs-link")).unwrap();
    symlink("../outside", root_dir.join(".rel-link")).unwrap();

    let root = CapRoot::open(&root_dir, ambient_authority()).unwrap();
    let paths = [
        "victim/a.txt",
        "victim/b/c.txt",
        "victim/gone.txt",
        "victim/newdir/x.txt",
        "victim/emptydir/y.txt",
    ];
    let snap = capture(&root, paths, &CaptureOptions::default()).unwrap();
    let sentinel = fingerprint_tree(&top, &["root"]);

    let swaps = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let swaps = Arc::clone(&swaps);
        let stop = Arc::clone(&stop);
        let root_dir = root_dir.clone();
        std::thread::spawn(move || {
            let victim = root_dir.join("victim");
            let hold = root_dir.join(".hold");
            let mut round = 0usize;
            while swaps.load(Ordering::Relaxed) < swaps_wanted && !stop.load(Ordering::Relaxed) {
                let link = root_dir.join(if round.is_multiple_of(2) {
                    ".abs-link"
                } else {
                    ".rel-link"
                });
                round += 1;
                std::fs::rename(&victim, &hold).unwrap();
                rename_clearing(&link, &victim);
                swaps.fetch_add(1, Ordering::Relaxed);
                std::fs::rename(&victim, &link).unwrap();
                rename_clearing(&hold, &victim);
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    let fast = RollbackOptions::default()
        .with_durable(false)
        .with_redo(false);
    let durable = RollbackOptions::default();
    let (mut rollbacks, mut clean, mut refused_paths) = (0usize, 0usize, 0usize);
    let (mut captures, mut captures_refused) = (0usize, 0usize);
    let gone = RelPath::try_from("victim/gone.txt").unwrap();
    let newdir = RelPath::try_from("victim/newdir").unwrap();
    let newfile = RelPath::try_from("victim/newdir/x.txt").unwrap();
    while swaps.load(Ordering::Relaxed) < swaps_wanted {
        // The "batch": what rollback has to undo, made through the root.
        let _ = root.write_file(&gone, b"batch", &common::write_options(0o644));
        let _ = root.create_dir(&newdir);
        let _ = root.write_file(&newfile, b"batch", &common::write_options(0o644));
        let options = if rollbacks.is_multiple_of(16) {
            &durable
        } else {
            &fast
        };
        let report = common::rollback_text(&root, &snap, options);
        assert!(report.valid(), "{report:?}");
        rollbacks += 1;
        if report.ok() {
            clean += 1;
        }
        refused_paths += report.unrestored.len();
        if rollbacks.is_multiple_of(4) {
            captures += 1;
            match capture(&root, paths, &CaptureOptions::default()) {
                Ok(text) => {
                    let s = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
                    for bytes in s.entries().filter_map(|(_, c)| c) {
                        let text = String::from_utf8_lossy(bytes);
                        assert!(
                            !OUTSIDE.contains(&text.as_ref()),
                            "capture read outside: {text}"
                        );
                    }
                }
                Err(_) => captures_refused += 1,
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let swaps = swaps.load(Ordering::Relaxed);

    let after = fingerprint_tree(&top, &["root"]);
    let changed = changed_keys(&sentinel, &after);
    figure(
        "race",
        &format!(
            "{swaps} swaps, {rollbacks} rollbacks ({clean} clean, {refused_paths} paths refused \
             mid-swap), {captures} captures ({captures_refused} refused), {} changed outside",
            changed.len()
        ),
    );
    assert!(swaps >= swaps_wanted);
    assert!(changed.is_empty(), "outside changed: {changed:?}");
    // With the swapping over, one more rollback converges.
    let report = common::rollback_text(&root, &snap, &durable);
    assert!(report.ok(), "{report:?}");
    assert_eq!(
        std::fs::read_to_string(root_dir.join("victim/a.txt")).unwrap(),
        INSIDE_A
    );
    assert!(!root_dir.join("victim/newdir").exists());
    assert!(!root_dir.join("victim/gone.txt").exists());
}
