//! Attacks on the one-look read path (`Root::look_and_read`, capture and
//! rollback's decision on two threads): symlinks at the end and in a
//! parent (static and raced), FIFOs and sockets (static and raced), first
//! error in input order, files growing while read, huge sparse files.
//! Run also under `AGENT_CHECKPOINT_PORTABLE_WALK=1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;

use common::blocking::{mkfifo, within};
use std::os::unix::fs::{symlink, OpenOptionsExt as _};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, rollback, CapRoot, CaptureOptions, ErrorCode, ParseOptions, RollbackOptions, Snapshot,
};

const SECRET: &[u8] = b"OUTSIDE-SECRET";

/// `top/root` and `top/outside` holding the secret (also `outside/d/f.txt`).
fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let top = tempfile::tempdir().unwrap();
    let root = top.path().join("root");
    let outside = top.path().join("outside");
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::create_dir_all(outside.join("d")).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("f.txt"), SECRET).unwrap();
    std::fs::write(outside.join("d/f.txt"), SECRET).unwrap();
    std::fs::write(root.join("d/f.txt"), b"inside").unwrap();
    (top, root, outside)
}

fn open(root: &Path) -> CapRoot {
    CapRoot::open(root, ambient_authority()).unwrap()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// No byte of the secret in a snapshot's entries, nor in its text (base64
/// of it at any of the three alignments is checked by decoding entries).
fn assert_no_secret(text: &str) {
    let snap = Snapshot::parse(text, &ParseOptions::default()).unwrap();
    for (key, bytes) in snap.entries() {
        if let Some(b) = bytes {
            assert!(!contains(b, SECRET), "{key:?} holds outside bytes");
        }
    }
    assert!(!text.contains("OUTSIDE-SECRET"));
}

// ---- 1. final component a symlink ----------------------------------------

#[test]
fn a_final_symlink_is_captured_as_a_link_never_followed() {
    let (_top, root, outside) = tree();
    symlink(outside.join("secret.txt"), root.join("abs")).unwrap();
    symlink("../outside/secret.txt", root.join("rel")).unwrap();
    symlink("d/f.txt", root.join("in")).unwrap();
    symlink("d", root.join("todir")).unwrap();
    symlink("nowhere", root.join("dangling")).unwrap();
    symlink("loop2", root.join("loop1")).unwrap();
    symlink("loop1", root.join("loop2")).unwrap();
    let cap = open(&root);
    for p in ["abs", "rel", "in", "todir", "dangling", "loop1"] {
        match capture(&cap, [p], &CaptureOptions::default()) {
            Ok(text) => {
                assert_no_secret(text.as_str());
                let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
                // Whatever is captured, the link itself is recorded as one
                // (or what it resolves to inside); never the outside file.
                let _ = snap;
            }
            Err(e) => assert!(
                matches!(e.code(), ErrorCode::PathEscapesRoot | ErrorCode::NotAFile)
                    || e.to_string().contains(p),
                "{p}: {e}"
            ),
        }
    }
}

#[test]
fn rollback_never_writes_or_reads_through_a_final_symlink() {
    let (_top, root, outside) = tree();
    std::fs::write(root.join("t.txt"), b"before").unwrap();
    let cap = open(&root);
    let text = capture(&cap, ["t.txt"], &CaptureOptions::default()).unwrap();
    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    // The agent replaces the file with a link out of the root.
    std::fs::remove_file(root.join("t.txt")).unwrap();
    symlink(outside.join("secret.txt"), root.join("t.txt")).unwrap();
    let report = rollback(&cap, &snap, &RollbackOptions::default().with_redo(true)).unwrap();
    assert_eq!(std::fs::read(outside.join("secret.txt")).unwrap(), SECRET);
    if let Some(redo) = &report.redo {
        assert_no_secret(redo.as_str());
    }
}

// ---- 2. a parent swapped for a symlink out of the root, raced -----------

/// Swaps `root/d` between a real directory and a link to `outside/d`
/// until `stop`.
fn swapper(root: PathBuf, outside: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::fs::rename(root.join("d"), root.join("d.real")).unwrap();
    symlink(outside.join("d"), root.join("d.link")).unwrap();
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            let _ = std::fs::rename(root.join("d.real"), root.join("d"));
            let _ = std::fs::rename(root.join("d"), root.join("d.real"));
            let _ = std::fs::rename(root.join("d.link"), root.join("d"));
            let _ = std::fs::rename(root.join("d"), root.join("d.link"));
        }
    })
}

