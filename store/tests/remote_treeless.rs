//! Treeless fetch against a bare repository over `file://` and `git
//! daemon`, with filters allowed (`uploadpack.allowFilter`) and not: a
//! treeless `fetch_all` brings commits, trees and the documents, no
//! transcript or prompt until one is read (objects counted with `git
//! cat-file --batch-all-objects`); listing works offline; reading one
//! session fetches its blobs in one round trip; `prefetch` takes a whole
//! checkpoint in one; offline, a read of a missing blob is
//! `remote_unreachable`; the user's remote and repository format are left
//! as they were, and `git gc` / `git fsck` accept the repository.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{FetchOptions, SessionWrite, Store};
use remote_support::{ulid, Clone, Kind, Server, KINDS};

/// A transcript of `n` distinct lines (so no two checkpoints share blobs).
fn transcript(id: &str) -> Vec<u8> {
    (0..40)
        .map(|i| format!("{{\"type\":\"assistant\",\"text\":\"{id} line {i}\"}}\n"))
        .collect::<String>()
        .into_bytes()
}

/// Three checkpoints (one session, a prompt, a transcript each) pushed
/// from a first clone; their IDs.
fn published(server: &Server) -> Vec<String> {
    let a = Clone::of(server);
    let store = a.store();
    let ids: Vec<String> = (1..=3).map(ulid).collect();
    for id in &ids {
        store
            .write_session(
                &SessionWrite::new(id.as_str(), "s1")
                    .agent("Claude Code")
                    .prompt(format!("prompt of {id}"))
                    .transcript(transcript(id))
                    .files_touched(["src/lib.rs"]),
            )
            .unwrap();
    }
    assert!(store.push("origin").unwrap().all_pushed());
    ids
}

fn blobs(c: &Clone) -> usize {
    c.object_counts().get("blob").copied().unwrap_or(0)
}

/// The object ID of `path` in checkpoint `id`'s tree, from the remote.
fn remote_blob(server: &Server, id: &str, path: &str) -> String {
    let r = remote_support::ref_of(id);
    server
        .git(&["rev-parse", &format!("{r}:{path}")])
        .trim()
        .to_owned()
}

/// How many fetches the clone's reads have made of the server.
fn fetches(server: &Server, file_log: &std::path::Path) -> usize {
    match server.kind {
        Kind::File => remote_support::pushes(file_log),
        Kind::Daemon => server.daemon_fetches(),
    }
}

