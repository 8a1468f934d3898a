//! Model-based property test: random trees (files with modes, set-id and
//! sticky bits among them, symlinks,
//! chains of them, empty dirs), random batches (modify, create in new nested
//! dirs, delete, file-to-dir type flips, link-to-dir flips, new and
//! retargeted symlinks, chmod), random spellings of the captured paths
//! (`./p`, `x/../p`, absolute), and in some cases files nobody captured
//! written after the batch (inside the batch's new dirs, or beside them).
//! Capture what the batch touches, apply the batch, plan, roll back:
//!
//! - the rollback carried out exactly the plan (`report.plan == plan`),
//!   every `refuse` item is reported unrestored with its code, and `keep`
//!   items were not rewritten (same change stamp);
//! - every uncaptured file is untouched;
//! - without uncaptured files, the tree is exactly the original and the
//!   report `ok`; with them, it is the original plus those files (and the
//!   directories that hold them), apart from refused paths;
//! - a second rollback changes nothing;
//! - set-user-id and set-group-id bits come back only with `restore_setid`
//!   (drawn per case): a file the rollback rewrites loses them otherwise,
//!   a file already as captured is left alone with them; sticky bits are
//!   restored like any permission bit.
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
    capture, CapRoot, CaptureOptions, MemRoot, PlanAction, RelPath, RollbackOptions,
};
use common::{check_tree, read_native, TreeNode};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reliability_sentinel::{env_count, figure, long_run};

const MEM_ABSOLUTE: &str = "/virtual/root";
const NAMES: [&str; 3] = ["a", "b", "c"];
/// Permission bits files get: plain ones, and set-user-id, set-group-id
/// and sticky bits (what a rollback must not hand back unasked).
const MODES: [u32; 8] = [0o644, 0o755, 0o600, 0o640, 0o4755, 0o2750, 0o6711, 0o1644];

/// The set-user-id and set-group-id bits.
const SETID: u32 = 0o6000;

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
                mode: MODES[(usize::from(x / 10) + usize::from(y)) % MODES.len()],
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

/// Plans a batch on a model of the tree: the steps, the paths to capture
/// first (every path a step writes or removes, and every file or link a
/// step turns into a directory), and the tree after the batch.
fn plan_batch(
    orig: &Tree,
    draws: &[(u8, u8, u8, u8)],
    paths: &[String],
) -> (Vec<Step>, BTreeSet<String>, Tree) {
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
    (steps, captured, now)
}

/// Files nobody captured, written after the batch where a user might put
/// them: a new file whose parent is a directory now (often one the batch
/// made). Each is `(path, bytes)`.
fn strays(
    now: &Tree,
    captured: &BTreeSet<String>,
    draws: &[u8],
    paths: &[String],
) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for &d in draws {
        let path = &paths[usize::from(d) % paths.len()];
        let free = !now.contains_key(path)
            && !captured.contains(path)
            && !captured.iter().any(|c| c.starts_with(&format!("{path}/")))
            && !out
                .iter()
                .any(|(p, _)| p == path || p.starts_with(&format!("{path}/")))
            && ancestors(path).iter().all(|a| {
                matches!(now.get(a), Some(TreeNode::Dir)) && !out.iter().any(|(p, _)| p == a)
            });
        if free {
            out.push((path.clone(), format!("stray {d}").into_bytes()));
        }
    }
    out
}

fn run_batch(root: &dyn Root, steps: &[Step]) {
    for step in steps {
        match step {
            Step::RemoveFile(p) => root.remove_file(&rel(p), Default::default()).unwrap(),
            Step::CreateDir(p) => root.create_dir(&rel(p)).unwrap(),
            Step::WriteFile(p, bytes, mode) => root
                .write_file(&rel(p), bytes, &common::write_options(*mode))
                .unwrap(),
            Step::WriteLink(p, target) => root
                .write_link(&rel(p), target, &common::write_options(0o777))
                .unwrap(),
        }
    }
}

fn rel(p: &str) -> RelPath {
    RelPath::try_from(p).unwrap()
}

