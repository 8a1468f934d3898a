//! The push queue under real concurrency: several processes appending at
//! once, a process compacting meanwhile, and writers killed mid-record.
//!
//! Child processes are this test binary itself, re-run with `--exact
//! queue_child` and an environment variable naming their role.
#![allow(
    clippy::unwrap_used,
    reason = "test helpers: a panic is a failing test"
)]

use std::collections::{HashMap, HashSet};
use std::env;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use agent_checkpoint_naming::queue::PushQueue;
use agent_checkpoint_naming::refs;

const ROLE: &str = "AGENT_CHECKPOINT_QUEUE_TEST_ROLE";
const DIR: &str = "AGENT_CHECKPOINT_QUEUE_TEST_DIR";
const WRITER: &str = "AGENT_CHECKPOINT_QUEUE_TEST_WRITER";

const WRITERS: usize = 8;
const REFS_PER_WRITER: usize = 500;
const STOP_FILE: &str = "stop-draining";
const BIG_REF_BYTES: usize = 1 << 20;
const BIG_REFS_PER_BATCH: usize = 16;
const BIG_BATCHES: usize = 4;

/// The `i`-th ref of writer `w`: a real checkpoint ref of a legacy ID.
fn writer_ref(w: usize, i: usize) -> String {
    refs::ref_name(&format!("{w:06x}{i:06x}")).unwrap()
}

fn big_ref(batch: usize, i: usize) -> String {
    format!(
        "refs/entire/checkpoints/xx/big-{batch}-{i}-{}",
        "x".repeat(BIG_REF_BYTES)
    )
}

fn is_big_ref(r: &str) -> bool {
    r.starts_with("refs/entire/checkpoints/xx/big-")
        && r.rsplit('-')
            .next()
            .is_some_and(|tail| tail.len() == BIG_REF_BYTES)
}

/// Entry point of every child process; a no-op in a normal test run.
#[test]
fn queue_child() {
    let Ok(role) = env::var(ROLE) else {
        return;
    };
    let queue = PushQueue::new(env::var(DIR).unwrap());
    match role.as_str() {
        "writer" => run_writer(&queue, env::var(WRITER).unwrap().parse().unwrap()),
        "drainer" => run_drainer(&queue),
        "big-writer" => run_big_writer(&queue),
        "rewriter" => run_rewriter(&queue),
        other => panic!("unknown role {other}"),
    }
}

// Half single enqueues, half batches, plus re-enqueued duplicates.
fn run_writer(queue: &PushQueue, w: usize) {
    let half = REFS_PER_WRITER / 2;
    for i in 0..half {
        queue.enqueue(&writer_ref(w, i)).unwrap();
        if i % 10 == 9 {
            queue.enqueue(&writer_ref(w, i / 2)).unwrap();
        }
    }
    let rest: Vec<String> = (half..REFS_PER_WRITER).map(|i| writer_ref(w, i)).collect();
    for batch in rest.chunks(25) {
        queue.enqueue_all(batch).unwrap();
        queue.enqueue_all(&batch[..3]).unwrap();
    }
}

fn run_drainer(queue: &PushQueue) {
    let stop = queue.directory().join(STOP_FILE);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !stop.exists() && Instant::now() < deadline {
        queue.drain().unwrap();
        queue.peek().unwrap();
        sleep(Duration::from_millis(2));
    }
}

fn run_big_writer(queue: &PushQueue) {
    for batch in 0..BIG_BATCHES {
        let refs: Vec<String> = (0..BIG_REFS_PER_BATCH).map(|i| big_ref(batch, i)).collect();
        queue.enqueue_all(&refs).unwrap();
    }
}

// Rewrites a large queue over and over (drain compacts duplicates away,
// remove drops half), so a kill often lands mid-rewrite.
fn run_rewriter(queue: &PushQueue) {
    let refs: Vec<String> = (0..6_000).map(|i| writer_ref(7, i)).collect();
    let ready = queue.directory().join("rewriter-ready");
    queue.enqueue_all(&refs).unwrap();
    loop {
        // Duplicates appended, then compacted away: a rewrite every round.
        queue.enqueue_all(&refs[..500]).unwrap();
        let _ = fs::write(&ready, b"");
        queue.drain().unwrap();
    }
}

