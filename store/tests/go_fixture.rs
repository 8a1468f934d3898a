//! A repository laid out as the Go tool writes it, built here with git
//! plumbing from STORE.md (legacy `checkpoint_version`, `null` lists, keys
//! in other cases, unknown fields, a chunked transcript, a legacy `full.log`,
//! a legacy-ID checkpoint on the v1 branch and a ULID one under its ref),
//! reads back, and a write into it keeps what it did not touch.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use agent_checkpoint_store::{Backend, NoRedaction, SessionWrite, Store, StoreOptions};
use common::TestRepo;

const ROOT_SUMMARY: &str = r#"{
  "cli_version": "0.7.9",
  "checkpoint_id": "a1b2c3d4e5f6",
  "checkpoint_version": 1,
  "strategy": "manual-commit",
  "branch": "main",
  "checkpoints_count": 3,
  "files_touched": null,
  "sessions": [
    {
      "metadata": "/a1/b2c3d4e5f6/0/metadata.json",
      "transcript": "/a1/b2c3d4e5f6/0/full.jsonl",
      "content_hash": "/a1/b2c3d4e5f6/0/content_hash.txt",
      "prompt": "/a1/b2c3d4e5f6/0/prompt.txt",
      "assets_manifest": "/a1/b2c3d4e5f6/0/assets/manifest.json"
    },
    {
      "metadata": "/a1/b2c3d4e5f6/1/metadata.json",
      "prompt": ""
    }
  ],
  "token_usage": {
    "input_tokens": 100,
    "cache_creation_tokens": 0,
    "cache_read_tokens": 50,
    "output_tokens": 20,
    "api_call_count": 3,
    "cost_usd": 0.25
  }
}
"#;

const SESSION0: &str = r#"{
  "cli_version": "0.7.9",
  "Checkpoint_ID": "a1b2c3d4e5f6",
  "session_id": "go-session-0",
  "strategy": "manual-commit",
  "created_at": "2026-01-02T03:04:05.123456789Z",
  "checkpoints_count": 2,
  "files_touched": null,
  "AGENT": "Claude Code",
  "model": "claude-sonnet-4-20250514",
  "token_usage": {"input_tokens": 100, "cache_creation_tokens": 0, "cache_read_tokens": 50, "output_tokens": 20, "api_call_count": 3},
  "summary": {"intent": "x", "outcome": "y", "learnings": {"repo": null, "code": null, "workflow": null}, "friction": null, "open_items": null},
  "skill_events": null,
  "future_field": [1, 2, 3]
}
"#;

const SESSION1: &str = r#"{"checkpoint_id":"a1b2c3d4e5f6","session_id":"go-session-1","strategy":"manual-commit","created_at":"2026-01-03T00:00:00+01:00","checkpoints_count":1,"files_touched":["z.go","a.go"],"agent":"Cursor","model":""}"#;

const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

struct Fixture {
    repo: TestRepo,
    session0_blob: String,
}

