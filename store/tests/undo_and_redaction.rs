//! Undo snapshots stay local and byte-exact; nothing un-redacted reaches a
//! blob.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, CaptureOptions, ErrorCode, OnConflict, ParseOptions, PlanOptions, RollbackOptions,
    SealKey,
};
use agent_checkpoint_store::{
    Backend, CodeLearning, Redact, SessionWrite, Store, StoreOptions, Summary,
};
use common::TestRepo;

const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
const LEGACY: &str = "a1b2c3d4e5f6";

/// Every object reachable from `revs`, with its type.
fn reachable(repo: &TestRepo, revs: &[&str]) -> Vec<(String, String)> {
    let mut args = vec!["rev-list", "--objects"];
    args.extend(revs);
    let ids: Vec<String> = repo
        .git(&args)
        .lines()
        .map(|l| l.split(' ').next().unwrap().to_owned())
        .collect();
    ids.into_iter()
        .map(|id| {
            let kind = repo.git(&["cat-file", "-t", &id]).trim().to_owned();
            (id, kind)
        })
        .collect()
}

fn all_object_bytes(repo: &TestRepo, objects: &[(String, String)]) -> Vec<Vec<u8>> {
    objects
        .iter()
        .map(|(id, kind)| {
            let out = repo.git_output(&["cat-file", kind, id], None);
            assert!(out.status.success());
            out.stdout
        })
        .collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn undo_snapshots_are_local_exact_and_roll_back() {
    common::each_format(undo_snapshots_are_local_exact_and_roll_back_in);
}

fn undo_snapshots_are_local_exact_and_roll_back_in() {
    for backend in [Backend::GitRefs, Backend::GitBranch] {
        let repo = TestRepo::new();
        let work = tempfile::tempdir().unwrap();
        let secret = "API_KEY=sk-live-5f1e9c0d7a3b4e2f8a6c1d9e0b7f3a5c";
        std::fs::write(work.path().join(".env"), format!("{secret}\n")).unwrap();
        std::fs::write(work.path().join("main.rs"), "fn main() {}\n").unwrap();
        let root = CapRoot::open(work.path(), ambient_authority()).unwrap();
        let snapshot = agent_checkpoint::capture(
            &root,
            [".env", "main.rs", "new.rs"],
            &CaptureOptions::default(),
        )
        .unwrap()
        .into_string();
        // The batch.
        std::fs::write(work.path().join(".env"), "API_KEY=\n").unwrap();
        std::fs::write(work.path().join("main.rs"), "fn main() { broken }\n").unwrap();
        std::fs::write(work.path().join("new.rs"), "// new\n").unwrap();

        let store = Store::open_with(
            repo.path(),
            StoreOptions::new(Arc::new(agent_checkpoint_store::NoRedaction)).backend(backend),
        )
        .unwrap();
        let id = if backend == Backend::GitRefs {
            ULID
        } else {
            LEGACY
        };
        let written = store
            .write_session(
                &SessionWrite::new(id, "s1")
                    .prompt("edit")
                    .snapshot(snapshot.clone()),
            )
            .unwrap();
        let snap_ref = agent_checkpoint_store::snapshot_ref(
            &agent_checkpoint_naming::id::validate_checkpoint_id(id).unwrap(),
        );
        assert!(repo.refs().contains(&snap_ref), "{:?}", repo.refs());
        assert_eq!(
            repo.git(&["rev-parse", &snap_ref]).trim(),
            written.snapshot_commit.clone().unwrap()
        );
        // Byte for byte, in the private file the commit names (never in
        // git's objects) and as the store returns it.
        let sha = {
            use sha2::Digest;
            hex::encode(sha2::Sha256::digest(snapshot.as_bytes()))
        };
        assert_eq!(
            repo.cat(&format!("{snap_ref}:snapshot.sha256")),
            format!("{sha}\n")
        );
        let kept =
            agent_checkpoint_store::snapshots::snapshot_path(&repo.path().join(".git"), &sha);
        assert_eq!(std::fs::read_to_string(kept).unwrap(), snapshot);
        assert_eq!(
            store.snapshot(id).unwrap().as_deref(),
            Some(snapshot.as_str())
        );
        // The session metadata names its digest.
        use sha2::Digest;
        let digest = hex::encode(sha2::Sha256::digest(snapshot.as_bytes()));
        assert_eq!(
            store.read_session_metadata(id, 0).unwrap().snapshot_sha256,
            digest
        );

        // Nothing reachable from the pushed refs holds the captured bytes.
        let pushed: Vec<String> = repo
            .refs()
            .into_iter()
            .filter(|r| {
                r.starts_with("refs/entire/checkpoints/") || r == "refs/heads/entire/checkpoints/v1"
            })
            .collect();
        assert_eq!(pushed.len(), 1);
        let objects = reachable(
            &repo,
            &pushed.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert!(objects.len() >= 5);
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{secret}\n"));
        for bytes in all_object_bytes(&repo, &objects) {
            assert!(!contains(&bytes, secret.as_bytes()));
            assert!(!contains(&bytes, encoded.as_bytes()));
            assert!(!contains(&bytes, snapshot.as_bytes()));
        }
        // ... nor do the snapshot ref's objects; the private snapshot file
        // does (the check above can fail).
        let local = all_object_bytes(&repo, &reachable(&repo, &[&snap_ref]));
        assert!(!local.iter().any(|b| contains(b, encoded.as_bytes())));
        let kept =
            agent_checkpoint_store::snapshots::snapshot_path(&repo.path().join(".git"), &sha);
        assert!(contains(&std::fs::read(kept).unwrap(), encoded.as_bytes()));

        // Plan, then roll back with the core's options, after a "restart".
        drop(store);
        let store = Store::open(repo.path()).unwrap();
        let store = if backend == Backend::GitBranch {
            Store::open_with(
                repo.path(),
                StoreOptions::new(Arc::new(agent_checkpoint_store::NoRedaction)).backend(backend),
            )
            .unwrap()
        } else {
            store
        };
        let plan = store
            .plan_rollback(
                id,
                work.path(),
                &ParseOptions::default(),
                &PlanOptions::default(),
            )
            .unwrap();
        let actions: BTreeSet<(String, &str)> = plan
            .items
            .iter()
            .map(|p| (p.path.to_string(), p.action.as_str()))
            .collect();
        assert!(
            actions.contains(&("new.rs".to_owned(), "remove")),
            "{actions:?}"
        );
        assert!(
            actions.contains(&("main.rs".to_owned(), "write")),
            "{actions:?}"
        );
        let mut options = RollbackOptions::default();
        options.durable = false;
        options.on_conflict = OnConflict::Overwrite;
        let parse = ParseOptions::default();
        let report = store.rollback(id, work.path(), &parse, &options).unwrap();
        assert!(report.ok(), "{report:?}");
        assert!(report.redo.is_some());
        assert_eq!(
            std::fs::read_to_string(work.path().join(".env")).unwrap(),
            format!("{secret}\n")
        );
        assert_eq!(
            std::fs::read_to_string(work.path().join("main.rs")).unwrap(),
            "fn main() {}\n"
        );
        assert!(!work.path().join("new.rs").exists());
        // A key the snapshot was not sealed with refuses it, touching nothing.
        options.key = Some(SealKey::new(b"k".to_vec()).unwrap());
        std::fs::write(work.path().join("main.rs"), "changed\n").unwrap();
        let refused = store
            .rollback(id, work.path(), &parse, &options)
            .unwrap_err();
        assert_eq!(refused.code(), ErrorCode::Unauthenticated);
        assert_eq!(
            std::fs::read_to_string(work.path().join("main.rs")).unwrap(),
            "changed\n"
        );
        repo.assert_fsck();
    }
}

#[test]
fn a_later_snapshot_chains_on_the_earlier_one() {
    common::each_format(a_later_snapshot_chains_on_the_earlier_one_in);
}

fn a_later_snapshot_chains_on_the_earlier_one_in() {
    let repo = TestRepo::new();
    let store = Store::open(repo.path()).unwrap();
    let mem = agent_checkpoint::MemRoot::new();
    let one = agent_checkpoint::capture(&mem, ["a"], &CaptureOptions::default()).unwrap();
    let two = agent_checkpoint::capture(&mem, ["a", "b"], &CaptureOptions::default()).unwrap();
    let first = store
        .write_session(&SessionWrite::new(ULID, "s1").snapshot(one))
        .unwrap();
    let second = store
        .write_session(&SessionWrite::new(ULID, "s2").snapshot(two.clone()))
        .unwrap();
    let snap_ref = "refs/entire/snapshots/ZN/01KVBJCWYA4YW6J5M9GP655HZN";
    assert_eq!(
        repo.git(&["rev-parse", &format!("{snap_ref}^")]).trim(),
        first.snapshot_commit.unwrap()
    );
    let snap_tip = second.snapshot_commit.unwrap();
    assert_eq!(repo.git(&["rev-parse", snap_ref]).trim(), snap_tip);
    assert_eq!(store.snapshot(ULID).unwrap(), Some(two.into_string()));
    // A write without a snapshot leaves the snapshot ref alone.
    let third = store.write_session(&SessionWrite::new(ULID, "s3")).unwrap();
    assert_eq!(third.snapshot_commit, None);
    assert_eq!(repo.git(&["rev-parse", snap_ref]).trim(), snap_tip);
    repo.assert_fsck();
}

const MARKER: &str = "SECRET-MARKER-7f3a";

/// Replaces the marker everywhere; counts its calls.
struct MarkerRedactor {
    calls: std::sync::atomic::AtomicUsize,
}

impl Redact for MarkerRedactor {
    fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if text.contains(MARKER) {
            Cow::Owned(text.replace(MARKER, "REDACTED"))
        } else {
            Cow::Borrowed(text)
        }
    }
    fn json<'a>(&self, json: &'a str) -> Cow<'a, str> {
        self.text(json)
    }
}

