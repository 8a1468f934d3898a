//! [`Root::open_file`], the streaming read (a shadow step writes blobs of
//! any size through it): confined as `read_file` is (never through a
//! symlink at the end or in a parent, never blocking on a FIFO, only a
//! regular file), `too_large` judged on the opened file, and a reader that
//! never gives more than one byte past the limit, whatever the file grew
//! to after the open. `MemRoot` (the default method) reads the same.
//! `read_file` answers as `open_file` does (and never blocks on a FIFO in
//! the portable walk either).
//! Run also under `AGENT_CHECKPOINT_PORTABLE_WALK=1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::io::{Read as _, Write as _};
use std::os::unix::fs::symlink;
use std::sync::mpsc;
use std::time::Duration;

use agent_checkpoint::root::{ambient_authority, EntryKind, MemNode};
use agent_checkpoint::{CapRoot, ErrorCode, MemRoot, RelPath, Root};

fn rel(s: &str) -> RelPath {
    RelPath::try_from(s).unwrap()
}

/// Everything `open_file` reads of `path` (up to `max`), on a thread of its
/// own: a FIFO opened blocking would hang it, which fails the test.
fn read_all(
    dir: &std::path::Path,
    path: &str,
    max: Option<u64>,
) -> agent_checkpoint::Result<Vec<u8>> {
    let dir = dir.to_path_buf();
    let key = rel(path);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let root = CapRoot::open(&dir, ambient_authority()).unwrap();
        // `read_file` (whole) answers alike, and never blocks either.
        let whole = root.read_file(&key, max);
        let read = root.open_file(&key, max).map(|mut opened| {
            let mut bytes = Vec::new();
            opened.reader.read_to_end(&mut bytes).unwrap();
            assert_eq!(opened.metadata.kind, EntryKind::File);
            assert_eq!(opened.metadata.len, bytes.len() as u64);
            bytes
        });
        match (&whole, &read) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => assert_eq!(a.code(), b.code()),
            _ => panic!("read_file and open_file disagree: {whole:?} / {read:?}"),
        }
        let _ = tx.send(read);
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(read) => read,
        Err(_) => panic!("open_file({path:?}) blocked"),
    }
}

#[test]
fn opens_only_a_regular_file_below_the_root() {
    let top = tempfile::tempdir().unwrap();
    let root = top.path().join("root");
    let outside = top.path().join("outside");
    std::fs::create_dir_all(root.join("dir")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET").unwrap();
    std::fs::write(root.join("dir/file.txt"), "inside").unwrap();
    symlink(outside.join("secret.txt"), root.join("abs_link")).unwrap();
    symlink("dir/file.txt", root.join("inside_link")).unwrap();
    symlink(&outside, root.join("dirlink")).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(root.join("fifo"))
        .status()
        .unwrap();
    assert!(fifo.success());

    assert_eq!(read_all(&root, "dir/file.txt", None).unwrap(), b"inside");
    assert_eq!(read_all(&root, "dir/file.txt", Some(6)).unwrap(), b"inside");
    let err = read_all(&root, "dir/file.txt", Some(5)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::TooLarge, "{err}");
    for path in [
        "abs_link",
        "inside_link",
        "dirlink/secret.txt",
        "fifo",
        "dir",
    ] {
        let err = read_all(&root, path, None).unwrap_err();
        assert_ne!(err.code(), ErrorCode::TooLarge, "{path}: {err}");
    }
    for path in ["abs_link", "inside_link", "fifo", "dir"] {
        let err = read_all(&root, path, None).unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotAFile, "{path}: {err}");
    }
    assert!(read_all(&root, "missing", None).is_err());
}

#[test]
fn a_file_grown_after_the_open_is_read_at_most_one_byte_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grows.bin");
    std::fs::write(&path, vec![b'a'; 10]).unwrap();
    let root = CapRoot::open(dir.path(), ambient_authority()).unwrap();
    let mut opened = root.open_file(&rel("grows.bin"), Some(16)).unwrap();
    assert_eq!(opened.metadata.len, 10);
    // Grown after the open (the size check): far past the limit.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(&[b'b'; 1000]).unwrap();
    let mut bytes = Vec::new();
    opened.reader.read_to_end(&mut bytes).unwrap();
    assert_eq!(
        bytes.len(),
        17,
        "the limit and one byte more, never the rest"
    );
    // Without a limit the reader reads what is there now.
    let mut opened = root.open_file(&rel("grows.bin"), None).unwrap();
    let mut bytes = Vec::new();
    opened.reader.read_to_end(&mut bytes).unwrap();
    assert_eq!(bytes.len(), 1010);
    // Opened after it grew: refused, with the size it has.
    let err = root.open_file(&rel("grows.bin"), Some(16)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::TooLarge, "{err}");
    assert!(err.to_string().contains("1010"), "{err}");
}

#[test]
fn the_default_method_reads_what_read_file_reads() {
    let root = MemRoot::new();
    root.insert(
        &rel("a.txt"),
        MemNode::File {
            bytes: b"hello".to_vec(),
            mode: 0o640,
        },
    );
    root.insert(&rel("link"), MemNode::Symlink("a.txt".into()));
    let mut opened = root.open_file(&rel("a.txt"), None).unwrap();
    assert_eq!(opened.metadata.len, 5);
    assert_eq!(opened.metadata.mode, 0o640);
    let mut bytes = Vec::new();
    opened.reader.read_to_end(&mut bytes).unwrap();
    assert_eq!(bytes, b"hello");
    let err = root.open_file(&rel("a.txt"), Some(4)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::TooLarge);
    assert!(root.open_file(&rel("link"), None).is_err());
}
