//! A root inside a git repository: snapshots go to the local-only
//! snapshot refs (they survive a restart), sessions are saved redacted.

use std::path::Path;
use std::process::Command;

use agent_checkpoint_mcp::ServerOptions;
use agent_checkpoint_store::Store;
use serde_json::json;

use crate::client::{tool_error_code, Client};

const SECRET: &str = "sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA";

fn git_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::measure::git_init(dir.path());
    dir
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[tokio::test]
async fn captures_live_in_git_sessions_are_redacted_and_rollback_survives_a_restart() {
    let repo = git_repo();
    let root = repo.path();
    std::fs::write(root.join("a.txt"), "before\n").unwrap();
    let options = ServerOptions::default().with_session_id(Some("s-1".into()));
    let mut client = Client::start(root, &options);
    client.initialize().await;

    let captured = client
        .call(
            "capture_checkpoint",
            json!({"paths": ["a.txt", "gen/new.txt"], "agent": "Test Agent"}),
        )
        .await;
    let result = &captured["structuredContent"];
    assert_eq!(result["storage"], json!("git"), "{captured}");
    let id = result["checkpoint_id"].as_str().unwrap().to_owned();
    let snapshot_ref = result["snapshot_ref"].as_str().unwrap();
    assert!(
        snapshot_ref.starts_with("refs/entire/snapshots/"),
        "{snapshot_ref}"
    );

    // A capture's session has no transcript: it reads back all the same
    // (issue 40: `no_transcript` made it unreadable).
    let captured_session = Store::open(root).unwrap().read_session(&id, 0).unwrap();
    assert_eq!(captured_session.transcript, None);
    assert_eq!(captured_session.metadata.agent, "Test Agent");

    let saved = client
        .call(
            "save_session",
            json!({"checkpoint_id": id,
                   "prompts": [format!("use the key {SECRET} please")],
                   "transcript": format!("{{\"type\":\"user\",\"content\":\"key {SECRET}\"}}\n"),
                   "metadata": {"branch": "main", "token_usage": {"input_tokens": 12}}}),
        )
        .await;
    assert_eq!(saved["isError"], json!(false), "{saved}");
    assert_eq!(
        saved["structuredContent"]["session_index"],
        json!(0),
        "same session, same slot"
    );

    // What the store holds: redacted text, the capture's files and agent kept,
    // the undo snapshot still attached.
    let store = Store::open(root).unwrap();
    let session = store.read_session(&id, 0).unwrap();
    assert_eq!(session.prompts, ["use the key REDACTED please"]);
    let transcript = String::from_utf8(session.transcript.unwrap()).unwrap();
    assert!(
        !transcript.contains(SECRET) && transcript.contains("REDACTED"),
        "{transcript}"
    );
    assert_eq!(session.metadata.session_id, "s-1");
    assert_eq!(session.metadata.agent, "Test Agent");
    assert_eq!(session.metadata.branch, "main");
    assert_eq!(
        session.metadata.files_touched,
        Some(vec!["a.txt".to_owned(), "gen/new.txt".to_owned()])
    );
    assert!(!session.metadata.snapshot_sha256.is_empty());
    assert!(store.snapshot(&id).unwrap().is_some());

    // The batch, then a restart of the server.
    std::fs::write(root.join("a.txt"), "after\n").unwrap();
    std::fs::create_dir_all(root.join("gen")).unwrap();
    std::fs::write(root.join("gen/new.txt"), "x\n").unwrap();
    client.finish().await;
    let mut client = Client::start(root, &options);
    client.initialize().await;

    let listed = client.call("list_checkpoints", json!({})).await;
    let checkpoints = listed["structuredContent"]["checkpoints"]
        .as_array()
        .unwrap()
        .clone();
    let entry = checkpoints
        .iter()
        .find(|c| c["checkpoint_id"] == json!(id))
        .unwrap();
    assert_eq!(entry["has_snapshot"], json!(true));
    assert_eq!(entry["session_ids"], json!(["s-1"]));

    let resources = client.request("resources/list", json!({})).await;
    let uri = format!("checkpoint://{id}");
    assert!(
        resources["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == json!(uri)),
        "{resources}"
    );
    let read_back = client.request("resources/read", json!({"uri": uri})).await;
    let text = read_back["result"]["contents"][0]["text"].as_str().unwrap();
    let doc: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(doc["paths"][0]["path"], json!("a.txt"));
    assert_eq!(doc["paths"][1]["kind"], json!("new"));

    let rolled = client
        .call("rollback_checkpoint", json!({"checkpoint_id": id}))
        .await;
    assert_eq!(rolled["structuredContent"]["ok"], json!(true), "{rolled}");
    assert_eq!(read(&root.join("a.txt")), "before\n");
    assert!(!root.join("gen").exists());
    // The redo checkpoint brings the batch back.
    let redo = rolled["structuredContent"]["redo_checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let again = client
        .call(
            "rollback_checkpoint",
            json!({"checkpoint_id": redo, "redo": false}),
        )
        .await;
    assert_eq!(again["structuredContent"]["ok"], json!(true), "{again}");
    assert_eq!(read(&root.join("a.txt")), "after\n");
    assert_eq!(read(&root.join("gen/new.txt")), "x\n");
    client.finish().await;
}

#[tokio::test]
async fn without_git_sessions_cannot_be_saved_and_unknown_checkpoints_are_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path(), &ServerOptions::default());
    client.initialize().await;
    let saved = client.call("save_session", json!({"prompts": ["p"]})).await;
    assert_eq!(tool_error_code(&saved), "not_a_repository");
    let missing = client
        .call(
            "plan_rollback",
            json!({"checkpoint_id": "01KVBJCWYA4YW6J5M9GP655HZN"}),
        )
        .await;
    assert_eq!(tool_error_code(&missing), "not_found");
    let bad = client
        .call("inspect_checkpoint", json!({"checkpoint_id": "../x"}))
        .await;
    assert_eq!(tool_error_code(&bad), "invalid_checkpoint_id");
    let unread = client
        .request(
            "resources/read",
            json!({"uri": "checkpoint://01KVBJCWYA4YW6J5M9GP655HZN"}),
        )
        .await;
    assert_eq!(unread["error"]["code"], json!(-32002), "{unread}");
    let redacted = client
        .call(
            "redact_text",
            json!({"text": format!("my key is {SECRET} ok")}),
        )
        .await;
    assert_eq!(
        redacted["structuredContent"]["text"],
        json!("my key is REDACTED ok")
    );
    client.finish().await;
}

