//! Rewind on a real repository: modified, created, deleted, renamed files,
//! a created nested directory, an executable bit, a symlink come back as
//! the chosen step had them; a file untracked before the session and an
//! ignored `.env` are never touched; the plan is what the rewind does;
//! rolling the redo back gives the pre-rewind tree exactly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, ErrorCode, ParseOptions, PlanAction, PlanOptions, RollbackOptions, Snapshot,
};
use agent_checkpoint_store::{NoRedaction, ShadowStep, Store, StoreOptions};
use common::TestRepo;

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

fn chmod(root: &Path, path: &str, mode: u32) {
    std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Everything in the working tree but `.git`: path -> what it is.
fn tree(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            if rel == ".git" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(rel, format!("link -> {}", target.display()));
            } else if meta.is_dir() {
                out.insert(rel, format!("dir {mode:o}"));
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.insert(
                    rel,
                    format!("file {mode:o} {}", String::from_utf8_lossy(&bytes)),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

struct Scenario {
    repo: TestRepo,
    store: Store,
    step1: String,
    step2: String,
}

/// A session: a baseline step, then the agent edits (step 2: modify,
/// create nested, delete, rename, exec bit, symlink), then edits again
/// (step 3). Before the session: an untracked notes.txt and an ignored
/// .env; the user changes both during the session.
fn scenario() -> Scenario {
    let repo = TestRepo::new();
    let root = repo.path();
    write(root, "a.txt", b"a v0\n");
    write(root, "dir/b.txt", b"b\n");
    write(root, "e.txt", b"renamed later\n");
    write(root, "run.sh", b"#!/bin/sh\n");
    chmod(root, "run.sh", 0o755);
    std::os::unix::fs::symlink("a.txt", root.join("link")).unwrap();
    write(root, ".gitignore", b".env\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    write(root, "notes.txt", b"my notes\n");
    write(root, ".env", b"API_KEY=before\n");
    write(root, ".entire/settings.json", b"{\"a\":1}\n");

    let store = Store::open_with(root, StoreOptions::new(Arc::new(NoRedaction))).unwrap();
    let step1 = store
        .shadow_step(&ShadowStep::new("s1").message("baseline"))
        .unwrap()
        .commit;

    write(root, "a.txt", b"a v1\n");
    write(root, "new/deep/c.txt", b"created\n");
    std::fs::remove_file(root.join("dir/b.txt")).unwrap();
    std::fs::rename(root.join("e.txt"), root.join("f.txt")).unwrap();
    chmod(root, "run.sh", 0o644);
    std::fs::remove_file(root.join("link")).unwrap();
    std::os::unix::fs::symlink("dir", root.join("link")).unwrap();
    let step2 = store
        .shadow_step(
            &ShadowStep::new("s1")
                .files([
                    "a.txt",
                    "new/deep/c.txt",
                    "e.txt",
                    "f.txt",
                    "run.sh",
                    "link",
                ])
                .deleted(["dir/b.txt"])
                .message("agent edits"),
        )
        .unwrap()
        .commit;

    write(root, "a.txt", b"a v2\n");
    write(root, "new/deep/later.txt", b"later\n");
    store
        .shadow_step(&ShadowStep::new("s1").files(["a.txt", "new/deep/later.txt"]))
        .unwrap();

    // The user, meanwhile, outside the session.
    write(root, "notes.txt", b"my notes, edited\n");
    write(root, ".env", b"API_KEY=after\n");
    write(root, ".entire/settings.json", b"{\"a\":2}\n");
    Scenario {
        repo,
        store,
        step1,
        step2,
    }
}

#[test]
fn rewind_restores_exactly_what_the_session_touched_and_redo_undoes_it() {
    common::each_format(rewind_restores_exactly_what_the_session_touched_and_redo_undoes_it_in);
}

fn rewind_restores_exactly_what_the_session_touched_and_redo_undoes_it_in() {
    let s = scenario();
    let root = s.repo.path();
    let before = tree(root);

    let plan = s
        .store
        .shadow_rewind_plan(&s.step1, root, &PlanOptions::default())
        .unwrap();
    assert_eq!(tree(root), before, "a plan touches nothing");
    let report = s
        .store
        .shadow_rewind(&s.step1[..12], root, &RollbackOptions::default())
        .unwrap();
    assert!(report.ok(), "{:?}", report.unrestored);
    assert_eq!(report.plan, plan, "the plan is what the rewind did");

    let after = tree(root);
    assert_eq!(after["a.txt"], "file 644 a v0\n");
    assert_eq!(after["dir/b.txt"], "file 644 b\n");
    assert_eq!(after["e.txt"], "file 644 renamed later\n");
    assert!(!after.contains_key("f.txt"));
    assert!(
        !after.contains_key("new"),
        "created nested dirs are pruned: {after:?}"
    );
    assert_eq!(after["run.sh"], "file 755 #!/bin/sh\n");
    assert_eq!(after["link"], "link -> a.txt");
    // Never touched: untracked before the session, ignored, .entire.
    assert_eq!(after["notes.txt"], "file 644 my notes, edited\n");
    assert_eq!(after[".env"], "file 644 API_KEY=after\n");
    assert_eq!(after[".entire/settings.json"], "file 644 {\"a\":2}\n");
    let written: Vec<&str> = plan
        .with_action(PlanAction::Write)
        .map(|i| i.path.as_str())
        .collect();
    assert_eq!(written, ["a.txt", "dir/b.txt", "e.txt", "link", "run.sh"]);

    // Redo: the core rolls the rewind back, exactly.
    let redo = report.redo.expect("a redo snapshot");
    let snapshot = Snapshot::parse(redo.as_str(), &ParseOptions::default()).unwrap();
    let cap = CapRoot::open(root, ambient_authority()).unwrap();
    let back = agent_checkpoint::rollback(&cap, &snapshot, &RollbackOptions::default()).unwrap();
    assert!(back.ok(), "{:?}", back.unrestored);
    assert_eq!(tree(root), before);
}

#[test]
fn rewind_to_a_later_step_and_again_changes_nothing() {
    common::each_format(rewind_to_a_later_step_and_again_changes_nothing_in);
}

fn rewind_to_a_later_step_and_again_changes_nothing_in() {
    let s = scenario();
    let root = s.repo.path();
    let report = s
        .store
        .shadow_rewind(&s.step2, root, &RollbackOptions::default())
        .unwrap();
    assert!(report.ok());
    let after = tree(root);
    assert_eq!(after["a.txt"], "file 644 a v1\n");
    assert_eq!(after["new/deep/c.txt"], "file 644 created\n");
    assert!(!after.contains_key("new/deep/later.txt"));
    assert_eq!(after["f.txt"], "file 644 renamed later\n");
    assert!(!after.contains_key("e.txt") && !after.contains_key("dir/b.txt"));
    assert_eq!(after["run.sh"], "file 644 #!/bin/sh\n");
    assert_eq!(after["link"], "link -> dir");
    assert_eq!(after["notes.txt"], "file 644 my notes, edited\n");

    // Already there: an empty plan, nothing written.
    let plan = s
        .store
        .shadow_rewind_plan(&s.step2, root, &PlanOptions::default())
        .unwrap();
    assert!(plan.items.is_empty(), "{plan:?}");
    let again = s
        .store
        .shadow_rewind(&s.step2, root, &RollbackOptions::default())
        .unwrap();
    assert!(again.ok() && again.restored.is_empty());
    assert_eq!(tree(root), after);
}

#[test]
fn a_session_created_directory_holding_other_files_is_kept() {
    common::each_format(a_session_created_directory_holding_other_files_is_kept_in);
}

fn a_session_created_directory_holding_other_files_is_kept_in() {
    let s = scenario();
    let root = s.repo.path();
    write(root, "new/deep/users-own.txt", b"mine\n");
    let report = s
        .store
        .shadow_rewind(&s.step1, root, &RollbackOptions::default())
        .unwrap();
    assert!(report.ok(), "{:?}", report.unrestored);
    let after = tree(root);
    assert!(!after.contains_key("new/deep/c.txt"));
    assert_eq!(after["new/deep/users-own.txt"], "file 644 mine\n");
}

#[test]
fn unknown_or_malformed_steps_are_typed_errors() {
    common::each_format(unknown_or_malformed_steps_are_typed_errors_in);
}

fn unknown_or_malformed_steps_are_typed_errors_in() {
    let s = scenario();
    let root = s.repo.path();
    let before = tree(root);
    for (commit, code) in [
        ("zz", ErrorCode::InvalidArgument),
        ("0000000000", ErrorCode::NotFound),
        ("", ErrorCode::InvalidArgument),
    ] {
        let e = s
            .store
            .shadow_rewind(commit, root, &RollbackOptions::default())
            .unwrap_err();
        assert_eq!(e.code(), code, "{commit}");
    }
    assert_eq!(tree(root), before);
}
