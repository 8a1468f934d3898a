//! Pushes that fail: a remote that cannot be reached, a server stopped in
//! the middle of a push, a hook that refuses one ref. Each a clear error or
//! a per-ref code with the remote's reason; only refs the remote confirmed
//! leave the queue; the next push succeeds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use std::path::Path;
use std::time::Duration;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{SessionWrite, Store};
use remote_support::{closed_port, ref_of, ulid, Clone, Kind, Server, KINDS};

fn write_many(store: &Store, from: u64, count: u64) -> Vec<String> {
    (from..from + count)
        .map(|n| {
            let id = ulid(n);
            store
                .write_session(&SessionWrite::new(id.as_str(), "s"))
                .unwrap();
            ref_of(&id)
        })
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn an_unreachable_remote_is_a_clear_error_and_the_queue_stays() {
    for kind in KINDS {
        let server = Server::start(kind);
        let a = Clone::of(&server);
        let store = a.store();
        let refs = write_many(&store, 1, 3);
        let wrong = match kind {
            Kind::File => format!("file://{}/absent.git", server.bare().display()),
            Kind::Daemon => format!("git://127.0.0.1:{}/remote.git", closed_port()),
        };
        a.repo.git(&["remote", "set-url", "origin", &wrong]);
        let err = store.push("origin").unwrap_err();
        assert_eq!(err.code(), ErrorCode::RemoteUnreachable, "{kind:?}: {err}");
        let text = err.to_string();
        assert!(
            text.contains("does not appear to be a git repository")
                || text.contains("unable to connect"),
            "{text}"
        );
        assert!(!text.contains('\n'), "one line: {text}");
        assert_eq!(sorted(a.queued()), sorted(refs.clone()));
        assert!(server.refs().is_empty());

        a.repo.git(&["remote", "set-url", "origin", &server.url()]);
        let report = store.push("origin").unwrap();
        assert!(report.all_pushed());
        assert_eq!(sorted(report.pushed), sorted(refs));
        assert!(a.queued().is_empty());
    }
}

/// Waits (bounded) until `path` exists.
fn wait_for(path: &Path) {
    for _ in 0..1000 {
        if path.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn the_daemon_stopped_mid_push_leaves_the_queue_and_the_next_push_succeeds() {
    let mut server = Server::start(Kind::Daemon);
    let a = Clone::of(&server);
    let store = a.store();
    let first = write_many(&store, 1, 200);
    assert!(store.push("origin").unwrap().all_pushed());
    let refs = write_many(&store, 201, 50);
    let marker = tempfile::tempdir().unwrap();
    let started = marker.path().join("started");
    // The hook holds the push until the daemon is killed under it.
    server.hook(
        "pre-receive",
        &format!("touch {}; sleep 60; exit 0", started.display()),
    );
    let err = std::thread::scope(|s| {
        let push = s.spawn(|| store.push("origin"));
        wait_for(&started);
        server.stop();
        push.join().unwrap()
    })
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::RemoteUnreachable, "{err}");
    // Only what the remote confirmed left the queue.
    assert_eq!(sorted(a.queued()), sorted(refs.clone()));

    server.remove_hook("pre-receive");
    server.restart();
    let report = store.push("origin").unwrap();
    assert!(report.all_pushed(), "{report:?}");
    assert_eq!(sorted(report.pushed.clone()), sorted(refs.clone()));
    assert!(a.queued().is_empty());
    let remote = server.refs();
    assert!(first.iter().chain(&refs).all(|r| remote.contains(r)));
    server.assert_fsck();
}

#[test]
fn a_receiving_end_killed_mid_push_over_file_leaves_the_queue() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let store = a.store();
    let refs = write_many(&store, 1, 5);
    // The hook kills the receive-pack that runs it: the remote dies before
    // it reports anything.
    server.hook("pre-receive", "kill -9 $PPID; exit 0");
    let err = store.push("origin").unwrap_err();
    assert_eq!(err.code(), ErrorCode::RemoteUnreachable, "{err}");
    assert_eq!(sorted(a.queued()), sorted(refs.clone()));
    assert!(server.refs().is_empty());
    server.remove_hook("pre-receive");
    assert!(store.push("origin").unwrap().all_pushed());
    assert!(a.queued().is_empty());
}

#[test]
fn a_hook_refusing_one_ref_leaves_only_that_ref_queued_with_its_reason() {
    for kind in KINDS {
        let server = Server::start(kind);
        let a = Clone::of(&server);
        let store = a.store();
        let refs = write_many(&store, 1, 4);
        let banned = refs[2].clone();
        // A pre-receive hook declines a whole push that carries the banned
        // ref: the batch fails, each ref is pushed alone.
        server.hook(
            "pre-receive",
            &format!(
                "while read old new name; do\n  if [ \"$name\" = \"{banned}\" ]; then echo \"policy: no checkpoint here\" >&2; exit 1; fi\ndone\nexit 0"
            ),
        );
        let report = store.push("origin").unwrap();
        assert_eq!(report.queued.len(), 1, "{kind:?}: {report:?}");
        let failure = &report.queued[0];
        assert_eq!(failure.ref_name, banned);
        assert_eq!(failure.code, ErrorCode::Rejected);
        assert!(
            failure.reason.contains("pre-receive hook declined"),
            "{}",
            failure.reason
        );
        assert!(
            failure.reason.contains("policy: no checkpoint here"),
            "{}",
            failure.reason
        );
        assert_eq!(report.pushed.len(), 3);
        assert_eq!(a.queued(), std::slice::from_ref(&banned));
        let remote = server.refs();
        assert_eq!(remote.len(), 3, "{remote:?}");
        assert!(!remote.contains(&banned));
    }
}

#[test]
fn refs_gone_locally_and_lines_that_are_not_refs_are_dropped() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let store = a.store();
    let refs = write_many(&store, 1, 2);
    a.repo.git(&["update-ref", "-d", &refs[0]]);
    let queue = a.path().join(".git/entire-checkpoint-push-queue.jsonl");
    let mut text = std::fs::read_to_string(&queue).unwrap();
    text.push_str("{\"ref\":\"--upload-pack=touch /tmp/x\"}\n");
    std::fs::write(&queue, text).unwrap();
    let report = store.push("origin").unwrap();
    assert_eq!(report.pushed, [refs[1].clone()]);
    assert_eq!(
        sorted(report.dropped),
        sorted(vec![
            "--upload-pack=touch /tmp/x".to_owned(),
            refs[0].clone()
        ])
    );
    assert!(a.queued().is_empty());
    // Nothing queued: a push is a no-op that succeeds.
    let report = store.push("origin").unwrap();
    assert!(report.pushed.is_empty() && report.all_pushed());
    // The scratch git dir pushes run from is gone.
    let left: Vec<String> = std::fs::read_dir(a.path().join(".git"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("entire-push-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_remote_given_as_a_relative_path_means_what_it_means_to_git() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    // Relative to the working tree, as `git remote add` users write it.
    let relative = format!(
        "../{}/remote.git",
        server
            .bare()
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
    );
    let parent_of_clone = a.path().parent().unwrap();
    assert_eq!(
        parent_of_clone,
        server.bare().parent().unwrap().parent().unwrap(),
        "both in the temp dir"
    );
    a.repo.git(&["remote", "set-url", "origin", &relative]);
    let store = a.store();
    let refs = write_many(&store, 1, 2);
    let report = store.push("origin").unwrap();
    assert_eq!(sorted(report.pushed), sorted(refs));
    assert_eq!(store.list_remote("origin").unwrap().len(), 2);
}
