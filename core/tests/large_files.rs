//! Issue 37.3: capture skips files over `max_file_bytes` (default 100 MiB)
//! without reading them, lists them in the snapshot's `skipped` member with
//! their size, and a rollback of that snapshot reports them as not covered
//! and leaves them as they are.
//!
//! The peak-memory test runs its capture and rollback in a child process
//! (this binary, one test alone), so that nothing else moves its `VmHWM`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::Command;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    capture, rollback, CapRoot, CaptureOptions, ErrorCode, ParseOptions, RollbackOptions, SealKey,
    Snapshot, DEFAULT_MAX_FILE_BYTES,
};

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;
/// Set in the child process: the directory it works in.
const CHILD_DIR: &str = "LARGE_FILES_CHILD_DIR";

/// The process's high-water mark of resident memory, in bytes (`None`
/// where `/proc` does not say).
fn vm_hwm() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A sparse file of `len` bytes starting with `head`.
fn sparse(path: &Path, head: &[u8], len: u64) {
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(head).unwrap();
    f.set_len(len).unwrap();
}

fn head_of(path: &Path, n: usize) -> Vec<u8> {
    let mut buf = vec![0; n];
    std::fs::File::open(path)
        .unwrap()
        .read_exact(&mut buf)
        .unwrap();
    buf
}

fn skipped_of(snapshot: &Snapshot) -> Vec<(String, u64)> {
    snapshot
        .skipped()
        .map(|(p, n)| (p.to_string(), n))
        .collect()
}

/// The child's part: a 1 GiB sparse file and a small one captured with the
/// default limit, the batch edits both, the snapshot is rolled back.
/// Prints `figures: <peak growth in bytes>`.
#[test]
fn child_capture_and_rollback_beside_a_1_gib_file() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return; // Only run as the child of the test below.
    };
    let dir = Path::new(&dir);
    let big = dir.join("data.bin");
    sparse(&big, b"head", GIB);
    std::fs::write(dir.join("notes.txt"), "before\n").unwrap();
    let root = CapRoot::open(dir, ambient_authority()).unwrap();
    let before = vm_hwm().unwrap();

    let text = capture(&root, ["notes.txt", "data.bin"], &CaptureOptions::default()).unwrap();
    let snapshot = text.parse(&ParseOptions::default()).unwrap();
    assert_eq!(snapshot.paths(), ["notes.txt"]);
    assert_eq!(skipped_of(&snapshot), [("data.bin".to_owned(), GIB)]);
    assert!(text.len() < 4096, "{} bytes", text.len());

    // The batch: both files change.
    std::fs::write(dir.join("notes.txt"), "after\n").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .write_all(b"HEAD")
        .unwrap();
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.restored, ["notes.txt"]);
    let not_covered: Vec<(&str, u64, ErrorCode)> = report
        .not_covered
        .iter()
        .map(|n| (n.path.as_str(), n.size, n.code))
        .collect();
    assert_eq!(not_covered, [("data.bin", GIB, ErrorCode::TooLarge)]);
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "before\n"
    );
    // Left as the batch made it: neither restored nor removed.
    assert_eq!(std::fs::metadata(&big).unwrap().len(), GIB);
    assert_eq!(head_of(&big, 4), b"HEAD");
    let grew = vm_hwm().unwrap().saturating_sub(before);
    println!("figures: {grew}");
}

#[test]
fn a_1_gib_untracked_file_is_skipped_and_not_covered_with_peak_memory_unchanged() {
    if vm_hwm().is_none() {
        eprintln!("large_files: no /proc/self/status here, not measured");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let probe = tmp.path().join("probe");
    sparse(&probe, b"", GIB);
    let blocks = std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(&probe).unwrap());
    std::fs::remove_file(&probe).unwrap();
    if blocks > 1 << 16 {
        eprintln!(
            "large_files: SKIPPED: {} holds no sparse files",
            tmp.path().display()
        );
        return;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_capture_and_rollback_beside_a_1_gib_file",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, tmp.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let grew: u64 = stdout
        .lines()
        .find_map(|l| l.split_once("figures: ").map(|(_, f)| f.trim().to_owned()))
        .unwrap_or_else(|| panic!("no figures: {stdout}"))
        .parse()
        .unwrap();
    println!(
        "large_files: a 1 GiB sparse file skipped by capture, not covered by its rollback: peak RSS +{} MiB",
        grew / MIB
    );
    assert!(grew < 64 * MIB, "peak RSS grew by {} MiB", grew / MIB);
}

#[test]
fn a_file_exactly_at_the_limit_is_captured_one_byte_more_is_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("at"), vec![b'a'; 1000]).unwrap();
    std::fs::write(tmp.path().join("over"), vec![b'o'; 1001]).unwrap();
    let root = CapRoot::open(tmp.path(), ambient_authority()).unwrap();
    let options = CaptureOptions::default().with_max_file_bytes(1000);
    let snapshot = capture(&root, ["over", "at"], &options)
        .unwrap()
        .parse(&ParseOptions::default())
        .unwrap();
    assert_eq!(snapshot.paths(), ["at"]);
    assert_eq!(skipped_of(&snapshot), [("over".to_owned(), 1001)]);
}

