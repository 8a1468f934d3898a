//! The one look per file that capture and rollback use
//! ([`Root::look_and_read`]): it never follows a symlink (at the end or in
//! a parent), never blocks on a FIFO, reads nothing but a regular file, and
//! reports the metadata of the bytes it read. Capture of many small files
//! (looked at on several threads) returns the first error in input order,
//! as one thread does. Run also under `AGENT_CHECKPOINT_PORTABLE_WALK=1`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use agent_checkpoint::root::{ambient_authority, EntryKind, Looked, MemNode};
use agent_checkpoint::{
    capture, CapRoot, CaptureOptions, ErrorCode, MemRoot, ParseOptions, RelPath, Root, Snapshot,
};

fn rel(s: &str) -> RelPath {
    RelPath::try_from(s).unwrap()
}

/// A tree `top/root` with a secret in `top/outside`.
fn tree() -> (tempfile::TempDir, CapRoot) {
    let top = tempfile::tempdir().unwrap();
    let root = top.path().join("root");
    let outside = top.path().join("outside");
    std::fs::create_dir_all(root.join("dir")).unwrap();
    std::fs::create_dir_all(outside.join("dir")).unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET").unwrap();
    std::fs::write(outside.join("dir/secret.txt"), "SECRET").unwrap();
    std::fs::write(root.join("dir/file.txt"), "inside").unwrap();
    symlink(outside.join("secret.txt"), root.join("abs_link")).unwrap();
    symlink("../outside/secret.txt", root.join("rel_link")).unwrap();
    symlink("dir/file.txt", root.join("inside_link")).unwrap();
    symlink(outside.join("dir"), root.join("dirlink")).unwrap();
    symlink("../../outside/dir", root.join("dir/parentlink")).unwrap();
    symlink("dir", root.join("insidedir")).unwrap();
    mkfifo(&root.join("fifo"));
    let cap = CapRoot::open(&root, ambient_authority()).unwrap();
    (top, cap)
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo failed");
}

