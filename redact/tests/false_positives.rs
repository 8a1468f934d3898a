//! False positives, measured: the default redactor over this repository's
//! own sources and lockfiles and over generated corpora of UUIDs, git SHAs,
//! SHA-256 digests, ULIDs, file paths and ordinary prose. Prints the count of
//! redactions per corpus and requires none outside the files that hold
//! deliberate test secrets (listed below; each must still hold one, so the
//! list cannot go stale).

use std::path::{Path, PathBuf};
use std::process::Command;

use agent_checkpoint_redact::Redactor;

/// Files that hold deliberate, made-up secrets: test vectors, rule tests,
/// unit tests, the bindings' and the CLI's redaction tests, and docs whose
/// examples show a redaction.
const DELIBERATE: &[&str] = &[
    "README.md",
    "bindings-node/README.md",
    "bindings-node/__test__/redact.test.mjs",
    "bindings-py/README.md",
    "bindings-py/tests/test_redact.py",
    "bindings-wasm/README.md",
    "bindings-wasm/examples/browser-app.ts",
    "bindings-wasm/tests/redact.test.mjs",
    "cli/src/store.rs",
    "cli/tests/hooks.rs",
    "cli/tests/redact.rs",
    "docs/STORE.md",
    "mcp/tests/server/git_store.rs",
    "redact/README.md",
    "redact/src/assign.rs",
    "redact/src/entropy.rs",
    "redact/src/json.rs",
    "redact/src/keyword_value.rs",
    "redact/src/kube.rs",
    "redact/src/kube_json.rs",
    "redact/src/lib.rs",
    // The rule table: every rule's made-up true positives beside it.
    "redact/src/rules.rs",
    "redact/src/shapes.rs",
    "redact/src/urls.rs",
    "redact/src/xml.rs",
    "redact/tests/attack_redaction.rs",
    "redact/tests/generic.rs",
    "redact/tests/properties.rs",
    "redact/tests/rules.rs",
    "store/tests/default_redaction.rs",
    "store/tests/redaction_bytes.rs",
    "store/tests/shadow_step.rs",
    "store/tests/snapshot_privacy.rs",
    "store/tests/undo_and_redaction.rs",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn is_corpus_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == "Cargo.lock"
        || name == "package-lock.json"
        || [".rs", ".py", ".mjs", ".js", ".ts", ".md"]
            .iter()
            .any(|e| name.ends_with(e))
}

/// Redactions in `text`, as JSON when `json` is set.
fn count(r: &Redactor, text: &str, json: bool) -> usize {
    if json {
        r.redact_json_with_findings(text).findings.len()
    } else {
        r.redact_text_with_findings(text).findings.len()
    }
}

/// A small deterministic generator (xorshift64).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[(self.next() % 16) as usize]))
            .collect()
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[(self.next() % from.len() as u64) as usize]
    }
}

fn uuids(g: &mut Gen, n: usize) -> String {
    (0..n)
        .map(|i| {
            let u = format!(
                "{}-{}-4{}-{}{}-{}",
                g.hex(8),
                g.hex(4),
                g.hex(3),
                g.pick(&["8", "9", "a", "b"]),
                g.hex(3),
                g.hex(12)
            );
            match i % 3 {
                0 => format!("{u}\n"),
                1 => format!("session {u} resumed\n"),
                _ => format!("{{\"uuid\":\"{u}\",\"parent\":\"{u}\"}}\n"),
            }
        })
        .collect()
}

fn git_shas(g: &mut Gen, n: usize) -> String {
    (0..n)
        .map(|i| {
            let sha = g.hex(40);
            if i % 2 == 0 {
                format!("commit {sha}\n")
            } else {
                format!("{} {sha} refs/heads/entire/{}\n", g.hex(40), g.hex(7))
            }
        })
        .collect()
}

fn sha256s(g: &mut Gen, n: usize) -> String {
    (0..n)
        .map(|i| {
            let d = g.hex(64);
            match i % 3 {
                0 => format!("{d}  target/release/agent-checkpoint\n"),
                1 => format!("sha256:{d}\n"),
                _ => format!("\"checksum\": \"{d}\"\n"),
            }
        })
        .collect()
}

