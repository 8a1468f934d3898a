//! Issue 21, the findings whose tests live nowhere else: one test per
//! finding, named after it, each written against the behaviour the issue
//! reported (so it fails where that behaviour comes back). Where the other
//! findings are tested is listed in docs/RELIABILITY.md ("Security findings").
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::Path;
use std::sync::Mutex;

use agent_checkpoint::root::{ambient_authority, Expect, MemNode, Metadata, Root, WriteOptions};
use agent_checkpoint::{
    capture, plan_rollback, record_applied, rollback, CapRoot, CaptureOptions, ErrorCode, MemRoot,
    OnConflict, ParseOptions, PlanAction, PlanOptions, RecordOptions, RelPath, Result,
    RollbackOptions, SealKey, Snapshot,
};

fn rel(p: &str) -> RelPath {
    RelPath::try_from(p).unwrap()
}

fn cap(dir: &Path) -> CapRoot {
    CapRoot::open(dir, ambient_authority()).unwrap()
}

/// Whether this process runs as root (a file it creates is owned by uid 0).
fn is_root(dir: &Path) -> bool {
    let probe = dir.join(".uid-probe");
    std::fs::write(&probe, "").unwrap();
    let uid = std::fs::metadata(&probe).unwrap().uid();
    std::fs::remove_file(probe).unwrap();
    uid == 0
}

// ---------------------------------------------------------------------------
// 2. Setuid comes back as root.

/// A user's setuid file, restored by a root-run rollback, keeps its owner and
/// group and loses its set-id bits unless `restore_setid` asks for them; a
/// forged snapshot cannot create a set-id file either.
#[test]
fn finding_02_setuid_does_not_come_back_as_root() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let tool = dir.join("tool");
    std::fs::write(&tool, "#!/bin/sh\nid\n").unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o4755)).unwrap();
    let root = is_root(dir);
    // The user's own file: owned by nobody (65534) when we can make it so.
    let (uid, gid) = if root {
        std::os::unix::fs::chown(&tool, Some(65_534), Some(65_534)).unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o4755)).unwrap();
        (65_534, 65_534)
    } else {
        eprintln!("security_findings: not root, the owner half of finding 2 is not exercised");
        let m = std::fs::metadata(&tool).unwrap();
        (m.uid(), m.gid())
    };
    let snap = capture(&cap(dir), ["tool"], &CaptureOptions::default()).unwrap();
    assert!(snap.as_str().contains(r#""modes":{"tool":2541}"#), "{snap}");
    for (restore_setid, want_mode) in [(false, 0o755), (true, 0o4755)] {
        // The batch edits the file in place (its owner stays the user's).
        std::fs::write(&tool, "#!/bin/sh\nrm -rf ~\n").unwrap();
        let options = RollbackOptions::default().with_restore_setid(restore_setid);
        let report = common::rollback_text(&cap(dir), &snap, &options);
        assert!(report.ok(), "{report:?}");
        let meta = std::fs::symlink_metadata(&tool).unwrap();
        assert_eq!(std::fs::read(&tool).unwrap(), b"#!/bin/sh\nid\n");
        assert_eq!(
            meta.mode() & 0o7777,
            want_mode,
            "restore_setid {restore_setid}: mode {:o}",
            meta.mode() & 0o7777
        );
        assert_eq!(
            (meta.uid(), meta.gid()),
            (uid, gid),
            "the owner of the replaced file is kept"
        );
        let item = &report.plan.items[0];
        assert_eq!(
            item.reason.is_some(),
            !restore_setid,
            "the plan says why the bits are not restored: {item:?}"
        );
    }
    // A forged snapshot asking for a new setuid+setgid file gets a plain one.
    let forged = r#"{"version":1,"entries":{"made":"eA=="},"modes":{"made":3565}}"#;
    let report = common::rollback_text(&cap(dir), forged, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    let mode = std::fs::metadata(dir.join("made")).unwrap().mode() & 0o7777;
    assert_eq!(mode, 0o755, "forged 06755 came back as {mode:o}");
}

// ---------------------------------------------------------------------------
// 3. A 40-byte snapshot aborts the process.

/// A [`MemRoot`] that records every whole-file read and flags any read of a
/// file larger than `limit` that is not bounded below its size: reading
/// such a file whole is how a 40-byte snapshot ran a process out of memory.
struct BoundedReads {
    inner: MemRoot,
    limit: u64,
    unbounded: Mutex<Vec<String>>,
    streamed: Mutex<BTreeMap<String, usize>>,
}

impl Root for BoundedReads {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        self.inner.metadata(path)
    }
    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        self.inner.read_dir(dir)
    }
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        let len = self.inner.metadata(path)?.map_or(0, |m| m.len);
        if len > self.limit && max_bytes.is_none_or(|max| max >= len) {
            self.unbounded.lock().unwrap().push(format!(
                "{path} read whole ({len} bytes, max {max_bytes:?})"
            ));
        }
        self.inner.read_file(path, max_bytes)
    }
    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        // Streamed in small chunks: what a real root does.
        let bytes = self.inner.read_file(path, None)?;
        for chunk in bytes.chunks(4096) {
            visit(chunk);
        }
        *self
            .streamed
            .lock()
            .unwrap()
            .entry(path.to_string())
            .or_default() += 1;
        Ok(())
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

