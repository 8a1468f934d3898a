//! Throughput of the default redactor on a realistic agent transcript.
//!
//! Generates a JSONL transcript (user prompts, assistant text with code
//! blocks, tool calls, tool outputs with file listings, build and git
//! output, paths, UUIDs and hashes, and a few planted secrets), then times:
//! - `floor`: one keyword pass (the redactor's own Aho-Corasick automaton
//!   over the same text, counting keyword occurrences; no regex, no entropy);
//! - `redact_json`: `Redactor::default().redact_json`, the transcript path;
//! - `redact_text`: the same bytes as plain text.
//!
//! `cargo bench -p agent-checkpoint-redact` runs 50 MiB (`REDACT_BENCH_MIB`
//! changes it); under `cargo test` it runs 1 MiB once, as a smoke test.
//! Profiling aids: `REDACT_BENCH_DUMP=path` writes the workload out;
//! `REDACT_BENCH_ONLY=floor|json|text|none` runs one contender once.

use std::time::{Duration, Instant};

use agent_checkpoint_redact::Redactor;
use serde_json::json;

/// A small deterministic generator (xorshift64).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
    fn chars(&mut self, alphabet: &[u8], n: usize) -> String {
        (0..n)
            .map(|_| char::from(alphabet[self.below(alphabet.len())]))
            .collect()
    }
    fn hex(&mut self, n: usize) -> String {
        self.chars(b"0123456789abcdef", n)
    }
    fn uuid(&mut self) -> String {
        format!(
            "{}-{}-4{}-a{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(3),
            self.hex(3),
            self.hex(12)
        )
    }
}

const WORDS: &[&str] = &[
    "the",
    "function",
    "returns",
    "an",
    "error",
    "when",
    "file",
    "is",
    "missing",
    "so",
    "we",
    "should",
    "handle",
    "that",
    "case",
    "before",
    "calling",
    "rollback",
    "let",
    "me",
    "check",
    "tests",
    "first",
    "I",
    "will",
    "update",
    "module",
    "and",
    "run",
    "cargo",
    "build",
    "again",
    "it",
    "compiles",
    "now",
    "but",
    "one",
    "test",
    "fails",
    "because",
    "snapshot",
    "path",
    "was",
    "normalized",
    "differently",
    "this",
    "fixes",
    "issue",
    "with",
    "symlinks",
    "on",
    "macOS",
    "where",
    "/private/var",
    "differs",
    "from",
    "/var",
    "please",
    "review",
    "changes",
    "in",
    "src/lib.rs",
    "and",
    "core/src/capture.rs",
];

const FILES: &[&str] = &[
    "src/lib.rs",
    "src/main.rs",
    "src/capture.rs",
    "src/rollback.rs",
    "tests/vectors.rs",
    "Cargo.toml",
    "README.md",
    "package.json",
    "bindings-py/src/lib.rs",
    "core/src/snapshot/codec.rs",
    ".env.example",
];

const CODE: &str = "```rust\npub fn capture(root: &dyn Root, paths: &[&str]) -> Result<Snapshot> {\n    let mut files = Vec::with_capacity(paths.len());\n    for p in paths {\n        let rel = RelPath::try_from(*p)?;\n        files.push(root.read(&rel)?);\n    }\n    Ok(Snapshot { version: 1, files })\n}\n```";

fn prose(g: &mut Gen, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(g.pick(WORDS));
    }
    s.push('.');
    s
}

fn listing(g: &mut Gen) -> String {
    let mut s = String::from("total 128\n");
    for _ in 0..(8 + g.below(20)) {
        s.push_str(&format!(
            "-rw-r--r--  1 dev staff {:>6} Jan {:>2} 10:{:02} {}\n",
            g.below(90_000),
            1 + g.below(28),
            g.below(60),
            g.pick(FILES)
        ));
    }
    s
}

fn build_output(g: &mut Gen) -> String {
    let mut s = String::new();
    for _ in 0..(3 + g.below(6)) {
        s.push_str(&format!(
            "   Compiling agent-checkpoint v0.1.0 (/home/dev/work/agent-checkpoint/core)\n     Running unittests src/lib.rs (target/debug/deps/agent_checkpoint-{})\n",
            g.hex(16)
        ));
    }
    s.push_str(&format!(
        "test result: ok. {} passed; 0 failed; 0 ignored\n",
        g.below(300)
    ));
    for _ in 0..(2 + g.below(5)) {
        s.push_str(&format!(
            "commit {}\nAuthor: Dev <dev@example.com>\n\n    {}\n\n",
            g.hex(40),
            prose(g, 8)
        ));
    }
    s
}

