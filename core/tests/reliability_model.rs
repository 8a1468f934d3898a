//! Model-based property test: random trees (files with modes, symlinks,
//! chains of them, empty dirs), random batches (modify, create in new nested
//! dirs, delete, file-to-dir type flips, link-to-dir flips, new and
//! retargeted symlinks, chmod), random spellings of the captured paths
//! (`./p`, `x/../p`, absolute). Capture what the batch touches, apply the
//! batch, roll back: the tree must be exactly the original, the report
//! `ok`, and a second rollback must change nothing.
//!
//! 10,000 cases against the in-memory root and 300 against a real temp dir
//! by default (`RELIABILITY_MODEL_CASES` / `RELIABILITY_MODEL_REAL_CASES`;
//! ten times more with `RELIABILITY_LONG=1`). Cases whose capture is refused
//! by design (a captured link resolving to a directory, a symlink loop) are
//! discarded, and counted.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_checkpoint::root::{ambient_authority, MemNode, Root};
use agent_checkpoint::{
    capture, rollback, CapRoot, CaptureOptions, MemRoot, RelPath, RollbackOptions,
};
use common::{check_tree, read_native, TreeNode};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reliability_sentinel::{env_count, figure, long_run};

const MEM_ABSOLUTE: &str = "/virtual/root";
const NAMES: [&str; 3] = ["a", "b", "c"];
const MODES: [u32; 4] = [0o644, 0o755, 0o600, 0o640];

type Tree = BTreeMap<String, TreeNode>;

/// Every path of the universe: `a` .. `c/c/c` (39 paths).
fn universe() -> Vec<String> {
    let mut out = Vec::new();
    for x in NAMES {
        out.push(x.to_owned());
        for y in NAMES {
            out.push(format!("{x}/{y}"));
            for z in NAMES {
                out.push(format!("{x}/{y}/{z}"));
            }
        }
    }
    out
}

fn ancestors(path: &str) -> Vec<String> {
    path.match_indices('/')
        .map(|(i, _)| path[..i].to_owned())
        .collect()
}

fn parent_depth(path: &str) -> usize {
    path.matches('/').count()
}

/// A link target text that leads from `link`'s directory to `target`.
fn relative_target(link: &str, target: &str) -> String {
    format!("{}{target}", "../".repeat(parent_depth(link)))
}

/// Builds the initial tree from raw draws; every parent is a directory.
fn initial_tree(draws: &[(u8, u8, u8, u8)], paths: &[String]) -> Tree {
    let mut tree = Tree::new();
    for &(p, kind, x, y) in draws {
        let path = &paths[usize::from(p) % paths.len()];
        if tree.contains_key(path)
            || ancestors(path)
                .iter()
                .any(|a| tree.get(a).is_some_and(|n| *n != TreeNode::Dir))
        {
            continue;
        }
        for a in ancestors(path) {
            tree.insert(a, TreeNode::Dir);
        }
        let node = match kind % 5 {
            0..=2 => TreeNode::File {
                bytes: vec![b'0' + x % 10; usize::from(y % 4)],
                mode: MODES[usize::from(y) % MODES.len()],
            },
            3 => TreeNode::Link(relative_target(path, &paths[usize::from(x) % paths.len()])),
            _ => TreeNode::Dir,
        };
        tree.insert(path.clone(), node);
    }
    tree
}

/// One step of the batch, on the literal path.
#[derive(Debug, Clone)]
enum Step {
    RemoveFile(String),
    CreateDir(String),
    WriteFile(String, Vec<u8>, u32),
    WriteLink(String, String),
}