#[tokio::test]
async fn a_checkpoint_that_cannot_be_read_is_listed_as_damaged_not_the_end_of_the_list() {
    let repo = git_repo();
    let root = repo.path();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .current_dir(root)
            .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    std::fs::write(root.join("a.txt"), "before\n").unwrap();
    std::fs::write(root.join("b.txt"), "before\n").unwrap();
    let mut client = Client::start(root, &ServerOptions::default());
    client.initialize().await;
    let mut ids = Vec::new();
    for path in ["a.txt", "b.txt"] {
        let captured = client
            .call("capture_checkpoint", json!({"paths": [path]}))
            .await;
        ids.push(
            captured["structuredContent"]["checkpoint_id"]
                .as_str()
                .unwrap_or_else(|| panic!("{captured}"))
                .to_owned(),
        );
    }
    // One of this server's checkpoints now points at a commit with an
    // empty tree; a teammate's malformed ref and another empty checkpoint
    // (not this root's: never listed) sit beside it.
    let empty = git(&[
        "commit-tree",
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "-m",
        "x",
    ]);
    let shard = &ids[0][ids[0].len() - 2..];
    git(&[
        "update-ref",
        &format!("refs/entire/checkpoints/{shard}/{}", ids[0]),
        &empty,
    ]);
    git(&["update-ref", "refs/entire/checkpoints/ZN/-ZN", &empty]);
    git(&[
        "update-ref",
        "refs/entire/checkpoints/00/01KV2000000000000000000000",
        &empty,
    ]);
    let listed = client.call("list_checkpoints", json!({})).await;
    let checkpoints = listed["structuredContent"]["checkpoints"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .clone();
    let code = |id: &str| {
        checkpoints
            .iter()
            .find(|c| c["checkpoint_id"] == json!(id))
            .map(|c| c["damaged"]["code"].clone())
    };
    assert_eq!(code(&ids[0]), Some(json!("corrupt_object")), "{listed}");
    assert_eq!(code(&ids[1]), Some(json!(null)), "{listed}");
    assert_eq!(code("-ZN"), None, "{listed}");
    assert_eq!(code("01KV2000000000000000000000"), None, "{listed}");
    client.finish().await;
}
