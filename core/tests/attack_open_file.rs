//! An attack on [`Root::open_file`] (issue 29 remainder R1): the streaming
//! read a shadow step writes blobs of any size through. While one thread
//! opens and reads `d/f` and `g` over and over, another swaps, by renames,
//! the parent directory `d` for a symlink to a directory outside the root
//! (absolute and relative in turn) and the name `g` for a symlink to an
//! outside file, a FIFO nobody writes, a directory and a regular file. No
//! read may ever give an outside byte, none may block, every refusal is a
//! typed error (never a panic), and the kind judged is the opened file's:
//! what `open_file` hands out is always a regular file. Runs with
//! `openat2` and, in a child process, through the portable walk
//! (`AGENT_CHECKPOINT_PORTABLE_WALK=1`). Also: paths that leave the root
//! cannot be spelled as a `RelPath`, and a character device at the name is
//! `not_a_file` (when the test may make one).
#![cfg(all(feature = "cap-std", unix))]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read as _;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use agent_checkpoint::internals::resolves_with_openat2;
use agent_checkpoint::root::{ambient_authority, EntryKind};
use agent_checkpoint::{CapRoot, ErrorCode, RelPath, Root};

/// Rounds of swaps (each swaps `d` twice and `g` four times).
const ROUNDS: usize = 1500;
const SECRET: &[u8] = b"SECRET-OUTSIDE";
const INSIDE: &[u8] = b"inside-the-root";

fn rel(s: &str) -> RelPath {
    RelPath::try_from(s).unwrap()
}

/// What the reading thread saw.
#[derive(Debug, Default)]
struct Seen {
    reads: usize,
    refusals: usize,
    leaked: Vec<String>,
    untyped: Vec<String>,
}

fn swap_and_read(top: &Path) -> Seen {
    let root_dir = top.join("root");
    let outside = top.join("outside");
    std::fs::create_dir_all(root_dir.join("d")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("f"), SECRET).unwrap();
    std::fs::write(root_dir.join("d/f"), INSIDE).unwrap();
    std::fs::write(root_dir.join("g"), INSIDE).unwrap();
    // The FIFOs swapped in at `g`, made beforehand by one `mkfifo`.
    let fifos: Vec<PathBuf> = (0..ROUNDS)
        .map(|i| root_dir.join(format!(".fifo{i}")))
        .collect();
    let made = std::process::Command::new("mkfifo")
        .args(&fifos)
        .status()
        .unwrap();
    assert!(made.success());

    let done = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let reader_done = Arc::clone(&done);
    let reader_root = root_dir.clone();
    std::thread::spawn(move || {
        let root = CapRoot::open(&reader_root, ambient_authority()).unwrap();
        let mut seen = Seen::default();
        let mut limits = [None, Some(64), Some(4)].into_iter().cycle();
        while !reader_done.load(Ordering::Relaxed) {
            for path in ["d/f", "g"] {
                let limit = limits.next().flatten();
                match root.open_file(&rel(path), limit) {
                    Ok(mut opened) => {
                        let mut bytes = Vec::new();
                        let read = opened.reader.read_to_end(&mut bytes);
                        if opened.metadata.kind != EntryKind::File {
                            seen.untyped.push(format!("{path}: {:?}", opened.metadata));
                        }
                        if bytes.windows(SECRET.len()).any(|w| w == SECRET) {
                            seen.leaked.push(format!("{path}: {bytes:?}"));
                        }
                        if read.is_ok() {
                            seen.reads += 1;
                        }
                    }
                    Err(e) => {
                        seen.refusals += 1;
                        // What a swap can make of the path: a link or a
                        // FIFO or a directory (`not_a_file`), a link in
                        // the parent (`io`), nothing there for a moment.
                        let expected = matches!(
                            e.code(),
                            ErrorCode::NotAFile
                                | ErrorCode::TooLarge
                                | ErrorCode::Io
                                | ErrorCode::NotFound
                        );
                        if !expected {
                            seen.untyped.push(format!("{path}: {e}"));
                        }
                    }
                }
            }
        }
        let _ = tx.send(seen);
    });

    let d = root_dir.join("d");
    let g = root_dir.join("g");
    let aside = root_dir.join(".d-real");
    for (i, fifo) in fifos.iter().enumerate() {
        // The parent: a symlink out (absolute, then relative), then back.
        let link = root_dir.join(format!(".dlink{i}"));
        if i % 2 == 0 {
            symlink(&outside, &link).unwrap();
        } else {
            symlink("../outside", &link).unwrap();
        }
        std::fs::rename(&d, &aside).unwrap();
        std::fs::rename(&link, &d).unwrap();
        std::fs::remove_file(&d).unwrap();
        std::fs::rename(&aside, &d).unwrap();
        // The name: a link out, a FIFO, a directory, a regular file.
        let glink = root_dir.join(format!(".glink{i}"));
        symlink(outside.join("f"), &glink).unwrap();
        std::fs::rename(&glink, &g).unwrap();
        std::fs::rename(fifo, &g).unwrap();
        std::fs::remove_file(&g).unwrap();
        std::fs::create_dir(&g).unwrap();
        std::fs::remove_dir(&g).unwrap();
        let gfile = root_dir.join(format!(".gfile{i}"));
        std::fs::write(&gfile, INSIDE).unwrap();
        std::fs::rename(&gfile, &g).unwrap();
    }
    done.store(true, Ordering::Relaxed);
    let seen = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("open_file blocked (a FIFO opened blocking?)");
    assert_eq!(std::fs::read(outside.join("f")).unwrap(), SECRET);
    seen
}