#[test]
fn the_limit_is_configurable_and_defaults_to_100_mib() {
    assert_eq!(DEFAULT_MAX_FILE_BYTES, 100 * MIB);
    assert_eq!(CaptureOptions::default().max_file_bytes, 100 * MIB);
    let tmp = tempfile::tempdir().unwrap();
    sparse(&tmp.path().join("big"), b"", 100 * MIB + 1);
    let root = CapRoot::open(tmp.path(), ambient_authority()).unwrap();
    let default = capture(&root, ["big"], &CaptureOptions::default())
        .unwrap()
        .parse(&ParseOptions::default())
        .unwrap();
    assert_eq!(skipped_of(&default), [("big".to_owned(), 100 * MIB + 1)]);
    std::fs::write(tmp.path().join("big"), vec![b'x'; 64]).unwrap();
    let tight = CaptureOptions::default().with_max_file_bytes(63);
    let skipped = capture(&root, ["big"], &tight)
        .unwrap()
        .parse(&ParseOptions::default())
        .unwrap();
    assert_eq!(skipped_of(&skipped), [("big".to_owned(), 64)]);
    let roomy = CaptureOptions::default().with_max_file_bytes(64);
    let taken = capture(&root, ["big"], &roomy)
        .unwrap()
        .parse(&ParseOptions::default())
        .unwrap();
    assert_eq!(taken.paths(), ["big"]);
    assert_eq!(taken.skipped().count(), 0);
}

#[test]
fn two_spellings_of_a_skipped_file_give_one_item() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("d")).unwrap();
    std::fs::write(tmp.path().join("d/big"), vec![b'x'; 10]).unwrap();
    let root = CapRoot::open(tmp.path(), ambient_authority()).unwrap();
    let options = CaptureOptions::default().with_max_file_bytes(5);
    let snapshot = capture(&root, ["d/big", "./d//big", "d/../d/big"], &options)
        .unwrap()
        .parse(&ParseOptions::default())
        .unwrap();
    assert!(snapshot.is_empty());
    assert_eq!(skipped_of(&snapshot), [("d/big".to_owned(), 10)]);
}

#[test]
fn a_new_path_below_a_skipped_file_is_refused() {
    // A snapshot that does not hold the file could not bring it back once
    // the batch replaced it with a directory.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("big"), vec![b'x'; 10]).unwrap();
    let root = CapRoot::open(tmp.path(), ambient_authority()).unwrap();
    let options = CaptureOptions::default().with_max_file_bytes(5);
    let err = capture(&root, ["big", "big/new"], &options).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotADirectory, "{err}");
}

#[test]
fn the_skipped_member_is_canonical_sealed_and_checked() {
    let text =
        r#"{"version":1,"entries":{"a":null},"created_dirs":[],"skipped":{"b/big":5,"c":7}}"#;
    let snapshot = Snapshot::parse(text, &ParseOptions::default()).unwrap();
    assert_eq!(snapshot.to_json().as_str(), text);
    // It sorts with unknown members, by name, before `mac`.
    let later =
        r#"{"version":1,"entries":{},"created_dirs":[],"a_later":1,"skipped":{"c":7},"zz":[]}"#;
    let snapshot = Snapshot::parse(later, &ParseOptions::default()).unwrap();
    assert_eq!(snapshot.to_json().as_str(), later);
    // Covered by the MAC.
    let key = SealKey::new(b"k".repeat(32)).unwrap();
    let sealed = snapshot.sealed(&key).unwrap();
    let keyed = ParseOptions::default().with_key(Some(key));
    assert!(Snapshot::parse(sealed.as_str(), &keyed).is_ok());
    let forged = sealed.as_str().replace("\"c\":7", "\"c\":8");
    let err = Snapshot::parse(&forged, &keyed).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unauthenticated, "{err}");
    for bad in [
        r#"{"version":1,"entries":{"a":null},"skipped":{"a":5}}"#,
        r#"{"version":1,"entries":{},"skipped":{"a":"5"}}"#,
        r#"{"version":1,"entries":{},"skipped":{"a":-1}}"#,
        r#"{"version":1,"entries":{},"skipped":{"../a":1}}"#,
        r#"{"version":1,"entries":{},"skipped":["a"]}"#,
    ] {
        let err = Snapshot::parse(bad, &ParseOptions::default()).unwrap_err();
        assert!(
            matches!(
                err.code(),
                ErrorCode::MalformedSnapshot | ErrorCode::InvalidPath
            ),
            "{bad}: {err}"
        );
    }
    let git = r#"{"version":1,"entries":{},"skipped":{".git/x":1}}"#;
    assert_eq!(
        Snapshot::parse(git, &ParseOptions::default())
            .unwrap_err()
            .code(),
        ErrorCode::InvalidPath
    );
}

