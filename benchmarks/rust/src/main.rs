//! `ckpt-bench`: generates the benchmark workloads and runs two contenders,
//! the Rust core and the hardware floor, printing one JSON line per run set.
//!
//! ```text
//! ckpt-bench gen <workload> <dir>             # writes <dir>/root and <dir>/paths.txt
//! ckpt-bench run <contender> <op> <dir> <reps> [--no-redo]
//!   contender: core | floor;  op: capture | rollback | rollback-durable
//! ```

mod floor;
mod workload;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, RollbackOptions};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("gen") if args.len() == 3 => workload::generate(&args[1], Path::new(&args[2])),
        Some("run") if args.len() >= 5 => run(&args[1..]),
        _ => Err("usage: ckpt-bench gen <workload> <dir> | run <contender> <op> <dir> <reps> [--no-redo]".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ckpt-bench: {e}");
            ExitCode::from(2)
        }
    }
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
                _ => {
                    agent_checkpoint::capture(&root, &paths, &options).map_err(|e| e.to_string())?
                }
            };
            let mut size = snapshot.len();
            let mut rollback_options = RollbackOptions::default();
            rollback_options.durable = op == "rollback-durable";
            rollback_options.redo = redo;
            // One untimed run first: every contender measures a warm cache.
            for rep in 0..=reps {
                let start = Instant::now();
                match op {
                    "capture" => {
                        let s = agent_checkpoint::capture(&root, &paths, &options)
                            .map_err(|e| e.to_string())?;
                        size = s.len();
                        std::hint::black_box(s);
                    }
                    _ => {
                        let report =
                            agent_checkpoint::rollback(&root, &snapshot, &rollback_options);
                        if !report.ok() {
                            return Err(format!(
                                "rollback not ok: {:?}",
                                report.unrestored.first()
                            ));
                        }
                        std::hint::black_box(report);
                    }
                }
                if rep > 0 {
                    times.push(start.elapsed().as_secs_f64());
                }
            }
            bytes = size;
        }
        "floor" => {
            let encoded = floor::capture(&root_dir, &paths).map_err(|e| e.to_string())?;
            bytes = encoded.0.len();
            for rep in 0..=reps {
                let start = Instant::now();
                match op {
                    "capture" => {
                        std::hint::black_box(
                            floor::capture(&root_dir, &paths).map_err(|e| e.to_string())?,
                        );
                    }
                    _ => floor::rollback(&root_dir, &paths, &encoded, op == "rollback-durable")
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