/// `look_and_read` asking for every file's bytes, on a thread of its own:
/// a FIFO opened blocking would hang it, which fails the test (the thread
/// is left behind) instead of hanging it.
fn look_all(root: &CapRoot, path: &str) -> agent_checkpoint::Result<Looked> {
    let dir = root.canonical_path().unwrap();
    let (tx, rx) = mpsc::channel();
    let key = rel(path);
    std::thread::spawn(move || {
        let root = CapRoot::open(&dir, ambient_authority()).unwrap();
        let _ = tx.send(root.look_and_read(&key, &|_| Some(1 << 20)));
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(looked) => looked,
        Err(_) => panic!("look_and_read({path:?}) blocked"),
    }
}

#[test]
fn reads_a_regular_file_with_its_own_metadata() {
    let (_top, root) = tree();
    let looked = look_all(&root, "dir/file.txt").unwrap();
    let meta = looked.metadata.unwrap();
    assert_eq!(meta.kind, EntryKind::File);
    assert_eq!(meta.len, 6);
    assert_eq!(looked.bytes.unwrap().unwrap(), b"inside");
    // The metadata is what `metadata` (lstat) says, change stamp included.
    assert_eq!(Some(meta), root.metadata(&rel("dir/file.txt")).unwrap());
    // Not asked: not read.
    let looked = root.look_and_read(&rel("dir/file.txt"), &|_| None).unwrap();
    assert!(looked.bytes.is_none());
    // Over the limit: refused, nothing read past it.
    let looked = root
        .look_and_read(&rel("dir/file.txt"), &|_| Some(3))
        .unwrap();
    let err = looked.bytes.unwrap().unwrap_err();
    assert_eq!(err.code(), ErrorCode::TooLarge);
}

#[test]
fn never_follows_a_symlink_at_the_end() {
    let (_top, root) = tree();
    for link in ["abs_link", "rel_link", "inside_link"] {
        let looked = look_all(&root, link).unwrap();
        assert_eq!(looked.metadata.unwrap().kind, EntryKind::Symlink, "{link}");
        assert!(looked.bytes.is_none(), "{link} was read through");
    }
}

#[test]
fn never_follows_a_symlink_in_a_parent() {
    let (_top, root) = tree();
    // Out of the root, and inside it: a parent link is an error either way.
    for path in [
        "dirlink/secret.txt",
        "dir/parentlink/secret.txt",
        "insidedir/file.txt",
    ] {
        match look_all(&root, path) {
            Err(_) => {}
            Ok(looked) => panic!("{path}: looked through a parent link: {looked:?}"),
        }
    }
}

#[test]
fn never_blocks_on_or_reads_a_fifo_or_a_directory() {
    let (_top, root) = tree();
    let looked = look_all(&root, "fifo").unwrap();
    assert_eq!(looked.metadata.unwrap().kind, EntryKind::Other);
    assert!(looked.bytes.is_none());
    let looked = look_all(&root, "dir").unwrap();
    assert_eq!(looked.metadata.unwrap().kind, EntryKind::Dir);
    assert!(looked.bytes.is_none());
}

#[test]
fn nothing_there_is_none() {
    let (_top, root) = tree();
    for path in [
        "missing",
        "dir/missing",
        "missing/below",
        "dir/file.txt/below",
    ] {
        let looked = look_all(&root, path).unwrap();
        assert!(looked.metadata.is_none(), "{path}");
        assert!(looked.bytes.is_none(), "{path}");
    }
}

#[test]
fn the_default_implementation_agrees() {
    let mem = MemRoot::new();
    mem.insert(
        &rel("dir/file.txt"),
        MemNode::File {
            bytes: b"inside".to_vec(),
            mode: 0o644,
        },
    );
    mem.insert(&rel("link"), MemNode::Symlink("dir/file.txt".into()));
    mem.insert(&rel("fifo"), MemNode::Other);
    let looked = mem
        .look_and_read(&rel("dir/file.txt"), &|_| Some(100))
        .unwrap();
    assert_eq!(looked.bytes.unwrap().unwrap(), b"inside");
    for (path, kind) in [("link", EntryKind::Symlink), ("fifo", EntryKind::Other)] {
        let looked = mem.look_and_read(&rel(path), &|_| Some(100)).unwrap();
        assert_eq!(looked.metadata.unwrap().kind, kind);
        assert!(looked.bytes.is_none());
    }
    assert!(mem
        .look_and_read(&rel("missing"), &|_| Some(100))
        .unwrap()
        .metadata
        .is_none());
}

/// 200 small files in three directories, in a shuffled input order.
fn many(root: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    for i in 0..200 {
        let p = format!("d{}/f{i:03}.txt", i % 3);
        std::fs::create_dir_all(root.join(format!("d{}", i % 3))).unwrap();
        std::fs::write(root.join(&p), format!("file {i}\n").repeat(i + 1)).unwrap();
        paths.push(p);
    }
    // A fixed shuffle: input order is not key order.
    paths.sort_by_key(|p| {
        let n: usize = p[4..7].parse().unwrap();
        (n * 7919) % 200
    });
    paths
}

#[test]
fn capture_of_many_files_holds_each_files_bytes() {
    let top = tempfile::tempdir().unwrap();
    let paths = many(top.path());
    let root = CapRoot::open(top.path(), ambient_authority()).unwrap();
    let text = capture(&root, &paths, &CaptureOptions::default()).unwrap();
    let snap = Snapshot::parse(text.as_str(), &ParseOptions::default()).unwrap();
    let mut n = 0;
    for (key, bytes) in snap.entries() {
        let want = std::fs::read(top.path().join(key.as_str())).unwrap();
        assert_eq!(bytes, Some(want.as_slice()), "{key:?}");
        n += 1;
    }
    assert_eq!(n, paths.len());
    // The same text as a root looked at on one thread gives.
    let mem = MemRoot::new();
    for p in &paths {
        let bytes = std::fs::read(top.path().join(p)).unwrap();
        mem.insert(&rel(p), MemNode::File { bytes, mode: 0o644 });
    }
    let serial = capture(&mem, &paths, &CaptureOptions::default()).unwrap();
    let strip = |s: &str| -> serde_json::Value {
        let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
        v.as_object_mut().unwrap().remove("modes");
        v.as_object_mut().unwrap().remove("root");
        v
    };
    assert_eq!(strip(text.as_str()), strip(serial.as_str()));
}

#[test]
fn capture_of_many_files_reports_the_first_error_in_input_order() {
    let top = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let mut paths = many(top.path());
    // Special files and an escape late in the input, then an earlier one.
    let (first, second) = (paths[150].clone(), paths[60].clone());
    for (p, make) in [(&second, 0), (&first, 1)] {
        std::fs::remove_file(top.path().join(p)).unwrap();
        if make == 0 {
            mkfifo(&top.path().join(p));
        } else {
            symlink(outside.path(), top.path().join(p)).unwrap();
        }
    }
    let root = CapRoot::open(top.path(), ambient_authority()).unwrap();
    let err = capture(&root, &paths, &CaptureOptions::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotAFile, "{err}");
    assert!(err.to_string().contains(second.as_str()), "{err}");
    // The escape alone, further in: that one.
    paths.retain(|p| *p != second);
    let err = capture(&root, &paths, &CaptureOptions::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::PathEscapesRoot, "{err}");
}
