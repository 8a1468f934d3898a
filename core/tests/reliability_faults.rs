//! Fault injection at the `Root` seam: a wrapper fails the k-th filesystem
//! operation of a rollback, for every k of a rollback over a mixed batch
//! (modified, deleted, created in new nested dirs, file-to-dir type flip,
//! file-to-link flip, retargeted link, chmod), both before the operation
//! runs and after it ran (the operation took effect but reported failure),
//! on the in-memory root and on a real directory.
//!
//! It proves: after every fault each captured path holds either its
//! pre-rollback (post-batch) or its snapshot state, never anything else;
//! nothing uncaptured changes; no temp file is left; a report that says
//! `ok` is telling the truth; and re-running the rollback converges to the
//! snapshot (and stays there on a third run).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::io;

use agent_checkpoint::root::{ambient_authority, Expect, MemNode, Metadata, Root, WriteOptions};
use agent_checkpoint::{
    capture, CapRoot, CaptureOptions, Error, MemRoot, RelPath, Result, RollbackOptions,
};
use common::{check_tree, read_native, TreeNode};
use reliability_sentinel::{figure, stray_temps};

/// When the injected fault strikes relative to the real operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strike {
    /// The operation is not run.
    Before,
    /// The operation runs, then reports failure anyway.
    After,
}

/// A `Root` that counts every filesystem operation and fails the k-th.
struct FaultRoot<'r> {
    inner: &'r dyn Root,
    count: Cell<usize>,
    fail_at: Option<usize>,
    strike: Strike,
    struck: Cell<bool>,
}

impl<'r> FaultRoot<'r> {
    fn new(inner: &'r dyn Root, fail_at: Option<usize>, strike: Strike) -> FaultRoot<'r> {
        FaultRoot {
            inner,
            count: Cell::new(0),
            fail_at,
            strike,
            struck: Cell::new(false),
        }
    }

    fn op<T>(&self, path: &str, run: impl FnOnce() -> Result<T>) -> Result<T> {
        let n = self.count.get() + 1;
        self.count.set(n);
        if self.fail_at != Some(n) {
            return run();
        }
        self.struck.set(true);
        if self.strike == Strike::After {
            let _ = run();
        }
        Err(Error::io(
            path,
            io::Error::other(format!("injected fault at operation {n}")),
        ))
    }
}

fn shown(path: Option<&RelPath>) -> &str {
    path.map_or(".", RelPath::as_str)
}

impl Root for FaultRoot<'_> {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        self.op(path.as_str(), || self.inner.metadata(path))
    }
    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        self.op(shown(dir), || self.inner.read_dir(dir))
    }
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        self.op(path.as_str(), || self.inner.read_file(path, max_bytes))
    }
    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        self.op(path.as_str(), || self.inner.visit_file(path, visit))
    }
    fn read_link(&self, path: &RelPath) -> Result<String> {
        self.op(path.as_str(), || self.inner.read_link(path))
    }
    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        self.op(path.as_str(), || {
            self.inner.write_file(path, bytes, options)
        })
    }
    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        self.op(path.as_str(), || {
            self.inner.write_link(path, target, options)
        })
    }
    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        self.op(path.as_str(), || self.inner.remove_file(path, expect))
    }
    fn create_dir(&self, path: &RelPath) -> Result<()> {
        self.op(path.as_str(), || self.inner.create_dir(path))
    }
    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        self.op(path.as_str(), || self.inner.remove_dir(path))
    }
    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        self.op(shown(path), || self.inner.sync_dir(path))
    }
    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        self.op(shown(dir), || self.inner.remove_stray_temps(dir, names))
    }
    fn absolute_prefixes(&self) -> Vec<String> {
        self.inner.absolute_prefixes()
    }
}

fn rel(p: &str) -> RelPath {
    RelPath::try_from(p).unwrap()
}

/// The tree before the batch: `(path, node)`, parents implied.
fn original() -> Vec<(&'static str, TreeNode)> {
    let file = |t: &str, mode| TreeNode::File {
        bytes: t.as_bytes().to_vec(),
        mode,
    };
    vec![
        ("a.txt", file("A", 0o644)),
        ("src/b.py", file("B", 0o755)),
        ("l", TreeNode::Link("a.txt".into())),
        ("flip", file("F", 0o640)),
        ("d/e.txt", file("E", 0o644)),
        ("m.sh", file("M", 0o600)),
        ("keep/k.txt", file("K", 0o644)),
    ]
}

