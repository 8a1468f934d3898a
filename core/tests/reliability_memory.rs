//! Current files larger than the size limit: no operation reads one whole.
//!
//! A snapshot is small, but the files it names in the tree may be huge (the
//! issue 21 snapshot was 40 bytes; its `big.bin` 8 GB). Every read of a
//! current file must honour the limit capture uses (capture skips that
//! path; a redo lists it `too_large`), and where only a digest is needed the file is streamed.
//!
//! - Generated cases (`RELIABILITY_SEED` replays): files of sizes around the
//!   limit captured, resized or removed by the batch, then capture, plan,
//!   `record_applied`, guarded and unguarded rollbacks with and without the
//!   redo, through a root that flags any read of a file over the limit that
//!   is not bounded (a read of a file as long as the bytes the snapshot
//!   itself holds for it is fine: those are in memory already). Each redo
//!   lists exactly the files over the limit (but those as long as their
//!   captured bytes), as `too_large`; every rollback restores the tree.
//! - A 64 GiB sparse file at a captured path on a real disk: capture skips
//!   it (its rollback reports it not covered and leaves it), plan and rollback (with and without redo) go through, and the
//!   process's peak memory barely moves.
//!
//! The same, through the CLI binary under `ulimit -v`, is
//! `cli/tests/memory_limit.rs`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;
mod reliability_sentinel;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use agent_checkpoint::root::{ambient_authority, Expect, MemNode, Metadata, Root, WriteOptions};
use agent_checkpoint::{
    capture, plan_rollback, record_applied, rollback, CapRoot, CaptureOptions, ErrorCode, MemRoot,
    OnConflict, ParseOptions, PlanOptions, RecordOptions, RelPath, Result, RollbackOptions,
    Snapshot,
};
use reliability_sentinel::{env_count, figure, long_run, Rng};

/// The size limit of every operation here.
const LIMIT: u64 = 1024;

/// File sizes drawn: empty, small, at the limit, just over, far over.
const SIZES: [u64; 7] = [0, 100, LIMIT - 1, LIMIT, LIMIT + 1, 3 * LIMIT, 8 * LIMIT];

/// The captured paths of every case.
const PATHS: [&str; 6] = ["f0", "f1", "f2", "d/f3", "d/f4", "e/f5"];

fn rel(p: &str) -> RelPath {
    RelPath::try_from(p).unwrap()
}

/// A root that checks every whole-file read against the limit.
struct Watched<'a, R: Root> {
    inner: &'a R,
    /// Bytes the snapshot in play holds per path: reading a file of that
    /// length costs no more memory than the snapshot already does.
    held: BTreeMap<String, u64>,
    unbounded: Mutex<Vec<String>>,
    over_limit_reads: AtomicUsize,
    streamed: AtomicUsize,
}

impl<'a, R: Root> Watched<'a, R> {
    fn new(inner: &'a R, held: BTreeMap<String, u64>) -> Self {
        Watched {
            inner,
            held,
            unbounded: Mutex::new(Vec::new()),
            over_limit_reads: AtomicUsize::new(0),
            streamed: AtomicUsize::new(0),
        }
    }
}

impl<R: Root> Root for Watched<'_, R> {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        self.inner.metadata(path)
    }
    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        self.inner.read_dir(dir)
    }
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        let len = self.inner.metadata(path)?.map_or(0, |m| m.len);
        let allowed = LIMIT.max(self.held.get(path.as_str()).copied().unwrap_or(0));
        if len > LIMIT {
            self.over_limit_reads.fetch_add(1, Ordering::Relaxed);
        }
        if len > allowed && max_bytes.is_none_or(|max| max >= len) {
            self.unbounded
                .lock()
                .unwrap()
                .push(format!("{path}: {len} bytes read with max {max_bytes:?}"));
        }
        self.inner.read_file(path, max_bytes)
    }
    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        self.streamed.fetch_add(1, Ordering::Relaxed);
        self.inner.visit_file(path, visit)
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

/// A file of `len` bytes (the byte varies so contents differ).
fn file(len: u64, fill: u8) -> MemNode {
    MemNode::File {
        bytes: vec![fill; len as usize],
        mode: 0o644,
    }
}

/// Writes `node` at `path`, creating parents.
fn put(root: &MemRoot, path: &str, node: MemNode) {
    let path = rel(path);
    for dir in path.ancestors() {
        if root.get(dir.as_str()).is_none() {
            root.insert(&dir, MemNode::Dir);
        }
    }
    root.insert(&path, node);
}

/// Counts of what the generated cases did.
#[derive(Default)]
struct Counts {
    ops: BTreeMap<&'static str, usize>,
    skipped_files: usize,
    left_out: usize,
    over_limit_reads: usize,
    streamed: usize,
}

