//! The push queue under load: 16 writer processes append 1,000 records each
//! (single and batched), with refs from 40 bytes to 64 KiB, while a 17th
//! process writing 1 MiB batches is SIGKILLed at random moments, 10 times.
//!
//! It proves: no record of the 16 writers is lost, doubled or corrupted
//! (every raw line is checked before any compaction); the only lines that
//! are not whole records are torn tails of the killed writer, each on its
//! own line, never glued to a record; and `drain` repairs the file to
//! exactly the distinct whole records. Children are this test binary
//! itself, re-run with `--exact queue_stress_child`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

#[path = "../../core/tests/reliability_sentinel/mod.rs"]
mod reliability_sentinel;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agent_checkpoint_naming::queue::PushQueue;
use reliability_sentinel::{env_count, figure, Rng};

const ROLE: &str = "AGENT_CHECKPOINT_QUEUE_STRESS_ROLE";
const DIR: &str = "AGENT_CHECKPOINT_QUEUE_STRESS_DIR";
const WRITER: &str = "AGENT_CHECKPOINT_QUEUE_STRESS_WRITER";
const WRITERS: usize = 16;
const MAX_REF: usize = 64 << 10;
const KILLS: usize = 10;
const STARTED: &str = "killed-writer-started";

fn records_per_writer() -> usize {
    env_count("RELIABILITY_QUEUE_RECORDS", 1_000)
}

/// The checkpoint ref of the checkpoint ID `id` (the queue holds nothing
/// else): `refs/entire/checkpoints/<last two chars>/<id>`.
fn checkpoint_ref(id: &str) -> String {
    format!("refs/entire/checkpoints/{}/{id}", &id[id.len() - 2..])
}

/// The `i`-th ref of writer `w`: a checkpoint ref whose length is spread
/// log-uniformly from about 40 bytes to 64 KiB, filled with a pattern
/// that depends on `(w, i)` so a glued or shifted record cannot pass.
fn record(w: usize, i: usize) -> String {
    let mut rng = Rng::new((w as u64) << 32 | i as u64);
    let head = format!("w{w}r{i}-");
    let bits = 6 + rng.below(11); // 2^6 ..= 2^16
    let len = (1usize << bits)
        .min(MAX_REF - 30)
        .saturating_sub(head.len() + 30)
        .max(2);
    let mut id = head;
    id.extend((0..len).map(|k| char::from(b'a' + ((k + w * 7 + i * 13) % 26) as u8)));
    checkpoint_ref(&id)
}

/// A ref of the killed writer: 64 KiB, recognisable.
fn killed_record(batch: usize, i: usize) -> String {
    checkpoint_ref(&format!("killed-{batch}-{i}-{}", "k".repeat(MAX_REF - 60)))
}

/// Whether `r` is exactly one of the killed writer's refs.
fn is_killed_record(r: &str) -> bool {
    let Some(rest) = r.strip_prefix("refs/entire/checkpoints/kk/killed-") else {
        return false;
    };
    let mut parts = rest.splitn(3, '-');
    let (Some(b), Some(i)) = (parts.next(), parts.next()) else {
        return false;
    };
    match (b.parse(), i.parse()) {
        (Ok(b), Ok(i)) => r == killed_record(b, i),
        _ => false,
    }
}

/// Entry point of every child process; a no-op in a normal test run.
#[test]
fn queue_stress_child() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let queue = PushQueue::new(std::env::var(DIR).unwrap());
    match role.as_str() {
        "writer" => {
            let w: usize = std::env::var(WRITER).unwrap().parse().unwrap();
            let n = records_per_writer();
            let mut rng = Rng::new(w as u64 + 99);
            let mut i = 0;
            while i < n {
                if rng.below(2) == 0 {
                    queue.enqueue(&record(w, i)).unwrap();
                    i += 1;
                } else {
                    let k = (1 + rng.below(8) as usize).min(n - i);
                    let batch: Vec<String> = (i..i + k).map(|j| record(w, j)).collect();
                    queue.enqueue_all(&batch).unwrap();
                    i += k;
                }
            }
        }
        "killed" => {
            let started = Path::new(&std::env::var(DIR).unwrap()).join(STARTED);
            for batch in 0.. {
                let refs: Vec<String> = (0..16).map(|i| killed_record(batch, i)).collect();
                queue.enqueue_all(&refs).unwrap();
                if batch == 0 {
                    std::fs::write(&started, b"").unwrap();
                }
            }
        }
        other => panic!("unknown role {other}"),
    }
}