fn ulids(g: &mut Gen, n: usize) -> String {
    const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    (0..n)
        .map(|_| {
            let id: String = (0..26)
                .map(|k| {
                    char::from(
                        CROCKFORD[if k == 0 {
                            (g.next() % 8) as usize
                        } else {
                            (g.next() % 32) as usize
                        }],
                    )
                })
                .collect();
            format!("checkpoint {id} ({})\n", g.hex(12))
        })
        .collect()
}

fn paths(g: &mut Gen, n: usize) -> String {
    let dirs = [
        "src",
        "tests",
        "core",
        "bindings-py",
        "node_modules",
        "@types",
        "target",
        "debug",
        "deps",
        "fixtures",
        "agent-checkpoint",
        "reliability_confinement",
        "TestE2E_Something3407889464",
        "001",
        ".git",
        "objects",
        "__pycache__",
        "site-packages",
        "Library",
        "Application Support",
        "var",
        "folders",
        "zz",
        "zyxvpxvq6csfxvn_n0000000000000",
        "T",
        "pytest-of-root",
        "pytest-12",
        "index.crates.io-1949cf8c6b5b557f",
    ];
    let files = [
        "controller.go",
        "main.rs",
        "lib.rs",
        "index.d.ts",
        "__init__.py",
        "package.json",
        "Cargo.toml",
        "README.md",
        "snapshot_parse.rs",
        "test_vectors.py",
        "vectors.test.mjs",
        "metadata.json",
        "full.jsonl",
    ];
    (0..n)
        .map(|i| {
            let depth = 2 + (g.next() % 6) as usize;
            let mut p = String::from(if i % 4 == 0 {
                "/home/dev/work"
            } else if i % 4 == 1 {
                "C:\\Users\\dev"
            } else {
                ""
            });
            for _ in 0..depth {
                p.push(if i % 4 == 1 { '\\' } else { '/' });
                p.push_str(g.pick(&dirs));
            }
            p.push('/');
            p.push_str(g.pick(&files));
            if i % 5 == 0 {
                format!("{{\"file_path\":\"{p}\",\"content\":\"edited {p}\"}}\n")
            } else if i % 7 == 0 {
                format!(
                    "target/debug/deps/libagent_checkpoint_redact-{}.rlib {p}\n",
                    g.hex(16)
                )
            } else {
                format!("{p}\n")
            }
        })
        .collect()
}

fn prose(g: &mut Gen, n: usize) -> String {
    let words = [
        "the",
        "agent",
        "edited",
        "three",
        "files",
        "and",
        "ran",
        "the",
        "tests",
        "which",
        "passed",
        "after",
        "a",
        "second",
        "attempt",
        "rollback",
        "restores",
        "exactly",
        "those",
        "paths",
        "please",
        "review",
        "this",
        "change",
        "before",
        "merging",
        "it",
        "into",
        "main",
        "we",
        "should",
        "rename",
        "function",
        "to",
        "something",
        "clearer",
        "like",
        "capture_then_rollback",
        "or",
        "RedactorBuilder",
        "because",
        "current",
        "name",
        "is",
        "confusing",
        "password",
        "reset",
        "flow",
        "token",
        "budget",
        "secret",
        "sauce",
        "key",
        "insight",
        "is",
        "that",
        "checkpoint",
        "IDs",
        "are",
        "ULIDs",
        "version",
        "1.2.3",
        "released",
        "on",
        "2024-01-15",
        "at",
        "10:30",
        "UTC",
        "with",
        "42",
        "fixes",
        "see",
        "issue",
        "#15",
        "TODO:",
        "handle",
        "EINTR",
        "retry",
        "HTTP",
        "404",
        "Not",
        "Found",
        "user@host",
        "ssh",
        "git@github.com:org/repo.git",
        "https://docs.rs/regex/latest/regex/",
        "http://localhost:8080/health",
        "x=1,",
        "y=2;",
        "DB_HOST=localhost",
        "PWD=/workspace/project",
        "password=not-a-secret-setting",
        "self.assertEqual(a,",
        "b)",
        "fn",
        "main()",
        "{",
        "}",
        "->",
        "Result<(),",
        "Error>",
        "Bearer",
        "tokens",
        "expire",
        "after",
        "one",
        "hour",
        "AbstractSingletonProxyFactoryBean",
        "XMLHttpRequestUploadEventTarget",
        "unwrap_or_else",
        "--release",
    ];
    let mut out = String::new();
    for i in 0..n {
        let len = 6 + (g.next() % 18) as usize;
        let sentence: Vec<&str> = (0..len).map(|_| g.pick(&words)).collect();
        out.push_str(&sentence.join(" "));
        out.push_str(if i % 3 == 0 { ".\n" } else { ". " });
    }
    out
}