fn check(seen: &Seen, walk: &str) {
    println!(
        "attack open_file ({walk}): {} reads, {} refusals while swapping",
        seen.reads, seen.refusals
    );
    assert!(
        seen.leaked.is_empty(),
        "outside bytes read: {:?}",
        seen.leaked
    );
    assert!(seen.untyped.is_empty(), "{:?}", seen.untyped);
    assert!(seen.reads > 0, "nothing was read at all");
}

#[test]
fn open_file_never_reads_through_a_swapped_parent_or_name() {
    let top = tempfile::tempdir().unwrap();
    let seen = swap_and_read(top.path());
    let walk = if resolves_with_openat2() {
        "openat2"
    } else {
        "portable walk"
    };
    check(&seen, walk);
    if std::env::var_os("AGENT_CHECKPOINT_PORTABLE_WALK").is_some() {
        return;
    }
    // The same through the portable walk, in a process of its own (the
    // walk is chosen once per process).
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "open_file_never_reads_through_a_swapped_parent_or_name",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("AGENT_CHECKPOINT_PORTABLE_WALK", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("(portable walk)"), "{stdout}");
}

/// `..`, absolute, empty and `.` forms cannot be handed to `open_file` at
/// all: `RelPath` refuses them.
#[test]
fn paths_out_of_the_root_cannot_be_spelled() {
    for bad in [
        "..",
        "../x",
        "a/../../x",
        "/etc/passwd",
        "//etc/passwd",
        "a//b",
        "./a",
        "a/.",
        "",
    ] {
        assert!(RelPath::try_from(bad).is_err(), "{bad:?} accepted");
    }
}

/// A character device at the name (made with `mknod` when the test runs
/// as root) is `not_a_file`, as `read_file` says it.
#[test]
fn a_device_at_the_name_is_not_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("mknod")
        .arg(dir.path().join("null"))
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("attack open_file: SKIPPED the device case: mknod needs root");
        return;
    }
    let root = CapRoot::open(dir.path(), ambient_authority()).unwrap();
    let err = root.open_file(&rel("null"), None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAFile, "{err}");
    let err = root.read_file(&rel("null"), None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAFile, "{err}");
}
