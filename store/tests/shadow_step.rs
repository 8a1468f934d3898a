//! Shadow steps judged by the real `git`: a first step's tree is the tree
//! git builds from `HEAD` plus the working tree (`git add -A` into a
//! temporary index), minus `.entire/`; ignored files of all three sources
//! are absent; trailers read back with `git log --format=%B`; later steps
//! take the named files only; a failing ignore check fails closed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{
    shadow, NoRedaction, ShadowLogQuery, ShadowStep, Store, StoreOptions, TaskInfo,
};
use common::TestRepo;

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

fn chmod(root: &Path, path: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A repository with one commit: files, an executable, a symlink, ignore
/// rules from `.gitignore` (two levels), `.git/info/exclude` and
/// `core.excludesFile`.
fn seeded() -> TestRepo {
    let repo = TestRepo::new();
    let root = repo.path();
    write(root, "a.txt", b"a\n");
    write(root, "dir/b.txt", b"b\n");
    write(root, "e.txt", b"to be renamed\n");
    write(root, "run.sh", b"#!/bin/sh\n");
    chmod(root, "run.sh", 0o755);
    std::os::unix::fs::symlink("a.txt", root.join("link")).unwrap();
    write(root, ".gitignore", b"*.log\nbuild/\n.env\n");
    write(root, "sub/.gitignore", b"secret.txt\n");
    write(root, "sub/kept.txt", b"kept\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    write(root, ".git/info/exclude", b"excluded-by-info.txt\n");
    let global = repo.home.path().join("global-ignore");
    std::fs::write(&global, "global-ignored.txt\n").unwrap();
    repo.git(&["config", "core.excludesFile", global.to_str().unwrap()]);
    repo
}

fn open(repo: &TestRepo) -> Store {
    Store::open_with(repo.path(), StoreOptions::new(Arc::new(NoRedaction))).unwrap()
}

/// `git ls-tree -r` of `tree`, without `.entire/` lines.
fn listing(repo: &TestRepo, tree: &str) -> String {
    repo.git(&["ls-tree", "-r", "--full-tree", tree])
        .lines()
        .filter(|l| !l.split('\t').nth(1).unwrap_or("").starts_with(".entire/"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The tree git itself builds from HEAD plus every working-tree change.
fn git_snapshot_tree(repo: &TestRepo) -> String {
    let index = repo.home.path().join("judge-index");
    let _ = std::fs::remove_file(&index);
    let run = |args: &[&str]| {
        let out = repo
            .command()
            .env("GIT_INDEX_FILE", &index)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["read-tree", "HEAD"]);
    run(&["add", "-A"]);
    run(&["write-tree"]).trim().to_owned()
}

fn tree_of(repo: &TestRepo, commit: &str) -> String {
    repo.git(&["rev-parse", &format!("{commit}^{{tree}}")])
        .trim()
        .to_owned()
}

/// Every kind of change git status knows, plus ignored files of all three
/// sources and an untracked `.entire/`.
fn change_everything(repo: &TestRepo) {
    let root = repo.path();
    write(root, "a.txt", b"a changed\n");
    std::fs::remove_file(root.join("dir/b.txt")).unwrap();
    repo.git(&["mv", "e.txt", "f.txt"]);
    write(root, "new/deep/c.txt", b"new nested\n");
    write(root, "staged.txt", b"staged\n");
    repo.git(&["add", "staged.txt"]);
    write(root, "staged.txt", b"staged then changed\n");
    chmod(root, "a.txt", 0o755);
    std::fs::remove_file(root.join("link")).unwrap();
    std::os::unix::fs::symlink("dir", root.join("link")).unwrap();
    std::os::unix::fs::symlink("run.sh", root.join("new/link2")).unwrap();
    for ignored in [
        "x.log",
        "build/out.o",
        "sub/secret.txt",
        ".env",
        "excluded-by-info.txt",
        "global-ignored.txt",
    ] {
        write(root, ignored, b"IGNORED\n");
    }
    write(root, ".entire/settings.json", b"{}\n");
}

#[test]
fn first_step_tree_is_what_git_builds_and_trailers_read_back() {
    common::each_format(first_step_tree_is_what_git_builds_and_trailers_read_back_in);
}

fn first_step_tree_is_what_git_builds_and_trailers_read_back_in() {
    let repo = seeded();
    change_everything(&repo);
    let store = open(&repo);
    let head = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    let step = store
        .shadow_step(&ShadowStep::new("s1").message("First step"))
        .unwrap();
    assert_eq!(step.branch, format!("entire/{}-e3b0c4", &head[..7]));
    assert!(!step.skipped && step.first);
    assert_eq!(step.base_commit, head);

    let ours = listing(&repo, &tree_of(&repo, &step.commit));
    let git = listing(&repo, &git_snapshot_tree(&repo));
    assert_eq!(ours, git);
    for ignored in [
        "x.log",
        "build/out.o",
        "sub/secret.txt",
        ".env",
        "excluded-by-info.txt",
        "global-ignored.txt",
    ] {
        assert!(
            !ours.contains(&format!("\t{ignored}\n")),
            "{ignored} taken:\n{ours}"
        );
    }
    assert!(ours.contains("100755 blob") && ours.contains("120000 blob"));
    assert!(!repo
        .git(&["ls-tree", "-r", "--name-only", &step.commit])
        .contains(".entire/settings.json"));

    let body = repo.git(&[
        "log",
        "-1",
        "--format=%B",
        &format!("refs/heads/{}", step.branch),
    ]);
    assert_eq!(
        body,
        "First step\n\nEntire-Metadata: .entire/metadata/s1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n\n"
    );
    let session = repo.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Entire-Session,valueonly)",
        &step.commit,
    ]);
    assert_eq!(session.trim(), "s1");
    assert_eq!(repo.git(&["rev-list", "--count", &step.commit]).trim(), "1");
    repo.assert_fsck();
}

#[test]
fn later_steps_take_the_named_files_only_and_unchanged_trees_are_skipped() {
    common::each_format(later_steps_take_the_named_files_only_and_unchanged_trees_are_skipped_in);
}

fn later_steps_take_the_named_files_only_and_unchanged_trees_are_skipped_in() {
    let repo = seeded();
    let store = open(&repo);
    let root = repo.path();
    let first = store.shadow_step(&ShadowStep::new("s1")).unwrap();
    assert!(!first.skipped);

    write(root, "a.txt", b"edited by the agent\n");
    write(root, "created/one.txt", b"1\n");
    write(root, "created/two.txt", b"2\n");
    std::fs::remove_file(root.join("dir/b.txt")).unwrap();
    write(root, ".env", b"API_KEY=secret\n");
    write(root, "not-named.txt", b"the user's\n");
    let second = store
        .shadow_step(
            &ShadowStep::new("s1")
                .files(["./a.txt", "created", ".env", ".entire/x", "dir/b.txt"])
                .message("Second"),
        )
        .unwrap();
    assert!(!second.skipped && !second.first);
    assert_eq!(second.left_out, [".entire/x", ".env"]);
    let names = repo.git(&["ls-tree", "-r", "--name-only", &second.commit]);
    assert!(names.contains("created/one.txt\ncreated/two.txt\n"));
    assert!(!names.contains("dir/b.txt"));
    assert!(!names.contains(".env"));
    assert!(!names.contains("not-named.txt"));
    assert_eq!(
        repo.cat(&format!("{}:a.txt", second.commit)),
        "edited by the agent\n"
    );
    assert_eq!(
        repo.git(&["rev-parse", &format!("{}^", second.commit)])
            .trim(),
        first.commit
    );
    // No blob of the ignored .env was written.
    let env_blob = repo.git_output(&["hash-object", ".env"], None);
    let id = String::from_utf8(env_blob.stdout).unwrap();
    assert!(!repo
        .git_output(&["cat-file", "-e", id.trim()], None)
        .status
        .success());

    let again = store
        .shadow_step(&ShadowStep::new("s1").files(["a.txt", "created/one.txt"]))
        .unwrap();
    assert!(again.skipped);
    assert_eq!(again.commit, second.commit);

    // Another session's first step takes the whole status again.
    let other = store.shadow_step(&ShadowStep::new("s2")).unwrap();
    assert!(other.first);
    let names = repo.git(&["ls-tree", "-r", "--name-only", &other.commit]);
    assert!(names.contains("not-named.txt"));
    assert_eq!(
        listing(&repo, &tree_of(&repo, &other.commit)),
        listing(&repo, &git_snapshot_tree(&repo))
    );
    repo.assert_fsck();
}

#[test]
fn a_failing_ignore_check_fails_closed() {
    common::each_format(a_failing_ignore_check_fails_closed_in);
}

fn a_failing_ignore_check_fails_closed_in() {
    let repo = seeded();
    let store = open(&repo);
    let first = store.shadow_step(&ShadowStep::new("s1")).unwrap();
    write(repo.path(), "a.txt", b"changed\n");
    // core.excludesFile is a symlink loop: it cannot be read (ELOOP).
    let bad = repo.home.path().join("loop");
    std::os::unix::fs::symlink(&bad, &bad).unwrap();
    repo.git(&["config", "core.excludesFile", bad.to_str().unwrap()]);
    let store = open(&repo);
    let e = store
        .shadow_step(&ShadowStep::new("s1").file("a.txt"))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io, "{e}");
    // A first step (the whole status) fails closed as well.
    let e = store.shadow_step(&ShadowStep::new("s2")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io, "{e}");
    let tip = repo.git(&["rev-parse", &format!("refs/heads/{}", first.branch)]);
    assert_eq!(tip.trim(), first.commit);
}

#[test]
fn metadata_is_redacted_and_task_steps_name_their_directory() {
    common::each_format(metadata_is_redacted_and_task_steps_name_their_directory_in);
}

fn metadata_is_redacted_and_task_steps_name_their_directory_in() {
    let repo = seeded();
    let store = Store::open(repo.path()).unwrap();
    let meta = repo.home.path().join("meta");
    let secret = "sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA";
    write(
        &meta,
        "full.jsonl",
        format!("{{\"type\":\"text\",\"content\":\"key {secret}\"}}\n").as_bytes(),
    );
    write(
        &meta,
        "prompt.txt",
        format!("my key is {secret} ok").as_bytes(),
    );
    write(
        &meta,
        "blob.bin",
        b"\0binary sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA",
    );
    let step = store
        .shadow_step(&ShadowStep::new("s1").metadata_dir(&meta))
        .unwrap();
    let at = |p: &str| repo.cat(&format!("{}:.entire/metadata/s1/{p}", step.commit));
    assert_eq!(at("prompt.txt"), "my key is REDACTED ok");
    assert!(!at("full.jsonl").contains(secret));
    assert!(at("full.jsonl").contains("REDACTED"));
    assert!(at("blob.bin").contains(secret), "binaries are stored as is");
    let transcript = store.shadow_transcript(&step.commit[..10]).unwrap();
    assert!(String::from_utf8(transcript).unwrap().contains("REDACTED"));

    write(repo.path(), "a.txt", b"by the subagent\n");
    let mut task = TaskInfo::new("toolu_01");
    task.agent_id = "agent-7".into();
    let t = store
        .shadow_task_step(&ShadowStep::new("s1").file("a.txt").message("Task"), &task)
        .unwrap();
    let body = repo.git(&["log", "-1", "--format=%B", &t.commit]);
    assert_eq!(
        body,
        "Task\n\nEntire-Metadata-Task: .entire/metadata/s1/tasks/toolu_01\nEntire-Session: s1\nEntire-Strategy: manual-commit\n\n"
    );
    let doc = repo.cat(&format!(
        "{}:.entire/metadata/s1/tasks/toolu_01/checkpoint.json",
        t.commit
    ));
    assert!(
        doc.contains("\"tool_use_id\": \"toolu_01\"") && doc.contains("\"agent_id\": \"agent-7\"")
    );
    let log = store.shadow_log(&ShadowLogQuery::new()).unwrap();
    assert_eq!(log.len(), 2);
    assert!(log[0].is_task && log[0].tool_use_id == "toolu_01" && log[0].message == "Task");
    assert_eq!(log[0].metadata_dir, ".entire/metadata/s1");
}

#[test]
fn listing_and_log_newest_first_by_session_with_a_limit() {
    common::each_format(listing_and_log_newest_first_by_session_with_a_limit_in);
}

fn listing_and_log_newest_first_by_session_with_a_limit_in() {
    let repo = seeded();
    let store = open(&repo);
    let mut commits = Vec::new();
    for i in 0..6 {
        write(repo.path(), "a.txt", format!("{i}\n").as_bytes());
        let session = if i % 2 == 0 { "even" } else { "odd" };
        let s = store
            .shadow_step(
                &ShadowStep::new(session)
                    .file("a.txt")
                    .message(format!("step {i}")),
            )
            .unwrap();
        commits.push(s.commit);
    }
    let branches = store.shadow_branches().unwrap();
    assert_eq!(branches.len(), 1);
    let head = repo.git(&["rev-parse", "HEAD"]);
    assert_eq!(branches[0].base_commit, head[..7]);
    assert_eq!(branches[0].worktree_hash, "e3b0c4");
    assert_eq!(branches[0].tip, commits[5]);
    assert_eq!(branches[0].session_id, "odd");

    let all = store.shadow_log(&ShadowLogQuery::new()).unwrap();
    let ids: Vec<&str> = all.iter().map(|s| s.commit.as_str()).collect();
    let newest_first: Vec<&str> = commits.iter().rev().map(String::as_str).collect();
    assert_eq!(ids, newest_first);
    let even = store
        .shadow_log(&ShadowLogQuery::new().session("even").limit(2))
        .unwrap();
    assert_eq!(
        even.iter().map(|s| s.message.as_str()).collect::<Vec<_>>(),
        ["step 4", "step 2"]
    );
    let none = store
        .shadow_log(&ShadowLogQuery::new().branch("entire/0000000-e3b0c4"))
        .unwrap();
    assert!(none.is_empty());
    let bad = store
        .shadow_log(&ShadowLogQuery::new().branch("main"))
        .unwrap_err();
    assert_eq!(bad.code(), ErrorCode::InvalidArgument);
}

#[test]
fn bad_input_is_a_typed_error_and_writes_nothing() {
    common::each_format(bad_input_is_a_typed_error_and_writes_nothing_in);
}

fn bad_input_is_a_typed_error_and_writes_nothing_in() {
    let repo = seeded();
    let store = open(&repo);
    for (step, code) in [
        (ShadowStep::new("a/b"), ErrorCode::InvalidArgument),
        (
            ShadowStep::new("s").message("x\nEntire-Session: other"),
            ErrorCode::InvalidArgument,
        ),
        (
            ShadowStep::new("s").file("../outside"),
            ErrorCode::InvalidPath,
        ),
        (
            ShadowStep::new("s").file("/etc/passwd"),
            ErrorCode::InvalidPath,
        ),
    ] {
        assert_eq!(store.shadow_step(&step).unwrap_err().code(), code);
    }
    assert!(store.shadow_branches().unwrap().is_empty());
    let empty = TestRepo::new();
    let e = Store::open(empty.path())
        .unwrap()
        .shadow_step(&ShadowStep::new("s"))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}

#[test]
fn a_linked_worktree_has_its_own_branch() {
    common::each_format(a_linked_worktree_has_its_own_branch_in);
}

fn a_linked_worktree_has_its_own_branch_in() {
    let repo = seeded();
    let linked = repo.home.path().join("wt-two");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "--detach",
        linked.to_str().unwrap(),
    ]);
    let store = Store::open(&linked).unwrap();
    assert_eq!(shadow::worktree_id(&store), "wt-two");
    assert_eq!(shadow::worktree_id(&open(&repo)), "");
    write(&linked, "a.txt", b"in the linked worktree\n");
    let step = store.shadow_step(&ShadowStep::new("s1")).unwrap();
    let head = repo.git(&["rev-parse", "HEAD"]);
    let expected =
        agent_checkpoint_naming::refs::shadow_branch_name(head.trim(), "wt-two").unwrap();
    assert_eq!(step.branch, expected);
    assert_eq!(
        repo.cat(&format!("{}:a.txt", step.commit)),
        "in the linked worktree\n"
    );
}