/// The issue's 40-byte snapshot against a current file over the size limit:
/// `plan`, the default rollback (with its redo), a rollback without redo,
/// `record_applied`, and the guarded plan and rollback after it never read
/// the file whole; the redo says `too_large` for it; digests are streamed.
#[test]
fn finding_03_a_forty_byte_snapshot_never_reads_a_big_file_whole() {
    const LIMIT: u64 = 64 << 10;
    let big = || MemNode::File {
        bytes: vec![7; (3 * LIMIT) as usize],
        mode: 0o644,
    };
    let root = BoundedReads {
        inner: MemRoot::new(),
        limit: LIMIT,
        unbounded: Mutex::new(Vec::new()),
        streamed: Mutex::new(BTreeMap::new()),
    };
    let text = r#"{"version":1,"entries":{"big.bin":null}}"#;
    assert_eq!(text.len(), 40);
    let snapshot = Snapshot::parse(text, &ParseOptions::default()).unwrap();
    root.inner.insert(&rel("big.bin"), big());

    let plan = plan_rollback(&root, &snapshot, &PlanOptions::default()).unwrap();
    assert_eq!(plan.items[0].action, PlanAction::Remove);

    let fast = RollbackOptions::default()
        .with_durable(false)
        .with_max_file_bytes(LIMIT);
    let report = rollback(&root, &snapshot, &fast).unwrap();
    assert!(report.ok(), "{report:?}");
    let left_out: Vec<(&str, ErrorCode)> = report
        .not_in_redo
        .iter()
        .map(|n| (n.path.as_str(), n.code))
        .collect();
    assert_eq!(left_out, [("big.bin", ErrorCode::TooLarge)]);
    assert_eq!(root.inner.get("big.bin"), None);

    root.inner.insert(&rel("big.bin"), big());
    let report = rollback(&root, &snapshot, &fast.clone().with_redo(false)).unwrap();
    assert!(report.ok(), "{report:?}");

    root.inner.insert(&rel("big.bin"), big());
    let applied = record_applied(&root, &snapshot, &RecordOptions::default())
        .unwrap()
        .parse(&ParseOptions::default())
        .unwrap();
    let skip = fast.clone().with_on_conflict(OnConflict::Skip);
    let plan = plan_rollback(&root, &applied, &skip.plan_options()).unwrap();
    assert_eq!(plan.items[0].action, PlanAction::Remove, "{plan:?}");
    let report = rollback(&root, &applied, &skip).unwrap();
    assert!(report.ok() && report.conflicts.is_empty(), "{report:?}");
    assert_eq!(root.inner.get("big.bin"), None);

    let unbounded = root.unbounded.lock().unwrap();
    assert!(unbounded.is_empty(), "{unbounded:#?}");
    // record_applied, the guarded plan and the guarded rollback hashed it.
    assert_eq!(root.streamed.lock().unwrap().get("big.bin"), Some(&3));
}