fn spawn(role: &str, dir: &Path, writer: usize) -> Child {
    Command::new(env::current_exe().unwrap())
        .args(["--exact", "queue_child", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .env(DIR, dir)
        .env(WRITER, writer.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

fn wait_ok(mut child: Child, what: &str) {
    let status = child.wait().unwrap();
    assert!(status.success(), "{what} failed: {status}");
}

fn go_line(r: &str) -> String {
    format!("{{\"ref\":\"{r}\"}}")
}

#[test]
fn eight_processes_enqueue_while_another_compacts() {
    let dir = tempfile::tempdir().unwrap();
    let drainer = spawn("drainer", dir.path(), 0);
    let writers: Vec<Child> = (0..WRITERS)
        .map(|w| spawn("writer", dir.path(), w))
        .collect();
    for (w, child) in writers.into_iter().enumerate() {
        wait_ok(child, &format!("writer {w}"));
    }
    fs::write(dir.path().join(STOP_FILE), b"").unwrap();
    wait_ok(drainer, "drainer");

    let queue = PushQueue::new(dir.path());
    let raw = fs::read_to_string(queue.path()).unwrap();
    assert!(raw.ends_with('\n'));
    let expected: HashSet<String> = (0..WRITERS)
        .flat_map(|w| (0..REFS_PER_WRITER).map(move |i| writer_ref(w, i)))
        .collect();
    let expected_lines: HashSet<String> = expected.iter().map(|r| go_line(r)).collect();
    for line in raw.lines() {
        assert!(expected_lines.contains(line), "corrupt line {line:?}");
    }

    let drained = queue.drain().unwrap().refs;
    assert_eq!(
        drained.len(),
        WRITERS * REFS_PER_WRITER,
        "none lost, none doubled"
    );
    let distinct: HashSet<String> = drained.iter().cloned().collect();
    assert_eq!(distinct, expected);
    let compacted = fs::read_to_string(queue.path()).unwrap();
    assert_eq!(compacted.lines().count(), WRITERS * REFS_PER_WRITER);
    let position: HashMap<String, (usize, usize)> = (0..WRITERS)
        .flat_map(|w| (0..REFS_PER_WRITER).map(move |i| (writer_ref(w, i), (w, i))))
        .collect();
    let mut last_seen = [None; WRITERS];
    for r in &drained {
        let (w, i) = position[r];
        assert!(last_seen[w] < Some(i), "writer {w} out of first-seen order");
        last_seen[w] = Some(i);
    }
}

fn append_raw(path: &Path, bytes: &[u8]) {
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

#[test]
fn torn_line_is_repaired_by_the_next_enqueue_and_drain() {
    let dir = tempfile::tempdir().unwrap();
    let queue = PushQueue::new(dir.path());
    let (a, b, c) = (writer_ref(1, 1), writer_ref(1, 2), writer_ref(1, 3));
    queue.enqueue(&a).unwrap();
    append_raw(queue.path(), &go_line(&b).as_bytes()[..20]);
    queue.enqueue(&c).unwrap();
    assert_eq!(queue.peek().unwrap().refs, [a.clone(), c.clone()]);
    assert_eq!(queue.drain().unwrap().refs, [a.clone(), c.clone()]);
    let canonical = format!("{}\n{}\n", go_line(&a), go_line(&c));
    assert_eq!(fs::read_to_string(queue.path()).unwrap(), canonical);

    append_raw(queue.path(), &go_line(&b).as_bytes()[..7]);
    assert_eq!(
        queue.drain().unwrap().refs,
        [a.clone(), c.clone()],
        "drain drops the fragment"
    );
    assert_eq!(fs::read_to_string(queue.path()).unwrap(), canonical);
    queue.enqueue(&b).unwrap();
    assert_eq!(queue.drain().unwrap().refs, [a, c, b]);
}

/// Kills a child that writes 16 MiB batches as soon as the queue grows, so
/// the kill usually lands inside a write.
fn kill_big_writer_mid_write(dir: &Path, queue: &PushQueue) -> bool {
    let before = fs::metadata(queue.path()).map(|m| m.len()).unwrap_or(0);
    let mut child = spawn("big-writer", dir, 0);
    let deadline = Instant::now() + Duration::from_secs(120);
    while fs::metadata(queue.path()).map(|m| m.len()).unwrap_or(0) <= before {
        assert!(Instant::now() < deadline, "big writer never wrote");
        if child.try_wait().unwrap().is_some() {
            break;
        }
        sleep(Duration::from_micros(200));
    }
    let _ = child.kill();
    child.wait().unwrap();
    let raw = fs::read(queue.path()).unwrap();
    !raw.ends_with(b"\n")
}

#[test]
fn writer_killed_mid_record_leaves_a_repairable_queue() {
    let dir = tempfile::tempdir().unwrap();
    let queue = PushQueue::new(dir.path());
    let mut torn_rounds = 0;
    for round in 0..3 {
        let first = writer_ref(2, round);
        let next = writer_ref(3, round);
        queue.enqueue(&first).unwrap();
        let torn = kill_big_writer_mid_write(dir.path(), &queue);
        torn_rounds += usize::from(torn);
        queue.enqueue(&next).unwrap();
        let drained = queue.drain().unwrap().refs;
        assert!(
            drained.contains(&first),
            "round {round}: lost the record before the kill"
        );
        assert_eq!(
            drained.last(),
            Some(&next),
            "round {round}: lost the record after"
        );
        for r in &drained {
            assert!(
                is_big_ref(r) || r.starts_with(refs::CHECKPOINT_REF_PREFIX),
                "glued: {}",
                &r[..60.min(r.len())]
            );
        }
        let raw = fs::read(queue.path()).unwrap();
        assert!(raw.ends_with(b"\n"));
        let big: Vec<&String> = drained.iter().filter(|r| is_big_ref(r)).collect();
        queue.remove(&big).unwrap();
        assert!(!queue.peek().unwrap().refs.iter().any(|r| is_big_ref(r)));
    }
    let leftovers: Vec<PathBuf> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temp files left: {leftovers:?}");
    eprintln!("killed writers left a torn line in {torn_rounds} of 3 rounds");
}

/// Temp files of queue rewrites in `dir`.
fn queue_temps(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tmp"))
        .collect()
}

#[test]
fn a_rewrite_killed_midway_leaves_no_temp_file_after_the_next_operation() {
    let dir = tempfile::tempdir().unwrap();
    let queue = PushQueue::new(dir.path());
    let (mut kills, mut left_behind) = (0, 0);
    let rounds = if std::env::var("RELIABILITY_LONG").is_ok_and(|v| v != "0") {
        300
    } else {
        10
    };
    for round in 0..rounds {
        let ready = dir.path().join("rewriter-ready");
        let _ = fs::remove_file(&ready);
        let mut child = spawn("rewriter", dir.path(), 0);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !ready.exists() && Instant::now() < deadline {
            sleep(Duration::from_micros(200));
        }
        // Stop the rewriter at varying moments until one finds it mid-rewrite
        // (its temp file on disk), then kill it there.
        let pid = child.id().to_string();
        let signal = |sig: &str| {
            let _ = Command::new("kill").args([sig, pid.as_str()]).status();
        };
        for attempt in 0..400u64 {
            signal("-STOP");
            if !queue_temps(dir.path()).is_empty() {
                break;
            }
            signal("-CONT");
            sleep(Duration::from_micros(
                (attempt * 7_919 + round as u64 * 104_729) % 3_000,
            ));
        }
        let _ = child.kill();
        child.wait().unwrap();
        kills += 1;
        left_behind += usize::from(!queue_temps(dir.path()).is_empty());
        // The next operation, under the lock, clears what the kill left.
        queue.peek().unwrap();
        assert_eq!(
            queue_temps(dir.path()),
            Vec::<PathBuf>::new(),
            "round {round}"
        );
        assert!(
            queue.drain().unwrap().dropped.is_empty(),
            "round {round}: a corrupt line"
        );
    }
    eprintln!(
        "reliability queue: {kills} rewriters killed, {left_behind} left a temp file, 0 survived the next operation"
    );
}
