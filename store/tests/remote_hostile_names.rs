//! Every name the store turns into a tree entry follows git's rules, so
//! `git fsck --strict` (and a remote with `receive.fsckObjects`, as hosting
//! services run it) takes everything the store writes, whatever the input:
//! session IDs, tool-use IDs and agent IDs spelled as `.git` in any way
//! HFS+ or NTFS would open it (or as `.gitmodules` / `.gitattributes`) are
//! refused with a typed error and write nothing; a shadow step leaves out
//! (and lists) work-tree files at paths git refuses, and takes the rest.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{Backend, SessionWrite, ShadowStep, TaskInfo};
use remote_support::{legacy, ulid, Clone, Kind, Server};

/// Names git refuses for a directory (`hasDotgit`, `gitmodulesBlob`,
/// `gitattributesBlob`, `largePathname`).
fn hostile() -> Vec<String> {
    let mut names: Vec<String> = [
        ".git",
        ".GIT",
        ".Git",
        ".git.",
        ".git ",
        ".git . .",
        ".git::$INDEX_ALLOCATION",
        "git~1",
        "GIT~1",
        ".g\u{200c}it",
        "\u{feff}.git",
        ".gi\u{200d}t",
        ".gitmodules",
        ".GITMODULES",
        ".gitmodules ",
        "gitmod~1",
        "GI7EBA~1",
        ".gitattributes",
        ".gitattributes.",
        "gitatt~2",
        "gi7d29~1",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    names.push("x".repeat(4097));
    names
}

#[test]
fn hostile_ids_are_refused_and_what_the_store_writes_passes_fsck_and_a_fsck_remote() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    a.repo.git(&["commit", "-q", "--allow-empty", "-m", "base"]);
    let store = a.store();
    let branch_store = a.store_with(Backend::GitBranch);
    let before = a.repo.refs();
    for name in hostile() {
        let id = ulid(1);
        let shown = name.chars().take(40).collect::<String>();
        let attempts = [
            store.write_session(&SessionWrite::new(id.as_str(), name.as_str())),
            store.write_session(
                &SessionWrite::new(id.as_str(), "s").task(TaskInfo::new(name.as_str())),
            ),
            store.write_session(&SessionWrite::new(id.as_str(), "s").task(TaskInfo {
                agent_id: name.clone(),
                ..TaskInfo::new("toolu_1")
            })),
            branch_store.write_session(
                &SessionWrite::new(legacy(1).as_str(), "s").task(TaskInfo::new(name.as_str())),
            ),
        ];
        for (i, r) in attempts.into_iter().enumerate() {
            let e = r
                .err()
                .unwrap_or_else(|| panic!("{shown:?} (write {i}) taken"));
            assert_eq!(e.code(), ErrorCode::InvalidArgument, "{shown:?}: {e}");
        }
        let step = store.shadow_step(&ShadowStep::new(name.as_str()).message("m"));
        let e = step
            .err()
            .unwrap_or_else(|| panic!("{shown:?} as a shadow session"));
        assert_eq!(e.code(), ErrorCode::InvalidArgument, "{shown:?}: {e}");
        let task = store.shadow_task_step(&ShadowStep::new("s"), &TaskInfo::new(name.as_str()));
        let e = task
            .err()
            .unwrap_or_else(|| panic!("{shown:?} as a shadow task"));
        assert_eq!(e.code(), ErrorCode::InvalidArgument, "{shown:?}: {e}");
    }
    assert_eq!(a.repo.refs(), before, "nothing written");

    // What the store does write, with tasks, on both backends and a shadow
    // branch, git's fsck takes, here and at a remote that checks every object.
    let id = ulid(2);
    store
        .write_session(&SessionWrite::new(id.as_str(), "s").task(TaskInfo::new("toolu_01ABC")))
        .unwrap();
    branch_store
        .write_session(&SessionWrite::new(legacy(2).as_str(), ".github").task(TaskInfo::new("git")))
        .unwrap();
    store
        .shadow_task_step(
            &ShadowStep::new("s").message("m"),
            &TaskInfo::new("toolu_2"),
        )
        .unwrap();
    a.repo.assert_fsck();
    let report = store.push("origin").unwrap();
    assert!(report.all_pushed(), "{report:?}");
    server.assert_fsck();
}

#[test]
fn a_shadow_step_leaves_out_work_tree_files_at_paths_git_refuses() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    a.repo.git(&["commit", "-q", "--allow-empty", "-m", "base"]);
    let root = a.path();
    let refused = [
        ".GIT/config",
        "git~1/hooks/x",
        "sub/.git /x",
        ".g\u{200c}it/config",
        // (At the root, gix's status cannot read a `.gitmodules` directory.)
        "deep/.gitmodules/x",
        "GI7EBA~1/x",
    ];
    for path in refused.iter().chain(&["ok.txt", "sub/fine.rs"]) {
        let full = root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, b"payload\n").unwrap();
    }
    std::os::unix::fs::symlink("target", root.join("sub/.gitmodules")).unwrap();
    let store = a.store();
    // The first step takes what `git status` shows.
    let first = store.shadow_step(&ShadowStep::new("s")).unwrap();
    assert!(!first.skipped);
    let tree = a.repo.git(&["ls-tree", "-r", "--name-only", &first.commit]);
    // (`.GIT/` git's status itself never shows: it is `.git` to it.)
    for path in refused.iter().skip(1).chain(&["sub/.gitmodules"]) {
        assert!(
            first.left_out.iter().any(|p| p == path),
            "{path:?} not listed as left out: {:?}",
            first.left_out
        );
    }
    for path in refused.iter().chain(&["sub/.gitmodules"]) {
        assert!(!tree.lines().any(|l| l == *path), "{path:?} taken: {tree}");
    }
    assert!(tree.lines().any(|l| l == "ok.txt"), "{tree}");
    assert!(tree.lines().any(|l| l == "sub/fine.rs"), "{tree}");
    // A later step naming them leaves them out the same way.
    std::fs::write(root.join("ok.txt"), b"changed\n").unwrap();
    let named = store
        .shadow_step(&ShadowStep::new("s").first(false).files([
            "ok.txt",
            ".GIT/config",
            "git~1/hooks/x",
        ]))
        .unwrap();
    assert!(
        named.left_out.iter().any(|p| p == ".GIT/config"),
        "{named:?}"
    );
    assert!(
        named.left_out.iter().any(|p| p == "git~1/hooks/x"),
        "{named:?}"
    );
    a.repo.assert_fsck();
}
