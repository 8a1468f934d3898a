//! Issue 29.9 in the store: a shadow step never reads an untracked file
//! over its size limit (default 100 MiB): it lists it in `too_large` with
//! its size. Under `ulimit -v` a step beside a sparse file far larger than
//! the memory the process may use finishes (the file is never read whole),
//! and a step of a tracked file far larger than that memory streams it
//! into its blob.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::MetadataExt as _;
use std::os::unix::process::ExitStatusExt as _;
use std::process::Command;

use agent_checkpoint_store::{ShadowStep, Store, DEFAULT_MAX_UNTRACKED_BYTES};
use common::TestRepo;

#[test]
fn untracked_files_over_the_limit_are_listed_not_taken() {
    let repo = TestRepo::new();
    let root = repo.path();
    std::fs::write(root.join("tracked.bin"), vec![b't'; 64]).unwrap();
    repo.git(&["add", "."]);
    repo.git(&["commit", "-qm", "base"]);
    std::fs::write(root.join("tracked.bin"), vec![b'u'; 100]).unwrap();
    std::fs::write(root.join("data.bin"), vec![b'd'; 100]).unwrap();
    std::fs::write(root.join("small.txt"), "small\n").unwrap();
    let store = Store::open(root).unwrap();
    let first = store
        .shadow_step(&ShadowStep::new("s").max_untracked_bytes(50))
        .unwrap();
    let listed: Vec<(String, u64)> = first
        .too_large
        .iter()
        .map(|f| (f.path.clone(), f.size))
        .collect();
    assert_eq!(listed, [("data.bin".to_owned(), 100)]);
    let tree = repo.git(&["ls-tree", "-r", "--name-only", &first.commit]);
    assert!(
        !tree.contains("data.bin") && tree.contains("small.txt"),
        "{tree}"
    );
    // A tracked file is taken whatever its size.
    assert_eq!(
        repo.git(&["show", &format!("{}:tracked.bin", first.commit)]),
        "u".repeat(100)
    );
    // Named later: the same rule.
    std::fs::write(root.join("data.bin"), vec![b'e'; 100]).unwrap();
    let named = store
        .shadow_step(
            &ShadowStep::new("s")
                .file("data.bin")
                .max_untracked_bytes(50),
        )
        .unwrap();
    assert!(named.skipped, "{named:?}");
    assert_eq!(named.too_large.len(), 1);
    // Within the limit it is taken.
    let taken = store
        .shadow_step(
            &ShadowStep::new("s")
                .file("data.bin")
                .max_untracked_bytes(100),
        )
        .unwrap();
    assert!(taken.too_large.is_empty() && !taken.skipped);
    assert_eq!(DEFAULT_MAX_UNTRACKED_BYTES, 100 << 20);
}

/// The step the child process runs (under `ulimit -v`): a first step beside
/// an 8 GiB sparse untracked file.
#[test]
fn child_step_beside_a_huge_file() {
    let Some(dir) = std::env::var_os("SHADOW_SIZE_LIMIT_CHILD") else {
        return;
    };
    let store = Store::open(&dir).unwrap();
    let step = store.shadow_step(&ShadowStep::new("s")).unwrap();
    assert_eq!(step.too_large.len(), 1, "{step:?}");
    assert_eq!(step.too_large[0].path, "huge.bin");
    println!("child step ok");
}

#[test]
fn a_step_beside_a_file_larger_than_memory_finishes_under_ulimit() {
    const HUGE: u64 = 8 << 30;
    const LIMIT_KIB: u64 = 1 << 20; // 1 GiB of address space
    let repo = TestRepo::new();
    let root = repo.path();
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    repo.git(&["add", "."]);
    repo.git(&["commit", "-qm", "base"]);
    let file = std::fs::File::create(root.join("huge.bin")).unwrap();
    if file.set_len(HUGE).is_err() || file.metadata().unwrap().blocks() > 1 << 16 {
        eprintln!("shadow_size_limit: SKIPPED: no sparse file of 8 GiB here");
        return;
    }
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v "$0" && exec "$@""#)
        .arg(LIMIT_KIB.to_string())
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_step_beside_a_huge_file",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SHADOW_SIZE_LIMIT_CHILD", root)
        .env("HOME", repo.home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        None,
        "killed (out of memory?): {stdout}\n{stderr}"
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("child step ok"), "{stdout}\n{stderr}");
}

