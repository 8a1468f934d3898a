//! Issue 29.3: a server confined with `--root repo/sub` reads and writes
//! only below `sub` through the shadow tools, whatever the repository
//! around it holds: secret files in `repo/other` (tracked and modified,
//! untracked) never reach a tool result or an object on the shadow branch,
//! and a rewind writes nothing outside `sub`, even to a step whose session
//! another (unconfined) caller also recorded outside `sub`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use agent_checkpoint_mcp::ServerOptions;
use agent_checkpoint_store::{ShadowStep, Store};
use serde_json::{json, Value};

use crate::client::{tool_error_code, Client};

const TRACKED_SECRET: &str = "TRACKED-SECRET-7f3a9c";
const UNTRACKED_SECRET: &str = "UNTRACKED-SECRET-2b8e41";
const STORE_SECRET: &str = "STORE-STEP-SECRET-5d0c77";

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Every file below `dir` (but `.git`) and its bytes.
fn files(dir: &Path, prefix: &str, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name == ".git" {
            continue;
        }
        let path = format!("{prefix}{name}");
        if entry.file_type().unwrap().is_dir() {
            files(&entry.path(), &format!("{path}/"), out);
        } else {
            out.insert(path, std::fs::read(entry.path()).unwrap());
        }
    }
}

fn tree_of(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    files(dir, "", &mut out);
    out
}

/// The bytes of every blob reachable from `branch`.
fn blobs(repo: &Path, branch: &str) -> Vec<String> {
    git(repo, &["rev-list", "--objects", branch])
        .lines()
        .filter_map(|l| l.split(' ').next())
        .filter(|oid| git(repo, &["cat-file", "-t", oid]).trim() == "blob")
        .map(|oid| git(repo, &["cat-file", "blob", oid]))
        .collect()
}

fn assert_no_secret(what: &str, value: &Value) {
    let text = value.to_string();
    for secret in [TRACKED_SECRET, UNTRACKED_SECRET, STORE_SECRET] {
        assert!(!text.contains(secret), "{what} holds {secret}: {text}");
    }
}

fn assert_clean(what: &str, value: &Value) {
    assert_no_secret(what, value);
    let text = value.to_string();
    assert!(
        !text.contains("other/"),
        "{what} names a path outside: {text}"
    );
}

#[tokio::test]
async fn a_server_below_the_top_of_the_working_tree_stays_below_its_root() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    git(repo, &["init", "-q"]);
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::create_dir_all(repo.join("other")).unwrap();
    std::fs::write(repo.join("sub/app.txt"), "v1\n").unwrap();
    std::fs::write(repo.join("other/tracked.txt"), "harmless\n").unwrap();
    git(repo, &["add", "."]);
    git(repo, &["commit", "-qm", "init"]);
    std::fs::write(repo.join("other/tracked.txt"), TRACKED_SECRET).unwrap();
    std::fs::write(repo.join("other/untracked.txt"), UNTRACKED_SECRET).unwrap();
    std::fs::write(repo.join("sub/mine.txt"), "mine\n").unwrap();

    let options = ServerOptions::default().with_session_id(Some("s-1".into()));
    let mut client = Client::start(&repo.join("sub"), &options);
    client.initialize().await;

    // The first step takes what `git status` shows below the root only.
    let first = client
        .call("shadow_step", json!({"message": "start"}))
        .await;
    assert_clean("the first step", &first);
    let start = first["structuredContent"]["commit"]
        .as_str()
        .unwrap()
        .to_owned();
    let branch = first["structuredContent"]["branch"]
        .as_str()
        .unwrap()
        .to_owned();
    let listed = git(repo, &["ls-tree", "-r", "--name-only", &start]);
    assert!(listed.lines().any(|l| l == "sub/mine.txt"), "{listed}");
    assert!(!listed.contains("untracked"), "{listed}");

    // Named paths outside the root are refused, whatever their spelling.
    let absolute = repo.join("other/untracked.txt").display().to_string();
    for args in [
        json!({"files": ["../other/untracked.txt"]}),
        json!({"files": [absolute]}),
        json!({"files": ["app.txt", "../other"]}),
        json!({"deleted": ["../other/tracked.txt"]}),
    ] {
        let refused = client.call("shadow_step", args.clone()).await;
        assert_eq!(tool_error_code(&refused), "path_escapes_root", "{args}");
        assert_no_secret("a refused step", &refused);
    }

    // Paths are the root's: `app.txt` is `sub/app.txt` in the repository.
    std::fs::write(repo.join("sub/app.txt"), "v2\n").unwrap();
    let edit = client
        .call(
            "shadow_step",
            json!({"files": ["app.txt"], "message": "edit"}),
        )
        .await;
    assert_clean("a step", &edit);
    let edit_commit = edit["structuredContent"]["commit"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        git(repo, &["show", &format!("{edit_commit}:sub/app.txt")]),
        "v2\n"
    );

    // Nothing the server recorded holds a secret.
    for blob in blobs(repo, &branch) {
        assert!(!blob.contains(TRACKED_SECRET) && !blob.contains(UNTRACKED_SECRET));
    }

    // An unconfined caller records a step of the same session outside `sub`.
    std::fs::write(repo.join("other/tracked.txt"), STORE_SECRET).unwrap();
    let store = Store::open(repo).unwrap();
    store
        .shadow_step(
            &ShadowStep::new("s-1")
                .file("other/tracked.txt")
                .message("outside"),
        )
        .unwrap();
    std::fs::write(repo.join("other/tracked.txt"), TRACKED_SECRET).unwrap();

    // The preview and the rewind see the root's paths only.
    let before = tree_of(repo);
    let plan = client
        .call("shadow_rewind_plan", json!({"commit": start}))
        .await;
    assert_clean("the rewind plan", &plan);
    let paths: Vec<&str> = plan["structuredContent"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["app.txt"], "{plan}");
    let rewound = client.call("shadow_rewind", json!({"commit": start})).await;
    assert_clean("the rewind", &rewound);
    assert_eq!(rewound["structuredContent"]["ok"], true, "{rewound}");
    let mut after = tree_of(repo);
    assert_eq!(after.remove("sub/app.txt").unwrap(), b"v1\n");
    let mut expected = before;
    expected.remove("sub/app.txt");
    assert_eq!(after, expected, "the rewind wrote only sub/app.txt");
    client.finish().await;
}