#[test]
fn a_treeless_fetch_brings_no_transcript_until_one_is_read() {
    for kind in KINDS {
        let mut server = Server::start(kind);
        server.allow_filters(true);
        let ids = published(&server);
        let b = Clone::of(&server);
        let config_before = b.repo.git(&["config", "--local", "--list"]);
        let store = b.store();
        let report = store.fetch_all("origin").unwrap();
        assert!(report.treeless, "{kind:?}: {report:?}");
        assert!(report.failed.is_empty());
        assert_eq!(report.fetched.len(), 3);
        // Commits and trees of the three, and only their documents: the
        // root summary and the session's metadata.
        let counts = b.object_counts();
        assert_eq!(counts.get("commit"), Some(&3), "{kind:?} {counts:?}");
        assert_eq!(counts.get("blob"), Some(&6), "{kind:?} {counts:?}");
        for id in &ids {
            for path in ["0/full.jsonl", "0/prompt.txt", "0/content_hash.txt"] {
                assert!(!b.has_object(&remote_blob(&server, id, path)), "{path}");
            }
            assert!(b.has_object(&remote_blob(&server, id, "0/metadata.json")));
        }

        // The user's remote is untouched, the repository format too; one
        // promisor remote of the store's own holds the promise.
        let config_after = b.repo.git(&["config", "--local", "--list"]);
        let origin = |c: &str| {
            c.lines()
                .filter(|l| l.starts_with("remote.origin."))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(origin(&config_before), origin(&config_after));
        assert!(!config_after.contains("extensions.partialclone"));
        let version = |c: &str| {
            c.lines()
                .find(|l| l.starts_with("core.repositoryformatversion="))
                .map(str::to_owned)
        };
        assert_eq!(version(&config_before), version(&config_after));
        assert_eq!(b.promisor_remotes().len(), 1, "{config_after}");

        // Listing, the summary and a session's metadata need no blob more.
        let listed = store.list().unwrap();
        assert_eq!(listed.len(), 3);
        assert!(listed.iter().all(|c| c.damaged.is_none()), "{listed:?}");
        assert!(listed.iter().all(|c| c.agent == "Claude Code"));
        assert_eq!(listed[0].session_ids, ["s1"]);
        assert_eq!(
            store.read(&ids[0]).unwrap().files_touched,
            Some(vec!["src/lib.rs".to_owned()])
        );
        assert!(store.read_raw(&ids[0]).unwrap().contains(&ids[0]));
        assert_eq!(
            store.read_session_metadata(&ids[0], 0).unwrap().session_id,
            "s1"
        );
        assert_eq!(blobs(&b), 6, "{kind:?}: no blob fetched by listing");
        let missing: Vec<String> = store
            .missing_blobs(&ids[0])
            .unwrap()
            .into_iter()
            .map(|m| m.path)
            .collect();
        let mut sorted = missing.clone();
        sorted.sort();
        assert_eq!(
            sorted,
            ["0/content_hash.txt", "0/full.jsonl", "0/prompt.txt"]
        );

        // Reading one session fetches its blobs, in one round trip.
        let log = match kind {
            Kind::File => b.count_promisor_fetches(),
            Kind::Daemon => std::path::PathBuf::new(),
        };
        let before = fetches(&server, &log);
        let session = store.read_session(&ids[0], 0).unwrap();
        assert_eq!(
            session.transcript.as_deref(),
            Some(transcript(&ids[0]).as_slice())
        );
        assert_eq!(session.prompts, [format!("prompt of {}", ids[0])]);
        assert_eq!(
            fetches(&server, &log) - before,
            1,
            "{kind:?}: one round trip"
        );
        assert_eq!(
            blobs(&b),
            9,
            "{kind:?}: that session's three blobs, no other"
        );
        assert!(store.missing_blobs(&ids[0]).unwrap().is_empty());
        assert!(!b.has_object(&remote_blob(&server, &ids[1], "0/full.jsonl")));
        // Read again: nothing is fetched.
        store.read_session(&ids[0], 0).unwrap();
        assert_eq!(fetches(&server, &log) - before, 1);

        // A whole checkpoint in one fetch.
        assert_eq!(store.prefetch(&ids[1]).unwrap(), 3);
        assert_eq!(fetches(&server, &log) - before, 2);
        assert_eq!(store.prefetch(&ids[1]).unwrap(), 0);
        assert_eq!(
            fetches(&server, &log) - before,
            2,
            "nothing missing: no fetch"
        );

        // git itself accepts the repository.
        b.repo.git(&["fsck", "--no-progress"]);
        b.repo.git(&["gc", "--quiet"]);
        assert_eq!(store.list().unwrap().len(), 3);

        // Offline: reading a missing blob is remote_unreachable, the
        // listing still works.
        match kind {
            Kind::Daemon => server.stop(),
            Kind::File => {
                std::fs::rename(server.bare(), server.bare().with_extension("gone")).unwrap()
            }
        }
        let err = store.read_session(&ids[2], 0).unwrap_err();
        assert_eq!(err.code(), ErrorCode::RemoteUnreachable, "{kind:?}: {err}");
        assert_eq!(
            store.prefetch(&ids[2]).unwrap_err().code(),
            ErrorCode::RemoteUnreachable
        );
        assert_eq!(store.list().unwrap().len(), 3);
        assert_eq!(
            store.read_session(&ids[0], 0).unwrap().metadata.session_id,
            "s1"
        );
        if kind == Kind::File {
            std::fs::rename(server.bare().with_extension("gone"), server.bare()).unwrap();
        } else {
            server.restart();
        }
        assert!(store.read_session(&ids[2], 0).unwrap().transcript.is_some());
    }
}

#[test]
fn a_remote_without_filters_gets_a_full_fetch_and_no_promisor() {
    for kind in KINDS {
        let server = Server::start(kind);
        server.allow_filters(false);
        let ids = published(&server);
        let b = Clone::of(&server);
        let store = b.store();
        let report = store.fetch_all("origin").unwrap();
        assert!(!report.treeless, "{kind:?}");
        assert_eq!(report.fetched.len(), 3);
        // Every blob: documents, prompts, transcripts, hashes.
        assert_eq!(blobs(&b), 15, "{kind:?} {:?}", b.object_counts());
        assert!(store.missing_blobs(&ids[0]).unwrap().is_empty());
        assert!(
            b.promisor_remotes().is_empty(),
            "{kind:?}: nothing to promise"
        );
        assert_eq!(
            store.read_session(&ids[2], 0).unwrap().transcript.unwrap(),
            transcript(&ids[2])
        );
    }
}

#[test]
fn a_full_fetch_can_be_asked_for_where_filters_are_allowed() {
    let server = Server::start(Kind::File);
    server.allow_filters(true);
    let ids = published(&server);
    let b = Clone::of(&server);
    let report = b
        .store()
        .fetch_all_with("origin", &FetchOptions::full())
        .unwrap();
    assert!(!report.treeless);
    assert_eq!(blobs(&b), 15);
    assert!(b.store().missing_blobs(&ids[1]).unwrap().is_empty());
}

#[test]
fn later_treeless_fetches_bring_only_what_moved_and_merge_by_meaning() {
    let server = Server::start(Kind::File);
    server.allow_filters(true);
    let ids = published(&server);
    let b = Clone::of(&server);
    let store = b.store();
    assert!(store.fetch_all("origin").unwrap().treeless);
    // Both sides add a session to the first checkpoint; the remote also
    // gets a new checkpoint.
    let a = Clone::of(&server);
    let store_a = a.store();
    store_a.fetch_all("origin").unwrap();
    store_a
        .write_session(&SessionWrite::new(ids[0].as_str(), "from-a").transcript(transcript("a")))
        .unwrap();
    let new = ulid(9);
    store_a
        .write_session(&SessionWrite::new(new.as_str(), "s").transcript(transcript("n")))
        .unwrap();
    assert!(store_a.push("origin").unwrap().all_pushed());
    store
        .write_session(&SessionWrite::new(ids[0].as_str(), "from-b").transcript(transcript("b")))
        .unwrap();
    let report = store.fetch_all("origin").unwrap();
    assert!(report.failed.is_empty(), "{report:?}");
    let outcome = |id: &str| {
        report
            .fetched
            .iter()
            .find(|f| f.ref_name == remote_support::ref_of(id))
            .map(|f| f.outcome.as_str())
    };
    assert_eq!(outcome(&ids[0]), Some("replayed"));
    assert_eq!(outcome(&new), Some("created"));
    assert_eq!(outcome(&ids[1]), Some("up_to_date"));
    let sessions = store.read(&ids[0]).unwrap().sessions.unwrap().len();
    assert_eq!(sessions, 3, "s1, from-a and from-b");
    // The merged checkpoint goes back, and a third clone reads it all.
    assert!(store.push("origin").unwrap().all_pushed());
    let c = Clone::of(&server);
    let store_c = c.store();
    store_c.fetch_all("origin").unwrap();
    for slot in 0..3 {
        assert!(store_c
            .read_session(&ids[0], slot)
            .unwrap()
            .transcript
            .is_some());
    }
    server.assert_fsck();
}

#[test]
fn a_listing_after_gits_own_treeless_fetch_fetches_the_documents_in_one_go() {
    let server = Server::start(Kind::File);
    server.allow_filters(true);
    let ids = published(&server);
    let b = Clone::of(&server);
    // The user fetched the checkpoints treeless with git itself.
    b.repo.git(&[
        "fetch",
        "-q",
        "--filter=blob:none",
        "origin",
        "refs/entire/checkpoints/*:refs/entire/checkpoints/*",
    ]);
    assert_eq!(blobs(&b), 0);
    let store: Store = b.store();
    let listed = store.list().unwrap();
    assert!(listed.iter().all(|c| c.damaged.is_none()), "{listed:?}");
    assert_eq!(listed.len(), 3);
    assert_eq!(blobs(&b), 6, "the documents only");
    assert_eq!(
        store.read_session(&ids[0], 0).unwrap().metadata.session_id,
        "s1"
    );
}

#[test]
fn listing_and_fetching_ask_the_remote_for_the_checkpoint_namespaces_only() {
    let mut server = Server::start(Kind::Daemon);
    server.allow_filters(true);
    let ids = published(&server);
    // The remote also holds many other refs: branches, pull-request refs.
    let tip = server.tip(&remote_support::ref_of(&ids[0])).unwrap();
    let mut stdin = String::new();
    for n in 0..200 {
        stdin.push_str(&format!("create refs/heads/feature-{n} {tip}\n"));
        stdin.push_str(&format!("create refs/pull/{n}/head {tip}\n"));
    }
    let out = remote_support_git_stdin(&server, &["update-ref", "--stdin"], &stdin);
    assert!(out.is_empty(), "{out}");
    server.trace_packets();
    let b = Clone::of(&server);
    let store = b.store();
    let listed = store.list_remote("origin").unwrap();
    assert_eq!(listed.len(), 3);
    let report = store.fetch_all("origin").unwrap();
    assert!(report.treeless);
    assert_eq!(store.list().unwrap().len(), 3);
    let packets = server.packets();
    assert!(
        packets.contains("ref-prefix refs/entire/checkpoints/"),
        "{packets}"
    );
    assert!(packets.contains("command=ls-refs"));
    for other in ["refs/heads/feature-", "refs/pull/"] {
        assert!(!packets.contains(other), "the remote sent {other}...");
    }
}

/// `git <args>` in the server's repository with `stdin`; its stderr.
fn remote_support_git_stdin(server: &Server, args: &[&str], stdin: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("git")
        .arg("-C")
        .arg(server.bare())
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn the_documents_arrive_in_a_promisor_pack_with_no_keep_file_and_no_transcript() {
    for kind in KINDS {
        let server = Server::start(kind);
        server.allow_filters(true);
        let ids = published(&server);
        let b = Clone::of(&server);
        let store = b.store();
        assert!(store.fetch_all("origin").unwrap().treeless);
        // Objects counted by `git cat-file --batch-all-objects`: 3 commits,
        // 6 trees, 6 documents; no transcript, prompt or content hash.
        let counts = b.object_counts();
        assert_eq!(counts.get("blob"), Some(&6), "{kind:?} {counts:?}");
        for id in &ids {
            for path in ["0/full.jsonl", "0/prompt.txt", "0/content_hash.txt"] {
                assert!(!b.has_object(&remote_blob(&server, id, path)), "{path}");
            }
        }
        // Every pack is a promisor pack, none is held by a `.keep` file
        // (which would keep `git gc` from ever repacking it).
        let pack_dir = b.path().join(".git/objects/pack");
        let names: Vec<String> = std::fs::read_dir(&pack_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let packs: Vec<&String> = names.iter().filter(|n| n.ends_with(".pack")).collect();
        assert_eq!(packs.len(), 2, "{kind:?}: trees, then documents: {names:?}");
        for pack in packs {
            let promisor = pack.replace(".pack", ".promisor");
            assert!(names.contains(&promisor), "{kind:?}: {names:?}");
        }
        assert!(
            !names.iter().any(|n| n.ends_with(".keep")),
            "{kind:?}: {names:?}"
        );
        assert_eq!(store.list().unwrap().len(), 3);
        assert_eq!(blobs(&b), 6, "{kind:?}: listing fetched nothing more");
        b.repo.git(&["gc", "--quiet"]);
        b.repo.git(&["fsck", "--no-progress"]);
        assert_eq!(blobs(&b), 6, "{kind:?}: gc kept the documents");
    }
}
