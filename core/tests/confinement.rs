//! Real-filesystem confinement: nothing outside the root is read, written or
//! removed, whatever the batch did to the tree between capture and rollback.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;

use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{capture, CapRoot, CaptureOptions, ErrorCode, RollbackOptions};
use common::rollback_text;
use common::{read_native, TreeNode};

/// A temp dir with `root/` (the project) and `outside/` (a sentinel tree).
struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&root).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("secret.txt"), "outside secret").unwrap();
        std::fs::create_dir(outside.join("dir")).unwrap();
        std::fs::write(outside.join("dir/inner.txt"), "inner").unwrap();
        World {
            _tmp: tmp,
            root,
            outside,
        }
    }

    fn cap(&self) -> CapRoot {
        CapRoot::open(&self.root, ambient_authority()).unwrap()
    }

    fn outside_tree(&self) -> std::collections::BTreeMap<String, TreeNode> {
        read_native(&self.outside).unwrap()
    }
}

fn write(path: &Path, text: &str) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn hard_link_to_outside_file_is_replaced_not_written_through() {
    let w = World::new();
    write(&w.root.join("a.txt"), "inside original");
    let snap = capture(&w.cap(), ["a.txt"], &CaptureOptions::default()).unwrap();
    // The batch replaces a.txt with a hard link to a file outside the root.
    std::fs::remove_file(w.root.join("a.txt")).unwrap();
    std::fs::hard_link(w.outside.join("secret.txt"), w.root.join("a.txt")).unwrap();
    let before = w.outside_tree();
    let report = rollback_text(&w.cap(), &snap, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    assert_eq!(
        std::fs::read_to_string(w.root.join("a.txt")).unwrap(),
        "inside original"
    );
    assert_eq!(w.outside_tree(), before);
    assert_eq!(
        std::fs::read_to_string(w.outside.join("secret.txt")).unwrap(),
        "outside secret"
    );
}

#[test]
fn symlink_pointing_outside_is_never_written_through() {
    let w = World::new();
    write(&w.root.join("a.txt"), "A");
    let snap = capture(&w.cap(), ["a.txt", "new.txt"], &CaptureOptions::default()).unwrap();
    std::fs::remove_file(w.root.join("a.txt")).unwrap();
    symlink(w.outside.join("secret.txt"), w.root.join("a.txt")).unwrap();
    symlink(w.outside.join("dir/inner.txt"), w.root.join("new.txt")).unwrap();
    let before = w.outside_tree();
    let report = rollback_text(&w.cap(), &snap, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    assert_eq!(w.outside_tree(), before);
    let meta = std::fs::symlink_metadata(w.root.join("a.txt")).unwrap();
    assert!(meta.is_file(), "the link was replaced by a regular file");
    assert!(
        std::fs::symlink_metadata(w.root.join("new.txt")).is_err(),
        "the new link was removed"
    );
}

#[test]
fn capture_refuses_symlinks_out_of_the_root() {
    let w = World::new();
    symlink(w.outside.join("secret.txt"), w.root.join("abs")).unwrap();
    symlink("../outside/secret.txt", w.root.join("rel")).unwrap();
    symlink(&w.outside, w.root.join("dirlink")).unwrap();
    for path in ["abs", "rel", "dirlink/secret.txt", "dirlink/new.txt"] {
        let err = capture(&w.cap(), [path], &CaptureOptions::default()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::PathEscapesRoot, "{path}: {err}");
    }
}

#[test]
fn parent_swapped_for_symlink_to_outside_is_not_followed() {
    let w = World::new();
    write(&w.root.join("sub/a.txt"), "A");
    std::fs::create_dir(w.root.join("gen")).unwrap();
    let snap = capture(
        &w.cap(),
        ["sub/a.txt", "sub/new.txt", "made/x.txt"],
        &CaptureOptions::default(),
    )
    .unwrap();
    // The batch turns sub/ into a link to the outside dir and made/ into one too.
    std::fs::remove_dir_all(w.root.join("sub")).unwrap();
    symlink(w.outside.join("dir"), w.root.join("sub")).unwrap();
    symlink(w.outside.join("dir"), w.root.join("made")).unwrap();
    let before = w.outside_tree();
    let report = rollback_text(&w.cap(), &snap, &RollbackOptions::default());
    assert_eq!(w.outside_tree(), before, "outside changed");
    assert!(report.valid());
    let unrestored: Vec<&str> = report.unrestored.iter().map(|u| u.path.as_str()).collect();
    assert_eq!(
        unrestored,
        ["made/x.txt", "sub/a.txt", "sub/new.txt"],
        "{report:?}"
    );
}

#[test]
fn malformed_snapshots_change_nothing_inside_or_outside() {
    let w = World::new();
    write(&w.root.join("keep.txt"), "keep");
    std::fs::create_dir(w.root.join("empty")).unwrap();
    let inside = read_native(&w.root).unwrap();
    let outside = w.outside_tree();
    for bad in [
        r#"{"version":1,"entries":{"empty/x":null},"created_dirs":["."]}"#,
        r#"{"version":1,"entries":{"empty/x":null},"created_dirs":[""]}"#,
        r#"{"version":1,"entries":{"keep.txt":null,"../outside/secret.txt":null}}"#,
        r#"{"version":1,"entries":{"keep.txt":null},"created_dirs":["empty"]}"#,
        r#"{"version":1,"entries":{"keep.txt":"Y2hhbmdlZA=="},"links":{"l":"../outside"}}"#,
        r#"{"version":9,"entries":{"keep.txt":null}}"#,
    ] {
        let report = rollback_text(&w.cap(), bad, &RollbackOptions::default());
        assert!(!report.valid(), "{bad}");
        assert_eq!(read_native(&w.root).unwrap(), inside, "{bad}");
        assert_eq!(w.outside_tree(), outside, "{bad}");
    }
}

#[test]
fn absolute_paths_through_the_roots_real_location() {
    // The root is reached through a symlinked path; absolute inputs may use
    // either spelling.
    let w = World::new();
    write(&w.root.join("a.txt"), "A");
    let alias = w.root.parent().unwrap().join("alias");
    symlink(&w.root, &alias).unwrap();
    let root = CapRoot::open(&alias, ambient_authority()).unwrap();
    let real = std::fs::canonicalize(&w.root).unwrap();
    let paths = [
        format!("{}/a.txt", alias.display()),
        format!("{}/a.txt", real.display()),
    ];
    let snap = capture(&root, &paths, &CaptureOptions::default()).unwrap();
    assert_eq!(agent_checkpoint::snapshot_paths(snap.as_str()), ["a.txt"]);
}

#[test]
fn modes_and_non_utf8_bytes_round_trip_exactly() {
    let w = World::new();
    let bytes: Vec<u8> = (0..=255u8).rev().collect();
    std::fs::write(w.root.join("bin"), &bytes).unwrap();
    for (name, mode) in [("p600", 0o600), ("p755", 0o755), ("p640", 0o640)] {
        write(&w.root.join(name), name);
        std::fs::set_permissions(w.root.join(name), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    let before = read_native(&w.root).unwrap();
    let snap = capture(
        &w.cap(),
        ["bin", "p600", "p755", "p640"],
        &CaptureOptions::default(),
    )
    .unwrap();
    for name in ["bin", "p600", "p755", "p640"] {
        std::fs::remove_file(w.root.join(name)).unwrap();
    }
    let report = rollback_text(&w.cap(), &snap, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    assert_eq!(read_native(&w.root).unwrap(), before);
}

#[test]
fn stray_temp_files_of_an_interrupted_run_are_removed_and_nothing_else() {
    let w = World::new();
    write(&w.root.join("a.txt"), "A");
    write(&w.root.join("sub/b.txt"), "B");
    let snap = capture(&w.cap(), ["a.txt", "sub/b.txt"], &CaptureOptions::default()).unwrap();
    let temp = |name: &str| agent_checkpoint::root::temp::temp_name(name).unwrap();
    // What a run killed mid-write leaves: temp files named for its targets.
    let stray_a = w.root.join(temp("a.txt"));
    let stray_b = w.root.join("sub").join(temp("b.txt"));
    write(&stray_a, "half");
    write(&stray_b, "half");
    // Not ours to remove: another name's temp, a user's look-alike files
    // (the old pattern, without the check a temp name of ours carries).
    let other = w.root.join(temp("other.txt"));
    write(&other, "not captured");
    write(&w.root.join(".ckpt-user.tmp"), "user");
    let hash = &temp("a.txt")[6..14];
    let look_alike = w.root.join(format!(".ckpt-{hash}-0123456789abcdef.tmp"));
    write(&look_alike, "user");
    write(&w.root.join(format!(".ckpt-{hash}-notes.txt")), "user");
    let report = rollback_text(&w.cap(), &snap, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    assert!(!stray_a.exists() && !stray_b.exists(), "strays removed");
    assert!(other.exists(), "a temp of an uncaptured path stays");
    assert!(w.root.join(".ckpt-user.tmp").exists());
    assert!(look_alike.exists(), "a look-alike without our check stays");
    assert!(w.root.join(format!(".ckpt-{hash}-notes.txt")).exists());
}