/// Plans a batch on a model of the tree: the steps, and the paths to
/// capture first (every path a step writes or removes, and every file or
/// link a step turns into a directory).
fn plan_batch(
    orig: &Tree,
    draws: &[(u8, u8, u8, u8)],
    paths: &[String],
) -> (Vec<Step>, BTreeSet<String>) {
    let mut now = orig.clone();
    let mut steps = Vec::new();
    let mut captured = BTreeSet::new();
    for &(op, p, x, y) in draws {
        let path = paths[usize::from(p) % paths.len()].clone();
        let ancs = ancestors(&path);
        // Never through a link of the original tree: capture would resolve
        // it to another key than the one the batch touches.
        if ancs
            .iter()
            .any(|a| matches!(orig.get(a), Some(TreeNode::Link(_))))
        {
            continue;
        }
        if matches!(now.get(&path), Some(TreeNode::Dir)) {
            continue;
        }
        let kind = op % 4;
        let exists = now.contains_key(&path);
        if (kind == 0 || kind == 3) && !exists {
            continue;
        }
        if kind == 3 && !matches!(now.get(&path), Some(TreeNode::File { .. })) {
            continue;
        }
        // Parents: files and links in the way become directories (flips).
        let mut prefix = Vec::new();
        if kind != 0 {
            for a in &ancs {
                match now.get(a) {
                    Some(TreeNode::Dir) => {}
                    None => {
                        prefix.push(Step::CreateDir(a.clone()));
                    }
                    Some(_) => {
                        captured.insert(a.clone());
                        prefix.push(Step::RemoveFile(a.clone()));
                        prefix.push(Step::CreateDir(a.clone()));
                    }
                }
            }
        }
        for s in &prefix {
            match s {
                Step::RemoveFile(a) => {
                    now.remove(a);
                }
                Step::CreateDir(a) => {
                    now.insert(a.clone(), TreeNode::Dir);
                }
                _ => {}
            }
        }
        steps.extend(prefix);
        captured.insert(path.clone());
        let step = match kind {
            0 => {
                now.remove(&path);
                Step::RemoveFile(path)
            }
            1 => {
                let bytes = vec![b'a' + x % 26; usize::from(y % 5)];
                let mode = MODES[usize::from(x) % MODES.len()];
                now.insert(
                    path.clone(),
                    TreeNode::File {
                        bytes: bytes.clone(),
                        mode,
                    },
                );
                Step::WriteFile(path, bytes, mode)
            }
            2 => {
                let target = relative_target(&path, &paths[usize::from(x) % paths.len()]);
                now.insert(path.clone(), TreeNode::Link(target.clone()));
                Step::WriteLink(path, target)
            }
            _ => {
                let Some(TreeNode::File { bytes, .. }) = now.get(&path).cloned() else {
                    unreachable!("checked above")
                };
                let mode = MODES[usize::from(y) % MODES.len()];
                now.insert(
                    path.clone(),
                    TreeNode::File {
                        bytes: bytes.clone(),
                        mode,
                    },
                );
                Step::WriteFile(path, bytes, mode)
            }
        };
        steps.push(step);
    }
    (steps, captured)
}

fn run_batch(root: &dyn Root, steps: &[Step]) {
    for step in steps {
        match step {
            Step::RemoveFile(p) => root.remove_file(&rel(p)).unwrap(),
            Step::CreateDir(p) => root.create_dir(&rel(p)).unwrap(),
            Step::WriteFile(p, bytes, mode) => {
                root.write_file(&rel(p), bytes, *mode, false).unwrap()
            }
            Step::WriteLink(p, target) => root.write_link(&rel(p), target).unwrap(),
        }
    }
}

fn rel(p: &str) -> RelPath {
    RelPath::try_from(p).unwrap()
}

/// A spelling of `path` that must resolve to it.
fn spell(path: &str, how: u8, absolute: &str) -> String {
    match how % 5 {
        0 | 1 => path.to_owned(),
        2 => format!("./{path}"),
        3 => format!("zz/../{path}"),
        _ => format!("{absolute}/{path}"),
    }
}

/// Draws for one case: initial tree, batch, spellings.
type Case = (Vec<(u8, u8, u8, u8)>, Vec<(u8, u8, u8, u8)>, Vec<u8>);

fn case_strategy() -> impl Strategy<Value = Case> {
    let draw = (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>());
    (
        proptest::collection::vec(draw, 0..8),
        proptest::collection::vec(draw, 1..6),
        proptest::collection::vec(any::<u8>(), 8),
    )
}

/// A root under test, fresh for each case.
trait Harness {
    fn load(&self, tree: &Tree) -> Box<dyn Loaded>;
}

trait Loaded {
    fn root(&self) -> &dyn Root;
    fn tree(&self) -> Tree;
    fn absolute(&self) -> String;
}