const CAPTURED_SECRET: &str = "CAPTURED-SECRET-91e6d2";

/// Issue 29.3: a checkpoint another server captured under another root
/// (here the top of the working tree, holding `other/secret.txt`) is not
/// this server's: `--root repo/sub` does not list it, and every tool that
/// reads a checkpoint answers `not_found` for it, showing none of its
/// bytes and writing nothing; its own checkpoints work as ever.
#[tokio::test]
async fn a_server_below_the_top_uses_only_the_checkpoints_captured_under_its_root() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    git(repo, &["init", "-q"]);
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    std::fs::create_dir_all(repo.join("other")).unwrap();
    std::fs::write(repo.join("other/secret.txt"), CAPTURED_SECRET).unwrap();
    std::fs::write(repo.join("sub/app.txt"), "v1\n").unwrap();

    // A server at the top captures the secret, which then changes.
    let options = ServerOptions::default().with_session_id(Some("s-top".into()));
    let mut top = Client::start(repo, &options);
    top.initialize().await;
    let captured = top
        .call("capture_checkpoint", json!({"paths": ["other/secret.txt"]}))
        .await;
    assert_eq!(
        captured["structuredContent"]["storage"], "git",
        "{captured}"
    );
    let theirs = captured["structuredContent"]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    top.finish().await;
    std::fs::write(repo.join("other/secret.txt"), "changed\n").unwrap();

    let options = ServerOptions::default().with_session_id(Some("s-sub".into()));
    let mut sub = Client::start(&repo.join("sub"), &options);
    sub.initialize().await;
    let mine = sub
        .call("capture_checkpoint", json!({"paths": ["app.txt"]}))
        .await;
    let mine = mine["structuredContent"]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(repo.join("sub/app.txt"), "v2\n").unwrap();

    let listed = sub.call("list_checkpoints", json!({})).await;
    let ids: Vec<&str> = listed["structuredContent"]["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["checkpoint_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [mine.as_str()], "{listed}");
    assert_eq!(listed["structuredContent"]["total"], 1, "{listed}");

    let before = tree_of(repo);
    for (tool, args) in [
        ("inspect_checkpoint", json!({"checkpoint_id": theirs})),
        ("plan_rollback", json!({"checkpoint_id": theirs})),
        ("rollback_checkpoint", json!({"checkpoint_id": theirs})),
        ("record_applied", json!({"checkpoint_id": theirs})),
    ] {
        let refused = sub.call(tool, args).await;
        assert_eq!(tool_error_code(&refused), "not_found", "{tool}: {refused}");
        assert!(
            !refused.to_string().contains(CAPTURED_SECRET),
            "{tool}: {refused}"
        );
    }
    assert_eq!(tree_of(repo), before, "nothing was written");

    // Its own checkpoint: inspected, planned and rolled back.
    let inspected = sub
        .call("inspect_checkpoint", json!({"checkpoint_id": mine}))
        .await;
    assert_eq!(
        inspected["structuredContent"]["paths"][0]["path"],
        "app.txt"
    );
    let plan = sub
        .call("plan_rollback", json!({"checkpoint_id": mine}))
        .await;
    assert_eq!(plan["structuredContent"]["changes"], 1, "{plan}");
    let rolled = sub
        .call("rollback_checkpoint", json!({"checkpoint_id": mine}))
        .await;
    assert_eq!(rolled["structuredContent"]["ok"], true, "{rolled}");
    assert_eq!(std::fs::read(repo.join("sub/app.txt")).unwrap(), b"v1\n");
    // The redo it kept is this root's too.
    let redo = rolled["structuredContent"]["redo_checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let inspected = sub
        .call("inspect_checkpoint", json!({"checkpoint_id": redo}))
        .await;
    assert_eq!(inspected["isError"], false, "{inspected}");
    sub.finish().await;

    // The top's server still sees its own.
    let mut top = Client::start(repo, &ServerOptions::default());
    top.initialize().await;
    let inspected = top
        .call("inspect_checkpoint", json!({"checkpoint_id": theirs}))
        .await;
    assert_eq!(inspected["isError"], false, "{inspected}");
    top.finish().await;
}
