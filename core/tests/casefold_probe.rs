//! Case-insensitive directories (issue 32 item 4), on a test root that
//! folds names over the in-memory root: lookups ignore ASCII case, and a
//! replaced entry keeps the spelling it had (the harder case for rollback).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use agent_checkpoint::root::{Expect, MemNode, Metadata, Root, WriteOptions};
use agent_checkpoint::{
    capture, rollback, snapshot_paths, CaptureOptions, MemRoot, ParseOptions, RelPath, Result,
    RollbackOptions,
};

struct Folding(MemRoot);

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
    Folding(root)
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
        let root = root_with(&[("a.txt", "old")]);
        let json = capture(&root, ["a.txt"], &CaptureOptions::default()).unwrap();
        // The batch: rename a.txt to A.txt (and maybe edit it).
        root.0
            .remove_file(&RelPath::try_from("a.txt").unwrap(), Expect::Any)
            .unwrap();
        let text = if edited { "new" } else { "old" };
        root.0
            .insert(&RelPath::try_from("A.txt").unwrap(), file(text));
        let snapshot = json.parse(&ParseOptions::default()).unwrap();
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