fn spawn(role: &str, dir: &Path, writer: usize) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "queue_stress_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ROLE, role)
        .env(DIR, dir)
        .env(WRITER, writer.to_string())
        .stdout(Stdio::null())
        .spawn()
        .unwrap()
}

/// A `{"ref":"..."}` line's ref, if the line is exactly one whole record
/// (the refs of this test need no JSON escapes, so this is exact).
fn parse_line(line: &str) -> Option<&str> {
    let r = line.strip_prefix("{\"ref\":\"")?.strip_suffix("\"}")?;
    r.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'/' || b == b'-')
        .then_some(r)
}

#[test]
fn sixteen_processes_and_a_killed_writer_lose_nothing() {
    let n = records_per_writer();
    let mut rng = Rng::from_env("queue");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let queue = PushQueue::new(dir);
    let writers: Vec<Child> = (0..WRITERS).map(|w| spawn("writer", dir, w)).collect();
    // Kill the big writer a few times while the others run.
    let mut kills = 0;
    for _ in 0..KILLS {
        let _ = std::fs::remove_file(dir.join(STARTED));
        let mut killed = spawn("killed", dir, 0);
        while !dir.join(STARTED).exists() {
            assert!(
                killed.try_wait().unwrap().is_none(),
                "the killed writer died"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        // After its first batch: the kill lands in a later one (validating,
        // waiting for the lock, or writing).
        std::thread::sleep(Duration::from_millis(rng.below(60)));
        let _ = killed.kill();
        killed.wait().unwrap();
        kills += 1;
    }
    let deadline = Instant::now() + Duration::from_secs(600);
    for (w, mut child) in writers.into_iter().enumerate() {
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert!(status.success(), "writer {w}: {status}");
                break;
            }
            assert!(Instant::now() < deadline, "writer {w} hangs");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    let expected: HashMap<String, (usize, usize)> = (0..WRITERS)
        .flat_map(|w| (0..n).map(move |i| (record(w, i), (w, i))))
        .collect();
    let raw = std::fs::read_to_string(queue.path()).unwrap();
    let (mut seen, mut killed_whole, mut torn) = (HashSet::new(), 0usize, 0usize);
    let (mut bytes, mut largest) = (0usize, 0usize);
    let mut last_of = vec![None; WRITERS];
    for line in raw.lines() {
        match parse_line(line) {
            Some(r) if expected.contains_key(r) => {
                let (w, i) = expected[r];
                assert!(seen.insert(r), "doubled record w{w} r{i}");
                assert!(last_of[w] < Some(i), "writer {w}: r{i} out of order");
                last_of[w] = Some(i);
                bytes += r.len();
                largest = largest.max(r.len());
            }
            Some(r) if r.starts_with("refs/entire/checkpoints/kk/killed-") => {
                assert!(is_killed_record(r), "a killed record is cut");
                killed_whole += 1;
            }
            Some(r) => panic!("corrupt record {:?}", &r[..r.len().min(80)]),
            None => {
                // Only a torn tail of the killed writer, alone on its line.
                assert!(
                    line.starts_with("{\"ref\":\"refs/entire/checkpoints/kk/killed-")
                        || line.is_empty(),
                    "corrupt line {:?}",
                    &line[..line.len().min(80)]
                );
                torn += 1;
            }
        }
    }
    assert_eq!(seen.len(), WRITERS * n, "lost records");

    let drained = queue.drain().unwrap().refs;
    let distinct: HashSet<&String> = drained.iter().collect();
    assert_eq!(distinct.len(), drained.len(), "drain doubled a ref");
    for r in &drained {
        assert!(
            expected.contains_key(r) || is_killed_record(r),
            "drain returned a corrupt ref"
        );
    }
    assert_eq!(
        drained.iter().filter(|r| expected.contains_key(*r)).count(),
        WRITERS * n
    );
    let repaired = std::fs::read_to_string(queue.path()).unwrap();
    assert!(repaired.ends_with('\n'));
    assert!(
        repaired.lines().all(|l| parse_line(l).is_some()),
        "drain left a torn line"
    );
    figure(
        "queue",
        &format!(
            "{WRITERS} processes x {n} records ({} MiB, largest {} KiB), {kills} kills of a \
             1 MiB-batch writer ({killed_whole} of its records whole, {torn} torn tails, \
             repaired by drain): 0 lost, 0 doubled, 0 corrupt",
            bytes >> 20,
            largest >> 10
        ),
    );
}