#[test]
fn no_false_positives() {
    let r = Redactor::default();
    let root = repo_root();
    let mut report: Vec<(String, usize)> = Vec::new();
    let mut offenders: Vec<String> = Vec::new();
    let mut stale: Vec<&str> = Vec::new();

    // This repository's own files.
    let listed = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args(["ls-files", "-z"])
        .output();
    match listed {
        Ok(out) if out.status.success() => {
            let files: Vec<String> = out
                .stdout
                .split(|b| *b == 0)
                .filter_map(|p| std::str::from_utf8(p).ok())
                .filter(|p| !p.is_empty() && is_corpus_file(p))
                .map(str::to_owned)
                .collect();
            let (mut sources, mut cargo_lock, mut npm_lock, mut scanned) = (0, 0, 0, 0);
            for f in &files {
                if f.starts_with("tests/vectors/") || DELIBERATE.contains(&f.as_str()) {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(root.join(f)) else {
                    continue;
                };
                scanned += 1;
                let found = r.redact_text_with_findings(&text);
                for fd in &found.findings {
                    let line = text[..fd.start].matches('\n').count() + 1;
                    offenders.push(format!(
                        "{f}:{line}: {} {:?}",
                        fd.rule,
                        &text[fd.start..fd.end]
                    ));
                }
                let n = found.findings.len();
                if f.ends_with("Cargo.lock") {
                    cargo_lock += n;
                } else if f.ends_with("package-lock.json") {
                    npm_lock += n;
                } else {
                    sources += n;
                }
            }
            assert!(scanned > 100, "only {scanned} files scanned");
            report.push((format!("sources ({scanned} files)"), sources));
            report.push(("Cargo.lock".to_owned(), cargo_lock));
            report.push(("package-lock.json".to_owned(), npm_lock));
            // The deliberate files must hold a secret, or leave the list.
            for f in DELIBERATE {
                if let Ok(text) = std::fs::read_to_string(root.join(f)) {
                    if r.redact_text_with_findings(&text).findings.is_empty() {
                        stale.push(*f);
                    }
                }
            }
        }
        _ => {
            println!("redact false-positives: git ls-files unavailable, repository sources skipped")
        }
    }

    // Generated corpora.
    let mut g = Gen(0x5EED_CAFE_F00D_1234);
    let corpora: [(&str, String); 6] = [
        ("uuids", uuids(&mut g, 3000)),
        ("git shas", git_shas(&mut g, 3000)),
        ("sha256", sha256s(&mut g, 3000)),
        ("ulids", ulids(&mut g, 3000)),
        ("paths", paths(&mut g, 3000)),
        ("prose", prose(&mut g, 1500)),
    ];
    for (name, text) in &corpora {
        let found = r.redact_text_with_findings(text);
        for fd in found.findings.iter().take(5) {
            offenders.push(format!("{name}: {} {:?}", fd.rule, &text[fd.start..fd.end]));
        }
        let as_json = count(&r, text, true);
        report.push(((*name).to_owned(), found.findings.len() + as_json));
    }

    let line: Vec<String> = report.iter().map(|(n, c)| format!("{n} {c}")).collect();
    println!("redact false-positives: {}", line.join(", "));
    assert!(
        offenders.is_empty(),
        "false positives:\n{}",
        offenders.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed as holding test secrets but hold none (remove them from DELIBERATE): {stale:?}"
    );
}
