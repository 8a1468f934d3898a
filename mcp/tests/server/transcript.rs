//! The README's capture -> batch -> rollback transcript is what the server
//! says: the exchange is replayed and every line compared, checkpoint IDs
//! (fresh ULIDs on each run) mapped to the README's in order of
//! appearance. `UPDATE_README=1` rewrites the transcript from this run.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use agent_checkpoint_mcp::ServerOptions;
use serde_json::{json, Value};

use crate::client::Client;

const BEGIN: &str = "<!-- transcript: begin -->";
const END: &str = "<!-- transcript: end -->";
const BATCH: &str = "## the batch runs (the agent's own edit tools): src/app.py is rewritten, src/util.py is created";

enum Step {
    Send(String),
    Batch,
}

fn scenario() -> Vec<Step> {
    // Raw lines, written as a client writes them (key order kept).
    [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example-agent","version":"1.0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"capture_checkpoint","arguments":{"paths":["src/app.py","src/util.py"]}}}"#,
        "",
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"plan_rollback","arguments":{"checkpoint_id":"<CAPTURED>"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rollback_checkpoint","arguments":{"checkpoint_id":"<CAPTURED>"}}}"#,
    ]
    .into_iter()
    .map(|line| {
        if line.is_empty() {
            Step::Batch
        } else {
            Step::Send(line.to_owned())
        }
    })
    .collect()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).unwrap();
}

/// The ULIDs in `text`, in order of appearance.
fn ulids(text: &str) -> Vec<String> {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 26 <= bytes.len() {
        let run = &bytes[i..i + 26];
        let boundary = |j: Option<&u8>| j.is_none_or(|b| !b.is_ascii_alphanumeric());
        if run.iter().all(|b| ALPHABET.contains(b))
            && (b'0'..=b'7').contains(&run[0])
            && boundary(i.checked_sub(1).and_then(|j| bytes.get(j)))
            && boundary(bytes.get(i + 26))
        {
            found.push(String::from_utf8(run.to_vec()).unwrap());
            i += 26;
        } else {
            i += 1;
        }
    }
    found
}

fn replace_all(text: &str, map: &BTreeMap<String, String>) -> String {
    map.iter().fold(text.to_owned(), |t, (from, to)| {
        t.replace(from.as_str(), to)
    })
}

fn readme() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

fn readme_transcript() -> Vec<String> {
    let text = std::fs::read_to_string(readme()).unwrap();
    let start = text.find(BEGIN).expect("the README has a transcript");
    let end = text.find(END).expect("the transcript ends");
    text[start + BEGIN.len()..end]
        .lines()
        .filter(|l| l.starts_with("-->") || l.starts_with("<--") || l.starts_with("## "))
        .map(str::to_owned)
        .collect()
}

/// Runs the scenario; returns the transcript lines of this run.
async fn run() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("src/app.py"), "print(\"v1\")\n");
    let mut client = Client::start(root, &ServerOptions::default());
    let mut lines = Vec::new();
    let mut captured = String::new();
    for step in scenario() {
        match step {
            Step::Batch => {
                write(&root.join("src/app.py"), "print(\"v2\")\n");
                write(&root.join("src/util.py"), "def helper():\n    return 2\n");
                lines.push(BATCH.to_owned());
            }
            Step::Send(line) => {
                let text = line.replace("<CAPTURED>", &captured);
                let message: Value = serde_json::from_str(&text).unwrap();
                lines.push(format!("--> {text}"));
                client.send_raw(format!("{text}\n").as_bytes()).await;
                if message.get("id").is_none() {
                    continue;
                }
                let answer = client.recv_line().await;
                if message["params"]["name"] == json!("capture_checkpoint") {
                    let value: Value = serde_json::from_str(&answer).unwrap();
                    captured = value["result"]["structuredContent"]["checkpoint_id"]
                        .as_str()
                        .unwrap()
                        .to_owned();
                }
                lines.push(format!("<-- {}", answer.trim_end()));
            }
        }
    }
    client.finish().await;
    // The tree is back as captured.
    assert_eq!(
        std::fs::read_to_string(root.join("src/app.py")).unwrap(),
        "print(\"v1\")\n"
    );
    assert!(!root.join("src/util.py").exists());
    lines
}

#[tokio::test]
async fn the_readme_transcript_is_what_the_server_says() {
    let lines = run().await;
    if std::env::var_os("UPDATE_README").is_some() {
        let text = std::fs::read_to_string(readme()).unwrap();
        let start = text.find(BEGIN).unwrap() + BEGIN.len();
        let end = text.find(END).unwrap();
        let block = format!("\n```text\n{}\n```\n", lines.join("\n"));
        std::fs::write(
            readme(),
            format!("{}{block}{}", &text[..start], &text[end..]),
        )
        .unwrap();
    }
    let expected = readme_transcript();
    assert_eq!(
        lines.len(),
        expected.len(),
        "the transcript has as many lines"
    );
    // This run's IDs, mapped to the README's in order of appearance.
    let mut live_to_readme = BTreeMap::new();
    for (live, readme) in lines.iter().zip(&expected) {
        for (l, r) in ulids(live).into_iter().zip(ulids(readme)) {
            live_to_readme.entry(l).or_insert(r);
        }
        assert_eq!(
            replace_all(live, &live_to_readme),
            *readme,
            "the README transcript differs from the server (UPDATE_README=1 rewrites it)"
        );
    }
}

#[test]
fn ulids_are_found_whole() {
    assert_eq!(
        ulids("{\"checkpoint_id\":\"01KVBJCWYA4YW6J5M9GP655HZN\"} x01KVBJCWYA4YW6J5M9GP655HZN"),
        ["01KVBJCWYA4YW6J5M9GP655HZN"]
    );
}