#[test]
fn nothing_unredacted_reaches_any_blob() {
    common::each_format(nothing_unredacted_reaches_any_blob_in);
}

fn nothing_unredacted_reaches_any_blob_in() {
    let repo = TestRepo::new();
    let redactor = Arc::new(MarkerRedactor {
        calls: Default::default(),
    });
    let store = Store::open_with(
        repo.path(),
        StoreOptions::new(redactor.clone()).transcript_chunk_bytes(40),
    )
    .unwrap();
    let mut summary = Summary::new(format!("intent {MARKER}"), format!("outcome {MARKER}"));
    summary.friction = Some(vec![format!("friction {MARKER}")]);
    summary.open_items = Some(vec![format!("open {MARKER}")]);
    summary.learnings.repo = Some(vec![format!("repo {MARKER}")]);
    summary.learnings.workflow = Some(vec![format!("workflow {MARKER}")]);
    summary.learnings.code = Some(vec![CodeLearning::new(
        "src/a.rs",
        format!("finding {MARKER}"),
    )]);
    let transcript: String = (0..6)
        .map(|i| format!("{{\"i\":{i},\"text\":\"key {MARKER}\"}}\n"))
        .collect();
    let write = SessionWrite::new(ULID, "s1")
        .prompt(format!("use {MARKER} please"))
        .prompt("second")
        .transcript(transcript.into_bytes())
        .summary(summary.clone())
        .review_prompt(format!("review {MARKER}"))
        .investigate_topic(format!("topic {MARKER}"))
        .prompt_attributions(format!("{{\"note\":\"{MARKER}\"}}"))
        .skill_events(format!("[{{\"name\":\"{MARKER}\"}}]"));
    store.write_session(&write).unwrap();
    store
        .backfill_transcript(
            ULID,
            "s1",
            format!("{{\"late\":\"{MARKER}\"}}\n").as_bytes(),
            Some(&[format!("p {MARKER}")]),
        )
        .unwrap();
    store.backfill_summary(ULID, "s1", &summary).unwrap();
    // The snapshot is never redacted, but it is not in the checkpoint either.
    store.write_session(&SessionWrite::new(ULID, "s2")).unwrap();
    assert!(redactor.calls.load(std::sync::atomic::Ordering::Relaxed) >= 10);

    let out = repo.git_output(&["cat-file", "--batch-all-objects", "--batch"], None);
    assert!(out.status.success());
    assert!(
        !contains(&out.stdout, MARKER.as_bytes()),
        "the marker reached an object"
    );
    assert!(contains(&out.stdout, b"REDACTED"));
    // The redacted text is what reads back.
    let content = store.read_session(ULID, 0).unwrap();
    assert_eq!(
        content.transcript.as_deref(),
        Some(&b"{\"late\":\"REDACTED\"}\n"[..])
    );
    assert_eq!(content.prompts, ["p REDACTED"]);
    assert_eq!(content.metadata.summary.unwrap().intent, "intent REDACTED");
    assert_eq!(content.metadata.review_prompt, "review REDACTED");
    repo.assert_fsck();
}
