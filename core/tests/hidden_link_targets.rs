//! A root that will not reveal an absolute symlink's target (wasmtime's
//! WASI filesystem refuses to read one): such a link is still replaced or
//! removed at rollback (neither follows it), the redo lists it as left
//! out, and with `applied` recorded it counts as changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use agent_checkpoint::root::{Expect, MemNode, Metadata, Root, WriteOptions};
use agent_checkpoint::{
    capture, plan_rollback, record_applied, rollback, CaptureOptions, Error, ErrorCode, MemRoot,
    OnConflict, ParseOptions, PlanAction, PlanOptions, RecordOptions, RelPath, Result,
    RollbackOptions, Snapshot,
};

/// [`MemRoot`], except that reading an absolute symlink's target fails
/// with `path_escapes_root`, as on wasmtime.
struct HidingRoot(MemRoot);

impl Root for HidingRoot {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        self.0.metadata(path)
    }
    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        self.0.read_dir(dir)
    }
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        self.0.read_file(path, max_bytes)
    }
    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        self.0.visit_file(path, visit)
    }
    fn read_link(&self, path: &RelPath) -> Result<String> {
        let target = self.0.read_link(path)?;
        if target.starts_with('/') {
            return Err(Error::escapes(path.as_str(), "an absolute symlink target"));
        }
        Ok(target)
    }
    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        self.0.write_file(path, bytes, options)
    }
    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        self.0.write_link(path, target, options)
    }
    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        self.0.remove_file(path, expect)
    }
    fn create_dir(&self, path: &RelPath) -> Result<()> {
        self.0.create_dir(path)
    }
    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        self.0.remove_dir(path)
    }
    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        self.0.sync_dir(path)
    }
}

fn rel(p: &str) -> RelPath {
    RelPath::try_from(p).unwrap()
}

fn file(text: &str) -> MemNode {
    MemNode::File {
        bytes: text.as_bytes().to_vec(),
        mode: 0o644,
    }
}

/// `a` (a file) and `b` (absent) captured; the batch turns `a` into a
/// symlink to `/etc/passwd` and creates `b` as a symlink to `/tmp/x`.
fn batch_of_absolute_links() -> (HidingRoot, Snapshot) {
    let mem = MemRoot::new();
    mem.insert(&rel("a"), file("A"));
    let json = capture(&mem, ["a", "b"], &CaptureOptions::default()).unwrap();
    let snapshot = json.parse(&ParseOptions::default()).unwrap();
    mem.insert(&rel("a"), MemNode::Symlink("/etc/passwd".into()));
    mem.insert(&rel("b"), MemNode::Symlink("/tmp/x".into()));
    (HidingRoot(mem), snapshot)
}

#[test]
fn unreadable_links_are_replaced_and_removed() {
    let (root, snapshot) = batch_of_absolute_links();
    let plan = plan_rollback(&root, &snapshot, &PlanOptions::default()).unwrap();
    let actions: Vec<(String, PlanAction)> = plan
        .items
        .iter()
        .map(|i| (i.path.to_string(), i.action))
        .collect();
    assert_eq!(
        actions,
        [
            ("a".to_owned(), PlanAction::Write),
            ("b".to_owned(), PlanAction::Remove)
        ]
    );
    let report = rollback(
        &root,
        &snapshot,
        &RollbackOptions::default().with_durable(false),
    )
    .unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.restored, ["a", "b"]);
    assert_eq!(report.plan, plan, "the rollback carried out its plan");
    assert_eq!(root.0.get("a"), Some(file("A")));
    assert_eq!(root.0.get("b"), None);
    // The redo cannot hold what it could not read: both listed, with a code.
    let left_out: Vec<(&str, ErrorCode)> = report
        .not_in_redo
        .iter()
        .map(|n| (n.path.as_str(), n.code))
        .collect();
    assert_eq!(
        left_out,
        [
            ("a", ErrorCode::PathEscapesRoot),
            ("b", ErrorCode::PathEscapesRoot)
        ]
    );
}

#[test]
fn with_applied_recorded_an_unreadable_link_counts_as_changed() {
    let mem = MemRoot::new();
    mem.insert(&rel("a"), file("A"));
    let json = capture(&mem, ["a"], &CaptureOptions::default()).unwrap();
    let snapshot = json.parse(&ParseOptions::default()).unwrap();
    mem.insert(&rel("a"), file("batch"));
    let recorded = record_applied(&mem, &snapshot, &RecordOptions::default())
        .unwrap()
        .parse(&ParseOptions::default())
        .unwrap();
    // Later, someone makes `a` an absolute link: it may be theirs.
    mem.insert(&rel("a"), MemNode::Symlink("/home/me/notes".into()));
    let root = HidingRoot(mem);
    let skip = RollbackOptions::default()
        .with_durable(false)
        .with_on_conflict(OnConflict::Skip);
    let report = rollback(&root, &recorded, &skip).unwrap();
    assert_eq!(report.conflicts, ["a"]);
    assert_eq!(
        root.0.get("a"),
        Some(MemNode::Symlink("/home/me/notes".into()))
    );
    // Recording the applied state of such a link is refused with a code.
    let e = record_applied(&root, &snapshot, &RecordOptions::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::PathEscapesRoot, "{e}");
}
