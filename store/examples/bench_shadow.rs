//! Side-by-side timings of a shadow step (BENCHMARKS.md, "Shadow steps").
//! Run in release:
//!
//! ```text
//! cargo run --release -p agent-checkpoint-store --example bench_shadow [-- --rounds N] [--packed]
//! ```
//!
//! In a repository of 20,000 tracked files (200 directories x 100 files)
//! and one of 100 (10 x 10), each round changes 10 tracked files and then
//! records the working tree twice, alternately:
//!
//! - **store**: `Store::open` + `Store::shadow_step` naming the 10 files
//!   (a later step of a session: the previous step's tree edited along the
//!   10 paths), as a hook process would do it;
//! - **git**: `git stash create` + `git update-ref` (what other agent tools
//!   run for the same job: git refreshes the index against every file,
//!   writes the trees and a commit, then moves a ref).
//!
//! `--packed` runs `git gc` on both repositories after their commit (as a
//! long-lived repository is packed); by default their objects are loose.
//!
//! Medians per repository, the speedup (git / store, goal >= 3x) and the
//! store's cost in the large repository over the small one (goal <= 1.5x).
//! The session's first step (everything `git status` shows) is timed once
//! per repository and reported apart.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_checkpoint_store::{NoRedaction, ShadowStep, Store, StoreOptions};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn git(dir: &Path, args: &[&str]) -> Res<String> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

/// A repository of `dirs` x `per_dir` committed files.
fn repository(dirs: usize, per_dir: usize) -> Res<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    let root = dir.path();
    git(root, &["init", "-q"])?;
    git(root, &["config", "user.name", "Bench"])?;
    git(root, &["config", "user.email", "bench@example.com"])?;
    // No automatic gc: with 20,000 loose objects `git commit` would start a
    // detached `git gc --auto` that packs the repository while it is timed.
    git(root, &["config", "gc.auto", "0"])?;
    for d in 0..dirs {
        let sub = root.join(format!("src/mod{d:03}"));
        std::fs::create_dir_all(&sub)?;
        for f in 0..per_dir {
            std::fs::write(
                sub.join(format!("file{f:03}.rs")),
                format!("// module {d} file {f}\npub fn f{f}() -> u32 {{ {f} }}\n"),
            )?;
        }
    }
    git(root, &["add", "-A"])?;
    git(root, &["commit", "-q", "-m", "base"])?;
    if std::env::args().any(|a| a == "--packed") {
        // As a long-lived repository is: its objects in a pack.
        git(root, &["gc", "-q"])?;
    }
    // As a user's repository would be: an index git has refreshed.
    git(root, &["status", "--porcelain"])?;
    Ok(dir)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

struct Figures {
    files: usize,
    first: Duration,
    store: Vec<Duration>,
    git: Vec<Duration>,
}

/// One repository under test, its session's first step taken.
struct Bench {
    dir: tempfile::TempDir,
    dirs: usize,
    per_dir: usize,
    figures: Figures,
}

fn options() -> StoreOptions {
    StoreOptions::new(Arc::new(NoRedaction))
}

impl Bench {
    fn new(dirs: usize, per_dir: usize) -> Res<Bench> {
        let dir = repository(dirs, per_dir)?;
        let t = Instant::now();
        let first =
            Store::open_with(dir.path(), options())?.shadow_step(&ShadowStep::new("bench"))?;
        let first_time = t.elapsed();
        assert!(!first.skipped);
        Ok(Bench {
            dir,
            dirs,
            per_dir,
            figures: Figures {
                files: dirs * per_dir,
                first: first_time,
                store: Vec::new(),
                git: Vec::new(),
            },
        })
    }

    /// One round: 10 files edited, then recorded by the store; edited
    /// again, then recorded by git (in the other order on odd rounds).
    fn round(&mut self, round: usize) -> Res<()> {
        let root = self.dir.path().to_path_buf();
        // 10 files spread over the directories.
        let touched: Vec<String> = (0..10)
            .map(|i| {
                let d = (round * 7 + i * 13) % self.dirs;
                let f = (round * 3 + i) % self.per_dir;
                format!("src/mod{d:03}/file{f:03}.rs")
            })
            .collect();
        let edit = |tag: &str| -> Res<()> {
            for path in &touched {
                std::fs::write(root.join(path), format!("// round {round} {tag}\n"))?;
            }
            Ok(())
        };
        let store_step = || -> Res<Duration> {
            let t = Instant::now();
            let store = Store::open_with(&root, options())?;
            let step =
                store.shadow_step(&ShadowStep::new("bench").files(touched.iter().cloned()))?;
            let took = t.elapsed();
            assert!(!step.skipped);
            Ok(took)
        };
        let git_step = || -> Res<Duration> {
            let t = Instant::now();
            let stash = git(&root, &["stash", "create"])?;
            git(&root, &["update-ref", "refs/bench/stash", &stash])?;
            Ok(t.elapsed())
        };
        if round.is_multiple_of(2) {
            edit("a")?;
            self.figures.store.push(store_step()?);
            edit("b")?;
            self.figures.git.push(git_step()?);
        } else {
            edit("a")?;
            self.figures.git.push(git_step()?);
            edit("b")?;
            self.figures.store.push(store_step()?);
        }
        Ok(())
    }
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(40);
    let mut large = Bench::new(200, 100)?;
    let mut small = Bench::new(10, 10)?;
    // The two repositories take turns, so load on the machine hits both.
    for round in 0..rounds {
        large.round(round)?;
        small.round(round)?;
    }
    let (large, small) = (large.figures, small.figures);
    println!("shadow step: 10 changed files, {rounds} rounds each, medians");
    println!("| files | first step (store, once) | later step: store | git stash create + update-ref | speedup (goal >= 3x) |");
    println!("|---|---|---|---|---|");
    let mut medians = Vec::new();
    for f in [&large, &small] {
        let (store, git) = (median(f.store.clone()), median(f.git.clone()));
        println!(
            "| {} | {} | {} | {} | **{:.1}x** |",
            f.files,
            ms(f.first),
            ms(store),
            ms(git),
            git.as_secs_f64() / store.as_secs_f64()
        );
        medians.push(store);
    }
    println!(
        "store, 20,000 / 100 files: **{:.2}x** (goal <= 1.5x)",
        medians[0].as_secs_f64() / medians[1].as_secs_f64()
    );
    Ok(())
}
