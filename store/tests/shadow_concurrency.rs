//! 8 processes stepping one session's shadow branch at once: every step
//! that was not skipped is on one linear chain, none lost, and the tip
//! holds every process's last write. The processes are this test binary,
//! run through the ignored `worker` test. `STORE_LONG=1` runs 100 steps
//! per process instead of 12.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use agent_checkpoint_store::{NoRedaction, ShadowStep, Store, StoreOptions};
use common::TestRepo;

const PROCESSES: usize = 8;

fn steps_per_process() -> usize {
    if std::env::var_os("STORE_LONG").is_some() {
        100
    } else {
        12
    }
}

/// The child-process side: steps the session `STEP_WORKER_COUNT` times,
/// printing `<commit> <skipped>` per step.
#[test]
#[ignore = "run as a child process by the other tests of this file"]
fn worker() {
    let Ok(repo) = std::env::var("STEP_WORKER_REPO") else {
        return;
    };
    let index: usize = std::env::var("STEP_WORKER_INDEX").unwrap().parse().unwrap();
    let count: usize = std::env::var("STEP_WORKER_COUNT").unwrap().parse().unwrap();
    let store = Store::open_with(&repo, StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    let file = format!("w{index}.txt");
    let mut out = std::io::stdout().lock();
    for i in 0..count {
        std::fs::write(
            std::path::Path::new(&repo).join(&file),
            format!("{index}:{i}\n"),
        )
        .unwrap();
        let step = store
            .shadow_step(
                &ShadowStep::new("shared")
                    .file(&file)
                    .message(format!("w{index} {i}")),
            )
            .unwrap();
        writeln!(out, "{} {}", step.commit, step.skipped).unwrap();
    }
}

#[test]
fn eight_processes_one_session_nothing_lost_history_linear() {
    common::each_format(eight_processes_one_session_nothing_lost_history_linear_in);
}

fn eight_processes_one_session_nothing_lost_history_linear_in() {
    let repo = TestRepo::new();
    std::fs::write(repo.path().join("base.txt"), "base\n").unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let count = steps_per_process();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|i| {
            Command::new(&exe)
                .args(["--ignored", "--exact", "worker", "--nocapture", "--quiet"])
                .env("STEP_WORKER_REPO", repo.path())
                .env("STEP_WORKER_INDEX", i.to_string())
                .env("STEP_WORKER_COUNT", count.to_string())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut moved = BTreeSet::new();
    let mut skipped = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let Some((commit, was_skipped)) = line.split_once(' ') else {
                continue;
            };
            if commit.len() != repo.format.hex_len() {
                continue;
            }
            if was_skipped == "true" {
                skipped += 1;
            } else {
                assert!(moved.insert(commit.to_owned()), "one commit reported twice");
            }
        }
    }
    assert_eq!(moved.len() + skipped, PROCESSES * count);

    let store = Store::open(repo.path()).unwrap();
    let branch = store.shadow_branch().unwrap();
    let chain: Vec<String> = repo
        .git(&[
            "rev-list",
            "--first-parent",
            &format!("refs/heads/{branch}"),
        ])
        .lines()
        .map(str::to_owned)
        .collect();
    let all: Vec<String> = repo
        .git(&["rev-list", &format!("refs/heads/{branch}")])
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(chain, all, "linear history");
    assert!(repo
        .git(&["rev-list", "--merges", &format!("refs/heads/{branch}")])
        .is_empty());
    let on_chain: BTreeSet<String> = chain.into_iter().collect();
    assert_eq!(
        on_chain, moved,
        "every step that moved the branch is on it, and only those"
    );
    for i in 0..PROCESSES {
        let last = repo.cat(&format!("refs/heads/{branch}:w{i}.txt"));
        assert_eq!(last, format!("{i}:{}\n", count - 1));
    }
    repo.assert_fsck();
}
