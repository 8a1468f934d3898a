//! `ckpt-bench`: generates the benchmark workloads and runs two contenders,
//! the Rust core and the hardware floor, printing one JSON line per run set.
//!
//! ```text
//! ckpt-bench gen <workload> <dir>             # writes <dir>/root and <dir>/paths.txt
//! ckpt-bench run <contender> <op> <dir> <reps> [--no-redo]
//!   contender: core | floor | inplace;  op: capture | rollback | rollback-durable
//! ```
//!
//! Before each timed rollback every captured file is edited in place
//! (untimed), so that every rollback has every file to restore.
//!
//! ```text
//! ckpt-bench validate [<reps>] [<n>...]      # validation time against n (see validate.rs)
//! ```

mod floor;
mod validate;
mod workload;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, ParseOptions, RollbackOptions, Snapshot};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("gen") if args.len() == 3 => workload::generate(&args[1], Path::new(&args[2])),
        Some("run") if args.len() >= 5 => run(&args[1..]),
        Some("validate") => validate_args(&args[1..]),
        _ => Err("usage: ckpt-bench gen <workload> <dir> | run <contender> <op> <dir> <reps> [--no-redo] | validate [<reps>] [<n>...]".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ckpt-bench: {e}");
            ExitCode::from(2)
        }
    }
}

/// `validate [<reps>] [<n>...]`: 5 runs and the default sizes unless given.
fn validate_args(args: &[String]) -> Result<(), String> {
    let numbers = args
        .iter()
        .map(|a| a.parse::<usize>().map_err(|e| format!("{a}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let reps = numbers.first().copied().unwrap_or(5).max(1);
    let sizes = match numbers.get(1..) {
        Some(sizes) if !sizes.is_empty() => sizes.to_vec(),
        _ => validate::DEFAULT_SIZES.to_vec(),
    };
    validate::run(&sizes, reps)
}

fn run(args: &[String]) -> Result<(), String> {
    let (contender, op, dir) = (args[0].as_str(), args[1].as_str(), PathBuf::from(&args[2]));
    let reps: usize = args[3].parse().map_err(|e| format!("reps: {e}"))?;
    let redo = !args.iter().any(|a| a == "--no-redo");
    let root_dir = dir.join("root");
    let paths = workload::read_paths(&dir)?;
    let mut times = Vec::with_capacity(reps);
    let bytes;
    match contender {
        "core" => {
            let root = CapRoot::open(&root_dir, ambient_authority()).map_err(|e| e.to_string())?;
            let options = CaptureOptions::default();
            // Capture runs measure peak memory too: no snapshot is held beforehand.
            let snapshot = match op {
                "capture" => String::new(),
                _ => agent_checkpoint::capture(&root, &paths, &options)
                    .map_err(|e| e.to_string())?
                    .into_string(),
            };
            let mut size = snapshot.len();
            let rollback_options = RollbackOptions::default()
                .with_durable(op == "rollback-durable")
                .with_redo(redo);
            // One untimed run first: every contender measures a warm cache.
            for rep in 0..=reps {
                let start = Instant::now();
                let elapsed;
                match op {
                    "capture" => {
                        let s = agent_checkpoint::capture(&root, &paths, &options)
                            .map_err(|e| e.to_string())?;
                        size = s.len();
                        std::hint::black_box(s);
                        elapsed = start.elapsed();
                    }
                    _ => {
                        floor::edit(&root_dir, &paths).map_err(|e| e.to_string())?;
                        let start = Instant::now();
                        // As a user does: the snapshot text is parsed, then rolled back.
                        let parsed = Snapshot::parse(&snapshot, &ParseOptions::default())
                            .map_err(|e| e.to_string())?;
                        let report = agent_checkpoint::rollback(&root, &parsed, &rollback_options)
                            .map_err(|e| e.to_string())?;
                        if !report.ok() {
                            return Err(format!(
                                "rollback not ok: {:?}",
                                report.unrestored.first()
                            ));
                        }
                        let _ = std::hint::black_box(report);
                        elapsed = start.elapsed();
                    }
                }
                if rep > 0 {
                    times.push(elapsed.as_secs_f64());
                }
            }
            bytes = size;
        }
        "floor" | "inplace" => {
            let strategy = if contender == "floor" {
                floor::Strategy::TempRename
            } else {
                floor::Strategy::InPlace
            };
            let encoded = floor::capture(&root_dir, &paths).map_err(|e| e.to_string())?;
            bytes = encoded.0.len();
            for rep in 0..=reps {
                if op != "capture" {
                    floor::edit(&root_dir, &paths).map_err(|e| e.to_string())?;
                }
                let start = Instant::now();
                match op {
                    "capture" => {
                        std::hint::black_box(
                            floor::capture(&root_dir, &paths).map_err(|e| e.to_string())?,
                        );
                    }
                    _ => floor::rollback(
                        &root_dir,
                        &paths,
                        &encoded,
                        op == "rollback-durable",
                        strategy,
                    )
                    .map_err(|e| e.to_string())?,
                }
                if rep > 0 {
                    times.push(start.elapsed().as_secs_f64());
                }
            }
        }
        other => return Err(format!("unknown contender {other}")),
    }
    let result = serde_json::json!({
        "contender": contender, "op": op, "times_s": times, "snapshot_bytes": bytes,
        "peak_rss_kb": peak_rss_kb(),
    });
    println!("{result}");
    Ok(())
}

/// The process's peak resident set size (`VmHWM`), in KiB.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
