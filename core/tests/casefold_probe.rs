//! Case-insensitive directories (issue 32 item 4), on a test root that
//! folds names over the in-memory root: lookups ignore ASCII case, and a
//! replaced entry keeps the spelling it had (the harder case for rollback:
//! the captured name comes back through two renames). The same cases on a
//! real folding filesystem: casefold_mount.rs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::cell::Cell;

use agent_checkpoint::root::{
    ambient_authority, temp, Expect, MemNode, Metadata, Root, WriteOptions,
};
use agent_checkpoint::{
    capture, rollback, snapshot_paths, CapRoot, CaptureOptions, Error, ErrorCode, MemRoot,
    ParseOptions, RelPath, Result, RollbackOptions,
};

/// The folding root; the second field (when set) counts down the renames
/// to let through before one fails, as a full disk or an I/O error would
/// stop it.
struct Folding(MemRoot, Cell<Option<usize>>);

impl Folding {
    /// `path` with each existing component spelled as stored.
    fn spelled(&self, path: &RelPath) -> RelPath {
        let mut parts: Vec<String> = Vec::new();
        for part in path.components() {
            let dir = (!parts.is_empty()).then(|| RelPath::from_components(&parts).unwrap());
            let names = self.0.read_dir(dir.as_ref()).unwrap_or_default();
            let found = names
                .into_iter()
                .find(|n| n.eq_ignore_ascii_case(part))
                .unwrap_or_else(|| part.to_owned());
            parts.push(found);
        }
        RelPath::from_components(&parts).unwrap()
    }
}

impl Root for Folding {
    fn metadata(&self, p: &RelPath) -> Result<Option<Metadata>> {
        self.0.metadata(&self.spelled(p))
    }
    fn read_dir(&self, d: Option<&RelPath>) -> Result<Vec<String>> {
        self.0.read_dir(d.map(|d| self.spelled(d)).as_ref())
    }
    fn read_file(&self, p: &RelPath, max: Option<u64>) -> Result<Vec<u8>> {
        self.0.read_file(&self.spelled(p), max)
    }
    fn read_link(&self, p: &RelPath) -> Result<String> {
        self.0.read_link(&self.spelled(p))
    }
    fn write_file(&self, p: &RelPath, b: &[u8], o: &WriteOptions) -> Result<()> {
        self.0.write_file(&self.spelled(p), b, o)
    }
    fn write_link(&self, p: &RelPath, t: &str, o: &WriteOptions) -> Result<()> {
        self.0.write_link(&self.spelled(p), t, o)
    }
    fn remove_file(&self, p: &RelPath, e: Expect) -> Result<()> {
        self.0.remove_file(&self.spelled(p), e)
    }
    fn rename_file(&self, from: &RelPath, to: &RelPath, e: Expect) -> Result<()> {
        if let Some(left) = self.1.get() {
            self.1.set(left.checked_sub(1));
            if left == 0 {
                let refused = std::io::Error::other("a rename failed by the test");
                return Err(Error::io(to.as_str(), refused));
            }
        }
        self.0
            .rename_file(&self.spelled(from), &self.spelled(to), e)
    }
    fn create_dir(&self, p: &RelPath) -> Result<()> {
        self.0.create_dir(&self.spelled(p))
    }
    fn remove_dir(&self, p: &RelPath) -> Result<()> {
        self.0.remove_dir(&self.spelled(p))
    }
    fn sync_dir(&self, _: Option<&RelPath>) -> Result<()> {
        Ok(())
    }
}

fn file(text: &str) -> MemNode {
    MemNode::File {
        bytes: text.as_bytes().to_vec(),
        mode: 0o644,
    }
}

fn root_with(files: &[(&str, &str)]) -> Folding {
    let root = MemRoot::new();
    for (p, t) in files {
        root.insert(&RelPath::try_from(*p).unwrap(), file(t));
    }
    Folding(root, Cell::new(None))
}

#[test]
fn two_spellings_of_an_existing_file_are_one_entry_under_the_on_disk_name() {
    let root = root_with(&[("README.md", "old"), ("src/x.rs", "x")]);
    let json = capture(
        &root,
        ["readme.md", "README.md", "SRC/X.rs"],
        &CaptureOptions::default(),
    )
    .unwrap();
    assert_eq!(snapshot_paths(json.as_str()), ["README.md", "src/x.rs"]);
}

#[test]
fn two_spellings_of_a_missing_file_are_one_entry_under_the_first_given() {
    let root = root_with(&[("Cargo.toml", "")]);
    let json = capture(&root, ["New.txt", "new.TXT"], &CaptureOptions::default()).unwrap();
    assert_eq!(snapshot_paths(json.as_str()), ["New.txt"]);
}

