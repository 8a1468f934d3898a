//! The Windows-only cases of issue 32 item 2, on a real [`CapRoot`] (run
//! under Wine by `scripts/windows`; empty on other platforms): reserved
//! device names, alternate data streams and 8.3 short names are refused
//! as invalid paths by capture and by a snapshot, nothing touched; a file
//! another handle holds open without sharing is reported unrestored, left
//! whole, with no temp file behind; paths beyond 260 characters capture
//! (and roll back on Windows; under Wine, `AGENT_CHECKPOINT_UNDER_WINE`,
//! the rollback reports them unrestored: see the test); two spellings of
//! one file roll back to the on-disk name.
#![cfg(windows)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;

use std::os::windows::fs::OpenOptionsExt as _;
use std::path::Path;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, snapshot_paths, CapRoot, CaptureOptions, ErrorCode, RollbackOptions,
};

/// A temp dir with a `root` folder holding `files` (path, text).
fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("root");
    std::fs::create_dir(&dir).unwrap();
    for (path, text) in files {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    (tmp, dir)
}

fn open(dir: &Path) -> CapRoot {
    CapRoot::open(dir, ambient_authority()).unwrap()
}

fn capture_text(root: &CapRoot, paths: &[&str]) -> agent_checkpoint::Result<String> {
    let paths: Vec<String> = paths.iter().map(|p| (*p).to_owned()).collect();
    capture(root, &paths, &CaptureOptions::default()).map(|s| s.into_string())
}

/// Names Windows reads as a device, a stream or another file's second name.
const ALIASES: [&str; 12] = [
    "CON",
    "nul",
    "NUL.txt",
    "com1",
    "COM1.log",
    "aux.txt",
    "lpt9.md",
    "a.txt:stream",
    "a.txt::$DATA",
    "PROGRA~1/x.txt",
    "LONGFI~1.TXT",
    "trailing.",
];

#[test]
fn aliases_are_refused_by_capture_and_nothing_is_touched() {
    let (_tmp, dir) = tree(&[("a.txt", "A"), ("LongFileName.txt", "L")]);
    let root = open(&dir);
    let before = common::read_native(&dir).unwrap();
    for name in ALIASES {
        let err = capture_text(&root, &[name]).expect_err(name);
        assert_eq!(err.code(), ErrorCode::InvalidPath, "{name}: {err}");
        // Beside a good path the whole capture is refused too.
        let err = capture_text(&root, &["a.txt", name]).expect_err(name);
        assert_eq!(err.code(), ErrorCode::InvalidPath, "{name}: {err}");
    }
    common::check_tree(&before, &common::read_native(&dir).unwrap()).unwrap();
}

#[test]
fn a_snapshot_naming_an_alias_is_refused_whole_and_nothing_is_touched() {
    let (_tmp, dir) = tree(&[("a.txt", "A"), ("LongFileName.txt", "L")]);
    let root = open(&dir);
    let before = common::read_native(&dir).unwrap();
    for name in ALIASES {
        let snapshot = serde_json::json!({
            "version": 1,
            "entries": {"a.txt": "Qg==", name: "eA=="},
            "created_dirs": []
        });
        let report =
            common::rollback_text(&root, snapshot.to_string(), &RollbackOptions::default());
        assert!(!report.valid(), "{name}: accepted");
        assert_eq!(
            report.error_code(),
            Some(ErrorCode::MalformedSnapshot),
            "{name}"
        );
        common::check_tree(&before, &common::read_native(&dir).unwrap()).unwrap();
    }
}

