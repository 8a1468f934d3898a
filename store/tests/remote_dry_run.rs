//! A push's dry run (`Store::push_plan`) lists exactly what the real push
//! then sends, changes nothing here or on the remote, and describes each
//! checkpoint (sessions, agent, files, bytes, whether the remote has it);
//! against a `file://` remote and `git daemon`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use agent_checkpoint_naming::PushQueue;
use agent_checkpoint_store::{SessionWrite, Store};
use remote_support::{ref_of, ulid, Clone, Server, KINDS};

/// Every file under `.git` but objects (names and bytes): queue, record,
/// scratch dirs, refs; lock files by name only (taking a lock bumps the
/// counter in it that waiters watch, see `naming/src/lock_wait.rs`).
fn git_dir_state(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn visit(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = path.strip_prefix(base).unwrap().display().to_string();
            if name == "objects" {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                out.insert(format!("{name}/"), Vec::new());
                visit(base, &path, out);
            } else if name.ends_with(".lock") {
                out.insert(name, Vec::new());
            } else {
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    let git = dir.join(".git");
    visit(&git, &git, &mut out);
    out
}

/// The remote's refs with their tips.
fn remote_tips(server: &Server) -> BTreeMap<String, String> {
    server
        .git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(r, t)| (r.to_owned(), t.to_owned()))
        .collect()
}

fn write(store: &Store, id: &str, session: &str, files: &[&str]) {
    store
        .write_session(
            &SessionWrite::new(id, session)
                .agent("Claude Code")
                .transcript(format!("{{\"session\":\"{session}\"}}\n").into_bytes())
                .files_touched(files.iter().copied()),
        )
        .unwrap();
}

#[test]
fn a_dry_run_lists_exactly_what_the_push_then_sends_and_changes_nothing() {
    for kind in KINDS {
        let server = Server::start(kind);
        let a = Clone::of(&server);
        let store = a.store();
        let [c1, c2, c3, c4, ghost] = [1, 2, 3, 4, 9].map(ulid);
        write(&store, &c1, "s1", &["a.rs"]);
        write(&store, &c2, "s2", &["b.rs"]);
        assert!(store.push("origin").unwrap().all_pushed());
        let c2_before = server.tip(&ref_of(&c2)).unwrap();
        // c2 moves on here; c3 and c4 are new; c4's enqueue is lost; c1,
        // already on the remote, is queued again; a queued ref is gone.
        write(&store, &c2, "s2b", &["c.rs"]);
        write(&store, &c3, "s3", &["d.rs", "e.rs"]);
        write(&store, &c4, "s4", &[]);
        let queue = PushQueue::new(a.path().join(".git"));
        queue.remove(&[ref_of(&c4)]).unwrap();
        queue.enqueue(&ref_of(&c1)).unwrap();
        queue.enqueue(&ref_of(&ghost)).unwrap();

        let here = git_dir_state(a.path());
        let there = remote_tips(&server);
        let plan = store.push_plan("origin").unwrap();
        let now = git_dir_state(a.path());
        let changed: Vec<&String> = now
            .keys()
            .chain(here.keys())
            .filter(|k| now.get(*k) != here.get(*k))
            .collect();
        assert!(changed.is_empty(), "{kind:?}: changed here: {changed:?}");
        assert_eq!(remote_tips(&server), there, "{kind:?}: nor on the remote");

        assert_eq!(plan.remote, "origin");
        assert_eq!(plan.dropped, [ref_of(&ghost)]);
        let refs: Vec<&str> = plan
            .checkpoints
            .iter()
            .map(|c| c.ref_name.as_str())
            .collect();
        let (r1, r2, r3, r4) = (ref_of(&c1), ref_of(&c2), ref_of(&c3), ref_of(&c4));
        assert_eq!(
            refs,
            [&r2, &r3, &r1, &r4],
            "{kind:?}: queued first, then unqueued"
        );
        let by: BTreeMap<&str, _> = plan
            .checkpoints
            .iter()
            .map(|c| (c.ref_name.as_str(), c))
            .collect();
        let (p1, p2, p3, p4) = (
            by[r1.as_str()],
            by[r2.as_str()],
            by[r3.as_str()],
            by[r4.as_str()],
        );
        assert!(p1.on_remote && p1.queued && p1.upload_bytes == 0);
        assert_eq!(p1.remote_commit, None);
        assert!(!p2.on_remote && p2.queued);
        assert_eq!(p2.remote_commit.as_deref(), Some(c2_before.as_str()));
        assert!(!p3.on_remote && p3.queued && p3.remote_commit.is_none());
        assert!(!p4.on_remote && !p4.queued, "found without its enqueue");
        for p in [p1, p2, p3, p4] {
            assert_eq!(Some(p.commit.clone()), a.tip(&p.ref_name));
            assert_eq!(p.agent, "Claude Code");
            assert!(p.damaged.is_none());
        }
        assert_eq!(p2.checkpoint_id.as_deref(), Some(c2.as_str()));
        assert_eq!(p2.session_ids, ["s2", "s2b"]);
        assert_eq!(p3.files_touched, ["d.rs", "e.rs"]);
        assert!(p3.upload_bytes > 0 && p4.upload_bytes > 0);
        assert!(p2.upload_bytes > 0);
        let sum: u64 = plan.checkpoints.iter().map(|c| c.upload_bytes).sum();
        assert!(plan.upload_bytes > 0 && plan.upload_bytes <= sum);

        // The real push: the remote receives exactly the plan's refs.
        let report = store.push("origin").unwrap();
        assert!(report.all_pushed(), "{report:?}");
        let pushed: BTreeSet<&str> = report.pushed.iter().map(String::as_str).collect();
        assert_eq!(pushed, refs.iter().copied().collect(), "{kind:?}");
        let after = remote_tips(&server);
        let received: BTreeSet<&str> = after
            .iter()
            .filter(|(r, t)| there.get(*r) != Some(*t))
            .map(|(r, _)| r.as_str())
            .collect();
        let to_send: BTreeSet<&str> = plan.to_send().into_iter().collect();
        assert_eq!(received, to_send, "{kind:?}");
        assert_eq!(
            to_send,
            BTreeSet::from([r2.as_str(), r3.as_str(), r4.as_str()])
        );

        // Nothing left: the plan is empty.
        let plan = store.push_plan("origin").unwrap();
        assert!(
            plan.checkpoints.is_empty() && plan.upload_bytes == 0,
            "{plan:?}"
        );
    }
}

#[test]
fn a_dry_run_counts_the_upload_of_what_the_remote_lacks() {
    let server = Server::start(remote_support::Kind::File);
    let a = Clone::of(&server);
    let store = a.store();
    let id = ulid(5);
    let big = vec![b'x'; 200_000];
    store
        .write_session(&SessionWrite::new(id.as_str(), "s").transcript(big.clone()))
        .unwrap();
    let plan = store.push_plan("origin").unwrap();
    let first = plan.checkpoints[0].upload_bytes;
    assert!(first > 200_000, "the transcript counts: {first}");
    store.push("origin").unwrap();
    // A small second session: the first's transcript is on the remote.
    store
        .write_session(&SessionWrite::new(id.as_str(), "t").transcript(b"{}\n".to_vec()))
        .unwrap();
    let plan = store.push_plan("origin").unwrap();
    let second = plan.checkpoints[0].upload_bytes;
    assert!(second > 0 && second < 200_000, "only what is new: {second}");
    assert_eq!(plan.upload_bytes, second);
}

#[test]
fn a_dry_run_of_an_unreachable_remote_is_an_error_and_of_an_unknown_one_too() {
    let server = Server::start(remote_support::Kind::File);
    let a = Clone::of(&server);
    let store = a.store();
    write(&store, &ulid(6), "s", &[]);
    let port = remote_support::closed_port();
    let e = store
        .push_plan(&format!("git://127.0.0.1:{port}/nothing.git"))
        .unwrap_err();
    assert_eq!(
        e.code(),
        agent_checkpoint::ErrorCode::RemoteUnreachable,
        "{e}"
    );
    assert!(store.push_plan("nosuchremote").is_err());
    assert_eq!(a.queued(), [ref_of(&ulid(6))], "the queue is untouched");
}

#[test]
fn a_dry_run_lists_the_v1_branch_as_one_ref_and_the_push_sends_it() {
    let server = Server::start(remote_support::Kind::File);
    let a = Clone::of(&server);
    let branch = a.store_with(agent_checkpoint_store::Backend::GitBranch);
    write(&branch, &remote_support::legacy(1), "s", &["a.rs"]);
    let refs = a.store();
    write(&refs, &ulid(7), "s", &[]);
    let plan = refs.push_plan("origin").unwrap();
    let names: Vec<&str> = plan
        .checkpoints
        .iter()
        .map(|c| c.ref_name.as_str())
        .collect();
    let r7 = ref_of(&ulid(7));
    assert_eq!(names, [r7.as_str(), agent_checkpoint_store::BRANCH_REF]);
    let v1 = &plan.checkpoints[1];
    assert_eq!(v1.checkpoint_id, None);
    assert!(v1.session_ids.is_empty() && v1.upload_bytes > 0 && !v1.on_remote);
    let there = remote_tips(&server);
    assert!(refs.push("origin").unwrap().all_pushed());
    let received: BTreeSet<String> = remote_tips(&server)
        .into_iter()
        .filter(|(r, t)| there.get(r) != Some(t))
        .map(|(r, _)| r)
        .collect();
    let to_send: BTreeSet<String> = plan.to_send().into_iter().map(str::to_owned).collect();
    assert_eq!(received, to_send);
}
