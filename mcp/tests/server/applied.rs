//! `record_applied` then `on_conflict: skip`: a person's edit made after
//! the batch survives the rollback; the batch's own edits are undone.

use std::path::Path;

use agent_checkpoint_mcp::ServerOptions;
use serde_json::{json, Value};

use crate::client::{tool_error_code, Client};

async fn skip_spares_a_later_human_edit(root: &Path) -> (Client, String) {
    std::fs::write(root.join("a.txt"), "a0\n").unwrap();
    std::fs::write(root.join("b.txt"), "b0\n").unwrap();
    let mut client = Client::start(root, &ServerOptions::default());
    client.initialize().await;
    let captured = client
        .call("capture_checkpoint", json!({"paths": ["a.txt", "b.txt"]}))
        .await;
    let id = captured["structuredContent"]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The batch, recorded as applied, then a person edits a.txt.
    std::fs::write(root.join("a.txt"), "a1\n").unwrap();
    std::fs::write(root.join("b.txt"), "b1\n").unwrap();
    let recorded = client
        .call("record_applied", json!({"checkpoint_id": id}))
        .await;
    assert_eq!(
        recorded["structuredContent"]["recorded"],
        json!(["a.txt", "b.txt"]),
        "{recorded}"
    );
    std::fs::write(root.join("a.txt"), "a2 by a person\n").unwrap();

    let plan = client
        .call(
            "plan_rollback",
            json!({"checkpoint_id": id, "on_conflict": "skip"}),
        )
        .await;
    let actions: Vec<(Value, Value)> = plan["structuredContent"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["path"].clone(), s["action"].clone()))
        .collect();
    assert_eq!(
        actions,
        [
            (json!("a.txt"), json!("conflict")),
            (json!("b.txt"), json!("write"))
        ]
    );
    let rolled = client
        .call(
            "rollback_checkpoint",
            json!({"checkpoint_id": id, "on_conflict": "skip", "redo": false}),
        )
        .await;
    assert_eq!(rolled["structuredContent"]["conflicts"], json!(["a.txt"]));
    assert_eq!(rolled["structuredContent"]["ok"], json!(true), "{rolled}");
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "a2 by a person\n"
    );
    assert_eq!(std::fs::read_to_string(root.join("b.txt")).unwrap(), "b0\n");
    (client, id)
}

#[tokio::test]
async fn in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (client, _) = skip_spares_a_later_human_edit(dir.path()).await;
    client.finish().await;
}

#[tokio::test]
async fn in_git_and_not_after_the_session_was_saved() {
    let dir = tempfile::tempdir().unwrap();
    crate::measure::git_init(dir.path());
    let (mut client, id) = skip_spares_a_later_human_edit(dir.path()).await;
    let saved = client
        .call(
            "save_session",
            json!({"checkpoint_id": id, "prompts": ["edit a and b"]}),
        )
        .await;
    assert_eq!(saved["isError"], json!(false), "{saved}");
    let late = client
        .call("record_applied", json!({"checkpoint_id": id}))
        .await;
    assert_eq!(tool_error_code(&late), "conflict");
    client.finish().await;
}
