//! Every shell example in the repository's Markdown files runs as written,
//! with the `agent-checkpoint` this test was built with first on `PATH`.
//!
//! The programs come from `tests/readme/blocks.py` (the `sh` blocks of one
//! section, joined). Each runs under `bash -euo pipefail` in a fresh
//! directory, with a git identity in the environment (some examples commit);
//! the lines it shows as `#> ...` must be exactly what it prints.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::path::Path;
use std::process::Command;

#[derive(Debug, serde::Deserialize)]
struct Program {
    file: String,
    section: String,
    line: u64,
    code: String,
    shown: Vec<String>,
}

fn programs() -> Vec<Program> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/readme/blocks.py");
    let out = Command::new("python3")
        .arg(script)
        .arg("sh")
        .output()
        .expect("python3 runs tests/readme/blocks.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_shell_example_runs_and_prints_what_it_shows() {
    let programs = programs();
    assert!(
        programs.iter().any(|p| p.file == "README.md"),
        "the README has shell examples"
    );
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .parent()
        .unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut failures = Vec::new();
    for program in &programs {
        let tmp = tempfile::tempdir().unwrap();
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &program.code])
            .env("PATH", &path)
            .env("GIT_AUTHOR_NAME", "Readme")
            .env("GIT_AUTHOR_EMAIL", "readme@example.com")
            .env("GIT_COMMITTER_NAME", "Readme")
            .env("GIT_COMMITTER_EMAIL", "readme@example.com")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", tmp.path().join(".gitconfig-none"))
            .current_dir(tmp.path())
            .output()
            .unwrap();
        let where_ = format!("{}:{} ({})", program.file, program.line, program.section);
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            failures.push(format!(
                "{where_}: exit {:?}\nstdout:\n{stdout}\nstderr:\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        } else if !program.shown.is_empty() {
            let got: Vec<&str> = stdout.lines().collect();
            if got != program.shown {
                failures.push(format!(
                    "{where_}: printed\n{got:#?}\nbut shows\n{:#?}",
                    program.shown
                ));
            }
        }
        println!("readme sh: {where_}: ran");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
