//! 10,000 queued checkpoints pushed by one `Store::push` call (one `git push`
//! of every ref, queue bookkeeping, progress) against the
//! same refs pushed by hand with one
//! `git push <url> 'refs/entire/checkpoints/*:refs/entire/checkpoints/*'`,
//! each to a fresh empty remote: a bare repository over `file://`, and the
//! same served by `git daemon` on 127.0.0.1 (started and killed here).
//! Then a fresh clone fetches them all treeless and lists them
//! (`Store::fetch_all` + `Store::list`) against `git fetch
//! --filter=blob:none` of the same refs + `git for-each-ref`.
//! BENCHMARKS.md, "Pushing checkpoints". Run in release:
//!
//! ```text
//! cargo run --release -p agent-checkpoint-store --example bench_push [-- --refs N --rounds R] [--fetch-only]
//! ```
//!
//! `--fetch-only` skips the push rounds (the remote is pushed to once by
//! hand) and measures only the fetch; with `BENCH_KEEP=1` as well it stops
//! after that push and leaves the remote on disk (its path printed), for
//! profiling git's side by hand.
//!
//! The checkpoints are written once by `Store::write_session` (one session,
//! a prompt, a 2 KiB transcript each); every round re-queues them. The two
//! contenders alternate within a round, so load on the machine hits both.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agent_checkpoint_naming::PushQueue;
use agent_checkpoint_store::{SessionWrite, Store};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn git(dir: &Path, args: &[&str]) -> Res<String> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

/// `git daemon --enable=receive-pack` serving `base`, killed on drop.
struct Daemon {
    child: Child,
    port: u16,
}