#[test]
fn capture_report_lists_what_the_snapshot_skips() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a"), b"small").unwrap();
    std::fs::write(tmp.path().join("z"), vec![b'z'; 9]).unwrap();
    let root = CapRoot::open(tmp.path(), ambient_authority()).unwrap();
    let options = CaptureOptions::default().with_max_file_bytes(8);
    let captured = agent_checkpoint::capture_report(&root, ["z", "a", "new"], &options).unwrap();
    let listed: Vec<(&str, u64, ErrorCode)> = captured
        .skipped
        .iter()
        .map(|n| (n.path.as_str(), n.size, n.code))
        .collect();
    assert_eq!(listed, [("z", 9, ErrorCode::TooLarge)]);
    let plain = capture(&root, ["z", "a", "new"], &options).unwrap();
    assert_eq!(plain, captured.snapshot);
    let snapshot = plain.parse(&ParseOptions::default()).unwrap();
    assert_eq!(snapshot.paths(), ["a", "new"]);
    assert_eq!(skipped_of(&snapshot), [("z".to_owned(), 9)]);
}

/// A root whose `metadata` under-reports some files' sizes (they grow
/// between the look and the read), and which may refuse reads over a
/// budget of its own (a refusal that is not about the file's size).
struct Growing {
    inner: agent_checkpoint::MemRoot,
    looks_like: std::collections::BTreeMap<&'static str, u64>,
    budget: Option<u64>,
}

mod growing {
    use agent_checkpoint::root::{Expect, Metadata, Root, WriteOptions};
    use agent_checkpoint::{Error, RelPath, Result};

    impl Root for super::Growing {
        fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
            let mut found = self.inner.metadata(path)?;
            if let (Some(m), Some(len)) = (found.as_mut(), self.looks_like.get(path.as_str())) {
                m.len = *len;
            }
            Ok(found)
        }
        fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
            self.inner.read_dir(dir)
        }
        fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
            let len = self.inner.metadata(path)?.map_or(0, |m| m.len);
            match self.budget {
                Some(budget) if len > budget => Err(Error::too_large("the budget", len, budget)),
                _ => self.inner.read_file(path, max_bytes),
            }
        }
        fn read_link(&self, path: &RelPath) -> Result<String> {
            self.inner.read_link(path)
        }
        fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
            self.inner.write_file(path, bytes, options)
        }
        fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
            self.inner.write_link(path, target, options)
        }
        fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
            self.inner.remove_file(path, expect)
        }
        fn create_dir(&self, path: &RelPath) -> Result<()> {
            self.inner.create_dir(path)
        }
        fn remove_dir(&self, path: &RelPath) -> Result<()> {
            self.inner.remove_dir(path)
        }
        fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
            self.inner.sync_dir(path)
        }
    }
}

fn growing(budget: Option<u64>) -> Growing {
    use agent_checkpoint::root::MemNode;
    let inner = agent_checkpoint::MemRoot::new();
    let file = |n: usize| MemNode::File {
        bytes: vec![b'g'; n],
        mode: 0o644,
    };
    let rel = |p: &str| agent_checkpoint::RelPath::try_from(p).unwrap();
    // Looked at small (read by the look), then 2 MiB.
    inner.insert(&rel("small_then_big"), file(2 << 20));
    // Looked at within the limit but past the look's own reads, then 2 MiB.
    inner.insert(&rel("mid_then_big"), file(2 << 20));
    inner.insert(&rel("steady"), file(10));
    Growing {
        inner,
        looks_like: [("small_then_big", 10), ("mid_then_big", 600 << 10)].into(),
        budget,
    }
}

#[test]
fn a_file_grown_past_the_limit_after_the_look_is_skipped_not_read_whole() {
    let root = growing(None);
    let options = CaptureOptions::default().with_max_file_bytes(1 << 20);
    let captured = agent_checkpoint::capture_report(
        &root,
        ["small_then_big", "mid_then_big", "steady"],
        &options,
    )
    .unwrap();
    let snapshot = captured.snapshot.parse(&ParseOptions::default()).unwrap();
    assert_eq!(snapshot.paths(), ["steady"]);
    let skipped = skipped_of(&snapshot);
    assert_eq!(
        skipped.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        ["mid_then_big", "small_then_big"]
    );
    // The size the bounded read saw: over the limit, never the whole file
    // claimed as read.
    assert!(skipped.iter().all(|(_, n)| *n > 1 << 20), "{skipped:?}");
    assert_eq!(captured.skipped.len(), 2);
}

#[test]
fn a_refusal_of_the_roots_own_is_an_error_not_a_skip() {
    let root = growing(Some(100));
    let err = capture(
        &root,
        ["steady", "mid_then_big"],
        &CaptureOptions::default(),
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::TooLarge, "{err}");
    assert!(err.to_string().contains("the budget"), "{err}");
}