/// What the batch touches (capture these first).
const CAPTURED: [&str; 9] = [
    "a.txt",
    "src/b.py",
    "new/x/y.txt",
    "gone.txt",
    "l",
    "flip",
    "flip/z",
    "d/e.txt",
    "m.sh",
];

/// The batch, through the root itself.
fn batch(root: &dyn Root) {
    root.write_file(&rel("a.txt"), b"A2", &common::write_options(0o644))
        .unwrap();
    root.remove_file(&rel("src/b.py"), Expect::Any).unwrap();
    root.create_dir(&rel("new")).unwrap();
    root.create_dir(&rel("new/x")).unwrap();
    root.write_file(&rel("new/x/y.txt"), b"Y", &common::write_options(0o644))
        .unwrap();
    root.write_file(&rel("gone.txt"), b"G", &common::write_options(0o644))
        .unwrap();
    root.write_link(&rel("l"), "zz", &common::write_options(0o777))
        .unwrap();
    root.remove_file(&rel("flip"), Expect::Any).unwrap();
    root.create_dir(&rel("flip")).unwrap();
    root.write_file(&rel("flip/z"), b"Z", &common::write_options(0o644))
        .unwrap();
    root.write_link(&rel("d/e.txt"), "../a.txt", &common::write_options(0o777))
        .unwrap();
    root.write_file(&rel("m.sh"), b"M", &common::write_options(0o755))
        .unwrap();
}

/// A root kind under test: builds a fresh root and reads its tree.
trait Kind {
    fn name(&self) -> &'static str;
    fn fresh(&self) -> Box<dyn Fresh>;
}

trait Fresh {
    fn root(&self) -> &dyn Root;
    fn tree(&self) -> BTreeMap<String, TreeNode>;
    fn temps(&self) -> Vec<String>;
}

struct Mem;
struct MemFresh(MemRoot);

impl Kind for Mem {
    fn name(&self) -> &'static str {
        "memory"
    }
    fn fresh(&self) -> Box<dyn Fresh> {
        let root = MemRoot::new();
        for (path, node) in original() {
            let node = match node {
                TreeNode::File { bytes, mode } => MemNode::File { bytes, mode },
                TreeNode::Link(t) => MemNode::Symlink(t),
                TreeNode::Dir => MemNode::Dir,
                TreeNode::Special => MemNode::Other,
            };
            root.insert(&rel(path), node);
        }
        Box::new(MemFresh(root))
    }
}

impl Fresh for MemFresh {
    fn root(&self) -> &dyn Root {
        &self.0
    }
    fn tree(&self) -> BTreeMap<String, TreeNode> {
        self.0
            .entries()
            .into_iter()
            .map(|(k, v)| {
                let node = match v {
                    MemNode::File { bytes, mode } => TreeNode::File { bytes, mode },
                    MemNode::Dir => TreeNode::Dir,
                    MemNode::Symlink(t) => TreeNode::Link(t),
                    MemNode::Other => TreeNode::Special,
                };
                (k, node)
            })
            .collect()
    }
    fn temps(&self) -> Vec<String> {
        Vec::new()
    }
}

struct Native;
struct NativeFresh {
    _tmp: tempfile::TempDir,
    dir: std::path::PathBuf,
    root: CapRoot,
}

impl Kind for Native {
    fn name(&self) -> &'static str {
        "real dir"
    }
    fn fresh(&self) -> Box<dyn Fresh> {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("root");
        std::fs::create_dir(&dir).unwrap();
        for (path, node) in original() {
            common::write_native(&dir, path, &node).unwrap();
        }
        let root = CapRoot::open(&dir, ambient_authority()).unwrap();
        Box::new(NativeFresh {
            _tmp: tmp,
            dir,
            root,
        })
    }
}

