//! Sharing checkpoints through real servers (a bare repository over
//! `file://` and `git daemon`), started and stopped by the tests: push,
//! fetch by ID, fetch on read, ls-remote, fetch-all; undo snapshots never
//! leave the machine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use std::sync::Arc;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, ErrorCode};
use agent_checkpoint_store::{
    Backend, FetchOutcome, LocalCopy, NoRedaction, SessionWrite, Store, StoreOptions, BRANCH_REF,
};
use remote_support::{legacy, ref_of, ulid, Clone, Server, KINDS};

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_clone_that_never_saw_a_checkpoint_fetches_it_by_id_and_reads_it() {
    for kind in KINDS {
        let server = Server::start(kind);
        let a = Clone::of(&server);
        let store = a.store();
        let (one, two) = (ulid(1), ulid(2));
        for id in [&one, &two] {
            store
                .write_session(
                    &SessionWrite::new(id.as_str(), "s1")
                        .prompt(format!("prompt of {id}"))
                        .transcript(b"{\"type\":\"user\"}\n".to_vec()),
                )
                .unwrap();
        }
        let old = legacy(7);
        a.store_with(Backend::GitBranch)
            .write_session(&SessionWrite::new(old.as_str(), "s1").prompt("on the branch"))
            .unwrap();
        assert_eq!(a.queued().len(), 2);

        let report = store.push("origin").unwrap();
        assert!(report.all_pushed(), "{kind:?}: {report:?}");
        assert_eq!(report.pushed.len(), 3, "two refs and the branch");
        assert!(a.queued().is_empty(), "{kind:?}");
        for r in [ref_of(&one), ref_of(&two), BRANCH_REF.to_owned()] {
            assert_eq!(server.tip(&r), a.tip(&r), "{kind:?} {r}");
        }
        server.assert_fsck();

        // A second clone sees them on the remote, not here.
        let b = Clone::of(&server);
        let store_b = b.store();
        let listed = store_b.list_remote("origin").unwrap();
        let ids: Vec<&str> = listed.iter().map(|c| c.checkpoint_id.as_str()).collect();
        let mut expected = vec![one.as_str(), two.as_str(), old.as_str()];
        expected.sort_unstable();
        assert_eq!(ids, expected, "{kind:?}");
        assert!(listed.iter().all(|c| c.local == LocalCopy::Absent));
        assert_eq!(
            listed
                .iter()
                .find(|c| c.checkpoint_id == old)
                .unwrap()
                .backend,
            Backend::GitBranch
        );
        assert_eq!(store_b.read(&one).unwrap_err().code(), ErrorCode::NotFound);

        // Fetch by ID, then read.
        let fetched = store_b.fetch("origin", &one).unwrap();
        assert_eq!(fetched.outcome, FetchOutcome::Created);
        assert_eq!(fetched.ref_name, ref_of(&one));
        assert_eq!(
            store_b.read_session(&one, 0).unwrap().prompts,
            [format!("prompt of {one}")]
        );
        assert_eq!(
            store_b.fetch("origin", &one).unwrap().outcome,
            FetchOutcome::UpToDate
        );
        // A legacy ID found on the remote's branch.
        assert_eq!(store_b.fetch("origin", &old).unwrap().ref_name, BRANCH_REF);
        assert_eq!(
            store_b.read_session_metadata(&old, 0).unwrap().session_id,
            "s1"
        );
        // Absent there too: not_found, and nothing left behind.
        let missing = store_b.fetch("origin", &ulid(99)).unwrap_err();
        assert_eq!(missing.code(), ErrorCode::NotFound, "{missing}");
        assert!(
            !b.repo
                .refs()
                .iter()
                .any(|r| r.starts_with("refs/entire-fetch-tmp/")),
            "{:?}",
            b.repo.refs()
        );
        let listed = store_b.list_remote("origin").unwrap();
        assert_eq!(
            listed
                .iter()
                .filter(|c| c.local == LocalCopy::Absent)
                .map(|c| c.checkpoint_id.as_str())
                .collect::<Vec<_>>(),
            [two.as_str()],
            "{kind:?}"
        );

        // On demand: a store that asks origin when a read misses.
        let c = Clone::of(&server);
        let on_demand = Store::open_with(
            c.path(),
            StoreOptions::new(Arc::new(NoRedaction)).fetch_missing_from("origin"),
        )
        .unwrap();
        assert_eq!(on_demand.read(&two).unwrap().checkpoint_id, two);
        assert_eq!(
            on_demand.read_session(&two, 0).unwrap().prompts,
            [format!("prompt of {two}")]
        );
        assert_eq!(
            on_demand.read(&ulid(98)).unwrap_err().code(),
            ErrorCode::NotFound
        );
        assert!(c.queued().is_empty(), "a fetched checkpoint is not queued");

        // Fetch all: what is left arrives.
        let report = store_b.fetch_all("origin").unwrap();
        assert!(report.failed.is_empty());
        assert_eq!(store_b.list().unwrap().len(), 3);
        assert!(b
            .repo
            .refs()
            .iter()
            .all(|r| !r.starts_with("refs/entire-fetch-tmp/")));
    }
}

