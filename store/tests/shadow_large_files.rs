//! Issue 37.3 in the store: a shadow step beside a 1 GiB sparse file `HEAD`
//! does not track (named by the step) leaves it out unread and lists it in
//! `too_large` with its size, with the process's peak memory unmoved
//! (measured in a child process: this binary, one test alone); a rewind to
//! that step leaves the file as it is.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read as _, Write as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;
use std::process::Command;

use agent_checkpoint::RollbackOptions;
use agent_checkpoint_store::{ShadowStep, Store};
use common::TestRepo;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;
const CHILD_DIR: &str = "SHADOW_LARGE_FILES_CHILD";

/// The process's high-water mark of resident memory, in bytes.
fn vm_hwm() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn head_of(path: &Path) -> [u8; 4] {
    let mut buf = [0; 4];
    std::fs::File::open(path)
        .unwrap()
        .read_exact(&mut buf)
        .unwrap();
    buf
}

/// The child's part: a step naming the 1 GiB file and a small one, then a
/// rewind to it after both changed. Prints `figures: <peak growth>`.
#[test]
fn child_step_and_rewind_beside_a_1_gib_file() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return; // Only run as the child of the test below.
    };
    let dir = Path::new(&dir);
    let big = dir.join("data.bin");
    let store = Store::open(dir).unwrap();
    let before = vm_hwm().unwrap();
    let step = store
        .shadow_step(&ShadowStep::new("s").file("data.bin").file("notes.txt"))
        .unwrap();
    let listed: Vec<(&str, u64)> = step
        .too_large
        .iter()
        .map(|f| (f.path.as_str(), f.size))
        .collect();
    assert_eq!(listed, [("data.bin", GIB)]);
    let grew = vm_hwm().unwrap().saturating_sub(before);
    // The batch after the step: both files change.
    std::fs::write(dir.join("notes.txt"), "after\n").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .write_all(b"HEAD")
        .unwrap();
    let report = store
        .shadow_rewind(&step.commit, dir, &RollbackOptions::default())
        .unwrap();
    assert!(report.ok(), "{report:?}");
    assert!(
        !report.restored.iter().any(|p| p == "data.bin"),
        "{report:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "before\n"
    );
    assert_eq!(std::fs::metadata(&big).unwrap().len(), GIB);
    assert_eq!(&head_of(&big), b"HEAD");
    println!("figures: {grew} {}", step.commit);
}

#[test]
fn a_1_gib_untracked_file_is_left_out_of_a_step_with_peak_memory_unchanged() {
    if vm_hwm().is_none() {
        eprintln!("shadow_large_files: no /proc/self/status here, not measured");
        return;
    }
    let repo = TestRepo::new();
    let root = repo.path();
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    repo.git(&["add", "."]);
    repo.git(&["commit", "-qm", "base"]);
    // A first step, so the next one takes the named files only.
    let store = Store::open(root).unwrap();
    store.shadow_step(&ShadowStep::new("s")).unwrap();
    let mut file = std::fs::File::create(root.join("data.bin")).unwrap();
    file.write_all(b"head").unwrap();
    if file.set_len(GIB).is_err() || file.metadata().unwrap().blocks() > 1 << 16 {
        eprintln!("shadow_large_files: SKIPPED: no sparse file of 1 GiB here");
        return;
    }
    std::fs::write(root.join("notes.txt"), "before\n").unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_step_and_rewind_beside_a_1_gib_file",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, root)
        .env("HOME", repo.home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let figures: Vec<String> = stdout
        .lines()
        .find_map(|l| l.split_once("figures: ").map(|(_, f)| f.trim().to_owned()))
        .unwrap_or_else(|| panic!("no figures: {stdout}"))
        .split(' ')
        .map(str::to_owned)
        .collect();
    let grew: u64 = figures[0].parse().unwrap();
    let tree = repo.git(&["ls-tree", "-r", "--name-only", &figures[1]]);
    assert!(
        tree.contains("notes.txt") && !tree.contains("data.bin"),
        "{tree}"
    );
    println!(
        "shadow_large_files: a step beside a 1 GiB sparse untracked file: left out (too_large), peak RSS +{} MiB",
        grew / MIB
    );
    assert!(grew < 64 * MIB, "peak RSS grew by {} MiB", grew / MIB);
}