#[test]
fn a_file_held_open_without_sharing_is_unrestored_whole_and_no_temp_is_left() {
    let (_tmp, dir) = tree(&[("held.txt", "captured"), ("free.txt", "captured")]);
    let root = open(&dir);
    let snapshot = capture_text(&root, &["held.txt", "free.txt"]).unwrap();
    std::fs::write(dir.join("held.txt"), "batch").unwrap();
    std::fs::write(dir.join("free.txt"), "batch").unwrap();
    // An editor's or a scanner's handle: no read, write or delete sharing.
    let holder = std::fs::OpenOptions::new()
        .read(true)
        .share_mode(0)
        .open(dir.join("held.txt"))
        .unwrap();
    let report = common::rollback_text(&root, &snapshot, &RollbackOptions::default());
    assert!(report.valid());
    assert!(!report.ok());
    let unrestored: Vec<(&str, ErrorCode)> = report
        .unrestored
        .iter()
        .map(|u| (u.path.as_str(), u.code))
        .collect();
    assert_eq!(unrestored.len(), 1, "{unrestored:?}");
    assert_eq!(unrestored[0].0, "held.txt");
    // Retried about a second (a sharing violation), then reported `io`.
    assert_eq!(unrestored[0].1, ErrorCode::Io, "{:?}", report.unrestored);
    assert_eq!(report.restored, ["free.txt"]);
    drop(holder);
    // Nothing torn, nothing left beside it.
    assert_eq!(
        std::fs::read_to_string(dir.join("held.txt")).unwrap(),
        "batch"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("free.txt")).unwrap(),
        "captured"
    );
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // Once the handle is closed, the same snapshot restores it.
    let again = common::rollback_text(&root, &snapshot, &RollbackOptions::default());
    assert!(again.ok(), "{:?}", again.unrestored);
    assert_eq!(
        std::fs::read_to_string(dir.join("held.txt")).unwrap(),
        "captured"
    );
}

#[test]
fn paths_beyond_260_characters_capture_and_roll_back() {
    let segment = "d".repeat(60);
    let deep = format!("{segment}/{segment}/{segment}/{segment}/{segment}/file.txt");
    let (_tmp, dir) = tree(&[]);
    let full = dir.join(deep.replace('/', "\\"));
    assert!(full.as_os_str().len() > 260, "{}", full.display());
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(&full, "captured").unwrap();
    let new = format!("{segment}/{segment}/{segment}/{segment}/{segment}/{segment}/new.txt");
    let root = open(&dir);
    let snapshot = capture_text(&root, &[&deep, &new]).unwrap();
    let mut want = [deep.clone(), new.clone()];
    want.sort();
    assert_eq!(snapshot_paths(&snapshot), want);
    std::fs::write(&full, "batch").unwrap();
    let new_full = dir.join(new.replace('/', "\\"));
    std::fs::create_dir_all(new_full.parent().unwrap()).unwrap();
    std::fs::write(&new_full, "made by the batch").unwrap();
    let report = common::rollback_text(&root, &snapshot, &RollbackOptions::default());
    if std::env::var_os("AGENT_CHECKPOINT_UNDER_WINE").is_some() {
        // Wine 8 answers the rollback's writes and removals this deep with
        // ERROR_MORE_DATA (234): each path is reported unrestored with a
        // code and nothing is torn. When Wine stops
        // doing so this fails, and the real expectation below takes over.
        let codes: Vec<(&str, ErrorCode)> = report
            .unrestored
            .iter()
            .map(|u| (u.path.as_str(), u.code))
            .collect();
        assert_eq!(
            codes,
            [
                (want[0].as_str(), ErrorCode::Io),
                (want[1].as_str(), ErrorCode::Io)
            ]
        );
        assert_eq!(std::fs::read_to_string(&full).unwrap(), "batch");
        // Not asserted here: the temp file of the failed write stays
        // beside `file.txt`, since Wine refuses its removal with the same
        // error (a known gap, in the CHANGELOG).
        return;
    }
    assert!(report.ok(), "{:?}", report.unrestored);
    assert_eq!(std::fs::read_to_string(&full).unwrap(), "captured");
    assert!(!new_full.exists());
}

#[test]
fn two_spellings_of_one_file_roll_back_to_the_on_disk_name() {
    // Windows' case-insensitive view: `readme.md` opens `README.md`. Each
    // spelling is captured with the same bytes (one entry per spelling
    // until the canonical key is the on-disk spelling, issue 32 item 4);
    // the rollback writes the captured bytes back under the on-disk name
    // and makes no second file.
    let (_tmp, dir) = tree(&[("README.md", "captured")]);
    let root = open(&dir);
    let snapshot = capture_text(&root, &["README.md", "readme.md"]).unwrap();
    assert!(snapshot_paths(&snapshot).contains(&"README.md".to_owned()));
    std::fs::write(dir.join("readme.md"), "batch").unwrap();
    let report = common::rollback_text(&root, &snapshot, &RollbackOptions::default());
    assert!(report.ok(), "{:?}", report.unrestored);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["README.md"]);
    assert_eq!(
        std::fs::read_to_string(dir.join("README.md")).unwrap(),
        "captured"
    );
}
