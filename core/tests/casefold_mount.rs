//! Case-insensitive, normalising directories on a real filesystem (issue 32
//! item 4): the FUSE passthrough of tests/casefold/foldfs.py, which folds
//! ASCII case and Unicode normal form on lookup as APFS does, mounted by
//! tests/casefold/run and named by `AGENT_CHECKPOINT_CASEFOLD_DIR`. The
//! tests are ignored without it (run them with `--include-ignored` from
//! that script); an ignored test run without a mount fails.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::path::{Path, PathBuf};

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, rollback, snapshot_paths, CapRoot, CaptureOptions, ParseOptions, RollbackOptions,
};

const NEEDS_MOUNT: &str = "needs the folding mount of tests/casefold/run";

/// `é` composed (NFC) and decomposed (NFD).
const E_NFC: &str = "caf\u{e9}.txt";
const E_NFD: &str = "cafe\u{301}.txt";

/// A fresh directory on the mount, and a root on it.
fn scratch() -> (tempfile::TempDir, CapRoot) {
    let mount = std::env::var_os("AGENT_CHECKPOINT_CASEFOLD_DIR")
        .map(PathBuf::from)
        .expect("AGENT_CHECKPOINT_CASEFOLD_DIR names the folding mount");
    let dir = tempfile::Builder::new()
        .prefix("case")
        .tempdir_in(mount)
        .unwrap();
    let root = CapRoot::open(dir.path(), ambient_authority()).unwrap();
    (dir, root)
}

/// The names `dir` holds, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Captures `paths` and returns the snapshot's paths.
fn captured(root: &CapRoot, paths: &[&str]) -> Vec<String> {
    let json = capture(root, paths, &CaptureOptions::default()).unwrap();
    snapshot_paths(json.as_str())
}

/// Captures `name` holding `text`, lets `batch` change the directory, rolls
/// back, and returns the directory's names and `name`'s content after.
fn round_trip(name: &str, text: &str, batch: impl Fn(&Path)) -> (Vec<String>, String) {
    let (dir, root) = scratch();
    std::fs::write(dir.path().join(name), text).unwrap();
    let json = capture(&root, [name], &CaptureOptions::default()).unwrap();
    batch(dir.path());
    let snapshot = json.parse(&ParseOptions::default()).unwrap();
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert!(report.ok(), "{:?}", report.unrestored);
    assert_eq!(report.restored, [name]);
    let names = listing(dir.path());
    (
        names,
        std::fs::read_to_string(dir.path().join(name)).unwrap(),
    )
}

#[test]
#[ignore = "needs the folding mount of tests/casefold/run"]
fn the_mount_folds_case_and_normal_form() {
    let (dir, _root) = scratch();
    std::fs::write(dir.path().join("README.md"), "x").unwrap();
    std::fs::write(dir.path().join(E_NFC), "y").unwrap();
    assert_eq!(std::fs::read(dir.path().join("readme.MD")).unwrap(), b"x");
    assert_eq!(std::fs::read(dir.path().join(E_NFD)).unwrap(), b"y");
    assert_eq!(listing(dir.path()), ["README.md", E_NFC], "{NEEDS_MOUNT}");
}

#[test]
#[ignore = "needs the folding mount of tests/casefold/run"]
fn two_spellings_of_an_existing_path_are_one_entry_under_the_on_disk_name() {
    let (dir, root) = scratch();
    std::fs::write(dir.path().join("README.md"), "old").unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/x.rs"), "x").unwrap();
    assert_eq!(
        captured(&root, &["readme.md", "README.md", "SRC/X.rs"]),
        ["README.md", "src/x.rs"]
    );
}

#[test]
#[ignore = "needs the folding mount of tests/casefold/run"]
fn two_spellings_of_a_missing_path_are_one_entry_and_roll_back_to_nothing() {
    let (dir, root) = scratch();
    std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
    let json = capture(&root, ["New.txt", "new.TXT"], &CaptureOptions::default()).unwrap();
    assert_eq!(snapshot_paths(json.as_str()), ["New.txt"]);
    std::fs::write(dir.path().join("NEW.txt"), "made by the batch").unwrap();
    let snapshot = json.parse(&ParseOptions::default()).unwrap();
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert!(report.ok(), "{:?}", report.unrestored);
    assert_eq!(listing(dir.path()), ["Cargo.toml"]);
}

#[test]
#[ignore = "needs the folding mount of tests/casefold/run"]
fn nfc_and_nfd_spellings_are_one_entry() {
    let (dir, root) = scratch();
    std::fs::write(dir.path().join(E_NFC), "old").unwrap();
    assert_eq!(captured(&root, &[E_NFD, E_NFC]), [E_NFC]);
    // Missing: one entry under the first spelling given.
    let missing_nfd = "re\u{301}sume\u{301}.md";
    let missing_nfc = "r\u{e9}sum\u{e9}.md";
    assert_eq!(captured(&root, &[missing_nfd, missing_nfc]), [missing_nfd]);
}

#[test]
#[ignore = "needs the folding mount of tests/casefold/run"]
fn rollback_gives_the_captured_name_back_after_a_case_rename() {
    for edit in [None, Some("new")] {
        let (names, text) = round_trip("a.txt", "old", |dir| {
            std::fs::rename(dir.join("a.txt"), dir.join("A.txt")).unwrap();
            assert_eq!(listing(dir), ["A.txt"], "{NEEDS_MOUNT}");
            if let Some(edit) = edit {
                std::fs::write(dir.join("A.txt"), edit).unwrap();
            }
        });
        assert_eq!((names, text.as_str()), (vec!["a.txt".to_owned()], "old"));
    }
}

#[test]
#[ignore = "needs the folding mount of tests/casefold/run"]
fn rollback_gives_the_captured_name_back_after_the_batch_replaced_it() {
    // The batch writes A.txt through a temp file renamed over it, as an
    // editor saves: the rename replaces a.txt's entry.
    let (names, text) = round_trip("a.txt", "old", |dir| {
        std::fs::write(dir.join(".A.txt.swp"), "new").unwrap();
        std::fs::rename(dir.join(".A.txt.swp"), dir.join("A.txt")).unwrap();
    });
    assert_eq!((names, text.as_str()), (vec!["a.txt".to_owned()], "old"));
}

#[test]
#[ignore = "needs the folding mount of tests/casefold/run"]
fn rollback_gives_the_captured_normal_form_back() {
    let (names, text) = round_trip(E_NFC, "old", |dir| {
        std::fs::rename(dir.join(E_NFC), dir.join(E_NFD)).unwrap();
        assert_eq!(listing(dir), [E_NFD], "{NEEDS_MOUNT}");
    });
    assert_eq!((names, text.as_str()), (vec![E_NFC.to_owned()], "old"));
}