#[test]
fn a_transport_failure_on_read_is_an_error_never_absent() {
    let c = Clone::of(&Server::start(remote_support::Kind::File));
    c.repo.git(&[
        "remote",
        "set-url",
        "origin",
        &format!(
            "git://127.0.0.1:{}/remote.git",
            remote_support::closed_port()
        ),
    ]);
    let store = Store::open_with(
        c.path(),
        StoreOptions::new(Arc::new(NoRedaction)).fetch_missing_from("origin"),
    )
    .unwrap();
    let err = store.read(&ulid(1)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::RemoteUnreachable, "{err}");
    assert!(err.to_string().contains("unable to connect"), "{err}");
    let err = store.list_remote("origin").unwrap_err();
    assert_eq!(err.code(), ErrorCode::RemoteUnreachable, "{err}");
    // A remote that would be read as an option is refused before git runs.
    let err = store.push("--upload-pack=touch /tmp/x").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
}

#[test]
fn undo_snapshots_and_their_bytes_never_reach_the_remote() {
    use base64::Engine;
    for kind in KINDS {
        let server = Server::start(kind);
        let a = Clone::of(&server);
        let work = tempfile::tempdir().unwrap();
        let marker = format!("SECRET_MARKER_{kind:?}_7f3a91c0e5d2b846\n");
        std::fs::write(work.path().join(".env"), &marker).unwrap();
        let root = CapRoot::open(work.path(), ambient_authority()).unwrap();
        let snapshot = agent_checkpoint::capture(&root, [".env"], &CaptureOptions::default())
            .unwrap()
            .into_string();
        let id = ulid(5);
        let old = legacy(5);
        a.store()
            .write_session(&SessionWrite::new(id.as_str(), "s1").snapshot(snapshot.clone()))
            .unwrap();
        a.store_with(Backend::GitBranch)
            .write_session(&SessionWrite::new(old.as_str(), "s1").snapshot(snapshot.clone()))
            .unwrap();
        let snapshot_refs: Vec<String> = a
            .repo
            .refs()
            .into_iter()
            .filter(|r| r.starts_with("refs/entire/snapshots/"))
            .collect();
        assert_eq!(snapshot_refs.len(), 2);

        let report = a.store().push("origin").unwrap();
        assert!(report.all_pushed(), "{report:?}");
        assert_eq!(report.pushed.len(), 2);
        let remote_refs = server.refs();
        assert!(remote_refs.contains(&ref_of(&id)), "{remote_refs:?}");
        assert!(
            !remote_refs.iter().any(|r| r.contains("snapshots")),
            "{kind:?}: {remote_refs:?}"
        );
        // Every object the remote received, loose or packed.
        let needles = [
            marker.clone().into_bytes(),
            base64::engine::general_purpose::STANDARD
                .encode(marker.as_bytes())
                .into_bytes(),
            snapshot.clone().into_bytes(),
        ];
        let remote = server.all_object_bytes();
        assert!(
            contains(&remote, id.as_bytes()),
            "the scan sees the pushed objects"
        );
        for needle in &needles {
            assert!(
                !contains(&remote, needle),
                "{kind:?}: captured bytes on the remote"
            );
        }
        // They are here, in the private snapshot files (so the check can
        // fail), never in the objects.
        let kept: Vec<u8> = std::fs::read_dir(a.repo.path().join(".git/entire-snapshots"))
            .unwrap()
            .flat_map(|e| std::fs::read(e.unwrap().path()).unwrap())
            .collect();
        assert!(contains(&kept, &needles[1]));
        let local = a.repo.git_output(
            &["cat-file", "--batch-all-objects", "--batch", "--unordered"],
            None,
        );
        assert!(!contains(&local.stdout, &needles[1]));
        // A fetch-all elsewhere brings no snapshot ref either.
        let b = Clone::of(&server);
        b.store().fetch_all("origin").unwrap();
        assert!(!b.repo.refs().iter().any(|r| r.contains("snapshots")));
        assert_eq!(b.store().snapshot(&id).unwrap(), None);
    }
}