impl Fresh for NativeFresh {
    fn root(&self) -> &dyn Root {
        &self.root
    }
    fn tree(&self) -> BTreeMap<String, TreeNode> {
        read_native(&self.dir).unwrap()
    }
    fn temps(&self) -> Vec<String> {
        stray_temps(&self.dir)
    }
}

/// Plays every fault position for one root kind; returns (runs, faults struck).
fn every_fault(kind: &dyn Kind, options: &RollbackOptions) -> (usize, usize) {
    let probe = kind.fresh();
    let snap = capture(probe.root(), CAPTURED, &CaptureOptions::default()).unwrap();
    let orig = probe.tree();
    batch(probe.root());
    let post = probe.tree();
    let counter = FaultRoot::new(probe.root(), None, Strike::Before);
    let report = common::rollback_text(&counter, &snap, options);
    assert!(report.ok(), "{report:?}");
    check_tree(&orig, &probe.tree()).unwrap();
    let total = counter.count.get();
    assert!(
        total > 20,
        "the clean rollback made only {total} operations"
    );

    let captured: BTreeSet<String> = agent_checkpoint::snapshot_paths(snap.as_str())
        .into_iter()
        .collect();
    let mut runs = 0;
    let mut struck = 0;
    for strike in [Strike::Before, Strike::After] {
        for k in 1..=total {
            let world = kind.fresh();
            batch(world.root());
            check_tree(&post, &world.tree()).unwrap();
            let faulty = FaultRoot::new(world.root(), Some(k), strike);
            let report = common::rollback_text(&faulty, &snap, options);
            runs += 1;
            struck += usize::from(faulty.struck.get());
            let at = format!(
                "{} root, fault {strike:?} operation {k} of {total}",
                kind.name()
            );
            assert!(report.valid(), "{at}: {report:?}");
            let now = world.tree();
            // Every captured path: wholly as after the batch, or as captured.
            // A directory the batch put where a file was cannot be swapped
            // for the file in one rename: in between, nothing is there.
            for path in &captured {
                let (n, o, p) = (now.get(path), orig.get(path), post.get(path));
                let flip_gap = n.is_none() && p == Some(&TreeNode::Dir);
                assert!(
                    n == o || n == p || flip_gap,
                    "{at}: {path} is {n:?}, neither {o:?} (snapshot) nor {p:?} (batch)"
                );
            }
            // Everything else: as before, except the batch's own dirs,
            // which are either still there or pruned.
            for path in now.keys().chain(orig.keys()) {
                if captured.contains(path) {
                    continue;
                }
                let (n, o, p) = (now.get(path), orig.get(path), post.get(path));
                assert!(n == o || n == p, "{at}: uncaptured {path} is {n:?}");
            }
            assert_eq!(world.temps(), Vec::<String>::new(), "{at}: temp files left");
            if report.ok() {
                check_tree(&orig, &now).unwrap_or_else(|e| panic!("{at}: reported ok but {e}"));
            }
            // The next run converges, and the one after stays there.
            for again in 1..=2 {
                let report = common::rollback_text(world.root(), &snap, options);
                assert!(report.ok(), "{at}: re-run {again}: {report:?}");
                check_tree(&orig, &world.tree())
                    .unwrap_or_else(|e| panic!("{at}: re-run {again}: {e}"));
                assert_eq!(world.temps(), Vec::<String>::new(), "{at}: temp files left");
            }
        }
    }
    (runs, struck)
}

#[test]
fn every_single_fault_leaves_old_or_new_and_the_next_rollback_converges() {
    let mut total_runs = 0;
    for kind in [&Mem as &dyn Kind, &Native] {
        for durable in [false, true] {
            for redo in [true, false] {
                let mut options = RollbackOptions::default();
                options.durable = durable;
                options.redo = redo;
                let (runs, struck) = every_fault(kind, &options);
                assert_eq!(runs, struck, "every run hit its fault");
                total_runs += runs;
                figure(
                    "faults",
                    &format!(
                        "{} root, durable={durable}, redo={redo}: {runs} faulted rollbacks",
                        kind.name()
                    ),
                );
            }
        }
    }
    figure(
        "faults",
        &format!("{total_runs} faulted rollbacks, 0 torn, 0 stray temp files, all converged"),
    );
}
