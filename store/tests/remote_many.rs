//! Many queued checkpoints go in one `push` call (one `git push` of them
//! all), and the queue ends empty. 2,000 through `git
//! daemon` by default, 10,000 through each server with `STORE_LONG=1`; the timing against `git push` by hand is in
//! `examples/bench_push.rs` and BENCHMARKS.md.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use std::collections::BTreeSet;

use agent_checkpoint_store::PushProgress;
use remote_support::{fast_checkpoints, Clone, Kind, Server};

fn long() -> bool {
    std::env::var_os("STORE_LONG").is_some_and(|v| v == "1")
}

#[test]
fn thousands_of_queued_checkpoints_push_in_one_call_and_the_queue_ends_empty() {
    // By default 2,000 through the daemon (the server that also pays for
    // the network protocol); STORE_LONG=1: 10,000 through each server.
    let (n, kinds): (u64, &[Kind]) = if long() {
        (10_000, &[Kind::Daemon, Kind::File])
    } else {
        (2_000, &[Kind::Daemon])
    };
    for &kind in kinds {
        let server = Server::start(kind);
        let a = Clone::of(&server);
        let refs = fast_checkpoints(&a, 1, n);
        assert_eq!(a.queued().len() as u64, n);
        let store = a.store();
        let mut seen: Vec<PushProgress> = Vec::new();
        let report = store
            .push_with_progress("origin", &mut |p| seen.push(*p))
            .unwrap();
        assert!(report.all_pushed(), "{kind:?}");
        assert_eq!(report.pushed.len() as u64, n);
        assert!(a.queued().is_empty(), "{kind:?}: the queue ends empty");
        // One progress call before the push and one after its one `git push`.
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert_eq!(seen[0].done(), 0);
        assert_eq!(seen[1].pushed as u64, n);
        let remote: BTreeSet<String> = server.refs().into_iter().collect();
        assert!(refs.iter().all(|r| remote.contains(r)), "{kind:?}");
        // The store reads what it pushed from a fresh clone.
        let b = Clone::of(&server);
        let sb = b.store();
        let id = agent_checkpoint_naming::refs::parse_ref(&refs[n as usize / 2]).unwrap();
        sb.fetch("origin", &id).unwrap();
        assert_eq!(sb.read_session_metadata(&id, 0).unwrap().session_id, "s");
    }
}