#[test]
fn a_parent_raced_to_a_link_out_never_lets_an_outside_byte_in() {
    let (_top, root, outside) = tree();
    // 40 files under d (more than the parallel threshold) and the same
    // names outside holding the secret.
    let mut paths = Vec::new();
    for i in 0..40 {
        let p = format!("d/f{i}.txt");
        std::fs::write(root.join(&p), format!("inside {i}")).unwrap();
        std::fs::write(outside.join(&p), SECRET).unwrap();
        paths.push(p);
    }
    let cap = open(&root);
    let stop = Arc::new(AtomicBool::new(false));
    let handle = swapper(root.clone(), outside.clone(), stop.clone());
    let (mut ok, mut err) = (0, 0);
    for _ in 0..300 {
        match capture(&cap, &paths, &CaptureOptions::default()) {
            Ok(text) => {
                assert_no_secret(text.as_str());
                ok += 1;
            }
            Err(_) => err += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    eprintln!("capture under a parent swap: {ok} ok, {err} refused");
}

#[test]
fn rollback_with_a_parent_raced_to_a_link_out_never_touches_outside() {
    let (_top, root, outside) = tree();
    let mut paths = Vec::new();
    for i in 0..40 {
        let p = format!("d/f{i}.txt");
        std::fs::write(root.join(&p), format!("inside {i}")).unwrap();
        std::fs::write(outside.join(&p), SECRET).unwrap();
        paths.push(p);
    }
    let cap = open(&root);
    let text = capture(&cap, &paths, &CaptureOptions::default()).unwrap();
    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    for p in &paths {
        std::fs::write(root.join(p), b"edited by the agent").unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let handle = swapper(root.clone(), outside.clone(), stop.clone());
    for _ in 0..100 {
        if let Ok(report) = rollback(&cap, &snap, &RollbackOptions::default().with_redo(true)) {
            if let Some(redo) = &report.redo {
                let redo = redo.as_str();
                // base64 of the secret at offset 0 (entries are whole files)
                assert!(
                    !redo.contains("T1VUU0lERS1TRUNSRVQ"),
                    "outside bytes in the redo"
                );
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    for p in &paths {
        assert_eq!(
            std::fs::read(outside.join(p)).unwrap(),
            SECRET,
            "{p} written"
        );
    }
}

// ---- 3. FIFOs and sockets ------------------------------------------------

#[test]
fn a_fifo_or_socket_is_not_a_file_promptly_at_capture_and_rollback() {
    let (_top, root, _outside) = tree();
    mkfifo(&root.join("fifo"));
    let _sock = std::os::unix::net::UnixListener::bind(root.join("sock")).unwrap();
    // Many files, so that the two-thread path is taken too.
    let mut paths: Vec<String> = (0..40)
        .map(|i| {
            let p = format!("f{i}.txt");
            std::fs::write(root.join(&p), b"x").unwrap();
            p
        })
        .collect();
    for special in ["fifo", "sock"] {
        for many in [false, true] {
            let r = root.clone();
            let input: Vec<String> = if many {
                let mut v = paths.clone();
                v.insert(20, special.to_owned());
                v
            } else {
                vec![special.to_owned()]
            };
            let err = within(10, special, move || {
                capture(&open(&r), &input, &CaptureOptions::default())
                    .map(|t| t.as_str().to_owned())
            })
            .unwrap_err();
            assert_eq!(err.code(), ErrorCode::NotAFile, "{special}: {err}");
        }
    }
    // Rollback: the files become FIFOs / sockets after capture.
    paths.truncate(40);
    let cap = open(&root);
    let text = capture(&cap, &paths, &CaptureOptions::default()).unwrap();
    std::fs::remove_file(root.join("f3.txt")).unwrap();
    mkfifo(&root.join("f3.txt"));
    std::fs::remove_file(root.join("f30.txt")).unwrap();
    let _sock2 = std::os::unix::net::UnixListener::bind(root.join("f30.txt")).unwrap();
    let r = root.clone();
    let report = within(10, "rollback", move || {
        let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
        rollback(
            &open(&r),
            &snap,
            &RollbackOptions::default().with_redo(true),
        )
        .map(|rep| (rep.ok(), rep.failures()))
    });
    eprintln!("rollback over a FIFO and a socket: {report:?}");
}

/// Opens `fifo` for writing on a thread: that open only completes once
/// someone opens the FIFO for reading. Returns a receiver that gets a
/// message when it does.
fn waiting_writer(fifo: &Path) -> mpsc::Receiver<()> {
    let (tx, rx) = mpsc::channel();
    let fifo = fifo.to_owned();
    std::thread::spawn(move || {
        if std::fs::OpenOptions::new().write(true).open(&fifo).is_ok() {
            let _ = tx.send(());
        }
    });
    std::thread::sleep(Duration::from_millis(100));
    rx
}

/// Releases a writer still waiting (opens the FIFO for reading, non-blocking).
fn release(fifo: &Path) {
    let _ = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc_o_nonblock())
        .open(fifo);
}

const fn libc_o_nonblock() -> i32 {
    0o4000
}

/// The look at a path must not open what is there before it knows what it
/// is: a FIFO opened for reading wakes a writer waiting for a reader (who
/// then gets EPIPE/SIGPIPE when we close), a device's open has side effects
/// (a tape rewinds, a modem hangs up...). 8ecf048 opened first (O_RDONLY)
/// and fstat()ed after; now an O_PATH handle is fstat()ed first.
#[test]
fn capture_does_not_open_a_fifo_it_refuses() {
    let (_top, root, _outside) = tree();
    let fifo = root.join("fifo");
    mkfifo(&fifo);
    let opened = waiting_writer(&fifo);
    let r = root.clone();
    let err = within(10, "capture", move || {
        capture(&open(&r), ["fifo"], &CaptureOptions::default()).map(|t| t.as_str().to_owned())
    })
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAFile);
    let was_opened = opened.recv_timeout(Duration::from_millis(500)).is_ok();
    release(&fifo);
    assert!(
        !was_opened,
        "capture opened the FIFO it refused (a waiting writer woke up)"
    );
}

#[test]
fn rollback_does_not_open_a_fifo_at_a_captured_path() {
    let (_top, root, _outside) = tree();
    std::fs::write(root.join("t.txt"), b"before").unwrap();
    let cap = open(&root);
    let text = capture(&cap, ["t.txt"], &CaptureOptions::default()).unwrap();
    std::fs::remove_file(root.join("t.txt")).unwrap();
    let fifo = root.join("t.txt");
    mkfifo(&fifo);
    let opened = waiting_writer(&fifo);
    let r = root.clone();
    let _ = within(10, "rollback", move || {
        let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
        rollback(&open(&r), &snap, &RollbackOptions::default()).map(|rep| rep.ok())
    });
    let was_opened = opened.recv_timeout(Duration::from_millis(500)).is_ok();
    release(&fifo);
    assert!(!was_opened, "rollback opened the FIFO at a captured path");
}

/// A FIFO swapped in for a file, racing capture: never blocks.
#[test]
fn a_fifo_raced_in_for_a_file_never_blocks_capture() {
    let (_top, root, _outside) = tree();
    let paths: Vec<String> = (0..40)
        .map(|i| {
            let p = format!("f{i}.txt");
            std::fs::write(root.join(&p), b"x").unwrap();
            p
        })
        .collect();
    mkfifo(&root.join("fifo.spare"));
    std::fs::write(root.join("file.spare"), b"x").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (r, s) = (root.clone(), stop.clone());
    let handle = std::thread::spawn(move || {
        while !s.load(Ordering::Relaxed) {
            let _ = std::fs::rename(r.join("f7.txt"), r.join("file.spare2"));
            let _ = std::fs::rename(r.join("fifo.spare"), r.join("f7.txt"));
            let _ = std::fs::rename(r.join("f7.txt"), r.join("fifo.spare"));
            let _ = std::fs::rename(r.join("file.spare2"), r.join("f7.txt"));
        }
    });
    let r = root.clone();
    let results = within(60, "capture under a FIFO swap", move || {
        let cap = open(&r);
        let mut codes = Vec::new();
        for _ in 0..300 {
            match capture(&cap, &paths, &CaptureOptions::default()) {
                Ok(text) => {
                    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
                    for (k, b) in snap.entries() {
                        if k.as_str() == "f7.txt" {
                            // Absent for an instant of the swap, or the file.
                            assert!(b.is_none() || b == Some(&b"x"[..]), "{b:?}");
                        }
                    }
                    codes.push(None);
                }
                Err(e) => codes.push(Some(e.code())),
            }
        }
        codes
    });
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
    for code in results.into_iter().flatten() {
        assert!(
            matches!(
                code,
                ErrorCode::NotAFile | ErrorCode::NotFound | ErrorCode::Io
            ),
            "{code:?}"
        );
    }
}

// ---- 4. two threads: input order, many files, files changing --------------

#[test]
fn the_first_error_in_input_order_is_reported() {
    let top = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let paths: Vec<String> = (0..200)
        .map(|i| {
            let p = format!("f{i:03}.txt");
            std::fs::write(top.path().join(&p), b"x").unwrap();
            p
        })
        .collect();
    // Index 150 escapes, index 10 is a directory.
    std::fs::remove_file(top.path().join(&paths[150])).unwrap();
    symlink(outside.path(), top.path().join(&paths[150])).unwrap();
    std::fs::remove_file(top.path().join(&paths[10])).unwrap();
    std::fs::create_dir(top.path().join(&paths[10])).unwrap();
    let root = open(top.path());
    for _ in 0..20 {
        let err = capture(&root, &paths, &CaptureOptions::default()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotAFile, "{err}");
        assert!(err.to_string().contains(&paths[10]), "{err}");
    }
    // Reversed input: the escape comes first.
    let rev: Vec<String> = paths.iter().rev().cloned().collect();
    let err = capture(&root, &rev, &CaptureOptions::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::PathEscapesRoot, "{err}");
    // Too large at index 5 (metadata): skipped, not an error; the
    // not-a-file at 10 is still the first error.
    std::fs::write(top.path().join(&paths[5]), vec![b'y'; 2000]).unwrap();
    let err = capture(
        &root,
        &paths,
        &CaptureOptions::default().with_max_file_bytes(1000),
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAFile, "{err}");
    assert!(err.to_string().contains(&paths[10]), "{err}");
}

#[test]
fn ten_thousand_tiny_files_round_trip() {
    let top = tempfile::tempdir().unwrap();
    let paths: Vec<String> = (0..10_000)
        .map(|i| {
            let d = format!("d{}", i % 50);
            std::fs::create_dir_all(top.path().join(&d)).unwrap();
            let p = format!("{d}/f{i}");
            std::fs::write(top.path().join(&p), i.to_string()).unwrap();
            p
        })
        .collect();
    let root = open(top.path());
    let text = capture(&root, &paths, &CaptureOptions::default()).unwrap();
    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    assert_eq!(snap.len(), 10_000);
    for (k, b) in snap.entries() {
        let i: usize = k.as_str().rsplit('f').next().unwrap().parse().unwrap();
        assert_eq!(b.unwrap(), i.to_string().as_bytes());
    }
    // Edit all, roll back all (rollback's look-ahead on two threads).
    for p in &paths {
        std::fs::write(top.path().join(p), b"edited").unwrap();
    }
    let report = rollback(
        &root,
        &snap,
        &RollbackOptions::default().with_durable(false),
    )
    .unwrap();
    assert!(report.ok(), "{:?}", report.failures());
    for (i, p) in paths.iter().enumerate() {
        assert_eq!(
            std::fs::read(top.path().join(p)).unwrap(),
            i.to_string().as_bytes()
        );
    }
}

/// Files grown and shrunk (rewritten) while captured: each snapshot parses
/// (its digests match its bytes) and holds a state the file had.
#[test]
fn files_changing_while_read_give_a_consistent_snapshot_or_an_error() {
    let top = tempfile::tempdir().unwrap();
    let paths: Vec<String> = (0..40)
        .map(|i| {
            let p = format!("g{i}");
            std::fs::write(top.path().join(&p), b"a").unwrap();
            p
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let (t, s) = (top.path().to_owned(), stop.clone());
    let handle = std::thread::spawn(move || {
        use std::io::Write as _;
        let mut n = 1usize;
        while !s.load(Ordering::Relaxed) {
            for i in [0, 17, 39] {
                let p = t.join(format!("g{i}"));
                if n.is_multiple_of(7) {
                    // shrink in place
                    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
                    f.set_len(1).unwrap();
                } else {
                    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
                    f.write_all(&vec![b'a'; n % 5000]).unwrap();
                }
            }
            n += 1;
        }
    });
    let root = open(top.path());
    let key = agent_checkpoint::SealKey::new(vec![7u8; 32]).unwrap();
    for round in 0..200 {
        let options = if round % 2 == 0 {
            CaptureOptions::default()
        } else {
            CaptureOptions::default().with_key(Some(key.clone()))
        };
        if let Ok(text) = capture(&root, &paths, &options) {
            let parse = ParseOptions::default().with_key(if round % 2 == 0 {
                None
            } else {
                Some(key.clone())
            });
            let snap = Snapshot::parse(text.as_str(), &parse)
                .unwrap_or_else(|e| panic!("round {round}: {e}"));
            for (k, b) in snap.entries() {
                let b = b.unwrap();
                assert!(b.iter().all(|&c| c == b'a'), "{k:?}");
                if let Some(d) = snap.digest(k) {
                    assert_eq!(
                        *d,
                        agent_checkpoint::internals::sha256(b),
                        "{k:?}: digest of other bytes"
                    );
                }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    handle.join().unwrap();
}

// ---- 5. huge sparse files ------------------------------------------------

#[test]
fn a_huge_sparse_file_is_skipped_without_being_read() {
    let top = tempfile::tempdir().unwrap();
    let f = std::fs::File::create(top.path().join("huge")).unwrap();
    f.set_len(8 << 30).unwrap();
    std::fs::write(top.path().join("small"), b"s").unwrap();
    let root = open(top.path());
    let started = Instant::now();
    let text = capture(
        &root,
        ["small", "huge"],
        &CaptureOptions::default().with_max_file_bytes(1 << 20),
    )
    .unwrap();
    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    assert_eq!(snap.paths(), ["small"]);
    let skipped: Vec<(String, u64)> = snap.skipped().map(|(p, n)| (p.to_string(), n)).collect();
    assert_eq!(skipped, [("huge".to_owned(), 8 << 30)]);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

/// Rollback over a huge sparse file that replaced a captured small one:
/// prompt (the 8 GiB are neither held nor hashed whole).
#[test]
fn rollback_over_a_huge_sparse_file_is_prompt() {
    let top = tempfile::tempdir().unwrap();
    std::fs::write(top.path().join("huge"), b"small").unwrap();
    let root = open(top.path());
    let text = capture(&root, ["huge"], &CaptureOptions::default()).unwrap();
    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(top.path().join("huge"))
        .unwrap();
    f.set_len(8 << 30).unwrap();
    drop(f);
    let started = Instant::now();
    let options = RollbackOptions::default()
        .with_redo(true)
        .with_max_file_bytes(1 << 20)
        .with_durable(false);
    let report = rollback(&root, &snap, &options).unwrap();
    let took = started.elapsed();
    eprintln!("rollback over 8 GiB sparse: {took:?}, ok {}", report.ok());
    assert!(took < Duration::from_secs(3), "{took:?}");
}

/// A character device (1:3, like /dev/null; needs root to make) at a
/// captured path: `not_a_file`, never read. Under strace: the openat2
/// path takes an O_PATH handle only (no driver open) and reopens through
/// /proc/self/fd only a regular file; the portable walk lstats first.
#[test]
fn a_device_node_is_not_a_file() {
    let top = tempfile::tempdir().unwrap();
    let made = Command::new("mknod")
        .arg(top.path().join("dev"))
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("skipped: mknod needs root");
        return;
    }
    let root = open(top.path());
    let err = capture(&root, ["dev"], &CaptureOptions::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAFile, "{err}");
    std::fs::write(top.path().join("dev2"), b"x").unwrap();
    let text = capture(&root, ["dev2"], &CaptureOptions::default()).unwrap();
    std::fs::remove_file(top.path().join("dev2")).unwrap();
    Command::new("mknod")
        .arg(top.path().join("dev2"))
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    let report = rollback(&root, &snap, &RollbackOptions::default().with_redo(true)).unwrap();
    // The device is replaced by the captured file (a rename, never a write
    // through it), and the redo cannot carry a device.
    assert!(report.ok(), "{report:?}");
    assert_eq!(std::fs::read(top.path().join("dev2")).unwrap(), b"x");
    let left: Vec<_> = report
        .not_in_redo
        .iter()
        .map(|n| (n.path.as_str(), n.code))
        .collect();
    assert_eq!(left, [("dev2", ErrorCode::NotAFile)]);
}
