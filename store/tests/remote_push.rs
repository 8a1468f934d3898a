//! How a push goes through: one `git push` of every ref, git's per-ref
//! status read, refusals costing nothing extra, whole-push failures split
//! in halves; a lost enqueue never keeps a checkpoint from the remote; a
//! killed push's scratch dir swept, a live one's kept; two fetches of one
//! checkpoint at once in one clone both succeed. Pushes are counted at the
//! remote's end (a `receive-pack` wrapper logging each run).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod remote_support;

use std::sync::Barrier;

use agent_checkpoint::ErrorCode;
use agent_checkpoint_store::{SessionWrite, Store};
use remote_support::{pushes, ref_of, ulid, Clone, Kind, Server};

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
fn refs_an_update_hook_refuses_stay_queued_and_the_rest_land_in_one_push() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let log = a.count_pushes();
    let store = a.store();
    let refs = write_many(&store, 1, 40);
    let banned = [refs[3].clone(), refs[17].clone(), refs[38].clone()];
    // `update` runs once per ref: it refuses exactly the banned ones.
    server.hook(
        "update",
        &format!(
            "case \"$1\" in {}) echo \"policy: not $1\" >&2; exit 1;; esac\nexit 0",
            banned.join("|")
        ),
    );
    let report = store.push("origin").unwrap();
    assert_eq!(pushes(&log), 1, "one git push for all 40 refs");
    let refused: Vec<String> = report.queued.iter().map(|f| f.ref_name.clone()).collect();
    assert_eq!(sorted(refused), sorted(banned.to_vec()));
    for f in &report.queued {
        assert_eq!(f.code, ErrorCode::Rejected);
        assert!(f.reason.contains("hook declined"), "{}", f.reason);
    }
    assert_eq!(report.pushed.len(), 37);
    assert_eq!(sorted(a.queued()), sorted(banned.to_vec()));
    let remote = server.refs();
    assert_eq!(remote.len(), 37);
    assert!(banned.iter().all(|b| !remote.contains(b)));

    // Lifted, the next push sends only what is left, once more in one push.
    server.remove_hook("update");
    let report = store.push("origin").unwrap();
    assert!(report.all_pushed(), "{report:?}");
    assert_eq!(sorted(report.pushed), sorted(banned.to_vec()));
    assert_eq!(pushes(&log), 2);
    server.assert_fsck();
}

#[test]
fn a_pre_receive_hook_declining_whole_pushes_is_bisected_to_the_refs_it_refuses() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let log = a.count_pushes();
    let store = a.store();
    let refs = write_many(&store, 1, 64);
    let banned = [refs[9].clone(), refs[50].clone()];
    // `pre-receive` can only decline a push whole.
    server.hook(
        "pre-receive",
        &format!(
            "while read old new name; do\n  case \"$name\" in {}) echo \"policy: no\" >&2; exit 1;; esac\ndone\nexit 0",
            banned.join("|")
        ),
    );
    let report = store.push("origin").unwrap();
    let refused: Vec<String> = report.queued.iter().map(|f| f.ref_name.clone()).collect();
    assert_eq!(sorted(refused), sorted(banned.to_vec()), "{report:?}");
    assert!(report.queued[0]
        .reason
        .contains("pre-receive hook declined"));
    assert_eq!(report.pushed.len(), 62);
    assert_eq!(sorted(a.queued()), sorted(banned.to_vec()));
    assert_eq!(server.refs().len(), 62);
    // Each refused ref costs at most two pushes per halving (64 -> 1: 6).
    let n = pushes(&log);
    assert!(n <= 1 + 2 * 2 * 6, "{n} pushes");
}

/// `count` small pseudo-random hex strings of `len` bytes (hex keeps them
/// UTF-8; random keeps them from compressing below half).
fn noise(seed: u64, len: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut s = String::with_capacity(len);
    while s.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.push_str(&format!("{x:016x}"));
    }
    s.truncate(len);
    s
}

#[test]
fn a_push_the_remote_cannot_take_whole_is_split_in_halves() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let log = a.count_pushes();
    let store = a.store();
    let mut refs = Vec::new();
    for n in 1..=8 {
        let id = ulid(n);
        let transcript = format!("{{\"x\":\"{}\"}}\n", noise(n, 64 * 1024));
        store
            .write_session(&SessionWrite::new(id.as_str(), "s").transcript(transcript.into_bytes()))
            .unwrap();
        refs.push(ref_of(&id));
    }
    // Eight ~32 KiB packs: the whole (~256 KiB) is over the limit, each
    // half (~128 KiB) under it.
    server.git(&["config", "receive.maxInputSize", "180000"]);
    let report = store.push("origin").unwrap();
    assert!(report.all_pushed(), "{report:?}");
    assert_eq!(sorted(report.pushed), sorted(refs.clone()));
    assert_eq!(pushes(&log), 3, "the whole, then each half");
    assert!(a.queued().is_empty());
    server.assert_fsck();
}

