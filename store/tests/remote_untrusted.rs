//! What a remote holds is not trusted: a fetch takes only refs whose names
//! are valid checkpoint refs (an ID of a known kind, in its shard), and a
//! checkpoint that cannot be read — fetched or local — is listed as
//! damaged with its code, after the sound ones, never the end of the
//! listing (nor of `shadow clean`'s).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::SessionWrite;
use remote_support::{ref_of, ulid, Clone, Kind, Server};

#[test]
fn a_remotes_malformed_refs_are_not_fetched_and_unreadable_checkpoints_list_as_damaged() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let good = ulid(1);
    a.store()
        .write_session(&SessionWrite::new(good.as_str(), "s").agent("Claude Code"))
        .unwrap();
    assert!(a.store().push("origin").unwrap().all_pushed());
    // A teammate's (or an attacker's) refs: an ID no kind accepts in the
    // shard its last two characters name, and a valid ref whose commit has
    // an empty tree.
    let tip = server.tip(&ref_of(&good)).unwrap();
    let bad_name = "refs/entire/checkpoints/ZN/-ZN";
    server.git(&["update-ref", bad_name, &tip]);
    let empty_id = ulid(2);
    let empty_tree = server.git(&["hash-object", "-t", "tree", "-w", "--stdin"]);
    let empty = server
        .git(&[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "commit-tree",
            empty_tree.trim(),
            "-m",
            "x",
        ])
        .trim()
        .to_owned();
    server.git(&["update-ref", &ref_of(&empty_id), &empty]);

    let b = Clone::of(&server);
    let store = b.store();
    let report = store.fetch_all("origin").unwrap();
    let fetched: Vec<&str> = report.fetched.iter().map(|f| f.ref_name.as_str()).collect();
    assert!(!fetched.contains(&bad_name), "{fetched:?}");
    assert!(!b.repo.refs().iter().any(|r| r == bad_name));
    let remote_ids: Vec<String> = store
        .list_remote("origin")
        .unwrap()
        .into_iter()
        .map(|c| c.checkpoint_id)
        .collect();
    assert!(!remote_ids.iter().any(|i| i == "-ZN"), "{remote_ids:?}");

    // Also one made locally: the listing still ends, in order.
    b.repo.git(&["update-ref", bad_name, &tip]);
    let listed = store.list().unwrap();
    let ids: Vec<&str> = listed.iter().map(|c| c.checkpoint_id.as_str()).collect();
    assert_eq!(ids[0], good, "the sound one first: {ids:?}");
    assert!(listed[0].damaged.is_none());
    assert_eq!(listed[0].agent, "Claude Code");
    let damaged = |id: &str| {
        listed
            .iter()
            .find(|c| c.checkpoint_id == id)
            .and_then(|c| c.damaged.clone())
            .unwrap_or_else(|| panic!("{id} not listed as damaged: {listed:?}"))
    };
    assert_eq!(damaged(&empty_id).code, ErrorCode::CorruptObject);
    assert_eq!(damaged("-ZN").code, ErrorCode::InvalidCheckpointId);
    assert_eq!(listed.len(), 3);
    // As JSON, with the code by name.
    let json = serde_json::to_value(&listed).unwrap();
    assert_eq!(json[0]["damaged"], serde_json::Value::Null);
    assert!(json
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["damaged"]["code"] == "corrupt_object"));
    // Shadow clean, which lists checkpoints too, still runs.
    store.shadow_clean().unwrap();
}