fn build() -> Fixture {
    let repo = TestRepo::new();
    // v1: seed commit, then the legacy checkpoint a1/b2c3d4e5f6.
    let empty = repo.mktree(&[]);
    let seed = repo.commit_tree(&empty, None, "Initialize sessions branch");
    let chunks = ["{\"n\":0}\n{\"n\":1}\n", "{\"n\":2}\n", "{\"n\":3}\n"];
    let c: Vec<String> = chunks.iter().map(|c| repo.blob(c.as_bytes())).collect();
    let hash = repo.blob(b"sha256:0000");
    let prompt = repo.blob(b"first prompt\n\n---\n\nsecond prompt");
    let session0_blob = repo.blob(SESSION0.as_bytes());
    // Chunk names deliberately listed out of order; git sorts them.
    let slot0 = repo.mktree(&[
        ("100644", "blob", &c[2], "full.jsonl.002"),
        ("100644", "blob", &c[0], "full.jsonl"),
        ("100644", "blob", &c[1], "full.jsonl.001"),
        ("100644", "blob", &hash, "content_hash.txt"),
        ("100644", "blob", &prompt, "prompt.txt"),
        ("100644", "blob", &session0_blob, "metadata.json"),
    ]);
    let legacy_log = repo.blob(b"legacy transcript\n");
    let meta1 = repo.blob(SESSION1.as_bytes());
    let slot1 = repo.mktree(&[
        ("100644", "blob", &legacy_log, "full.log"),
        ("100644", "blob", &meta1, "metadata.json"),
    ]);
    let root = repo.blob(ROOT_SUMMARY.as_bytes());
    let cp = repo.mktree(&[
        ("100644", "blob", &root, "metadata.json"),
        ("040000", "tree", &slot0, "0"),
        ("040000", "tree", &slot1, "1"),
    ]);
    let shard = repo.mktree(&[("040000", "tree", &cp, "b2c3d4e5f6")]);
    let generation = repo.blob(b"{\"generation\":1}\n");
    let v1_tree = repo.mktree(&[
        ("040000", "tree", &shard, "a1"),
        ("100644", "blob", &generation, "generation.json"),
    ]);
    let tip = repo.commit_tree(&v1_tree, Some(&seed), "Checkpoint: a1b2c3d4e5f6\n\nEntire-Session: go-session-1\nEntire-Strategy: manual-commit\n");
    repo.git(&["update-ref", "refs/heads/entire/checkpoints/v1", &tip]);

    // A ULID checkpoint under its own ref, with a task.
    let meta = repo.blob(
        format!("{{\"checkpoint_id\":\"{ULID}\",\"session_id\":\"go-u\",\"strategy\":\"manual-commit\",\"created_at\":\"2027-05-06T07:08:09Z\",\"checkpoints_count\":1,\"files_touched\":null,\"model\":\"\",\"is_task\":true,\"tool_use_id\":\"toolu_9\"}}\n").as_bytes(),
    );
    let transcript = repo.blob(b"{\"u\":1}\n");
    let slot = repo.mktree(&[
        ("100644", "blob", &meta, "metadata.json"),
        ("100644", "blob", &transcript, "full.jsonl"),
    ]);
    let task_doc = repo.blob(b"{\n  \"session_id\": \"go-u\",\n  \"tool_use_id\": \"toolu_9\",\n  \"checkpoint_uuid\": \"u-1\"\n}\n");
    let task = repo.mktree(&[("100644", "blob", &task_doc, "checkpoint.json")]);
    let tasks = repo.mktree(&[("040000", "tree", &task, "toolu_9")]);
    let root = repo.blob(
        format!("{{\"checkpoint_id\":\"{ULID}\",\"strategy\":\"manual-commit\",\"checkpoints_count\":1,\"files_touched\":[],\"sessions\":[{{\"metadata\":\"/0/metadata.json\",\"transcript\":\"/0/full.jsonl\",\"prompt\":\"\"}}]}}\n").as_bytes(),
    );
    let tree = repo.mktree(&[
        ("100644", "blob", &root, "metadata.json"),
        ("040000", "tree", &slot, "0"),
        ("040000", "tree", &tasks, "tasks"),
    ]);
    let commit = repo.commit_tree(&tree, None, "Checkpoint: 01KVBJCWYA4YW6J5M9GP655HZN\n\nEntire-Session: go-u\nEntire-Strategy: manual-commit\n");
    repo.git(&[
        "update-ref",
        "refs/entire/checkpoints/ZN/01KVBJCWYA4YW6J5M9GP655HZN",
        &commit,
    ]);
    repo.assert_fsck();
    Fixture {
        repo,
        session0_blob,
    }
}