/// The size of the tracked file streamed under `ulimit -v`, and the
/// address space the step may use meanwhile: 1.5 GiB under 512 MiB with
/// `RELIABILITY_LONG=1` (the size of the issue; about 4 minutes in a debug
/// build, most of it deflating and hashing), else 256 MiB under 128 MiB
/// (the point is the same: the file does not fit).
fn streamed() -> (u64, u64) {
    let long = std::env::var("RELIABILITY_LONG").is_ok_and(|v| !v.is_empty() && v != "0");
    if long {
        (1536 << 20, 512 << 10)
    } else {
        (256 << 20, 128 << 10)
    }
}

/// The step the child process runs (under `ulimit -v`): a named step of a
/// tracked file far larger than the memory it may use.
#[test]
fn child_step_of_a_huge_tracked_file() {
    let Some(dir) = std::env::var_os("SHADOW_STREAM_CHILD") else {
        return;
    };
    let store = Store::open(&dir).unwrap();
    let step = store
        .shadow_step(&ShadowStep::new("s").file("big.bin").first(false))
        .unwrap();
    assert!(step.too_large.is_empty(), "{step:?}");
    println!("\nchild commit {}", step.commit);
}

/// Issue 29 remainder 1: the step streams a file's blob into the object
/// database (a tracked file twice or three times the `ulimit -v`, see
/// [`streamed`]: before, it was read whole and the child aborted), and the
/// blob reads back as the file (`git hash-object` of both agree).
#[test]
fn a_tracked_file_larger_than_memory_is_streamed_into_its_blob() {
    use std::io::{Seek as _, SeekFrom, Write as _};
    let (size, limit_kib) = streamed();
    let repo = TestRepo::new();
    let root = repo.path();
    std::fs::write(root.join("big.bin"), "small at first\n").unwrap();
    repo.git(&["add", "."]);
    repo.git(&["commit", "-qm", "base"]);
    // Sparse, with bytes at its start, middle and end (so the blob is not
    // only zeros).
    let mut file = std::fs::File::create(root.join("big.bin")).unwrap();
    if file.set_len(size).is_err() || file.metadata().unwrap().blocks() > 1 << 16 {
        eprintln!("shadow_size_limit: SKIPPED: no sparse file of {size} bytes here");
        return;
    }
    for at in [0, size / 2, size - 64] {
        file.seek(SeekFrom::Start(at)).unwrap();
        file.write_all(&[0xA5; 64]).unwrap();
    }
    drop(file);
    assert!(size >= 2 * (limit_kib << 10));
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v "$0" && exec "$@""#)
        .arg(limit_kib.to_string())
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_step_of_a_huge_tracked_file",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SHADOW_STREAM_CHILD", root)
        .env("HOME", repo.home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        None,
        "killed (out of memory?): {stdout}\n{stderr}"
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let commit = stdout
        .lines()
        .find_map(|l| l.split("child commit ").nth(1))
        .unwrap_or_else(|| panic!("no commit: {stdout}\n{stderr}"))
        .trim()
        .to_owned();
    let on_disk = repo.git(&["hash-object", "big.bin"]);
    let in_tree = repo.git(&["rev-parse", &format!("{commit}:big.bin")]);
    assert_eq!(in_tree.trim(), on_disk.trim());
    assert_eq!(
        repo.git(&["cat-file", "-s", in_tree.trim()]).trim(),
        size.to_string()
    );
    // The object's own bytes hash to its name (inflated by git, piped to
    // git to hash again).
    let mut inflate = repo.command();
    let mut cat = inflate
        .args(["cat-file", "blob", in_tree.trim()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = repo
        .command()
        .args(["hash-object", "--stdin"])
        .stdin(cat.stdout.take().unwrap())
        .output()
        .unwrap();
    assert!(cat.wait().unwrap().success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), on_disk.trim());
}
