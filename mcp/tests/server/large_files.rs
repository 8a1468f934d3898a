//! `capture_checkpoint` beside a file over the core's 100 MiB per-file limit
//! (sparse, within the call's limit): the file is skipped, unread, and listed
//! in `skipped`; `rollback_checkpoint` lists it in `not_covered` and leaves it.

use agent_checkpoint_mcp::ServerOptions;
use serde_json::json;

use crate::client::Client;

#[tokio::test]
async fn a_file_over_the_limit_is_skipped_and_not_covered() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    const BIG: u64 = (100 << 20) + 1;
    std::fs::File::create(root.join("data.bin"))
        .unwrap()
        .set_len(BIG)
        .unwrap();
    std::fs::write(root.join("notes.txt"), "before\n").unwrap();
    let mut client = Client::start(root, &ServerOptions::default());
    client.initialize().await;
    let captured = client
        .call(
            "capture_checkpoint",
            json!({ "paths": ["data.bin", "notes.txt"] }),
        )
        .await;
    let out = &captured["structuredContent"];
    assert_eq!(out["skipped"], json!([{"path": "data.bin", "size": BIG}]));
    let paths: Vec<&str> = out["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["notes.txt"]);
    let text = captured["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Skipped 1 file(s)"), "{text}");
    let id = out["checkpoint_id"].as_str().unwrap().to_owned();

    std::fs::write(root.join("notes.txt"), "after\n").unwrap();
    std::fs::write(root.join("data.bin"), "replaced by the batch").unwrap();
    let rolled = client
        .call("rollback_checkpoint", json!({ "checkpoint_id": id }))
        .await;
    let out = &rolled["structuredContent"];
    assert_eq!(out["ok"], true, "{rolled}");
    assert_eq!(
        out["not_covered"],
        json!([{"path": "data.bin", "size": BIG}])
    );
    assert_eq!(
        std::fs::read_to_string(root.join("notes.txt")).unwrap(),
        "before\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("data.bin")).unwrap(),
        "replaced by the batch"
    );
    client.finish().await;
}