/// A planted secret: the text written and the secret value in it.
fn secret(g: &mut Gen) -> (String, String) {
    const AN: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let (name, value) = match g.below(6) {
        0 => ("GITHUB_TOKEN=", format!("ghp_{}", g.chars(AN, 36))),
        1 => (
            "DB_PASSWORD=",
            g.chars(b"abcdefghijklmnopqrstuvwxyz0123456789", 14),
        ),
        2 => (
            "AWS_ACCESS_KEY_ID=",
            format!("AKIA{}", g.chars(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
        ),
        3 => (
            "DATABASE_URL=postgres://app:",
            g.chars(b"abcdefghijkmnpqrstuvwxyz23456789", 12),
        ),
        4 => (
            "ANTHROPIC_API_KEY=",
            format!("sk-ant-api03-{}", g.chars(AN, 93)),
        ),
        _ => (
            "aws_secret_access_key = ",
            g.chars(
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
                40,
            ),
        ),
    };
    let tail = if name.starts_with("DATABASE_URL") {
        "@db.internal:5432/app"
    } else {
        ""
    };
    (format!("{name}{value}{tail}"), value)
}

/// One transcript line of the given kind.
fn line(g: &mut Gen, session: &str, n: usize, planted: &mut Vec<String>) -> String {
    let uuid = g.uuid();
    let parent = g.uuid();
    let ts = format!(
        "2025-01-15T10:{:02}:{:02}.{:03}Z",
        g.below(60),
        g.below(60),
        g.below(1000)
    );
    let with_secret = g.below(400) == 0;
    let mut secret = |g: &mut Gen| {
        let (text, value) = secret(g);
        planted.push(value);
        text
    };
    let value = match n % 4 {
        0 => {
            let words = 20 + g.below(60);
            let mut text = prose(g, words);
            if with_secret {
                text.push_str(&format!(" my env has {}", secret(g)));
            }
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
                   "cwd": "/home/dev/work/agent-checkpoint", "sessionId": session, "version": "1.0.51",
                   "gitBranch": "main", "type": "user",
                   "message": {"role": "user", "content": text}, "uuid": uuid, "timestamp": ts})
        }
        1 => {
            let words = 30 + g.below(80);
            let (head, tail) = (prose(g, words), prose(g, 20));
            let mut text = format!("{head}\n\n{CODE}\n\n{tail}");
            if with_secret {
                text.push_str(&format!("\n{}", secret(g)));
            }
            json!({"parentUuid": parent, "sessionId": session, "type": "assistant",
                   "message": {"id": format!("msg_01{}", g.hex(22)), "type": "message", "role": "assistant",
                               "model": "claude-sonnet-4-20250514",
                               "content": [{"type": "text", "text": text}],
                               "stop_reason": null,
                               "usage": {"input_tokens": g.below(50_000), "output_tokens": g.below(4_000)}},
                   "requestId": format!("req_011{}", g.hex(21)), "uuid": uuid, "timestamp": ts})
        }
        2 => {
            let file = g.pick(FILES);
            json!({"parentUuid": parent, "sessionId": session, "type": "assistant",
                   "message": {"role": "assistant", "content": [{"type": "tool_use", "id": format!("toolu_01{}", g.hex(22)),
                               "name": "Bash", "input": {"command": format!("cat {file} && ls -la src/ && git log -3"),
                                                          "description": "Inspect the file"}}]},
                   "uuid": uuid, "timestamp": ts})
        }
        _ => {
            let mut out = match g.below(3) {
                0 => listing(g),
                1 => build_output(g),
                _ => format!("{CODE}\n{}", listing(g)),
            };
            if with_secret {
                out.push_str(&format!("{}\n", secret(g)));
            }
            json!({"parentUuid": parent, "sessionId": session, "type": "user",
                   "message": {"role": "user", "content": [{"tool_use_id": format!("toolu_01{}", g.hex(22)),
                               "type": "tool_result", "content": out, "is_error": false}]},
                   "toolUseResult": {"stdout": out, "stderr": "", "interrupted": false,
                                     "filePath": format!("/home/dev/work/agent-checkpoint/{}", g.pick(FILES))},
                   "uuid": uuid, "timestamp": ts})
        }
    };
    value.to_string()
}