#[test]
fn current_files_over_the_limit_are_never_read_whole() {
    let mut rng = Rng::from_env("memory");
    let cases = env_count(
        "RELIABILITY_MEMORY_CASES",
        if long_run() { 20_000 } else { 500 },
    );
    let mut counts = Counts::default();
    let mut failures = Vec::new();
    for case in 0..cases {
        let mem = MemRoot::new();
        let size = |rng: &mut Rng| SIZES[rng.below(SIZES.len() as u64) as usize];
        for (i, path) in PATHS.iter().enumerate() {
            if rng.below(4) != 0 {
                put(&mem, path, file(size(&mut rng), i as u8));
            }
        }
        // Captured with a generous limit: the snapshot may hold big files.
        let generous = CaptureOptions::default().with_max_file_bytes(64 * LIMIT);
        let text = capture(&mem, PATHS, &generous).unwrap();
        let snapshot = text.parse(&ParseOptions::default()).unwrap();
        let before = mem.entries();
        let held: BTreeMap<String, u64> = snapshot
            .entries()
            .filter_map(|(p, c)| c.map(|b| (p.to_string(), b.len() as u64)))
            .collect();
        // The batch: resize, remove or create every path at random.
        for (i, path) in PATHS.iter().enumerate() {
            match rng.below(4) {
                0 => {}
                1 => {
                    let _ = mem.remove_file(&rel(path), Expect::Any);
                }
                _ => put(&mem, path, file(size(&mut rng), 100 + i as u8)),
            }
        }
        let after = mem.entries();
        let over: BTreeSet<String> = after
            .iter()
            .filter(|(_, n)| matches!(n, MemNode::File { bytes, .. } if bytes.len() as u64 > LIMIT))
            .map(|(p, _)| p.clone())
            .collect();
        // What a redo cannot hold: files over the limit, unless as long as
        // the captured bytes (read then, to compare: no more memory).
        let too_large: BTreeSet<String> = over
            .iter()
            .filter(|p| {
                let len = mem.metadata(&rel(p)).unwrap().unwrap().len;
                held.get(p.as_str()) != Some(&len)
            })
            .cloned()
            .collect();
        let root = Watched::new(&mem, held);
        let shown = format!("case {case} (over the limit after the batch: {over:?})");
        let mut op = |name: &'static str| *counts.ops.entry(name).or_default() += 1;

        // Capture with the limit: the files over it are skipped, unread.
        op("capture");
        let tight = CaptureOptions::default().with_max_file_bytes(LIMIT);
        match capture(&root, PATHS, &tight).and_then(|t| t.parse(&ParseOptions::default())) {
            Ok(taken) => {
                let skipped: BTreeSet<String> =
                    taken.skipped().map(|(p, _)| p.to_string()).collect();
                if skipped != over {
                    failures.push(format!("{shown}: capture skipped {skipped:?}"));
                }
                counts.skipped_files += skipped.len();
            }
            Err(e) => failures.push(format!("{shown}: capture gave {e}")),
        }
        op("plan");
        if let Err(e) = plan_rollback(&root, &snapshot, &PlanOptions::default()) {
            failures.push(format!("{shown}: plan: {e}"));
        }
        op("record_applied");
        let recorded = record_applied(&root, &snapshot, &RecordOptions::default())
            .unwrap()
            .parse(&ParseOptions::default())
            .unwrap();
        let guarded = rng.below(2) == 0;
        let on_conflict = if guarded {
            OnConflict::Skip
        } else {
            OnConflict::Overwrite
        };
        op("plan (guarded or not, applied recorded)");
        let plan_options = PlanOptions::default().with_on_conflict(on_conflict);
        if let Err(e) = plan_rollback(&root, &recorded, &plan_options) {
            failures.push(format!("{shown}: plan: {e}"));
        }
        let redo = rng.below(3) != 0;
        op(if redo {
            "rollback with redo"
        } else {
            "rollback without redo"
        });
        let options = RollbackOptions::default()
            .with_durable(false)
            .with_redo(redo)
            .with_on_conflict(on_conflict)
            .with_max_file_bytes(LIMIT);
        let which = if rng.below(2) == 0 {
            &snapshot
        } else {
            &recorded
        };
        match rollback(&root, which, &options) {
            Ok(report) => {
                if !report.ok() || !report.conflicts.is_empty() {
                    failures.push(format!("{shown}: {report:?}"));
                }
                let left_out: BTreeSet<String> = report
                    .not_in_redo
                    .iter()
                    .filter(|n| n.code == ErrorCode::TooLarge)
                    .map(|n| n.path.clone())
                    .collect();
                let want = if redo {
                    too_large.clone()
                } else {
                    BTreeSet::new()
                };
                if left_out != want {
                    failures.push(format!("{shown}: left out of the redo {left_out:?}"));
                }
                counts.left_out += left_out.len();
            }
            Err(e) => failures.push(format!("{shown}: rollback: {e}")),
        }
        if mem.entries() != before {
            failures.push(format!("{shown}: the tree was not restored"));
        }
        failures.extend(
            root.unbounded
                .lock()
                .unwrap()
                .iter()
                .map(|u| format!("{shown}: {u}")),
        );
        counts.over_limit_reads += root.over_limit_reads.load(Ordering::Relaxed);
        counts.streamed += root.streamed.load(Ordering::Relaxed);
    }
    figure(
        "memory",
        &format!(
            "{cases} generated cases, files of 0 to {} bytes around a limit of {LIMIT}: ops {:?}; \
             {} files skipped by a capture as too large, {} paths left out of a redo as too_large (all restored), \
             {} digests streamed, {} bounded reads of files over the limit, {} failures (a file over the limit read whole, a wrong redo, a tree not restored)",
            SIZES[SIZES.len() - 1],
            counts.ops,
            counts.skipped_files,
            counts.left_out,
            counts.streamed,
            counts.over_limit_reads,
            failures.len(),
        ),
    );
    assert!(
        failures.is_empty(),
        "{:#?}",
        &failures[..failures.len().min(10)]
    );
}