#[test]
fn a_checkpoint_whose_enqueue_was_lost_is_pushed_all_the_same() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let store = a.store();
    let refs = write_many(&store, 1, 2);
    // The queue is gone, and cannot even be read (a directory in its place):
    // as after a failed append, or a writer killed before it enqueued.
    let queue = a.path().join(".git/entire-checkpoint-push-queue.jsonl");
    std::fs::remove_file(&queue).unwrap();
    std::fs::create_dir(&queue).unwrap();
    let report = store.push("origin").unwrap();
    assert!(report.all_pushed(), "{report:?}");
    assert_eq!(sorted(report.pushed), sorted(refs.clone()));
    assert_eq!(sorted(server.refs()), sorted(refs.clone()));

    // Later writes are found the same way, and only they are sent.
    store
        .write_session(&SessionWrite::new(ulid(2).as_str(), "t"))
        .unwrap();
    let report = store.push("origin").unwrap();
    assert_eq!(report.pushed, [refs[1].clone()]);
    assert_eq!(server.tip(&refs[1]), a.tip(&refs[1]));
    // Nothing new: nothing is sent.
    assert!(store.push("origin").unwrap().pushed.is_empty());
}

#[test]
fn a_killed_pushs_scratch_dir_is_swept_and_a_live_ones_is_kept() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let store = a.store();
    write_many(&store, 1, 1);
    let git = a.path().join(".git");
    // Left by pushes killed before they cleaned up: one with its lock file
    // (nobody holds it), one without.
    let dead = git.join("entire-push-0123456789abcdef");
    std::fs::create_dir_all(dead.join("objects/info")).unwrap();
    std::fs::write(git.join("entire-push-0123456789abcdef.lock"), b"").unwrap();
    let bare = git.join("entire-push-1111111111111111");
    std::fs::create_dir_all(bare.join("refs")).unwrap();
    // One a live push holds.
    let live = git.join("entire-push-fedcba9876543210");
    std::fs::create_dir_all(live.join("refs")).unwrap();
    let lock = std::fs::File::create(git.join("entire-push-fedcba9876543210.lock")).unwrap();
    lock.try_lock().unwrap();
    // Not ours: never touched.
    let other = git.join("entire-push-notatoken");
    std::fs::create_dir_all(&other).unwrap();

    assert!(store.push("origin").unwrap().all_pushed());
    assert!(!dead.exists() && !git.join("entire-push-0123456789abcdef.lock").exists());
    assert!(!bare.exists());
    assert!(live.exists(), "a held scratch dir is in use");
    assert!(other.exists());
    drop(lock);
    // Released, it is abandoned: the next push removes it. (A child that
    // another test's thread forked while the lock was held shares the lock
    // until it execs; the sweep then keeps the dir, as it must when in
    // doubt, and a later push removes it.)
    for _ in 0..20 {
        store.push("origin").unwrap();
        if !live.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!live.exists(), "released, it is abandoned");
    let left: Vec<String> = std::fs::read_dir(&git)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("entire-push-") && n != "entire-push-notatoken")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn two_fetches_of_one_checkpoint_at_once_in_one_clone_both_find_it() {
    let server = Server::start(Kind::File);
    let a = Clone::of(&server);
    let id = ulid(7);
    a.store()
        .write_session(&SessionWrite::new(id.as_str(), "s"))
        .unwrap();
    assert!(a.store().push("origin").unwrap().all_pushed());
    let b = Clone::of(&server);
    // A fetch killed before it cleaned up left its temp ref.
    let stale = "refs/entire-fetch-tmp/0123456789abcdef/entire/checkpoints/xx/yy";
    let empty = b.repo.mktree(&[]);
    let commit = b.repo.commit_tree(&empty, None, "left over");
    b.repo.git(&["update-ref", stale, &commit]);
    let (s1, s2) = (b.store(), b.store());
    let mut wrong = Vec::new();
    for round in 0..40 {
        let _ = b.repo.git_output(&["update-ref", "-d", &ref_of(&id)], None);
        let barrier = Barrier::new(2);
        let (r1, r2) = std::thread::scope(|s| {
            let t1 = s.spawn(|| {
                barrier.wait();
                s1.fetch("origin", &id)
            });
            let t2 = s.spawn(|| {
                barrier.wait();
                s2.fetch("origin", &id)
            });
            (t1.join().unwrap(), t2.join().unwrap())
        });
        for r in [r1, r2] {
            if let Err(e) = r {
                wrong.push(format!("round {round}: {e}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{} wrong answers: {wrong:?}", wrong.len());
    assert_eq!(b.tip(&ref_of(&id)), server.tip(&ref_of(&id)));
    let tmp: Vec<String> = b
        .repo
        .refs()
        .into_iter()
        .filter(|r| r.starts_with("refs/entire-fetch-tmp/"))
        .collect();
    assert!(tmp.is_empty(), "temp refs left: {tmp:?}");
}