#[test]
fn a_case_sensitive_root_keeps_both_spellings() {
    let root = MemRoot::new();
    root.insert(&RelPath::try_from("README.md").unwrap(), file("a"));
    root.insert(&RelPath::try_from("readme.md").unwrap(), file("b"));
    let json = capture(
        &root,
        ["readme.md", "README.md", "Readme.md"],
        &CaptureOptions::default(),
    )
    .unwrap();
    assert_eq!(
        snapshot_paths(json.as_str()),
        ["README.md", "Readme.md", "readme.md"]
    );
}

#[test]
fn rollback_restores_the_captured_name_after_a_case_rename() {
    for edited in [false, true] {
        let (root, snapshot) = renamed_by_the_batch(edited);
        let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
        assert!(report.ok(), "{:?}", report.unrestored);
        let tree: Vec<(String, MemNode)> = root.0.entries().into_iter().collect();
        assert_eq!(
            tree,
            [("a.txt".to_owned(), file("old"))],
            "edited: {edited}"
        );
    }
}

/// A root where `a.txt` ("old") was captured and the batch then renamed it
/// to `A.txt` (and maybe edited it), with the parsed snapshot.
fn renamed_by_the_batch(edited: bool) -> (Folding, agent_checkpoint::Snapshot) {
    let root = root_with(&[("a.txt", "old")]);
    let json = capture(&root, ["a.txt"], &CaptureOptions::default()).unwrap();
    root.0
        .remove_file(&RelPath::try_from("a.txt").unwrap(), Expect::Any)
        .unwrap();
    let text = if edited { "new" } else { "old" };
    root.0
        .insert(&RelPath::try_from("A.txt").unwrap(), file(text));
    (root, json.parse(&ParseOptions::default()).unwrap())
}

#[test]
fn a_failed_first_rename_leaves_the_restored_content_under_the_old_spelling() {
    let (root, snapshot) = renamed_by_the_batch(true);
    root.1.set(Some(0));
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert_eq!(report.unrestored.len(), 1, "{:?}", report.unrestored);
    assert_eq!(report.unrestored[0].path, "a.txt");
    assert_eq!(report.unrestored[0].code, ErrorCode::Io);
    let tree: Vec<(String, MemNode)> = root.0.entries().into_iter().collect();
    assert_eq!(tree, [("A.txt".to_owned(), file("old"))]);
}

#[test]
fn a_failed_second_rename_is_undone_and_reported() {
    let (root, snapshot) = renamed_by_the_batch(true);
    root.1.set(Some(1));
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert_eq!(report.unrestored.len(), 1, "{:?}", report.unrestored);
    let tree: Vec<(String, MemNode)> = root.0.entries().into_iter().collect();
    assert_eq!(tree, [("A.txt".to_owned(), file("old"))]);
    // Rolled back again once renames work: the captured name.
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert!(report.ok(), "{:?}", report.unrestored);
    let tree: Vec<(String, MemNode)> = root.0.entries().into_iter().collect();
    assert_eq!(tree, [("a.txt".to_owned(), file("old"))]);
}

/// The state a crash between the two renames leaves (the restored content
/// under a temp name for `a.txt`, no `a.txt`), on a real directory: the
/// next rollback sweeps the temp file and writes `a.txt` anew.
#[test]
fn a_crash_between_the_renames_is_recovered_by_the_next_rollback() {
    let dir = tempfile::tempdir().unwrap();
    let root = CapRoot::open(dir.path(), ambient_authority()).unwrap();
    std::fs::write(dir.path().join("a.txt"), "old").unwrap();
    let json = capture(&root, ["a.txt"], &CaptureOptions::default()).unwrap();
    let between = temp::temp_name("a.txt").unwrap();
    std::fs::rename(dir.path().join("a.txt"), dir.path().join(&between)).unwrap();
    let snapshot = json.parse(&ParseOptions::default()).unwrap();
    let report = rollback(&root, &snapshot, &RollbackOptions::default()).unwrap();
    assert!(report.ok(), "{:?}", report.unrestored);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["a.txt"]);
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"old");
}

#[test]
fn a_case_sensitive_real_directory_keeps_both_spellings() {
    let dir = tempfile::tempdir().unwrap();
    let root = CapRoot::open(dir.path(), ambient_authority()).unwrap();
    std::fs::write(dir.path().join("README.md"), "a").unwrap();
    std::fs::write(dir.path().join("readme.md"), "b").unwrap();
    let nfc = "caf\u{e9}";
    let nfd = "cafe\u{301}";
    std::fs::write(dir.path().join(nfc), "c").unwrap();
    let json = capture(
        &root,
        ["readme.md", "README.md", "Readme.md", nfd, nfc],
        &CaptureOptions::default(),
    )
    .unwrap();
    assert_eq!(
        snapshot_paths(json.as_str()),
        ["README.md", "Readme.md", nfd, nfc, "readme.md"]
    );
}
