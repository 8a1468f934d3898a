//! Side-by-side timings of the store against the `git` programs
//! (BENCHMARKS.md, "Git store"). Run in release:
//!
//! ```text
//! cargo run --release -p agent-checkpoint-store --example bench_store [-- --list-size N]
//! ```
//!
//! 1. Writing one session (4 prompts, a 200 KiB transcript, 20 files
//!    touched) as a new checkpoint: `Store::write_session` against the same
//!    objects written by `git hash-object -w` (x5), `git mktree` (x2),
//!    `git commit-tree` and `git update-ref`, documents prepared in advance.
//! 2. Listing N checkpoints (default 10,000, one session each):
//!    `Store::list` (a fresh `Store`, so no warm cache) against
//!    `git for-each-ref` piped into `git cat-file --batch` reading the same
//!    two documents per checkpoint (root summary and session metadata), with
//!    loose refs and objects, then again after `git pack-refs` + `git gc`.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agent_checkpoint_store::{SessionWrite, Store};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn git(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Res<String> {
    let mut child = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(input)?;
    }
    let out = child.wait_with_output()?;
    if !out.status.success() {
        return Err(format!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

fn init() -> Res<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    git(dir.path(), &["init", "-q"], None)?;
    git(dir.path(), &["config", "user.name", "Bench"], None)?;
    git(
        dir.path(),
        &["config", "user.email", "bench@example.com"],
        None,
    )?;
    Ok(dir)
}

fn ulid(n: u64) -> Res<String> {
    // Distinct ULIDs in increasing time order.
    Ok(agent_checkpoint_naming::id::new_ulid_at(1_700_000_000_000 + n)?.into_string())
}

fn transcript() -> Vec<u8> {
    let mut t = Vec::with_capacity(205 * 1024);
    let mut i = 0;
    while t.len() < 200 * 1024 {
        t.extend_from_slice(
            format!(
                "{{\"type\":\"assistant\",\"i\":{i},\"text\":\"{}\"}}\n",
                "lorem ipsum ".repeat(8)
            )
            .as_bytes(),
        );
        i += 1;
    }
    t
}

fn session(id: &str, transcript: &[u8]) -> SessionWrite {
    SessionWrite::new(id, "session-1")
        .agent("Claude Code")
        .model("claude-sonnet-4")
        .prompts([
            "add a test",
            "fix the build",
            "refactor the parser",
            "write docs",
        ])
        .transcript(transcript.to_vec())
        .files_touched((0..20).map(|i| format!("src/module_{i}.rs")))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn bench_write(iterations: u64) -> Res<(Duration, Duration)> {
    let t = transcript();
    // The documents for the plumbing side, made in advance (from a store
    // write in a scratch repository), so it only pays for git's work.
    let scratch = init()?;
    let id0 = ulid(0)?;
    Store::open(scratch.path())?.write_session(&session(&id0, &t))?;
    let r = agent_checkpoint_naming::refs::ref_name(&id0)?;
    let file = |p: &str| {
        git(
            scratch.path(),
            &["cat-file", "-p", &format!("{r}:{p}")],
            None,
        )
    };
    let (root_doc, meta_doc, prompt, hash) = (
        file("metadata.json")?,
        file("0/metadata.json")?,
        file("0/prompt.txt")?,
        file("0/content_hash.txt")?,
    );
    let ours_dir = init()?;
    let store = Store::open(ours_dir.path())?;
    let plumbing_dir = init()?;
    let p = plumbing_dir.path();
    // Side by side, alternating, so load on the machine hits both alike.
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for n in 0..iterations {
        let id = ulid(n)?;
        let write = session(&id, &t);
        let start = Instant::now();
        store.write_session(&write)?;
        ours.push(start.elapsed());

        let refname = agent_checkpoint_naming::refs::ref_name(&id)?;
        let start = Instant::now();
        let blob = |bytes: &[u8]| git(p, &["hash-object", "-w", "--stdin"], Some(bytes));
        let (b_t, b_h, b_p, b_m, b_r) = (
            blob(&t)?,
            blob(hash.as_bytes())?,
            blob(prompt.as_bytes())?,
            blob(meta_doc.as_bytes())?,
            blob(root_doc.as_bytes())?,
        );
        let slot = git(
            p,
            &["mktree"],
            Some(format!("100644 blob {b_h}\tcontent_hash.txt\n100644 blob {b_t}\tfull.jsonl\n100644 blob {b_m}\tmetadata.json\n100644 blob {b_p}\tprompt.txt\n").as_bytes()),
        )?;
        let root = git(
            p,
            &["mktree"],
            Some(format!("040000 tree {slot}\t0\n100644 blob {b_r}\tmetadata.json\n").as_bytes()),
        )?;
        let commit = git(
            p,
            &[
                "commit-tree",
                &root,
                "-m",
                "Checkpoint: x\n\nEntire-Session: session-1\nEntire-Strategy: manual-commit\n",
            ],
            None,
        )?;
        git(p, &["update-ref", &refname, &commit, ""], None)?;
        theirs.push(start.elapsed());
    }
    Ok((median(ours), median(theirs)))
}

fn git_list(dir: &Path) -> Res<usize> {
    let mut refs = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args([
            "for-each-ref",
            "--format=%(refname):metadata.json%0a%(refname):0/metadata.json",
            "refs/entire/checkpoints/",
        ])
        .stdout(Stdio::piped())
        .spawn()?;
    let mut cat = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["cat-file", "--batch"])
        .stdin(refs.stdout.take().ok_or("no pipe")?)
        .stdout(Stdio::piped())
        .spawn()?;
    let mut out = Vec::new();
    cat.stdout.take().ok_or("no pipe")?.read_to_end(&mut out)?;
    refs.wait()?;
    cat.wait()?;
    Ok(out.len())
}

fn bench_list(size: u64, rounds: usize) -> Res<Vec<(&'static str, Duration, Duration)>> {
    let dir = init()?;
    let store = Store::open(dir.path())?;
    let start = Instant::now();
    for n in 0..size {
        let id = ulid(n)?;
        store.write_session(
            &SessionWrite::new(&id, format!("s{n}"))
                .agent("Claude Code")
                .prompt("p")
                .files_touched(["src/lib.rs"]),
        )?;
    }
    eprintln!("wrote {size} checkpoints in {:.1?}", start.elapsed());
    let mut results = Vec::new();
    for layout in ["loose", "packed"] {
        if layout == "packed" {
            git(dir.path(), &["pack-refs", "--all"], None)?;
            git(dir.path(), &["gc", "-q"], None)?;
        }
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let start = Instant::now();
            let listed = Store::open(dir.path())?.list()?;
            ours.push(start.elapsed());
            if listed.len() as u64 != size {
                return Err(format!("listed {} of {size}", listed.len()).into());
            }
            let start = Instant::now();
            let bytes = git_list(dir.path())?;
            theirs.push(start.elapsed());
            if bytes == 0 {
                return Err("git read nothing".into());
            }
        }
        results.push((layout, median(ours), median(theirs)));
    }
    Ok(results)
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let size = args
        .iter()
        .position(|a| a == "--list-size")
        .and_then(|i| args.get(i + 1))
        .map_or(Ok(10_000), |s| s.parse())?;
    let (ours, theirs) = bench_write(60)?;
    println!(
        "write session (4 prompts, 200 KiB transcript, 20 files): store {:.2?}, git plumbing {:.2?}: {:.1}x faster",
        ours,
        theirs,
        theirs.as_secs_f64() / ours.as_secs_f64()
    );
    for (layout, ours, theirs) in bench_list(size, 5)? {
        println!(
            "list {size} checkpoints ({layout} refs+objects): store {:.1?}, for-each-ref | cat-file --batch {:.1?}: store/git = {:.2}",
            ours,
            theirs,
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
    }
    Ok(())
}