// ---------------------------------------------------------------------------
// 4. Quadratic validation (the timing is in BENCHMARKS.md; here, the order).

/// The issue's pathological shape: `n` entries `cN` with content plus `n`
/// new paths `dN/f` whose `n` parents the batch creates.
fn pathological(n: usize) -> String {
    let mut entries = Vec::with_capacity(2 * n);
    let mut dirs = Vec::with_capacity(n);
    for i in 0..n {
        entries.push(format!(r#""c{i}":"eA==""#));
        entries.push(format!(r#""d{i}/f":null"#));
        dirs.push(format!(r#""d{i}""#));
    }
    format!(
        r#"{{"version":1,"entries":{{{}}},"created_dirs":[{}]}}"#,
        entries.join(","),
        dirs.join(",")
    )
}

/// With a key, the MAC is checked before any costly validation: a snapshot
/// that is both unauthenticated and invalid is refused as unauthenticated
/// (validating first would have said `malformed_snapshot`, after the
/// validator's whole run); the pathological set validates.
#[test]
fn finding_04_with_a_key_the_mac_is_checked_before_validation() {
    let key = SealKey::try_from("the right key").unwrap();
    let wrong = SealKey::try_from("another key").unwrap();
    // Content below a file: refused by validation, not by the reader.
    let invalid = r#"{"version":1,"entries":{"a":"YQ==","a/b":"YQ=="}}"#;
    let plain = ParseOptions::default();
    assert_eq!(
        Snapshot::parse(invalid, &plain).unwrap_err().code(),
        ErrorCode::MalformedSnapshot
    );
    let keyed = plain.clone().with_key(Some(key.clone()));
    assert_eq!(
        Snapshot::parse(invalid, &keyed).unwrap_err().code(),
        ErrorCode::Unauthenticated
    );
    // Sealed with another key: still unauthenticated, not malformed.
    let forged = {
        let body = invalid.strip_suffix('}').unwrap();
        let mac = "0".repeat(64);
        format!(r#"{body},"mac":"{mac}"}}"#)
    };
    let root = MemRoot::new();
    root.insert(&rel("keep"), MemNode::Dir);
    let options = RollbackOptions::default().with_key(Some(key.clone()));
    for text in [invalid, forged.as_str()] {
        let report = common::rollback_text(&root, text, &options);
        assert_eq!(report.error_code(), Some(ErrorCode::Unauthenticated));
        let plan = common::plan_text(&root, text, &options.plan_options()).unwrap_err();
        assert_eq!(plan.code(), ErrorCode::Unauthenticated);
    }
    // The pathological shape of the issue: valid, and listed whole.
    let n = 20_000;
    let text = pathological(n);
    let snapshot = Snapshot::parse(&text, &plain).unwrap();
    assert_eq!(snapshot.len(), 2 * n);
    assert_eq!(agent_checkpoint::snapshot_paths(&text).len(), 2 * n);
    // Sealed with one key, rolled back with another: refused, nothing read.
    let sealed = snapshot.sealed(&wrong).unwrap();
    let report = common::rollback_text(&root, &sealed, &options);
    assert_eq!(report.error_code(), Some(ErrorCode::Unauthenticated));
    assert_eq!(root.entries().len(), 1);
}

// ---------------------------------------------------------------------------
// 5. A snapshot that contradicts its own digests is half applied.

/// One entry whose bytes do not match their digest: plan and rollback refuse
/// the whole snapshot; the path it would have deleted is still there.
#[test]
fn finding_05_a_digest_mismatch_refuses_the_whole_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.txt"), "A").unwrap();
    std::fs::write(dir.join("b.txt"), "B").unwrap();
    let snap = capture(
        &cap(dir),
        ["a.txt", "b.txt", "new.txt"],
        &Default::default(),
    )
    .unwrap();
    // The batch: edits, and creates new.txt.
    std::fs::write(dir.join("a.txt"), "A2").unwrap();
    std::fs::write(dir.join("new.txt"), "N").unwrap();
    // Forged bytes for b.txt ("QQ==" = "A"): its digest still says "B".
    let forged = snap
        .as_str()
        .replacen(r#""b.txt":"Qg==""#, r#""b.txt":"QQ==""#, 1);
    assert_ne!(forged, snap.as_str());
    let plan = common::plan_text(&cap(dir), &forged, &PlanOptions::default()).unwrap_err();
    assert_eq!(plan.code(), ErrorCode::MalformedSnapshot);
    let report = common::rollback_text(&cap(dir), &forged, &RollbackOptions::default());
    assert_eq!(report.error_code(), Some(ErrorCode::MalformedSnapshot));
    assert!(report.restored.is_empty() && report.unrestored.is_empty());
    assert_eq!(std::fs::read_to_string(dir.join("new.txt")).unwrap(), "N");
    assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "A2");
}

// ---------------------------------------------------------------------------
// 9. Plan says `keep` but rollback rewrites.

/// A captured file (and link) the batch left as captured is not rewritten:
/// same inode, a user's hard link to it still shares it, mtime unchanged.
#[test]
fn finding_09_a_path_already_as_captured_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("a.txt"), "A").unwrap();
    std::fs::set_permissions(dir.join("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    std::fs::write(dir.join("b.txt"), "B").unwrap();
    std::os::unix::fs::symlink("a.txt", dir.join("cur")).unwrap();
    let snap = capture(&cap(dir), ["a.txt", "b.txt", "cur"], &Default::default()).unwrap();
    // A user's hard link, and an mtime in the past.
    std::fs::hard_link(dir.join("a.txt"), dir.join("hard.txt")).unwrap();
    let past = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(dir.join("a.txt"))
        .unwrap()
        .set_modified(past)
        .unwrap();
    let before_a = std::fs::symlink_metadata(dir.join("a.txt")).unwrap();
    let before_link = std::fs::symlink_metadata(dir.join("cur")).unwrap();
    // The batch touches b.txt only.
    std::fs::write(dir.join("b.txt"), "B2").unwrap();
    let plan = common::plan_text(&cap(dir), &snap, &PlanOptions::default()).unwrap();
    let actions: Vec<(&str, PlanAction)> = plan
        .items
        .iter()
        .map(|i| (i.path.as_str(), i.action))
        .collect();
    assert_eq!(
        actions,
        [
            ("a.txt", PlanAction::Keep),
            ("b.txt", PlanAction::Write),
            ("cur", PlanAction::Keep)
        ]
    );
    let report = common::rollback_text(&cap(dir), &snap, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    let after_a = std::fs::symlink_metadata(dir.join("a.txt")).unwrap();
    assert_eq!(after_a.ino(), before_a.ino(), "a.txt was replaced");
    assert_eq!(after_a.nlink(), 2, "the user's hard link was broken");
    assert_eq!(after_a.mtime(), before_a.mtime(), "a.txt was rewritten");
    let after_link = std::fs::symlink_metadata(dir.join("cur")).unwrap();
    assert_eq!(after_link.ino(), before_link.ino(), "the link was replaced");
    assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "B");
}

/// A set-id file the batch left as captured is left alone too, bits and
/// all: stripping them would rewrite a file that needs no restoring (the
/// model suite found it). One the batch changed comes back without them.
#[test]
fn finding_09_a_set_id_file_already_as_captured_keeps_its_bits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for name in ["kept", "edited"] {
        std::fs::write(dir.join(name), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(0o4755)).unwrap();
    }
    let snap = capture(&cap(dir), ["kept", "edited"], &Default::default()).unwrap();
    let before = std::fs::symlink_metadata(dir.join("kept")).unwrap();
    std::fs::write(dir.join("edited"), "changed").unwrap();
    let plan = common::plan_text(&cap(dir), &snap, &PlanOptions::default()).unwrap();
    let items: Vec<(&str, PlanAction, bool)> = plan
        .items
        .iter()
        .map(|i| (i.path.as_str(), i.action, i.reason.is_some()))
        .collect();
    assert_eq!(
        items,
        [
            ("edited", PlanAction::Write, true),
            ("kept", PlanAction::Keep, false)
        ]
    );
    let report = common::rollback_text(&cap(dir), &snap, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    let after = std::fs::symlink_metadata(dir.join("kept")).unwrap();
    assert_eq!((after.ino(), after.mode() & 0o7777), (before.ino(), 0o4755));
    let edited = std::fs::metadata(dir.join("edited")).unwrap();
    assert_eq!(edited.mode() & 0o7777, 0o755);
    // The next rollback leaves both as they are.
    let again = common::rollback_text(&cap(dir), &snap, &RollbackOptions::default());
    assert!(again
        .plan
        .items
        .iter()
        .all(|i| i.action == PlanAction::Keep));
}

// ---------------------------------------------------------------------------
// 11. As non-root, a file restored with mode 000 is reported unrestored.

const AS_NOBODY: &str = "SECURITY_FINDINGS_AS_NOBODY";

/// Runs this one test again as uid/gid 65534 when we are root (root reads a
/// mode-000 file, which hid the bug); returns whether it did. The test binary
/// is copied into a directory uid 65534 can enter first: the target directory
/// may sit under a home only root can reach.
fn rerun_as_nobody(test: &str) -> bool {
    use std::os::unix::process::CommandExt as _;
    let tmp = tempfile::tempdir().unwrap();
    if std::env::var_os(AS_NOBODY).is_some() || !is_root(tmp.path()) {
        return false;
    }
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = tmp.path().join("security_findings");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Its own temp dir (TMPDIR may point where uid 65534 cannot write).
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir(&scratch).unwrap();
    std::fs::set_permissions(&scratch, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let out = std::process::Command::new(&exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(AS_NOBODY, "1")
        .env("TMPDIR", &scratch)
        .uid(65_534)
        .gid(65_534)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "as nobody:\n{text}");
    assert!(
        text.contains("1 passed"),
        "the test did not run as nobody:\n{text}"
    );
    true
}

/// A file restored with mode 000 by a process that may not read it is
/// reported restored (it is), and the next rollback converges.
#[test]
fn finding_11_mode_000_is_restored_and_reported_restored_as_non_root() {
    if rerun_as_nobody("finding_11_mode_000_is_restored_and_reported_restored_as_non_root") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    assert!(
        !is_root(dir),
        "runs as non-root (re-run as nobody when root)"
    );
    std::fs::write(dir.join("locked"), "changed").unwrap();
    // "secret", mode 000.
    let snap = r#"{"version":1,"entries":{"locked":"c2VjcmV0"},"modes":{"locked":0}}"#;
    let report = common::rollback_text(&cap(dir), snap, &RollbackOptions::default());
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.restored, ["locked"]);
    let meta = std::fs::metadata(dir.join("locked")).unwrap();
    assert_eq!((meta.mode() & 0o7777, meta.len()), (0, 6));
    // Its content is what was captured (read by making it readable again).
    std::fs::set_permissions(dir.join("locked"), std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(std::fs::read(dir.join("locked")).unwrap(), b"secret");
    std::fs::set_permissions(dir.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    // A second rollback, which cannot read the file to compare it, converges.
    let again = common::rollback_text(&cap(dir), snap, &RollbackOptions::default());
    assert!(again.ok(), "{again:?}");
    let left_out: Vec<(&str, ErrorCode)> = again
        .not_in_redo
        .iter()
        .map(|n| (n.path.as_str(), n.code))
        .collect();
    assert_eq!(left_out, [("locked", ErrorCode::PermissionDenied)]);
    // Its post-batch state cannot be recorded: a typed refusal.
    let parsed = Snapshot::parse(snap, &ParseOptions::default()).unwrap();
    let e = record_applied(&cap(dir), &parsed, &RecordOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::PermissionDenied, "{e}");
    assert_eq!(
        std::fs::metadata(dir.join("locked")).unwrap().mode() & 0o7777,
        0
    );
}
