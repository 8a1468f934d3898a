//! Many processes, one repository: nothing lost, history linear; a writer
//! killed (SIGKILL) at random points leaves every ref old or new and the
//! repository fsck-clean.
//!
//! The writers are this test binary itself, run as child processes through
//! the ignored `worker` test. `STORE_LONG=1` runs 120 kills instead of 20.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use agent_checkpoint_store::{Backend, NoRedaction, SessionWrite, Store, StoreOptions, TokenUsage};
use common::TestRepo;

const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
const ULID_REF: &str = "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN";
const V1: &str = "refs/heads/entire/checkpoints/v1";
const PROCESSES: usize = 8;
const PER_PROCESS: usize = 50;

fn open(repo: &str, backend: Backend) -> Store {
    Store::open_with(
        repo,
        StoreOptions::new(Arc::new(NoRedaction)).backend(backend),
    )
    .unwrap()
}

/// A legacy ID spread over the shards.
fn legacy_id(worker: usize, i: usize) -> String {
    let n = ((worker as u64) << 20 | i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("{:012x}", n >> 16)
}

/// The child-process side: does what `STORE_WORKER` says.
#[test]
#[ignore = "run as a child process by the other tests of this file"]
fn worker() {
    let Ok(mode) = std::env::var("STORE_WORKER") else {
        return;
    };
    let repo = std::env::var("STORE_WORKER_REPO").unwrap();
    let index: usize = std::env::var("STORE_WORKER_INDEX")
        .unwrap()
        .parse()
        .unwrap();
    let count: usize = std::env::var("STORE_WORKER_COUNT")
        .unwrap()
        .parse()
        .unwrap();
    let mut out = std::io::stdout().lock();
    match mode.as_str() {
        "sessions" => {
            let store = open(&repo, Backend::GitRefs);
            for i in 0..count {
                store
                    .write_session(
                        &SessionWrite::new(ULID, format!("w{index}-s{i}"))
                            .files_touched([format!("w{index}/f{i}")])
                            .token_usage(TokenUsage::new(1, 0, 0, 2, 1)),
                    )
                    .unwrap();
            }
        }
        "checkpoints" => {
            let store = open(&repo, Backend::GitBranch);
            for i in 0..count {
                store
                    .write_session(&SessionWrite::new(legacy_id(index, i), format!("w{index}")))
                    .unwrap();
            }
        }
        "refs" => {
            let store = open(&repo, Backend::GitRefs);
            for i in 0..count {
                store
                    .write_session(&SessionWrite::new(legacy_id(index, i), format!("w{index}")))
                    .unwrap();
            }
        }
        "forever" => {
            let refs = open(&repo, Backend::GitRefs);
            let branch = open(&repo, Backend::GitBranch);
            let snapshot = agent_checkpoint::capture(
                &agent_checkpoint::MemRoot::new(),
                ["a"],
                &Default::default(),
            )
            .unwrap();
            writeln!(out, "ready").unwrap();
            out.flush().unwrap();
            for i in 0.. {
                let transcript = format!("{{\"i\":{i}}}\n").repeat(200).into_bytes();
                refs.write_session(
                    &SessionWrite::new(ULID, format!("k{index}-{}", i % 3))
                        .transcript(transcript.clone())
                        .snapshot(snapshot.clone()),
                )
                .unwrap();
                branch
                    .write_session(
                        &SessionWrite::new(legacy_id(index, i % 5), "k").transcript(transcript),
                    )
                    .unwrap();
                writeln!(out, "wrote {i}").unwrap();
                out.flush().unwrap();
            }
        }
        other => panic!("unknown worker mode {other}"),
    }
    writeln!(out, "done").unwrap();
}

fn spawn(repo: &TestRepo, mode: &str, index: usize, count: usize) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "worker",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env("STORE_WORKER", mode)
        .env("STORE_WORKER_REPO", repo.path())
        .env("STORE_WORKER_INDEX", index.to_string())
        .env("STORE_WORKER_COUNT", count.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn run_all(repo: &TestRepo, mode: &str) {
    let children: Vec<Child> = (0..PROCESSES)
        .map(|i| spawn(repo, mode, i, PER_PROCESS))
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("done"),
            "worker failed: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Every commit reachable from `rev` has at most one parent; returns how many there are.
fn linear_history(repo: &TestRepo, rev: &str) -> usize {
    let lines: Vec<String> = repo
        .git(&["rev-list", "--parents", rev])
        .lines()
        .map(str::to_owned)
        .collect();
    for line in &lines {
        assert!(line.split(' ').count() <= 2, "a merge in {rev}: {line}");
    }
    lines.len()
}

#[test]
fn eight_processes_writing_sessions_to_one_checkpoint_lose_nothing() {
    common::each_format(eight_processes_writing_sessions_to_one_checkpoint_lose_nothing_in);
}

fn eight_processes_writing_sessions_to_one_checkpoint_lose_nothing_in() {
    let repo = TestRepo::new();
    run_all(&repo, "sessions");
    repo.assert_fsck();
    let store = Store::open(repo.path()).unwrap();
    let summary = store.read(ULID).unwrap();
    let total = PROCESSES * PER_PROCESS;
    assert_eq!(summary.sessions.as_ref().unwrap().len(), total);
    assert_eq!(summary.checkpoints_count, total as i64);
    assert_eq!(summary.files_touched.as_ref().unwrap().len(), total);
    assert_eq!(
        summary.token_usage.as_ref().unwrap().output_tokens,
        2 * total as i64
    );
    let listed = store.list().unwrap();
    let ids: BTreeSet<&String> = listed[0].session_ids.iter().collect();
    let want: BTreeSet<String> = (0..PROCESSES)
        .flat_map(|w| (0..PER_PROCESS).map(move |i| format!("w{w}-s{i}")))
        .collect();
    assert_eq!(ids, want.iter().collect());
    // One commit per write, in one line.
    assert_eq!(linear_history(&repo, ULID_REF), total);
    assert_eq!(repo.refs(), [ULID_REF]);
}

#[test]
fn eight_processes_writing_checkpoints_to_the_branch_lose_nothing() {
    common::each_format(eight_processes_writing_checkpoints_to_the_branch_lose_nothing_in);
}

fn eight_processes_writing_checkpoints_to_the_branch_lose_nothing_in() {
    let repo = TestRepo::new();
    run_all(&repo, "checkpoints");
    repo.assert_fsck();
    let store = open(repo.path().to_str().unwrap(), Backend::GitBranch);
    let listed: BTreeSet<String> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|c| c.checkpoint_id)
        .collect();
    let want: BTreeSet<String> = (0..PROCESSES)
        .flat_map(|w| (0..PER_PROCESS).map(move |i| legacy_id(w, i)))
        .collect();
    assert_eq!(want.len(), PROCESSES * PER_PROCESS);
    assert_eq!(listed, want);
    // The seed commit plus one per write, in one line.
    assert_eq!(linear_history(&repo, V1), PROCESSES * PER_PROCESS + 1);
    assert_eq!(repo.refs(), [V1]);
}

#[test]
fn eight_processes_writing_one_ref_each_time_lose_nothing() {
    common::each_format(eight_processes_writing_one_ref_each_time_lose_nothing_in);
}

/// 160 refs written at once: in reftable every write takes the lock of
/// the whole ref stack, which the writers of other refs hold meanwhile.
fn eight_processes_writing_one_ref_each_time_lose_nothing_in() {
    const PER: usize = 20;
    let repo = TestRepo::new();
    let children: Vec<Child> = (0..PROCESSES)
        .map(|i| spawn(&repo, "refs", i, PER))
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "worker failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    repo.assert_fsck();
    let want: BTreeSet<String> = (0..PROCESSES)
        .flat_map(|w| (0..PER).map(move |i| legacy_id(w, i)))
        .collect();
    let store = open(repo.path().to_str().unwrap(), Backend::GitRefs);
    let listed: BTreeSet<String> = store
        .list()
        .unwrap()
        .into_iter()
        .map(|c| c.checkpoint_id)
        .collect();
    assert_eq!(listed, want);
    assert_eq!(repo.refs().len(), PROCESSES * PER);
}

fn random_below(n: u64) -> u64 {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).unwrap();
    u64::from_le_bytes(b) % n
}

fn git_ref_locks(repo: &TestRepo) -> Vec<String> {
    let out = Command::new("find")
        .args([
            repo.path().join(".git/refs").to_str().unwrap(),
            "-name",
            "*.lock",
        ])
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn tips(repo: &TestRepo) -> Vec<(String, String)> {
    repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .map(|l| {
            let (name, id) = l.split_once(' ').unwrap();
            (name.to_owned(), id.to_owned())
        })
        .collect()
}

#[test]
fn writers_killed_at_random_points_leave_refs_old_or_new() {
    common::each_format(writers_killed_at_random_points_leave_refs_old_or_new_in);
}

fn writers_killed_at_random_points_leave_refs_old_or_new_in() {
    let runs = if std::env::var_os("STORE_LONG").is_some() {
        120
    } else {
        20
    };
    let repo = TestRepo::new();
    let mut landed = 0usize;
    let mut stale_git_locks = 0usize;
    for run in 0..runs {
        let before = tips(&repo);
        let mut child = spawn(&repo, "forever", run % 4, 0);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        assert!(
            lines.by_ref().map_while(Result::ok).any(|l| l == "ready"),
            "the worker did not start"
        );
        // The first run waits for one acknowledged write (so some write
        // surely lands, whatever the machine's load); the others kill at
        // random.
        let first_landed = run == 0
            && lines
                .by_ref()
                .map_while(Result::ok)
                .any(|l| l.starts_with("wrote"));
        std::thread::sleep(Duration::from_micros(random_below(400_000)));
        child.kill().unwrap();
        child.wait().unwrap();
        landed += usize::from(first_landed)
            + lines
                .map_while(Result::ok)
                .filter(|l| l.starts_with("wrote"))
                .count();

        // Each ref is old, or new: a complete commit descending from the old tip.
        let after = tips(&repo);
        for (name, old) in &before {
            let new = &after
                .iter()
                .find(|(n, _)| n == name)
                .expect("a ref vanished")
                .1;
            if new != old {
                repo.git(&["merge-base", "--is-ancestor", old, new]);
            }
        }
        for (name, id) in &after {
            repo.git(&["cat-file", "-e", &format!("{id}^{{tree}}")]);
            assert!(linear_history(&repo, name) >= 1);
        }
        // A kill inside git's own ref-lock window leaves its `.lock` file.
        // Age it past the abandonment threshold (as if the user came back
        // later): the next writer must clear it itself.
        let locks = git_ref_locks(&repo);
        let fresh = |lock: &String| {
            let modified = std::fs::metadata(lock).unwrap().modified().unwrap();
            modified
                .elapsed()
                .is_ok_and(|age| age < Duration::from_secs(60))
        };
        stale_git_locks += usize::from(locks.iter().any(fresh));
        for lock in locks {
            let file = std::fs::File::options().write(true).open(&lock).unwrap();
            file.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
                .unwrap();
        }
        if run % 10 == 9 {
            repo.assert_fsck();
        }
    }
    // One more write to each ref clears whatever lock the last kill left.
    let snapshot = agent_checkpoint::capture(
        &agent_checkpoint::MemRoot::new(),
        ["a"],
        &Default::default(),
    )
    .unwrap();
    open(repo.path().to_str().unwrap(), Backend::GitRefs)
        .write_session(&SessionWrite::new(ULID, "final").snapshot(snapshot))
        .unwrap();
    open(repo.path().to_str().unwrap(), Backend::GitBranch)
        .write_session(&SessionWrite::new(legacy_id(0, 0), "final"))
        .unwrap();
    assert_eq!(git_ref_locks(&repo), Vec::<String>::new());
    repo.assert_fsck();
    // Whatever landed reads back.
    let store = Store::open(repo.path()).unwrap();
    for info in store.list().unwrap() {
        let id = info.checkpoint_id;
        assert!(store.read(&id).is_ok(), "{id}");
        for i in 0..info.session_ids.len() {
            store.read_session_metadata(&id, i).unwrap();
        }
    }
    assert!(landed > 0, "no write landed in {runs} runs");
    eprintln!("{runs} kills, {landed} acknowledged write pairs, {stale_git_locks} kills left a git ref lock that the next writer cleared");
}