/// Whether a directory is at `path`.
fn is_dir(root: &dyn Root, path: &str) -> bool {
    root.metadata(&rel(path))
        .ok()
        .flatten()
        .is_some_and(|m| m.kind == agent_checkpoint::root::EntryKind::Dir)
}

/// The change stamp of what is at `path` (`None`: nothing).
fn stamp(root: &dyn Root, path: &str) -> Option<u64> {
    root.metadata(&rel(path)).ok().flatten().map(|m| m.stamp)
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

/// Draws for one case: initial tree, batch, spellings, uncaptured files,
/// `restore_setid`.
type Case = (
    Vec<(u8, u8, u8, u8)>,
    Vec<(u8, u8, u8, u8)>,
    Vec<u8>,
    Vec<u8>,
    bool,
);

fn case_strategy() -> impl Strategy<Value = Case> {
    let draw = (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>());
    (
        proptest::collection::vec(draw, 0..8),
        proptest::collection::vec(draw, 1..6),
        proptest::collection::vec(any::<u8>(), 8),
        // Two cases in three have no uncaptured file.
        proptest::collection::vec(any::<u8>(), 0..3).prop_map(|v| {
            if v.len() == 1 {
                Vec::new()
            } else {
                v
            }
        }),
        any::<bool>(),
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
    strays: AtomicUsize,
    plan_items: AtomicUsize,
    refused: AtomicUsize,
    kept: AtomicUsize,
    setid_stripped: AtomicUsize,
    setid_restored: AtomicUsize,
    setid_left: AtomicUsize,
}

fn play(
    harness: &dyn Harness,
    case: &Case,
    options: &RollbackOptions,
    counts: &Counts,
) -> Result<(), TestCaseError> {
    let paths = universe();
    let (tree_draws, batch_draws, spellings, stray_draws, restore_setid) = case;
    let options = &options.clone().with_restore_setid(*restore_setid);
    let orig = initial_tree(tree_draws, &paths);
    let (steps, captured, after) = plan_batch(&orig, batch_draws, &paths);
    let mut uncaptured = strays(&after, &captured, stray_draws, &paths);
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
    // Capture resolves links: a path reached through one is captured too.
    let keys = agent_checkpoint::snapshot_paths(snap.as_str());
    uncaptured.retain(|(p, _)| {
        !keys
            .iter()
            .any(|k| k == p || k.starts_with(&format!("{p}/")))
    });
    run_batch(world.root(), &steps);
    for (path, bytes) in &uncaptured {
        world
            .root()
            .write_file(&rel(path), bytes, &common::write_options(0o644))
            .unwrap();
    }
    let context = || format!("snapshot {snap}\nsteps {steps:?}\nuncaptured {uncaptured:?}");
    let plan = common::plan_text(world.root(), &snap, &options.plan_options())
        .map_err(|e| TestCaseError::fail(format!("plan failed: {e}\n{}", context())))?;
    // A kept file or link is not rewritten. (A kept directory's stamp moves
    // when rollback removes something inside it.)
    let stamps: Vec<(String, Option<u64>)> = plan
        .with_action(PlanAction::Keep)
        .filter(|i| !is_dir(world.root(), &i.path))
        .map(|i| (i.path.clone(), stamp(world.root(), &i.path)))
        .collect();
    let report = common::rollback_text(world.root(), &snap, options);
    prop_assert!(report.valid(), "{report:?}\n{}", context());
    prop_assert_eq!(
        &report.plan,
        &plan,
        "the rollback did not carry out its plan\n{}",
        context()
    );
    for (path, before) in &stamps {
        prop_assert_eq!(
            &stamp(world.root(), path),
            before,
            "{} was rewritten although the plan said keep\n{}",
            path,
            context()
        );
    }
    let refused: Vec<(String, agent_checkpoint::ErrorCode)> = plan
        .with_action(PlanAction::Refuse)
        .map(|i| {
            (
                i.path.clone(),
                i.code.unwrap_or(agent_checkpoint::ErrorCode::Io),
            )
        })
        .collect();
    let unrestored: Vec<(String, agent_checkpoint::ErrorCode)> = report
        .unrestored
        .iter()
        .map(|u| (u.path.clone(), u.code))
        .collect();
    prop_assert_eq!(
        &unrestored,
        &refused,
        "unrestored is not what the plan refused\n{}",
        context()
    );
    let final_tree = world.tree();
    for (path, bytes) in &uncaptured {
        prop_assert!(
            matches!(final_tree.get(path), Some(TreeNode::File { bytes: b, .. }) if b == bytes),
            "uncaptured {} was touched\n{}",
            path,
            context()
        );
    }
    // A set-id file comes back with its bits only when asked, or when it
    // is already as captured (then rollback leaves it alone).
    let mut expected = orig.clone();
    let mut setid = [0usize; 3];
    for (path, node) in expected.iter_mut() {
        let TreeNode::File { mode, .. } = node else {
            continue;
        };
        if *mode & SETID == 0 || !keys.contains(path) {
            continue;
        }
        if after.get(path) == orig.get(path) {
            setid[2] += 1;
        } else if *restore_setid {
            setid[1] += 1;
        } else {
            *mode &= !SETID;
            setid[0] += 1;
        }
    }
    for (path, bytes) in &uncaptured {
        for a in ancestors(path) {
            expected.entry(a).or_insert(TreeNode::Dir);
        }
        expected.insert(
            path.clone(),
            TreeNode::File {
                bytes: bytes.clone(),
                mode: 0o644,
            },
        );
    }
    let outside_refused = |tree: &Tree| -> Tree {
        tree.iter()
            .filter(|(p, _)| {
                !refused
                    .iter()
                    .any(|(r, _)| *p == r || p.starts_with(&format!("{r}/")))
            })
            .map(|(p, n)| (p.clone(), n.clone()))
            .collect()
    };
    check_tree(&outside_refused(&expected), &outside_refused(&final_tree))
        .map_err(|e| TestCaseError::fail(format!("{e}\n{}", context())))?;
    if uncaptured.is_empty() {
        prop_assert!(report.ok(), "{report:?}\n{}", context());
    }
    let again = common::rollback_text(world.root(), &snap, options);
    prop_assert!(again.valid(), "second rollback: {again:?}");
    prop_assert_eq!(&again.unrestored, &report.unrestored, "second rollback");
    check_tree(&final_tree, &world.tree()).map_err(TestCaseError::fail)?;
    counts.strays.fetch_add(uncaptured.len(), Ordering::Relaxed);
    counts
        .plan_items
        .fetch_add(plan.items.len(), Ordering::Relaxed);
    counts.refused.fetch_add(refused.len(), Ordering::Relaxed);
    counts.kept.fetch_add(stamps.len(), Ordering::Relaxed);
    counts.setid_stripped.fetch_add(setid[0], Ordering::Relaxed);
    counts.setid_restored.fetch_add(setid[1], Ordering::Relaxed);
    counts.setid_left.fetch_add(setid[2], Ordering::Relaxed);
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
    let fast = RollbackOptions::default().with_durable(false);
    let result = runner.run(&case_strategy(), |case| {
        play(harness, &case, &fast, &counts)
    });
    figure(
        "model",
        &format!(
            "{name}: {} cases passed ({} batch steps, {} captured paths, {} uncaptured files), {} discarded; \
             plan == rollback in every case ({} plan items: {} keep left untouched, {} refused and reported); \
             set-id files: {} rewritten without their bits, {} restored with restore_setid, {} already as captured left alone",
            counts.cases.load(Ordering::Relaxed),
            counts.steps.load(Ordering::Relaxed),
            counts.captured.load(Ordering::Relaxed),
            counts.strays.load(Ordering::Relaxed),
            counts.discarded.load(Ordering::Relaxed),
            counts.plan_items.load(Ordering::Relaxed),
            counts.kept.load(Ordering::Relaxed),
            counts.refused.load(Ordering::Relaxed),
            counts.setid_stripped.load(Ordering::Relaxed),
            counts.setid_restored.load(Ordering::Relaxed),
            counts.setid_left.load(Ordering::Relaxed),
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
    let fast = RollbackOptions::default().with_durable(false);
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
            let report = common::rollback_text(world.root(), &snap, &fast);
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

/// What is at the forged snapshot's path before its rollback.
#[derive(Debug, Clone, Copy)]
enum Before {
    Absent,
    OtherBytes,
    SameBytesOtherMode,
    AsCaptured,
}

/// Forged snapshots asking for every permission mode (`0` to `0o7777`):
/// whatever was at the path, the file comes back with the mode asked for,
/// minus the set-user-id and set-group-id bits unless `restore_setid` (or
/// unless the file was already exactly as captured, then it is left
/// alone); sticky and permission bits as asked. Every mode on the memory
/// root, 1 in 16 of them (every high-bit combination) on a real dir (all
/// with `RELIABILITY_LONG=1`).
#[test]
fn forged_modes_never_bring_set_id_bits_back_unasked() {
    let states = [
        Before::Absent,
        Before::OtherBytes,
        Before::SameBytesOtherMode,
        Before::AsCaptured,
    ];
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("root");
    std::fs::create_dir(&dir).unwrap();
    let real = CapRoot::open(&dir, ambient_authority()).unwrap();
    let probe = dir.join("probe");
    std::fs::write(&probe, "").unwrap();
    let as_root = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&probe).unwrap()) == 0;
    std::fs::remove_file(&probe).unwrap();
    let step = if long_run() { 1 } else { 16 };
    let mut checked = [0usize; 2];
    let mut stripped = 0;
    let fast = RollbackOptions::default().with_durable(false);
    for mode in 0..=0o7777_u32 {
        let json = format!(r#"{{"version":1,"entries":{{"f":"eA=="}},"modes":{{"f":{mode}}}}}"#);
        for (i, state) in states.iter().enumerate() {
            for restore_setid in [false, true] {
                let options = fast.clone().with_restore_setid(restore_setid);
                let on_disk = (mode as usize + i).is_multiple_of(step);
                let mem = MemRoot::new();
                let roots: Vec<(&dyn Root, bool)> = if on_disk {
                    vec![(&mem, false), (&real, true)]
                } else {
                    vec![(&mem, false)]
                };
                for (root, is_real) in roots {
                    let f = rel("f");
                    let _ = root.remove_file(&f, Default::default());
                    let other_mode = if mode == 0o644 { 0o600 } else { 0o644 };
                    match state {
                        Before::Absent => {}
                        Before::OtherBytes => root
                            .write_file(&f, b"y", &common::write_options(mode))
                            .unwrap(),
                        Before::SameBytesOtherMode => root
                            .write_file(&f, b"x", &common::write_options(other_mode))
                            .unwrap(),
                        Before::AsCaptured => root
                            .write_file(&f, b"x", &common::write_options(mode))
                            .unwrap(),
                    }
                    // A real file the process may not read cannot be shown
                    // to be as captured: it is rewritten.
                    let readable = !is_real || as_root || mode & 0o400 != 0;
                    let left_alone = matches!(state, Before::AsCaptured) && readable;
                    let want = if restore_setid || left_alone {
                        mode
                    } else {
                        mode & !SETID
                    };
                    let report = common::rollback_text(root, &json, &options);
                    assert!(report.ok(), "mode {mode:o} {state:?}: {report:?}");
                    let got = root.metadata(&f).unwrap().unwrap().mode;
                    assert_eq!(
                        got, want,
                        "mode {mode:o}, {state:?}, restore_setid {restore_setid}, real {is_real}: got {got:o}"
                    );
                    let item = &report.plan.items[0];
                    let says_why = !left_alone && !restore_setid && mode & SETID != 0;
                    assert_eq!(item.reason.is_some(), says_why, "mode {mode:o}: {item:?}");
                    checked[usize::from(is_real)] += 1;
                    if want != mode {
                        stripped += 1;
                    }
                }
            }
        }
    }
    // Clean up a mode the temp dir's removal could not get through.
    let _ = std::fs::set_permissions(
        dir.join("f"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    );
    figure(
        "model",
        &format!(
            "forged modes: every mode 0..0o7777 x 4 states before x restore_setid on/off: {} rollbacks on the memory root, {} on a real dir; {} without their set-id bits, 0 set-id bits restored unasked",
            checked[0], checked[1], stripped
        ),
    );
}
