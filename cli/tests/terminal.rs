//! What a person at a terminal sees: `plan --diff` colored and progress bars
//! on stderr when the output is a terminal (a pseudo-terminal made by
//! `script`), plain text and no bars when it is a pipe, none with --quiet.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_agent-checkpoint");

/// Runs the binary with `args` in `dir` under a pseudo-terminal; what the
/// terminal received (stdout and stderr both).
fn on_terminal(dir: &Path, args: &str) -> String {
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &format!("{BIN} {args}"), "/dev/null"])
        .current_dir(dir)
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .env("AGENT_CHECKPOINT_PROGRESS_DELAY_MS", "0")
        .output()
        .expect("`script` (util-linux) runs: the terminal tests need it");
    assert!(out.status.success(), "{args}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs the binary with stdout and stderr piped; (stdout, stderr).
fn piped(dir: &Path, args: &[&str]) -> (String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env("AGENT_CHECKPOINT_PROGRESS_DELAY_MS", "0")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A project, its snapshot in snap.json, and a batch applied.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("app.py"), "import os\n\nprint('hello')\n").unwrap();
    let (_, _) = piped(p, &["capture", "app.py", "new.txt", "-o", "snap.json"]);
    std::fs::write(p.join("app.py"), "import os\nimport sys\n\nprint('bye')\n").unwrap();
    std::fs::write(p.join("new.txt"), "made by the batch\n").unwrap();
    dir
}

#[test]
fn the_diff_is_colored_on_a_terminal_and_plain_in_a_pipe() {
    let dir = project();
    let screen = on_terminal(dir.path(), "plan --diff snap.json");
    for colored in [
        "\x1b[1mwrite     app.py  (+1 -2)\x1b[m",
        "\x1b[36m@@ -1,4 +1,3 @@\x1b[m",
        "\x1b[31m-import sys\x1b[m",
        "\x1b[31m-print('bye')\x1b[m",
        "\x1b[32m+print('hello')\x1b[m",
    ] {
        assert!(screen.contains(colored), "{colored:?} not in {screen:?}");
    }
    assert!(screen.contains("2 files, +1 -2 lines"), "{screen:?}");

    let (out, err) = piped(dir.path(), &["plan", "--diff", "snap.json"]);
    assert!(!out.contains('\x1b') && err.is_empty(), "{out:?} {err:?}");
    assert_eq!(
        out,
        "write     app.py  (+1 -2)\n--- a/app.py\n+++ b/app.py\n@@ -1,4 +1,3 @@\n import os\n-import sys\n \n-print('bye')\n+print('hello')\nremove    new.txt  (remove file of 18 bytes)\n2 files, +1 -2 lines\n"
    );
    // --color overrides what the output is.
    let (forced, _) = piped(
        dir.path(),
        &["plan", "--diff", "--color=always", "snap.json"],
    );
    assert!(forced.contains("\x1b[31m-import sys\x1b[m"), "{forced:?}");
    let plain = on_terminal(dir.path(), "--quiet plan --diff --color=never snap.json");
    assert!(!plain.contains('\x1b'), "{plain:?}");
}

#[test]
fn progress_bars_on_a_terminal_only_and_not_when_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let names: Vec<String> = (0..300).map(|i| format!("f{i:03}.txt")).collect();
    for name in &names {
        std::fs::write(p.join(name), name).unwrap();
    }
    let args = format!("capture -o snap.json {}", names.join(" "));
    let screen = on_terminal(p, &args);
    assert!(screen.contains("capture ["), "{screen:?}");
    assert!(screen.contains("/300 paths"), "{screen:?}");
    for name in &names {
        std::fs::write(p.join(name), "changed").unwrap();
    }
    let screen = on_terminal(p, "rollback snap.json");
    assert!(screen.contains("check ["), "{screen:?}");
    assert!(screen.contains("restore ["), "{screen:?}");
    assert!(screen.contains("300 restored"), "{screen:?}");

    let quiet = on_terminal(p, &format!("--quiet {args}"));
    assert!(!quiet.contains("paths"), "{quiet:?}");
    let mut piped_args = vec!["capture", "-o", "snap.json"];
    piped_args.extend(names.iter().map(String::as_str));
    let (_, err) = piped(p, &piped_args);
    assert!(err.is_empty(), "{err:?}");
}
