//! Issue 29's attack on the MCP confinement and limit fixes: what a client
//! confined with `--root repo/sub` tried against checkpoints, sessions and
//! files of other roots of the same repository, and what got through.

use std::path::Path;
use std::process::Command;

use agent_checkpoint_mcp::ServerOptions;
use agent_checkpoint_store::Store;
use serde_json::json;

use crate::client::{tool_error_code, Client};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A repository with the roots `sub` and `sub2`, one file in each.
fn two_roots() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    for dir in ["sub", "sub2"] {
        std::fs::create_dir(repo.path().join(dir)).unwrap();
        std::fs::write(repo.path().join(dir).join("f"), format!("{dir}\n")).unwrap();
    }
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-qm", "base"]);
    repo
}

async fn started(root: &Path) -> Client {
    let mut client = Client::start(root, &ServerOptions::default());
    client.initialize().await;
    client
}

/// Finding 1: `save_session` took any checkpoint ID without asking whose it
/// was. A server confined to `sub` appended a session to a checkpoint of
/// `sub2` (its `session_index` telling that the checkpoint existed and how
/// many sessions it had), and, naming that session's ID, replaced the
/// other root's transcript. It is now `not_found`, and the checkpoint is
/// left as it was.
#[tokio::test]
async fn save_session_never_writes_into_another_roots_checkpoint() {
    let repo = two_roots();
    let mut other = started(&repo.path().join("sub2")).await;
    let captured = other
        .call("capture_checkpoint", json!({"paths": ["f"]}))
        .await;
    let id = captured["structuredContent"]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let saved = other
        .call(
            "save_session",
            json!({"checkpoint_id": id, "session_id": "victim", "transcript": "theirs\n"}),
        )
        .await;
    assert_eq!(saved["isError"], json!(false), "{saved}");
    other.finish().await;

    let store = Store::open(repo.path()).unwrap();
    let before = store.read(&id).unwrap();
    let mut confined = started(&repo.path().join("sub")).await;
    for session in ["victim", "intruder"] {
        let result = confined
            .call(
                "save_session",
                json!({"checkpoint_id": id, "session_id": session, "transcript": "mine\n"}),
            )
            .await;
        assert_eq!(tool_error_code(&result), "not_found", "{session}: {result}");
    }
    // A checkpoint of its own, new, is still saved (and saved again).
    let own = "01M8TFN7BY27MC0HY6CYQM3XY0";
    for _ in 0..2 {
        let result = confined
            .call(
                "save_session",
                json!({"checkpoint_id": own, "transcript": "mine\n"}),
            )
            .await;
        assert_eq!(result["isError"], json!(false), "{result}");
    }
    confined.finish().await;

    let after = store.read(&id).unwrap();
    assert_eq!(after, before);
    let slot = store.read_session(&id, 1).unwrap();
    assert_eq!(slot.transcript.as_deref(), Some(&b"theirs\n"[..]));
}

/// Finding 2: the screen read its envelope with serde, which takes a struct
/// from an array as well (members by position). A batch was answered "the
/// message lacks `jsonrpc`", and `["2.0", 5, "ping"]` was passed on to the
/// SDK as if it were a request. Only an object is a message now: every
/// array is the batch refusal, never forwarded.
#[test]
fn an_array_is_never_taken_for_a_message() {
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#;
    let positional = br#"["2.0",5,"ping"]"#;
    for line in [&batch[..], &positional[..], b" [] "] {
        assert!(!agent_checkpoint_mcp::screen_forwards(line));
        let answer = agent_checkpoint_mcp::screen_line(line).unwrap();
        assert_eq!(answer["error"]["code"], json!(-32600), "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("batches are not supported"), "{message}");
    }
    assert!(agent_checkpoint_mcp::screen_forwards(
        br#" {"jsonrpc":"2.0","id":5,"method":"ping"}"#
    ));
}

/// Finding 3: only `capture_checkpoint` had a total limit. A rollback's
/// redo read every current file of the checkpoint's paths whole (up to
/// 1 GiB each): capture two new paths (nothing to count), write 900 MiB
/// to each, roll back, and the server died under a 3 GB `ulimit -v` (it
/// needs several times the redo). The redo now keeps, smallest first,
/// what fits in `max_capture_bytes` and leaves the rest out (listed in
/// `not_in_redo`); the rollback itself is whole.
#[tokio::test]
async fn a_rollbacks_redo_keeps_within_the_per_call_limit() {
    let root = tempfile::tempdir().unwrap();
    let options = ServerOptions::default().with_max_capture_bytes(1 << 20);
    let mut client = Client::start(root.path(), &options);
    client.initialize().await;
    let captured = client
        .call("capture_checkpoint", json!({"paths": ["a", "b", "c"]}))
        .await;
    let id = captured["structuredContent"]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    std::fs::write(root.path().join("a"), vec![b'a'; 300 << 10]).unwrap();
    std::fs::write(root.path().join("b"), vec![b'b'; 600 << 10]).unwrap();
    std::fs::write(root.path().join("c"), vec![b'c'; 700 << 10]).unwrap();
    let rolled = client
        .call("rollback_checkpoint", json!({"checkpoint_id": id}))
        .await;
    let result = &rolled["structuredContent"];
    assert_eq!(result["ok"], json!(true), "{rolled}");
    let left_out: Vec<&str> = result["not_in_redo"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(left_out, ["c"], "{rolled}");
    for name in ["a", "b", "c"] {
        assert!(!root.path().join(name).exists(), "{name}");
    }
    let redo = result["redo_checkpoint_id"].as_str().unwrap().to_owned();
    let inspected = client
        .call("inspect_checkpoint", json!({"checkpoint_id": redo}))
        .await;
    let kept: Vec<(String, u64)> = inspected["structuredContent"]["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["path"].as_str().unwrap().to_owned(),
                p["size"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        kept,
        [("a".to_owned(), 300 << 10), ("b".to_owned(), 600 << 10)],
        "{inspected}"
    );
    client.finish().await;
}
