//! Plays `tests/vectors/store_*.json`: each `write_sessions` case writes its
//! sessions into a fresh repository and compares every file of the
//! checkpoint tree (read back by `git`) and every commit message with the
//! pinned bytes; each `reencode` case reads a document leniently and
//! compares the re-encoded bytes. `STORE_BLESS=1` writes the actual results
//! to `$TMPDIR/store_vectors_actual.jsonl` instead of failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use agent_checkpoint_store::{
    Backend, CheckpointSummary, Document, Metadata, NoRedaction, SessionWrite, Store, StoreOptions,
    TaskCheckpoint,
};
use serde_json::{json, Map, Value};

/// Builds a [`SessionWrite`] from a vector's `write` object: its keys are
/// the field names `SessionWrite::from_json` reads, as in every binding.
pub fn session_write(checkpoint_id: &str, w: &Value) -> SessionWrite {
    let mut w = w.clone();
    w["checkpoint_id"] = Value::String(checkpoint_id.to_owned());
    SessionWrite::from_json(&w.to_string()).unwrap()
}

fn play_writes(case: &Value) -> Result<Value, String> {
    let repo = common::TestRepo::new();
    let backend: Backend = case["backend"].as_str().unwrap().parse().unwrap();
    let store = Store::open_with(
        repo.path(),
        StoreOptions::new(Arc::new(NoRedaction)).backend(backend),
    )
    .unwrap();
    let id = case["checkpoint_id"].as_str().unwrap();
    for w in case["writes"].as_array().unwrap() {
        if let Err(e) = store.write_session(&session_write(id, w)) {
            assert!(
                repo.refs().is_empty(),
                "a failed write left refs: {:?}",
                repo.refs()
            );
            return Err(e.code().to_string());
        }
    }
    repo.assert_fsck();
    let (ref_name, dir) = match backend {
        Backend::GitRefs => (
            agent_checkpoint_naming::refs::ref_name(id).unwrap(),
            String::new(),
        ),
        Backend::GitBranch => (
            "refs/heads/entire/checkpoints/v1".to_owned(),
            format!("{}/", agent_checkpoint_naming::id::checkpoint_path(id)),
        ),
    };
    let mut files = Map::new();
    let tree = format!("{ref_name}:{}", dir.trim_end_matches('/'));
    for path in repo.git(&["ls-tree", "-r", "--name-only", &tree]).lines() {
        files.insert(
            path.to_owned(),
            Value::String(repo.cat(&format!("{ref_name}:{dir}{path}"))),
        );
    }
    let messages: Vec<Value> = repo
        .git(&["log", "--format=%B%x00", &ref_name])
        .split("\0\n")
        .filter(|m| !m.is_empty())
        .map(|m| Value::String(m.trim_end_matches('\0').to_owned()))
        .collect();
    Ok(json!({"expect_files": files, "expect_messages": messages}))
}

fn play_reencode(case: &Value) -> Result<Value, String> {
    let input = case["input"].as_str().unwrap();
    let text = match case["document"].as_str().unwrap() {
        "summary" => CheckpointSummary::from_json(input, "vector").and_then(|d| d.to_go_json()),
        "metadata" => Metadata::from_json(input, "vector").and_then(|d| d.to_go_json()),
        "task" => TaskCheckpoint::from_json(input, "vector").and_then(|d| d.to_go_json()),
        other => panic!("unknown document {other}"),
    }
    .map_err(|e| e.code().to_string())?;
    Ok(json!({ "expect_text": text }))
}

#[test]
fn store_vectors() {
    common::each_format(store_vectors_in);
}

fn store_vectors_in() {
    let bless = std::env::var_os("STORE_BLESS").is_some();
    let mut actual = String::new();
    let mut played = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(common::vectors_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("store_") && name.ends_with(".json")) {
            continue;
        }
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for case in doc["cases"].as_array().unwrap() {
            let case_name = case["name"].as_str().unwrap();
            let result = match case["op"].as_str().unwrap() {
                "write_sessions" => play_writes(case),
                "reencode" => play_reencode(case),
                other => panic!("unknown op {other}"),
            };
            played += 1;
            let got = match &result {
                Ok(v) => v.clone(),
                Err(code) => json!({ "expect_error": code }),
            };
            if bless {
                actual.push_str(
                    &serde_json::to_string(
                        &json!({"file": name, "name": case_name, "actual": got}),
                    )
                    .unwrap(),
                );
                actual.push('\n');
                continue;
            }
            for (key, value) in got.as_object().unwrap() {
                if case.get(key) != Some(value) {
                    failures.push(format!(
                        "{name}: {case_name}: {key}\n  want: {}\n  got:  {}",
                        case.get(key)
                            .map_or("(missing)".to_owned(), Value::to_string),
                        value
                    ));
                }
            }
            if case.get("expect_error").is_some() && result.is_ok() {
                failures.push(format!(
                    "{name}: {case_name}: expected an error, got success"
                ));
            }
        }
    }
    if bless {
        let out = std::env::temp_dir().join("store_vectors_actual.jsonl");
        std::fs::write(&out, actual).unwrap();
        return;
    }
    assert!(played >= 10, "only {played} store vector cases found");
    assert!(
        failures.is_empty(),
        "{} failing vector(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
