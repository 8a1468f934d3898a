//! Issue 29.3 in the store: a shadow step, rewind and rewind plan confined
//! to one directory of the working tree (a scope). The first step takes
//! only the changes inside it; a named path outside it is
//! `path_escapes_root` and nothing is written; a rewind reads and writes
//! only the scope's directory, with paths relative to it, even when the
//! session also recorded paths outside it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use agent_checkpoint::{ErrorCode, PlanOptions, RollbackOptions};
use agent_checkpoint_store::{ShadowStep, Store};
use common::TestRepo;

fn write(root: &Path, path: &str, bytes: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

fn setup() -> TestRepo {
    let repo = TestRepo::new();
    let root = repo.path();
    write(root, "sub/a.txt", "a1\n");
    write(root, "other/t.txt", "t1\n");
    repo.git(&["add", "."]);
    repo.git(&["commit", "-qm", "base"]);
    write(root, "other/t.txt", "OUTSIDE-MODIFIED\n");
    write(root, "other/u.txt", "OUTSIDE-UNTRACKED\n");
    write(root, "sub/new.txt", "inside\n");
    repo
}

#[test]
fn a_first_step_in_a_scope_takes_only_its_changes() {
    let repo = setup();
    let store = Store::open(repo.path()).unwrap();
    let step = store
        .shadow_step(&ShadowStep::new("s").scope("sub"))
        .unwrap();
    let listed = repo.git(&["ls-tree", "-r", &step.commit]);
    assert!(listed.contains("sub/new.txt"), "{listed}");
    assert!(!listed.contains("other/u.txt"), "{listed}");
    // other/t.txt is HEAD's, not the working tree's.
    assert_eq!(
        repo.git(&["show", &format!("{}:other/t.txt", step.commit)]),
        "t1\n"
    );
    // An absolute scope is the same scope.
    let abs = repo.path().join("sub").display().to_string();
    let again = store
        .shadow_step(&ShadowStep::new("s2").scope(abs).first(true))
        .unwrap();
    let listed = repo.git(&["ls-tree", "-r", &again.commit]);
    assert!(!listed.contains("other/u.txt"), "{listed}");
}

#[test]
fn named_paths_are_relative_to_the_scope_and_confined_to_it() {
    let repo = setup();
    let store = Store::open(repo.path()).unwrap();
    let start = store
        .shadow_step(&ShadowStep::new("s").scope("sub"))
        .unwrap();
    let abs = repo.path().join("other/u.txt").display().to_string();
    for step in [
        ShadowStep::new("s").scope("sub").file("../other/u.txt"),
        ShadowStep::new("s")
            .scope("sub")
            .file("a.txt")
            .file(abs.clone()),
        ShadowStep::new("s").scope("sub").file("x/../../other"),
        ShadowStep::new("s")
            .scope("sub")
            .deleted(["../other/t.txt"]),
    ] {
        let e = store.shadow_step(&step).unwrap_err();
        assert_eq!(e.code(), ErrorCode::PathEscapesRoot, "{step:?}: {e}");
    }
    // Nothing was written: the branch did not move.
    assert_eq!(repo.git(&["rev-parse", &start.branch]).trim(), start.commit);
    write(repo.path(), "sub/a.txt", "a2\n");
    let edit = store
        .shadow_step(
            &ShadowStep::new("s")
                .scope("sub")
                .file("a.txt")
                .file(".git/x"),
        )
        .unwrap();
    assert_eq!(
        repo.git(&["show", &format!("{}:sub/a.txt", edit.commit)]),
        "a2\n"
    );
    assert_eq!(edit.left_out, [".git/x"]);
    // A scope under .git or outside the working tree is refused.
    for bad in [".git", "../x", "/elsewhere"] {
        assert!(
            store.shadow_step(&ShadowStep::new("s").scope(bad)).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn a_scoped_rewind_reads_and_writes_only_its_directory() {
    let repo = setup();
    let root = repo.path();
    let store = Store::open(root).unwrap();
    let start = store
        .shadow_step(&ShadowStep::new("s").message("start"))
        .unwrap();
    // The session changes a file inside and one outside the scope.
    write(root, "sub/a.txt", "a2\n");
    write(root, "other/t.txt", "OUTSIDE-STEP\n");
    store
        .shadow_step(&ShadowStep::new("s").files(["sub/a.txt", "other/t.txt"]))
        .unwrap();
    let text = store
        .shadow_rewind_snapshot_scoped(&start.commit, "sub", root.join("sub"))
        .unwrap();
    assert!(
        text.contains("\"a.txt\"") && !text.contains("other"),
        "{text}"
    );
    let plan = store
        .shadow_rewind_plan_scoped(
            &start.commit,
            "sub",
            root.join("sub"),
            &PlanOptions::default(),
        )
        .unwrap();
    let paths: Vec<&str> = plan.items.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(paths, ["a.txt"]);
    let report = store
        .shadow_rewind_scoped(
            &start.commit,
            "sub",
            root.join("sub"),
            &RollbackOptions::default(),
        )
        .unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(
        std::fs::read_to_string(root.join("sub/a.txt")).unwrap(),
        "a1\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("other/t.txt")).unwrap(),
        "OUTSIDE-STEP\n",
        "outside the scope: untouched"
    );
    assert!(!root.join("sub/sub").exists() && !root.join("sub/other").exists());
    // Unscoped, the same rewind takes both.
    write(root, "sub/a.txt", "a2\n");
    let plan = store
        .shadow_rewind_plan(&start.commit, root, &PlanOptions::default())
        .unwrap();
    let paths: Vec<&str> = plan.items.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(paths, ["other/t.txt", "sub/a.txt"]);
}
