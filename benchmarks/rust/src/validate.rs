//! `ckpt-bench validate`: how validation time grows with the snapshot.
//!
//! The workload is issue 21's pathological path set: `n` files `cN` with
//! content, `n` new paths `dN/f` and their `n` parents in `created_dirs`
//! (a quadratic validator took 12 s for n = 10,000 and 121 s for 20,000).
//! For each `n`, three operations, each the median of `reps` runs:
//!
//! - `parse`: `Snapshot::parse` (read and validate the whole snapshot);
//! - `snapshot_paths`: the seed-compatible listing (parse included);
//! - `keyed refusal`: the snapshot sealed with one key, parsed with another
//!   as a keyed rollback does: refused as `unauthenticated`, the MAC being
//!   checked before any costly validation.
//!
//! Prints a Markdown table: wall-clock time, and CPU time per captured
//! path (this thread's, from `/proc/thread-self/schedstat`, which other
//! processes on a shared machine barely affect); per path, both stay flat
//! when validation is linear or `n log n`.

use std::time::Instant;

use agent_checkpoint::{snapshot_paths, ErrorCode, ParseOptions, SealKey, Snapshot};

/// The default sizes (`n`: the snapshot holds `2n` paths).
pub const DEFAULT_SIZES: [usize; 5] = [10_000, 20_000, 50_000, 100_000, 200_000];

/// The issue's pathological snapshot text for `n`.
pub fn pathological(n: usize) -> String {
    let mut text = String::with_capacity(n * 40);
    text.push_str(r#"{"version":1,"entries":{"#);
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(r#""c{i}":"eA==","d{i}/f":null"#));
    }
    text.push_str(r#"},"created_dirs":["#);
    for i in 0..n {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(r#""d{i}""#));
    }
    text.push_str("]}");
    text
}

/// The CPU time this thread has used, in seconds (`None` where
/// `/proc/thread-self/schedstat` is not there).
fn thread_cpu() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// The medians of `reps` runs of `f` (one untimed run first): wall-clock
/// seconds and CPU seconds.
fn median(reps: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<(f64, f64), String> {
    f()?;
    let mut wall = Vec::with_capacity(reps);
    let mut cpu = Vec::with_capacity(reps);
    for _ in 0..reps {
        let cpu_start = thread_cpu();
        let start = Instant::now();
        f()?;
        wall.push(start.elapsed().as_secs_f64());
        cpu.push(match (cpu_start, thread_cpu()) {
            (Some(a), Some(b)) => b - a,
            _ => f64::NAN,
        });
    }
    wall.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    Ok((wall[wall.len() / 2], cpu[cpu.len() / 2]))
}

/// Runs the benchmark for `sizes`, `reps` runs each, and prints the table.
pub fn run(sizes: &[usize], reps: usize) -> Result<(), String> {
    let right = SealKey::try_from("the key it was sealed with").map_err(|e| e.to_string())?;
    let wrong = SealKey::try_from("the key the rollback is given").map_err(|e| e.to_string())?;
    let keyed = ParseOptions::default().with_key(Some(wrong));
    println!("Median of {reps} runs: wall-clock time, then per path wall-clock (CPU) time.\n");
    println!(
        "| n | paths | snapshot | parse | per path | snapshot_paths | per path | keyed refusal | per path |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let text = pathological(n);
        let paths = 2 * n;
        let sealed = Snapshot::parse(&text, &ParseOptions::default())
            .and_then(|s| s.sealed(&right))
            .map_err(|e| e.to_string())?
            .into_string();
        let parse = median(reps, || {
            let s = Snapshot::parse(&text, &ParseOptions::default()).map_err(|e| e.to_string())?;
            check(s.len() == paths, "parse lost paths")
        })?;
        let listing = median(reps, || {
            check(
                snapshot_paths(&text).len() == paths,
                "snapshot_paths lost paths",
            )
        })?;
        let refusal = median(reps, || match Snapshot::parse(&sealed, &keyed) {
            Err(e) if e.code() == ErrorCode::Unauthenticated => Ok(()),
            other => Err(format!(
                "keyed parse: expected unauthenticated, got {other:?}"
            )),
        })?;
        let per = |(wall, cpu): (f64, f64)| {
            format!(
                "{:.1} ms | {:.0} ns ({:.0} ns)",
                wall * 1e3,
                wall * 1e9 / paths as f64,
                cpu * 1e9 / paths as f64
            )
        };
        println!(
            "| {n} | {paths} | {:.1} MiB | {} | {} | {} |",
            text.len() as f64 / f64::from(1 << 20),
            per(parse),
            per(listing),
            per(refusal),
        );
    }
    Ok(())
}

fn check(ok: bool, what: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what.to_owned())
    }
}
