//! The shadow-branch tools on a real repository: a step per edit, the log,
//! a rewind previewed with diffs and then done, its redo kept; outside a
//! repository they are `not_a_repository`.

use std::process::Command;

use agent_checkpoint_mcp::ServerOptions;
use serde_json::json;

use crate::client::{tool_error_code, Client};

fn git(dir: &std::path::Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[tokio::test]
async fn step_log_preview_and_rewind() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    git(root, &["init", "-q"]);
    std::fs::write(root.join("app.py"), "print('v1')\n").unwrap();
    git(root, &["add", "app.py"]);
    git(root, &["commit", "-qm", "init"]);
    let options = ServerOptions::default().with_session_id(Some("s-1".into()));
    let mut client = Client::start(root, &options);
    client.initialize().await;

    let start = client
        .call("shadow_step", json!({"message": "Session start"}))
        .await;
    let start_commit = start["structuredContent"]["commit"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(start_commit.len() == 40, "{start}");
    std::fs::write(root.join("app.py"), "print('v2')\n").unwrap();
    std::fs::write(root.join("new.py"), "x = 1\n").unwrap();
    let edited = client
        .call(
            "shadow_step",
            json!({"files": ["app.py", "new.py"], "message": "Edit"}),
        )
        .await;
    assert_eq!(edited["structuredContent"]["skipped"], false, "{edited}");

    let log = client.call("shadow_log", json!({})).await;
    let messages: Vec<&str> = log["structuredContent"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages, ["Edit", "Session start"]);

    let plan = client
        .call("shadow_rewind_plan", json!({"commit": start_commit}))
        .await;
    let steps = plan["structuredContent"]["steps"].as_array().unwrap();
    let app = steps.iter().find(|s| s["path"] == "app.py").unwrap();
    assert_eq!(app["action"], "write");
    assert_eq!(
        app["diff"],
        "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-print('v2')\n+print('v1')\n"
    );
    let new = steps.iter().find(|s| s["path"] == "new.py").unwrap();
    assert_eq!(new["action"], "remove");
    assert_eq!(
        std::fs::read_to_string(root.join("app.py")).unwrap(),
        "print('v2')\n"
    );

    let rewound = client
        .call("shadow_rewind", json!({"commit": start_commit}))
        .await;
    assert_eq!(rewound["structuredContent"]["ok"], true, "{rewound}");
    assert!(rewound["structuredContent"]["redo_checkpoint_id"].is_string());
    assert_eq!(
        std::fs::read_to_string(root.join("app.py")).unwrap(),
        "print('v1')\n"
    );
    assert!(!root.join("new.py").exists());

    let bad = client
        .call("shadow_rewind", json!({"commit": "not-a-commit"}))
        .await;
    assert!(!tool_error_code(&bad).is_empty(), "{bad}");
}

#[tokio::test]
async fn outside_a_repository_they_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path(), &ServerOptions::default());
    client.initialize().await;
    let refused = client.call("shadow_step", json!({})).await;
    assert_eq!(tool_error_code(&refused), "not_a_repository");
    let refused = client.call("shadow_log", json!({"limit": 0})).await;
    assert_eq!(tool_error_code(&refused), "invalid_argument");
}
