//! Two clones, one remote, pushing at once — against a bare repository over
//! `file://` and against `git daemon`: different checkpoints all land;
//! sessions written to one checkpoint (and checkpoints to the v1 branch) on
//! both sides all land, replayed by meaning, history linear; one session
//! written differently on both sides is a conflict, the ref stays queued
//! and nothing is lost locally; backfills and attribution are replayed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use std::collections::BTreeSet;
use std::sync::Barrier;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{
    Attribution, Backend, FetchOutcome, PushReport, SessionWrite, Store, Summary, TokenUsage,
    BRANCH_REF,
};
use remote_support::{legacy, ref_of, ulid, Clone, Server, KINDS};

/// Pushes from both stores at the same moment.
fn push_together(a: &Store, b: &Store) -> (PushReport, PushReport) {
    let barrier = Barrier::new(2);
    std::thread::scope(|s| {
        let ta = s.spawn(|| {
            barrier.wait();
            a.push("origin").unwrap()
        });
        let tb = s.spawn(|| {
            barrier.wait();
            b.push("origin").unwrap()
        });
        (ta.join().unwrap(), tb.join().unwrap())
    })
}

fn session_ids(store: &Store, id: &str) -> BTreeSet<String> {
    store
        .list()
        .unwrap()
        .into_iter()
        .find(|c| c.checkpoint_id == id)
        .map(|c| c.session_ids.into_iter().collect())
        .unwrap_or_default()
}

#[test]
fn two_clones_push_different_checkpoints_at_once_and_all_land() {
    for kind in KINDS {
        let server = Server::start(kind);
        let (a, b) = (Clone::of(&server), Clone::of(&server));
        let (sa, sb) = (a.store(), b.store());
        for i in 0..30 {
            sa.write_session(&SessionWrite::new(ulid(100 + i), "a"))
                .unwrap();
            sb.write_session(&SessionWrite::new(ulid(200 + i), "b"))
                .unwrap();
        }
        let (ra, rb) = push_together(&sa, &sb);
        assert!(
            ra.all_pushed() && rb.all_pushed(),
            "{kind:?}: {ra:?} {rb:?}"
        );
        assert_eq!((ra.pushed.len(), rb.pushed.len()), (30, 30));
        let remote: BTreeSet<String> = server.refs().into_iter().collect();
        for i in 0..30 {
            assert!(remote.contains(&ref_of(&ulid(100 + i))), "{kind:?}");
            assert!(remote.contains(&ref_of(&ulid(200 + i))), "{kind:?}");
        }
        assert!(a.queued().is_empty() && b.queued().is_empty());
        server.assert_fsck();
    }
}