/// The process's peak resident set size (`VmHWM`), in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The issue's 40-byte snapshot against a 64 GiB sparse file on a real
/// disk: capture skips the file, plan and every rollback go through, and
/// the peak memory of the process grows by less than 64 MiB.
#[test]
fn a_sparse_file_larger_than_memory_is_never_read() {
    const SIZE: u64 = 64 << 30;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let big = dir.join("big.bin");
    let make = || -> bool {
        let f = std::fs::File::create(&big).unwrap();
        if f.set_len(SIZE).is_err() {
            return false;
        }
        // Sparse: almost no block is allocated.
        std::os::unix::fs::MetadataExt::blocks(&f.metadata().unwrap()) < 1 << 16
    };
    if !make() {
        eprintln!(
            "reliability memory: SKIPPED the sparse-file test: {} cannot hold a sparse file of {SIZE} bytes",
            dir.display()
        );
        return;
    }
    let peak_before = peak_rss_kib();
    let root = CapRoot::open(dir, ambient_authority()).unwrap();
    // Captured: skipped, unread; a rollback of that snapshot leaves it.
    let taken = capture(&root, ["big.bin"], &CaptureOptions::default())
        .unwrap()
        .parse(&ParseOptions::default())
        .unwrap();
    assert!(taken.is_empty());
    let skipped: Vec<(String, u64)> = taken.skipped().map(|(p, n)| (p.to_string(), n)).collect();
    assert_eq!(skipped, [("big.bin".to_owned(), SIZE)]);
    let report = rollback(&root, &taken, &RollbackOptions::default()).unwrap();
    let not_covered: Vec<(&str, u64)> = report
        .not_covered
        .iter()
        .map(|n| (n.path.as_str(), n.size))
        .collect();
    assert_eq!(not_covered, [("big.bin", SIZE)]);
    assert!(report.restored.is_empty(), "{report:?}");
    assert_eq!(std::fs::metadata(&big).unwrap().len(), SIZE);
    let text = r#"{"version":1,"entries":{"big.bin":null}}"#;
    let snapshot = Snapshot::parse(text, &ParseOptions::default()).unwrap();
    let plan = plan_rollback(&root, &snapshot, &PlanOptions::default()).unwrap();
    assert_eq!(plan.items.len(), 1);
    let fast = RollbackOptions::default().with_durable(false);
    let report = rollback(&root, &snapshot, &fast).unwrap();
    assert!(report.ok(), "{report:?}");
    let left_out: Vec<(&str, ErrorCode)> = report
        .not_in_redo
        .iter()
        .map(|n| (n.path.as_str(), n.code))
        .collect();
    assert_eq!(left_out, [("big.bin", ErrorCode::TooLarge)]);
    assert!(!big.exists());
    assert!(make());
    let report = rollback(&root, &snapshot, &fast.clone().with_redo(false)).unwrap();
    assert!(report.ok(), "{report:?}");
    assert!(!big.exists());
    let grew = peak_rss_kib().saturating_sub(peak_before);
    figure(
        "memory",
        &format!(
            "a {} GiB sparse file at a captured path: capture skipped it (not covered by its rollback), plan and rollback with and without redo done; peak RSS +{} MiB",
            SIZE >> 30,
            grew >> 10
        ),
    );
    assert!(grew < 64 << 10, "peak RSS grew by {grew} KiB");
}