impl Daemon {
    fn start(base: &Path) -> Res<Daemon> {
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let mut cmd = Command::new("git");
        cmd.args([
            "daemon",
            "--enable=receive-pack",
            "--reuseaddr",
            "--listen=127.0.0.1",
            "--export-all",
        ])
        .arg(format!("--port={port}"))
        .arg(format!("--base-path={}", base.display()))
        .arg(base)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn()?;
        for _ in 0..500 {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(Daemon { child, port });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Err("git daemon did not listen within 5 s".into())
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

/// A fresh empty bare repository under `base`; its name.
fn fresh_remote(base: &Path, n: &mut u32) -> Res<String> {
    *n += 1;
    let name = format!("r{n}.git");
    git(base, &["init", "-q", "--bare", &name])?;
    Ok(name)
}

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> Res<()> {
    let refs = arg("--refs", 10_000);
    let rounds = arg("--rounds", 1).max(1);
    let fetch_only = std::env::args().any(|a| a == "--fetch-only");
    let repo = tempfile::tempdir()?;
    git(repo.path(), &["init", "-q"])?;
    git(repo.path(), &["config", "user.name", "Bench"])?;
    git(repo.path(), &["config", "user.email", "bench@example.com"])?;
    let base = tempfile::tempdir()?;
    let daemon = Daemon::start(base.path())?;

    let store = Store::open(repo.path())?;
    let started = Instant::now();
    let transcript =
        "{\"type\":\"assistant\",\"text\":\"lorem ipsum dolor sit amet\"}\n".repeat(32);
    let mut names = Vec::new();
    for n in 0..refs {
        let id = agent_checkpoint_naming::id::new_ulid_at(1_700_000_000_000 + n)?.into_string();
        let written = store.write_session(
            &SessionWrite::new(id, "s1")
                .prompt(format!("prompt {n}"))
                .transcript(transcript.clone().into_bytes()),
        )?;
        names.push(written.ref_name);
    }
    println!(
        "wrote {refs} checkpoints in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let queue = PushQueue::new(store.common_dir());
    let mut remote_no = 0;
    let mut ours = [Vec::new(), Vec::new()];
    let mut by_hand = [Vec::new(), Vec::new()];
    let push_rounds = if fetch_only { 0 } else { rounds };
    for round in 0..push_rounds {
        for (k, label) in ["file://", "git daemon"].into_iter().enumerate() {
            let url = |name: &str| match k {
                0 => format!("file://{}", base.path().join(name).display()),
                _ => format!("git://127.0.0.1:{}/{name}", daemon.port),
            };
            // Ours: one call pushes the whole queue.
            queue.enqueue_all(&names)?;
            let remote = url(&fresh_remote(base.path(), &mut remote_no)?);
            let t = Instant::now();
            let report = store.push(&remote)?;
            let ours_time = t.elapsed();
            if !report.all_pushed() || report.pushed.len() != names.len() {
                return Err(format!("push left refs: {:?}", report.queued).into());
            }
            if !queue.peek()?.refs.is_empty() {
                return Err("the queue is not empty after the push".into());
            }
            // By hand: one git push of the same refs.
            let remote = url(&fresh_remote(base.path(), &mut remote_no)?);
            let t = Instant::now();
            git(
                repo.path(),
                &[
                    "push",
                    "--quiet",
                    "--no-verify",
                    &remote,
                    "refs/entire/checkpoints/*:refs/entire/checkpoints/*",
                ],
            )?;
            let hand_time = t.elapsed();
            println!(
                "round {round} {label:>10}: Store::push {:.2} s, git push by hand {:.2} s",
                ours_time.as_secs_f64(),
                hand_time.as_secs_f64()
            );
            ours[k].push(ours_time);
            by_hand[k].push(hand_time);
        }
    }
    if fetch_only {
        // The remote the fetch rounds read, pushed once by hand.
        let name = fresh_remote(base.path(), &mut remote_no)?;
        let remote = format!("file://{}", base.path().join(name).display());
        git(
            repo.path(),
            &[
                "push",
                "--quiet",
                "--no-verify",
                &remote,
                "refs/entire/checkpoints/*:refs/entire/checkpoints/*",
            ],
        )?;
        if std::env::var_os("BENCH_KEEP").is_some() {
            println!(
                "kept {}",
                base.path().join(format!("r{remote_no}.git")).display()
            );
            std::mem::forget(base);
            return Ok(());
        }
    } else {
        println!();
        println!("| server | Store::push (one call) | git push by hand (one command) | ratio |");
        println!("|---|---|---|---|");
        for (k, label) in ["file://", "git daemon"].into_iter().enumerate() {
            let (a, b) = (median(ours[k].clone()), median(by_hand[k].clone()));
            println!(
                "| {label} | {:.2} s | {:.2} s | {:.2} |",
                a.as_secs_f64(),
                b.as_secs_f64(),
                a.as_secs_f64() / b.as_secs_f64()
            );
        }
    }

    // Fetch: a fresh clone takes every checkpoint treeless and lists them,
    // against git's own treeless fetch of the same refs and a listing of
    // them, from the last remote pushed to (filters allowed).
    let last = format!("r{remote_no}.git");
    git(
        &base.path().join(&last),
        &["config", "uploadpack.allowFilter", "true"],
    )?;
    let mut ours_fetch = [Vec::new(), Vec::new()];
    let mut git_fetch = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        for (k, label) in ["file://", "git daemon"].into_iter().enumerate() {
            let url = match k {
                0 => format!("file://{}", base.path().join(&last).display()),
                _ => format!("git://127.0.0.1:{}/{last}", daemon.port),
            };
            let clone = tempfile::tempdir()?;
            git(clone.path(), &["init", "-q"])?;
            git(clone.path(), &["remote", "add", "origin", &url])?;
            let store = Store::open(clone.path())?;
            let t = Instant::now();
            let report = store.fetch_all("origin")?;
            let fetched_at = t.elapsed();
            let listed = store.list()?;
            let ours_time = t.elapsed();
            if !report.treeless || listed.len() != names.len() {
                return Err(format!(
                    "fetch: treeless {}, {} listed of {}",
                    report.treeless,
                    listed.len(),
                    names.len()
                )
                .into());
            }
            let clone = tempfile::tempdir()?;
            git(clone.path(), &["init", "-q"])?;
            git(clone.path(), &["remote", "add", "origin", &url])?;
            let t = Instant::now();
            git(
                clone.path(),
                &[
                    "fetch",
                    "--quiet",
                    "--no-tags",
                    "--filter=blob:none",
                    "origin",
                    "refs/entire/checkpoints/*:refs/entire/checkpoints/*",
                ],
            )?;
            let listing = git(
                clone.path(),
                &[
                    "for-each-ref",
                    "--format=%(refname) %(objectname)",
                    "refs/entire/checkpoints/",
                ],
            )?;
            let hand_time = t.elapsed();
            if listing.lines().count() != names.len() {
                return Err("git fetch did not bring every ref".into());
            }
            println!(
                "round {round} {label:>10}: Store::fetch_all + list {:.2} s (fetch_all {:.2} s), git fetch --filter=blob:none + for-each-ref {:.2} s",
                ours_time.as_secs_f64(),
                fetched_at.as_secs_f64(),
                hand_time.as_secs_f64()
            );
            ours_fetch[k].push(ours_time);
            git_fetch[k].push(hand_time);
        }
    }
    println!();
    println!("| server | Store::fetch_all + list | git fetch --filter=blob:none + for-each-ref | ratio |");
    println!("|---|---|---|---|");
    for (k, label) in ["file://", "git daemon"].into_iter().enumerate() {
        let (a, b) = (median(ours_fetch[k].clone()), median(git_fetch[k].clone()));
        println!(
            "| {label} | {:.2} s | {:.2} s | {:.2} |",
            a.as_secs_f64(),
            b.as_secs_f64(),
            a.as_secs_f64() / b.as_secs_f64()
        );
    }
    drop(daemon);
    Ok(())
}