#[test]
fn a_go_written_repository_reads_back() {
    let f = build();
    let store = Store::open(f.repo.path()).unwrap();

    let summary = store.read("a1b2c3d4e5f6").unwrap();
    assert_eq!(summary.checkpoints_count, 3);
    assert_eq!(summary.files_touched, None);
    assert_eq!(summary.cli_version, "0.7.9");
    assert_eq!(summary.token_usage.as_ref().unwrap().cache_read_tokens, 50);
    let sessions = summary.sessions.as_ref().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0].transcript, "/a1/b2c3d4e5f6/0/full.jsonl");
    assert_eq!(store.read_raw("a1b2c3d4e5f6").unwrap(), ROOT_SUMMARY);

    let s0 = store.read_session("a1b2c3d4e5f6", 0).unwrap();
    assert_eq!(
        s0.transcript.as_deref(),
        Some(&b"{\"n\":0}\n{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n"[..])
    );
    assert_eq!(s0.prompts, ["first prompt", "second prompt"]);
    assert_eq!(s0.metadata.checkpoint_id, "a1b2c3d4e5f6");
    assert_eq!(s0.metadata.agent, "Claude Code");
    assert_eq!(s0.metadata.files_touched, None);
    assert_eq!(s0.metadata.created_at.nanos(), 123_456_789);
    assert_eq!(s0.metadata.summary.as_ref().unwrap().friction, None);
    assert_eq!(s0.metadata_json, SESSION0);

    let s1 = store.read_session("a1b2c3d4e5f6", 1).unwrap();
    assert_eq!(s1.transcript.as_deref(), Some(&b"legacy transcript\n"[..]));
    assert!(s1.prompts.is_empty());
    assert_eq!(s1.metadata.created_at.offset_seconds(), 3600);

    let u = store.read_session(ULID, 0).unwrap();
    assert_eq!(u.metadata.tool_use_id, "toolu_9");

    let list = store.list().unwrap();
    let ids: Vec<&str> = list.iter().map(|c| c.checkpoint_id.as_str()).collect();
    assert_eq!(ids, [ULID, "a1b2c3d4e5f6"], "newest first");
    assert_eq!(list[0].backend, Backend::GitRefs);
    assert!(list[0].is_task);
    assert_eq!(list[0].tool_use_id, "toolu_9");
    assert_eq!(list[1].session_ids, ["go-session-0", "go-session-1"]);
    assert_eq!(list[1].agent, "Cursor");
    assert_eq!(list[1].created_at.to_string(), "2026-01-03T00:00:00+01:00");
}

#[test]
fn writing_into_a_go_checkpoint_keeps_what_it_does_not_touch() {
    let f = build();
    let repo = &f.repo;
    let store = Store::open_with(
        repo.path(),
        StoreOptions::new(Arc::new(NoRedaction)).backend(Backend::GitBranch),
    )
    .unwrap();
    let v1 = "refs/heads/entire/checkpoints/v1";
    let before_slot1 = repo.git(&["rev-parse", &format!("{v1}:a1/b2c3d4e5f6/1")]);
    let written = store
        .write_session(
            &SessionWrite::new("a1b2c3d4e5f6", "ours")
                .files_touched(["m.rs"])
                .checkpoints_count(4),
        )
        .unwrap();
    assert_eq!(written.session_index, 2);
    repo.assert_fsck();
    // Untouched slots, the Go session's metadata blob and the sibling file keep their hashes.
    assert_eq!(
        repo.git(&["rev-parse", &format!("{v1}:a1/b2c3d4e5f6/1")]),
        before_slot1
    );
    assert_eq!(
        repo.git(&["rev-parse", &format!("{v1}:a1/b2c3d4e5f6/0/metadata.json")])
            .trim(),
        f.session0_blob
    );
    assert_eq!(
        repo.cat(&format!("{v1}:generation.json")),
        "{\"generation\":1}\n"
    );
    let summary = store.read("a1b2c3d4e5f6").unwrap();
    // Recomputed from every session: 2 + 1 + 4, files unioned, tokens from session 0.
    assert_eq!(summary.checkpoints_count, 7);
    assert_eq!(
        summary.files_touched,
        Some(vec!["a.go".into(), "m.rs".into(), "z.go".into()])
    );
    assert_eq!(summary.token_usage.as_ref().unwrap().input_tokens, 100);
    let sessions = summary.sessions.unwrap();
    assert_eq!(sessions[0].transcript, "/a1/b2c3d4e5f6/0/full.jsonl");
    assert_eq!(sessions[2].metadata, "/a1/b2c3d4e5f6/2/metadata.json");
    // Rewriting a Go session reuses its slot.
    let again = store
        .write_session(&SessionWrite::new("a1b2c3d4e5f6", "go-session-1"))
        .unwrap();
    assert_eq!(again.session_index, 1);
    assert_eq!(
        store.read("a1b2c3d4e5f6").unwrap().sessions.unwrap().len(),
        3
    );
}