struct MemHarness;
struct MemLoaded(MemRoot);

impl Harness for MemHarness {
    fn load(&self, tree: &Tree) -> Box<dyn Loaded> {
        let root = MemRoot::with_absolute_path(MEM_ABSOLUTE);
        for (path, node) in tree {
            let node = match node.clone() {
                TreeNode::File { bytes, mode } => MemNode::File { bytes, mode },
                TreeNode::Dir => MemNode::Dir,
                TreeNode::Link(t) => MemNode::Symlink(t),
                TreeNode::Special => MemNode::Other,
            };
            root.insert(&rel(path), node);
        }
        Box::new(MemLoaded(root))
    }
}

impl Loaded for MemLoaded {
    fn root(&self) -> &dyn Root {
        &self.0
    }
    fn tree(&self) -> Tree {
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
    fn absolute(&self) -> String {
        MEM_ABSOLUTE.to_owned()
    }
}

struct RealHarness;
struct RealLoaded {
    _tmp: tempfile::TempDir,
    dir: std::path::PathBuf,
    root: CapRoot,
}

impl Harness for RealHarness {
    fn load(&self, tree: &Tree) -> Box<dyn Loaded> {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap().join("root");
        std::fs::create_dir(&dir).unwrap();
        for (path, node) in tree {
            common::write_native(&dir, path, node).unwrap();
        }
        let root = CapRoot::open(&dir, ambient_authority()).unwrap();
        Box::new(RealLoaded {
            _tmp: tmp,
            dir,
            root,
        })
    }
}

impl Loaded for RealLoaded {
    fn root(&self) -> &dyn Root {
        &self.root
    }
    fn tree(&self) -> Tree {
        read_native(&self.dir).unwrap()
    }
    fn absolute(&self) -> String {
        self.dir.to_str().unwrap().to_owned()
    }
}

/// Counts of what the cases did.
#[derive(Default)]
struct Counts {
    cases: AtomicUsize,
    discarded: AtomicUsize,
    steps: AtomicUsize,
    captured: AtomicUsize,
}

fn play(
    harness: &dyn Harness,
    case: &Case,
    options: &RollbackOptions,
    counts: &Counts,
) -> Result<(), TestCaseError> {
    let paths = universe();
    let (tree_draws, batch_draws, spellings) = case;
    let orig = initial_tree(tree_draws, &paths);
    let (steps, captured) = plan_batch(&orig, batch_draws, &paths);
    let world = harness.load(&orig);
    let loaded = world.tree();
    check_tree(&orig, &loaded).map_err(TestCaseError::fail)?;
    let abs = world.absolute();
    let spelled: Vec<String> = captured
        .iter()
        .enumerate()
        .map(|(i, p)| spell(p, spellings[i % spellings.len()], &abs))
        .collect();
    let snap = match capture(world.root(), &spelled, &CaptureOptions::default()) {
        Ok(s) => s,
        Err(e) => {
            // Refused by design: a link to a directory, or a loop.
            prop_assert!(
                matches!(
                    e.code(),
                    agent_checkpoint::ErrorCode::NotAFile
                        | agent_checkpoint::ErrorCode::InvalidPath
                ),
                "capture of {spelled:?} failed: {e}"
            );
            counts.discarded.fetch_add(1, Ordering::Relaxed);
            return Err(TestCaseError::reject("capture refused by design"));
        }
    };
    run_batch(world.root(), &steps);
    let report = rollback(world.root(), &snap, options);
    prop_assert!(report.ok(), "{report:?}\nsnapshot {snap}\nsteps {steps:?}");
    check_tree(&orig, &world.tree())
        .map_err(|e| TestCaseError::fail(format!("{e}\nsnapshot {snap}\nsteps {steps:?}")))?;
    let again = rollback(world.root(), &snap, options);
    prop_assert!(again.ok(), "second rollback: {again:?}");
    check_tree(&orig, &world.tree()).map_err(TestCaseError::fail)?;
    counts.cases.fetch_add(1, Ordering::Relaxed);
    counts.steps.fetch_add(steps.len(), Ordering::Relaxed);
    counts.captured.fetch_add(captured.len(), Ordering::Relaxed);
    Ok(())
}

fn run(name: &str, harness: &dyn Harness, cases: u32) {
    let counts = Counts::default();
    let mut config = Config::with_cases(cases);
    config.max_global_rejects = cases;
    config.failure_persistence = None;
    let mut runner = TestRunner::new(config);
    let mut fast = RollbackOptions::default();
    fast.durable = false;
    let result = runner.run(&case_strategy(), |case| {
        play(harness, &case, &fast, &counts)
    });
    figure(
        "model",
        &format!(
            "{name}: {} cases passed ({} batch steps, {} captured paths), {} discarded",
            counts.cases.load(Ordering::Relaxed),
            counts.steps.load(Ordering::Relaxed),
            counts.captured.load(Ordering::Relaxed),
            counts.discarded.load(Ordering::Relaxed),
        ),
    );
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    assert!(counts.cases.load(Ordering::Relaxed) >= cases as usize);
}

/// Cases the model found (each was a wrong report from rollback), kept as
/// fixed regressions on both roots: initial tree, captured paths, batch.
/// A shrunk case: the tree before, the paths captured, the batch.
type RegressionCase<'a> = (Vec<(&'a str, TreeNode)>, Vec<&'a str>, Vec<Step>);