#[test]
fn sessions_on_one_checkpoint_and_checkpoints_on_the_branch_from_two_clones_all_land() {
    for kind in KINDS {
        let server = Server::start(kind);
        let (a, b) = (Clone::of(&server), Clone::of(&server));
        let (sa, sb) = (a.store(), b.store());
        let (ba, bb) = (
            a.store_with(Backend::GitBranch),
            b.store_with(Backend::GitBranch),
        );
        let shared = ulid(1);
        for i in 0..3 {
            sa.write_session(
                &SessionWrite::new(shared.as_str(), format!("a{i}"))
                    .files_touched([format!("a/{i}.rs")])
                    .token_usage(TokenUsage::new(1, 0, 0, 1, 1)),
            )
            .unwrap();
            sb.write_session(
                &SessionWrite::new(shared.as_str(), format!("b{i}"))
                    .prompt("from b")
                    .transcript(format!("{{\"b\":{i}}}\n").into_bytes())
                    .files_touched([format!("b/{i}.rs")])
                    .token_usage(TokenUsage::new(10, 0, 0, 10, 1)),
            )
            .unwrap();
            ba.write_session(&SessionWrite::new(legacy(10 + i), "a"))
                .unwrap();
            bb.write_session(&SessionWrite::new(legacy(20 + i), "b"))
                .unwrap();
        }
        let (ra, rb) = push_together(&sa, &sb);
        assert!(
            ra.all_pushed() && rb.all_pushed(),
            "{kind:?}: {ra:?} {rb:?}"
        );
        assert!(a.queued().is_empty() && b.queued().is_empty(), "{kind:?}");

        // The remote holds everything: a third clone fetches it all.
        let c = Clone::of(&server);
        let sc = c.store();
        assert!(sc.fetch_all("origin").unwrap().failed.is_empty());
        let expected: BTreeSet<String> = ["a0", "a1", "a2", "b0", "b1", "b2"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(session_ids(&sc, &shared), expected, "{kind:?}");
        let summary = sc.read(&shared).unwrap();
        assert_eq!(summary.sessions.as_ref().unwrap().len(), 6);
        assert_eq!(
            summary.checkpoints_count, 6,
            "one step per session: {summary:?}"
        );
        assert_eq!(summary.files_touched.as_ref().unwrap().len(), 6);
        assert_eq!(summary.token_usage.as_ref().unwrap().input_tokens, 33);
        for (slot, paths) in summary.sessions.as_ref().unwrap().iter().enumerate() {
            assert_eq!(paths.metadata, format!("/{slot}/metadata.json"));
            let meta = sc.read_session_metadata(&shared, slot).unwrap();
            if meta.session_id.starts_with('b') {
                assert_eq!(paths.transcript, format!("/{slot}/full.jsonl"));
                assert_eq!(sc.read_session(&shared, slot).unwrap().prompts, ["from b"]);
            } else {
                assert_eq!(paths.transcript, "");
            }
        }
        for i in 0..3 {
            assert_eq!(sc.read(&legacy(10 + i)).unwrap().checkpoints_count, 1);
            assert_eq!(sc.read(&legacy(20 + i)).unwrap().checkpoints_count, 1);
        }
        // History linear, on the checkpoint ref and the branch.
        server.assert_linear();
        server.assert_fsck();
        for r in [ref_of(&shared), BRANCH_REF.to_owned()] {
            let log = server.git(&["log", "--format=%s", &r]);
            assert!(log.lines().count() >= 3, "{kind:?} {r}: {log}");
        }
        // The clone that lost the race now holds the remote's tip; the other
        // fast-forwards to it.
        for (clone, store) in [(&a, &sa), (&b, &sb)] {
            let outcome = store.fetch("origin", &shared).unwrap().outcome;
            assert!(
                matches!(
                    outcome,
                    FetchOutcome::UpToDate | FetchOutcome::FastForwarded
                ),
                "{outcome:?}"
            );
            assert_eq!(clone.tip(&ref_of(&shared)), server.tip(&ref_of(&shared)));
        }
    }
}

#[test]
fn one_session_written_differently_on_both_sides_is_a_conflict_and_stays_queued() {
    for kind in KINDS {
        let server = Server::start(kind);
        let (a, b) = (Clone::of(&server), Clone::of(&server));
        let (sa, sb) = (a.store(), b.store());
        let id = ulid(3);
        let other = ulid(4);
        sa.write_session(&SessionWrite::new(id.as_str(), "same").prompt("a's words"))
            .unwrap();
        assert!(sa.push("origin").unwrap().all_pushed());
        sb.write_session(&SessionWrite::new(id.as_str(), "same").prompt("b's words"))
            .unwrap();
        sb.write_session(&SessionWrite::new(other.as_str(), "fine"))
            .unwrap();
        let before = b.tip(&ref_of(&id));

        let report = sb.push("origin").unwrap();
        assert!(!report.all_pushed());
        assert_eq!(report.pushed, [ref_of(&other)], "{kind:?}: {report:?}");
        assert_eq!(report.queued.len(), 1, "{report:?}");
        let failure = &report.queued[0];
        assert_eq!(failure.ref_name, ref_of(&id));
        assert_eq!(failure.code, ErrorCode::Conflict);
        assert!(failure.reason.contains("\"same\""), "{}", failure.reason);
        // Still queued; nothing lost locally; the remote keeps a's.
        assert_eq!(b.queued(), [ref_of(&id)]);
        assert_eq!(b.tip(&ref_of(&id)), before);
        assert_eq!(sb.read_session(&id, 0).unwrap().prompts, ["b's words"]);
        assert_eq!(sb.read_session_metadata(&id, 0).unwrap().session_id, "same");
        assert_eq!(server.tip(&ref_of(&id)), a.tip(&ref_of(&id)));
        assert!(!b
            .repo
            .refs()
            .iter()
            .any(|r| r.starts_with("refs/entire-fetch-tmp/")));
        // The same answer next time, still nothing lost.
        let again = sb.push("origin").unwrap();
        assert_eq!(again.queued.len(), 1);
        assert_eq!(b.tip(&ref_of(&id)), before);
        let err = sb.fetch("origin", &id).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Conflict, "{err}");
        assert_eq!(b.tip(&ref_of(&id)), before);
    }
}

#[test]
fn backfills_and_attribution_are_replayed_on_the_remote_tip() {
    for kind in KINDS {
        let server = Server::start(kind);
        let (a, b) = (Clone::of(&server), Clone::of(&server));
        let (sa, sb) = (a.store(), b.store());
        let id = ulid(6);
        sa.write_session(
            &SessionWrite::new(id.as_str(), "s1")
                .transcript(b"{\"first\":1}\n".to_vec())
                .branch("main"),
        )
        .unwrap();
        assert!(sa.push("origin").unwrap().all_pushed());
        assert_eq!(
            sb.fetch("origin", &id).unwrap().outcome,
            FetchOutcome::Created
        );
        // b backfills s1's summary and the attribution; a adds a session
        // and replaces s1's transcript.
        sb.backfill_summary(&id, "s1", &Summary::new("intent", "outcome"))
            .unwrap();
        let mut attribution = Attribution::default();
        attribution.agent_lines = 7;
        sb.backfill_attribution(&id, &attribution).unwrap();
        sa.write_session(&SessionWrite::new(id.as_str(), "s2").branch("feature"))
            .unwrap();
        sa.backfill_transcript(&id, "s1", b"{\"final\":1}\n", None)
            .unwrap();
        assert!(sa.push("origin").unwrap().all_pushed());

        let report = sb.push("origin").unwrap();
        assert!(report.all_pushed(), "{kind:?}: {report:?}");
        assert_eq!(b.tip(&ref_of(&id)), server.tip(&ref_of(&id)));
        let c = Clone::of(&server);
        let sc = c.store();
        sc.fetch("origin", &id).unwrap();
        let summary = sc.read(&id).unwrap();
        assert_eq!(summary.combined_attribution.unwrap().agent_lines, 7);
        // b did not change the branch: the remote's last write names it.
        assert_eq!(summary.branch, "feature");
        assert_eq!(summary.sessions.unwrap().len(), 2);
        let s1 = sc.read_session(&id, 0).unwrap();
        assert_eq!(s1.metadata.session_id, "s1");
        assert_eq!(s1.metadata.summary.unwrap().intent, "intent");
        assert_eq!(s1.transcript.as_deref(), Some(&b"{\"final\":1}\n"[..]));
        assert_eq!(sc.read_session_metadata(&id, 1).unwrap().session_id, "s2");
        // Messages kept, one line of history.
        let log = server.git(&["log", "--format=%s", &ref_of(&id)]);
        assert!(log.starts_with("Update checkpoint summary for"), "{log}");
        assert_eq!(log.lines().count(), 5, "{log}");
        server.assert_linear();
    }
}
