//! The tool list (names, descriptions, schemas, annotations) against the
//! golden file `mcp/tests/golden/tools.json`: a change to a tool is a
//! visible diff. `UPDATE_GOLDEN=1` rewrites the file.

use std::path::PathBuf;

use agent_checkpoint_mcp::ServerOptions;
use serde_json::json;

use crate::client::Client;

#[tokio::test]
async fn the_tool_list_matches_the_golden_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path(), &ServerOptions::default());
    client.initialize().await;
    let listed = client.request("tools/list", json!({})).await;
    let tools = &listed["result"]["tools"];
    let text = serde_json::to_string_pretty(tools).unwrap() + "\n";
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/tools.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).unwrap();
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        text == expected,
        "the tool list differs from {} (rerun with UPDATE_GOLDEN=1 to accept):\n{text}",
        golden.display()
    );
    // What a model needs to choose well: every tool has a description, an
    // object input schema and an output schema.
    for tool in tools.as_array().unwrap() {
        assert!(tool["description"].as_str().unwrap().len() > 40, "{tool}");
        assert_eq!(tool["inputSchema"]["type"], json!("object"), "{tool}");
        assert_eq!(tool["outputSchema"]["type"], json!("object"), "{tool}");
    }
    client.finish().await;
}