#[test]
fn cases_the_model_found_stay_fixed() {
    let file = || TreeNode::File {
        bytes: Vec::new(),
        mode: 0o644,
    };
    let link = |t: &str| TreeNode::Link(t.to_owned());
    let w = |p: &str| Step::WriteFile(p.to_owned(), Vec::new(), 0o644);
    let l = |p: &str, t: &str| Step::WriteLink(p.to_owned(), t.to_owned());
    let rm = |p: &str| Step::RemoveFile(p.to_owned());
    let md = |p: &str| Step::CreateDir(p.to_owned());
    let cases: Vec<RegressionCase> = vec![
        // A new path made a dir holding the batch's own new dirs.
        (
            vec![],
            vec!["b", "b/a/a"],
            vec![w("b"), rm("b"), md("b"), md("b/a"), w("b/a/a")],
        ),
        // A symlink put at the parent of a captured new path.
        (
            vec![("b/b/c", link("../../a/b/a"))],
            vec!["a", "b/b/c"],
            vec![rm("b/b/c"), l("a", "a")],
        ),
        (
            vec![("a", file()), ("b/a/c", link("../../a/a"))],
            vec!["a", "b/a/c"],
            vec![l("a", "a"), rm("b/a/c")],
        ),
        // A symlink put above a created dir.
        (
            vec![("b", file()), ("a/a/b", link("../../b/a/a"))],
            vec!["b", "a/a/b"],
            vec![rm("a/a/b"), l("b", "a")],
        ),
    ];
    let mut fast = RollbackOptions::default();
    fast.durable = false;
    for (i, (nodes, captured, steps)) in cases.iter().enumerate() {
        let mut tree = Tree::new();
        for (path, node) in nodes {
            for a in ancestors(path) {
                tree.insert(a, TreeNode::Dir);
            }
            tree.insert((*path).to_owned(), node.clone());
        }
        for harness in [&MemHarness as &dyn Harness, &RealHarness] {
            let world = harness.load(&tree);
            let snap = capture(world.root(), captured, &CaptureOptions::default()).unwrap();
            run_batch(world.root(), steps);
            let report = rollback(world.root(), &snap, &fast);
            assert!(report.ok(), "case {i}: {report:?}");
            check_tree(&tree, &world.tree()).unwrap_or_else(|e| panic!("case {i}: {e}"));
        }
    }
}

#[test]
fn capture_batch_rollback_restores_the_tree_in_memory() {
    let scale = if long_run() { 10 } else { 1 };
    let cases = env_count("RELIABILITY_MODEL_CASES", 10_000 * scale);
    run("memory root", &MemHarness, u32::try_from(cases).unwrap());
}

#[test]
fn capture_batch_rollback_restores_the_tree_on_disk() {
    let scale = if long_run() { 10 } else { 1 };
    let cases = env_count("RELIABILITY_MODEL_REAL_CASES", 300 * scale);
    run("real dir", &RealHarness, u32::try_from(cases).unwrap());
}