fn transcript(bytes: usize) -> (String, usize, Vec<String>) {
    let mut g = Gen(0xA6E1_7C4E_C6B0_1D5A);
    let session = g.uuid();
    let mut out = String::with_capacity(bytes + 64 * 1024);
    let (mut lines, mut planted) = (0, Vec::new());
    while out.len() < bytes {
        out.push_str(&line(&mut g, &session, lines, &mut planted));
        out.push('\n');
        lines += 1;
    }
    (out, lines, planted)
}

/// The fastest and the median time of `runs` calls. On a shared machine
/// the fastest run is the one least disturbed by other processes.
fn time(runs: usize, mut f: impl FnMut()) -> (Duration, Duration, Option<f64>) {
    let cpu_before = cpu_seconds();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    let cpu = cpu_seconds()
        .zip(cpu_before)
        .map(|(a, b)| (a - b) / runs as f64);
    times.sort();
    (times[0], times[times.len() / 2], cpu)
}

/// CPU time used by this process so far (all threads; Linux), in seconds:
/// unlike wall time, barely affected by other processes on the machine.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which ends with ')'): utime is the
    // 12th, stime the 13th, in clock ticks (100 per second on Linux).
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let mib: usize = if bench {
        std::env::var("REDACT_BENCH_MIB")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(50)
    } else {
        1
    };
    let runs = if bench { 7 } else { 1 };
    let (text, lines, planted) = transcript(mib << 20);
    let mb = text.len() as f64 / 1e6;
    if let Ok(path) = std::env::var("REDACT_BENCH_DUMP") {
        if let Err(e) = std::fs::write(&path, &text) {
            eprintln!("cannot write {path}: {e}");
        }
    }
    let r = Redactor::default();
    // Build the shared redactor and its lazily compiled rules once.
    let warm = r.redact_json(&text);
    let replaced = warm.matches("REDACTED").count();
    // Every planted secret must be gone.
    let leaked: Vec<&String> = planted
        .iter()
        .filter(|p| warm.contains(p.as_str()))
        .collect();
    assert!(
        leaked.is_empty(),
        "{} of {} planted secrets leaked: {leaked:?}",
        leaked.len(),
        planted.len()
    );
    let planted = planted.len();
    drop(warm);

    // For profilers: `REDACT_BENCH_ONLY=floor|json|text|none` runs one
    // contender once (or none: the workload alone) and prints nothing.
    if let Ok(only) = std::env::var("REDACT_BENCH_ONLY") {
        match only.as_str() {
            "floor" => drop(std::hint::black_box(r.keyword_hits(&text))),
            "json" => drop(std::hint::black_box(r.redact_json(&text))),
            "text" => drop(std::hint::black_box(r.redact_text(&text))),
            _ => {}
        }
        return;
    }
    let mut hits = 0;
    let floor = time(runs, || hits = r.keyword_hits(std::hint::black_box(&text)));
    let json = time(runs, || {
        std::hint::black_box(r.redact_json(std::hint::black_box(&text)));
    });
    let plain = time(runs, || {
        std::hint::black_box(r.redact_text(std::hint::black_box(&text)));
    });
    let rate = |d: Duration| mb / d.as_secs_f64();
    println!(
        "redact throughput: workload {:.1} MiB JSONL transcript, {lines} lines, {planted} planted secrets, {replaced} redactions, {hits} keyword hits",
        text.len() as f64 / (1 << 20) as f64
    );
    // The machine may be shared: say how busy it was.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "redact throughput: {runs} runs each, MB/s of the fastest run (median run in brackets); {cpus} CPUs, load average {}",
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    for (name, (best, median, cpu)) in [
        ("floor (keyword pass)", floor),
        ("redact_json", json),
        ("redact_text", plain),
    ] {
        let per_cpu = cpu.map_or_else(|| "n/a".to_owned(), |c| format!("{:.1}", mb / c));
        println!(
            "redact throughput: {name:<22} {:>7.1} MB/s  ({:.1}); {per_cpu} MB per CPU-second",
            rate(best),
            rate(median)
        );
    }
    println!(
        "redact throughput: redact_json takes {:.2}x the floor's time; goal >= 100 MB/s: {}",
        json.0.as_secs_f64() / floor.0.as_secs_f64(),
        if rate(json.0) >= 100.0 {
            "met"
        } else {
            "NOT met"
        }
    );
}
