//! `store migrate --to git-refs`: a dry run changes nothing; a migration
//! SIGKILLed at random points 20 times finishes on the next run with every
//! checkpoint present exactly once, its history whole and every document
//! equal; the repository passes `git fsck`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

use agent_checkpoint_store::{Backend, NoRedaction, SessionWrite, Store, StoreOptions};

/// Checkpoints on the branch; every fifth has a second session.
const CHECKPOINTS: usize = 400;
const KILLS: usize = 20;

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn cli(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"));
    cmd.args(["store", "migrate", "--to", "git-refs"])
        .current_dir(dir)
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1");
    cmd
}

fn run(dir: &Path, extra: &[&str]) -> Output {
    cli(dir).args(extra).output().unwrap()
}

fn id(n: usize) -> String {
    format!("{:012x}", 0x00c0_ffee_0000_u64 + n as u64 * 104_729)
}

fn ref_of(id: &str) -> String {
    format!("refs/entire/checkpoints/{}/{id}", &id[10..])
}

/// A repository whose v1 branch holds `CHECKPOINTS` checkpoints, written
/// with the store (far faster than one CLI call each).
fn repo_with_branch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["config", "user.name", "Test User"]);
    git(dir.path(), &["config", "user.email", "test@example.com"]);
    let store = Store::open_with(
        dir.path(),
        StoreOptions::new(Arc::new(NoRedaction)).backend(Backend::GitBranch),
    )
    .unwrap();
    for n in 0..CHECKPOINTS {
        for sid in if n % 5 == 0 {
            &["a", "b"][..]
        } else {
            &["a"][..]
        } {
            store
                .write_session(
                    &SessionWrite::new(id(n), *sid)
                        .agent("Codex")
                        .prompt(format!("prompt {n} {sid}"))
                        .transcript(format!("{{\"n\":{n},\"s\":\"{sid}\"}}\n").into_bytes())
                        .files_touched([format!("f{n}.txt")]),
                )
                .unwrap();
        }
    }
    dir
}

/// Every checkpoint's documents as a reader sees them (the summary's
/// session paths made relative to the checkpoint).
fn documents(dir: &Path, backend: Backend) -> BTreeMap<String, Vec<String>> {
    let store = Store::open_with(
        dir,
        StoreOptions::new(Arc::new(NoRedaction)).backend(backend),
    )
    .unwrap();
    let mut out = BTreeMap::new();
    for info in store.list().unwrap() {
        assert!(info.damaged.is_none(), "{info:?}");
        let id = info.checkpoint_id.clone();
        let raw = store
            .read_raw(&id)
            .unwrap()
            .replace(&format!("\"/{}/{}/", &id[..2], &id[2..]), "\"/");
        let mut docs = vec![format!("{:?}", info.session_ids), raw];
        for slot in 0..info.session_ids.len() {
            let s = store.read_session(&id, slot).unwrap();
            docs.extend([
                s.metadata_json,
                format!("{:?}", s.prompts),
                format!("{:?}", s.transcript),
            ]);
        }
        out.insert(id, docs);
    }
    out
}

fn checkpoint_refs(dir: &Path) -> usize {
    git(
        dir,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/entire/checkpoints/",
        ],
    )
    .lines()
    .count()
}

/// A small xorshift generator, seeded from the clock (the seed is printed
/// so a failing run can be replayed with `MIGRATE_KILL_SEED`).
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let seed = std::env::var("MIGRATE_KILL_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        eprintln!("MIGRATE_KILL_SEED={seed}");
        Rng(seed)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn dry_run_changes_nothing() {
    let dir = repo_with_branch();
    let refs = git(dir.path(), &["for-each-ref"]);
    let objects = git(dir.path(), &["count-objects", "-v"]);
    let out = run(dir.path(), &["--dry-run", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["dry_run"], true);
    assert_eq!(report["migrated"].as_array().unwrap().len(), CHECKPOINTS);
    assert_eq!(git(dir.path(), &["for-each-ref"]), refs);
    assert_eq!(git(dir.path(), &["count-objects", "-v"]), objects);
}

#[test]
fn a_migration_killed_20_times_finishes_with_nothing_lost_or_doubled() {
    let dir = repo_with_branch();
    let before = documents(dir.path(), Backend::GitBranch);
    assert_eq!(before.len(), CHECKPOINTS);
    let branch_tip = git(dir.path(), &["rev-parse", "entire/checkpoints/v1"]);

    let mut rng = Rng::new();
    let mut interrupted = 0;
    for _ in 0..KILLS {
        let mut child = cli(dir.path())
            .arg("--quiet")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(5 + rng.below(400)));
        // SIGKILL: no cleanup of any kind runs.
        let _ = child.kill();
        let status = child.wait().unwrap();
        let now = checkpoint_refs(dir.path());
        if !status.success() && now < CHECKPOINTS {
            interrupted += 1;
        }
    }
    eprintln!(
        "{interrupted} of {KILLS} kills landed mid-migration; {} of {CHECKPOINTS} refs after them",
        checkpoint_refs(dir.path())
    );

    let out = run(dir.path(), &["--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["skipped"].as_array().unwrap().is_empty(), "{report}");
    let done = report["migrated"].as_array().unwrap().len()
        + report["already_present"].as_array().unwrap().len();
    assert_eq!(done, CHECKPOINTS);

    // Exactly one ref per checkpoint, each with one commit per version
    // (nothing doubled), every document equal, the branch untouched.
    assert_eq!(checkpoint_refs(dir.path()), CHECKPOINTS);
    for n in 0..CHECKPOINTS {
        let count = git(dir.path(), &["rev-list", "--count", &ref_of(&id(n))]);
        let want = if n % 5 == 0 { "2" } else { "1" };
        assert_eq!(count.trim(), want, "history of {}", id(n));
    }
    assert_eq!(documents(dir.path(), Backend::GitRefs), before);
    let store = Store::open(dir.path()).unwrap();
    assert!(store
        .list()
        .unwrap()
        .iter()
        .all(|i| i.backend == Backend::GitRefs));
    assert_eq!(
        git(dir.path(), &["rev-parse", "entire/checkpoints/v1"]),
        branch_tip
    );
    git(dir.path(), &["fsck", "--strict", "--no-progress"]);

    // And a further run moves nothing.
    let out = run(dir.path(), &["--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["migrated"].as_array().unwrap().is_empty());
    assert_eq!(
        report["already_present"].as_array().unwrap().len(),
        CHECKPOINTS
    );
}
