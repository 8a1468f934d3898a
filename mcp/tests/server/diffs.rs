//! `plan_rollback` shows each change's diff, and one answer carries at most
//! 512 KiB of diff text: the rest keep their one-line summaries.

use agent_checkpoint_mcp::ServerOptions;
use serde_json::json;

use crate::client::Client;

#[tokio::test]
async fn diffs_are_shown_and_an_answer_stays_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // 12 files of 100 KiB each whose every line the batch changes: about
    // 200 KiB of diff text each, 2.4 MiB in all.
    let names: Vec<String> = (0..12).map(|i| format!("f{i:02}.txt")).collect();
    let lines = |tag: &str| -> String { (0..5000).map(|n| format!("{tag} {n:013}\n")).collect() };
    for name in &names {
        std::fs::write(root.join(name), lines("old")).unwrap();
    }
    std::fs::write(root.join("small.txt"), "a\n").unwrap();
    let mut client = Client::start(root, &ServerOptions::default());
    client.initialize().await;
    let mut paths = names.clone();
    paths.push("small.txt".into());
    let captured = client
        .call("capture_checkpoint", json!({ "paths": paths }))
        .await;
    let id = captured["structuredContent"]["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for name in &names {
        std::fs::write(root.join(name), lines("new")).unwrap();
    }
    std::fs::write(root.join("small.txt"), "b\n").unwrap();

    let plan = client
        .call("plan_rollback", json!({ "checkpoint_id": id }))
        .await;
    let steps = plan["structuredContent"]["steps"].as_array().unwrap();
    let small = steps.iter().find(|s| s["path"] == "small.txt").unwrap();
    assert_eq!(small["diff_summary"], "+1 -1");
    assert_eq!(
        small["diff"],
        "--- a/small.txt\n+++ b/small.txt\n@@ -1 +1 @@\n-b\n+a\n"
    );
    let shown: usize = steps
        .iter()
        .filter_map(|s| s["diff"].as_str())
        .map(str::len)
        .sum();
    let left_out = plan["structuredContent"]["diffs_left_out"]
        .as_u64()
        .unwrap();
    assert!(shown <= 512 << 10, "{shown} bytes of diff in one answer");
    assert!(left_out >= 8, "{left_out} left out");
    assert!(steps.iter().all(|s| s["diff_summary"].is_string()));
    let text = plan["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains(&format!("{left_out} diff(s) left out")),
        "{text}"
    );

    let plain = client
        .call(
            "plan_rollback",
            json!({ "checkpoint_id": id, "diff": false }),
        )
        .await;
    let steps = plain["structuredContent"]["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s.get("diff_summary").is_none()));
}
