//! `agent-checkpoint store push|fetch|ls-remote`: sharing checkpoints
//! through a git remote (`--remote`, default `origin`; a remote name or a
//! URL). Progress goes to stderr like git's (the global `--quiet` silences it);
//! results to stdout. `push` exits 0 when everything went, 1 when some refs
//! stay queued (each printed with its code and the remote's reason), 2 on
//! an error; `fetch` without an ID fetches every checkpoint and exits 1
//! when some could not be brought in. `push --dry-run` lists what the push
//! would send and pushes nothing (exit 0).

use std::io::Write;
use std::process::ExitCode;

use agent_checkpoint::Error;
use agent_checkpoint_store::{FetchOutcome, PushProgress, RefFailure, Store};

/// The remote subcommands of `store`.
#[derive(Debug, clap::Subcommand)]
pub enum RemoteCommand {
    /// Push the queued checkpoint refs (and the v1 branch) to a remote; exits 1 when some stay queued.
    Push {
        #[command(flatten)]
        remote: RemoteArg,
        /// List what would be pushed (each checkpoint, its sessions, agent,
        /// files, bytes to upload, whether the remote has it); push nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Fetch checkpoint ID from a remote, or every checkpoint without one.
    Fetch {
        #[command(flatten)]
        remote: RemoteArg,
        /// The checkpoint ID (none: every checkpoint the remote holds).
        id: Option<String>,
    },
    /// List the checkpoints a remote holds, one ID per line (objects with `--json`).
    LsRemote {
        #[command(flatten)]
        remote: RemoteArg,
    },
}

/// `--remote R`.
#[derive(Debug, clap::Args)]
pub struct RemoteArg {
    /// The remote: a name (`git remote`) or a URL.
    #[arg(long, default_value = "origin", value_name = "R")]
    remote: String,
}

/// Where progress goes: stderr, whether it is a terminal (then the count
/// is redrawn in place), and whether `--quiet` silenced it.
pub struct Progress<'a> {
    /// The stream.
    pub err: &'a mut dyn Write,
    /// Whether it is a terminal.
    pub tty: bool,
    /// `--quiet`: print nothing there.
    pub quiet: bool,
}

/// Runs one remote subcommand on `store`.
///
/// # Errors
/// The store's errors (`remote_unreachable`, `auth_failed`, `not_found`,
/// `conflict`, ...), printed by `main` as `error[<code>]: <message>`.
pub fn run(
    store: &Store,
    command: RemoteCommand,
    json: bool,
    out: &mut Vec<u8>,
    progress: Progress<'_>,
) -> Result<ExitCode, Error> {
    match command {
        RemoteCommand::Push {
            remote,
            dry_run: true,
        } => push_plan(store, &remote.remote, json, out),
        RemoteCommand::Push { remote, .. } => push(store, &remote.remote, json, out, progress),
        RemoteCommand::Fetch { remote, id } => {
            fetch(store, &remote.remote, id.as_deref(), json, out, progress)
        }
        RemoteCommand::LsRemote { remote } => {
            let listed = store.list_remote(&remote.remote)?;
            if json {
                writeln!(out, "{}", to_json(&listed)?).map_err(stdout_error)?;
            } else {
                for c in &listed {
                    writeln!(out, "{}", c.checkpoint_id).map_err(stdout_error)?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn push(
    store: &Store,
    remote: &str,
    json: bool,
    out: &mut Vec<u8>,
    progress: Progress<'_>,
) -> Result<ExitCode, Error> {
    let Progress { err, tty, quiet } = progress;
    let mut last = None;
    let mut tell = |p: &PushProgress| {
        if quiet {
            return;
        }
        if p.done() == 0 {
            let _ = writeln!(err, "Pushing {} checkpoint ref(s) to {remote}...", p.total);
        } else if tty {
            let _ = write!(
                err,
                "\rPushing checkpoint refs: {:3}% ({}/{})",
                p.percent(),
                p.done(),
                p.total
            );
        }
        last = Some(*p);
    };
    let result = store.push_with_progress(remote, &mut tell);
    if !quiet && tty && last.is_some_and(|p| p.done() > 0) {
        let _ = writeln!(err, ", done.");
    }
    let report = result?;
    if !quiet {
        let _ = writeln!(
            err,
            "Pushed {} checkpoint ref(s) to {remote}; {} still queued.",
            report.pushed.len(),
            report.queued.len()
        );
    }
    if json {
        writeln!(out, "{}", to_json(&report)?).map_err(stdout_error)?;
    } else {
        print_failures(out, &report.queued)?;
    }
    Ok(if report.all_pushed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `push --dry-run`: one line per ref the push would send (`send` or,
/// when the remote holds it already, `on-remote`), then a summary line.
fn push_plan(
    store: &Store,
    remote: &str,
    json: bool,
    out: &mut Vec<u8>,
) -> Result<ExitCode, Error> {
    let plan = store.push_plan(remote)?;
    if json {
        writeln!(out, "{}", to_json(&plan)?).map_err(stdout_error)?;
        return Ok(ExitCode::SUCCESS);
    }
    for c in &plan.checkpoints {
        writeln!(
            out,
            "{}\t{}\t{} session(s)\t{}\t{} file(s)\t{} bytes",
            if c.on_remote { "on-remote" } else { "send" },
            c.ref_name,
            c.session_ids.len(),
            if c.agent.is_empty() { "-" } else { &c.agent },
            c.files_touched.len(),
            c.upload_bytes
        )
        .map_err(stdout_error)?;
    }
    for d in &plan.dropped {
        writeln!(out, "drop\t{d}").map_err(stdout_error)?;
    }
    let sending = plan.to_send().len();
    writeln!(
        out,
        "Would push {sending} checkpoint ref(s) to {remote} ({} already there), {} bytes to upload at most.",
        plan.checkpoints.len() - sending,
        plan.upload_bytes
    )
    .map_err(stdout_error)?;
    Ok(ExitCode::SUCCESS)
}

fn fetch(
    store: &Store,
    remote: &str,
    id: Option<&str>,
    json: bool,
    out: &mut Vec<u8>,
    progress: Progress<'_>,
) -> Result<ExitCode, Error> {
    let Progress { err, quiet, .. } = progress;
    if let Some(id) = id {
        let fetched = store.fetch(remote, id)?;
        if json {
            writeln!(out, "{}", to_json(&fetched)?).map_err(stdout_error)?;
        } else {
            writeln!(out, "{}\t{}", fetched.outcome.as_str(), fetched.ref_name)
                .map_err(stdout_error)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !quiet {
        let _ = writeln!(err, "Fetching checkpoints from {remote}...");
    }
    let report = store.fetch_all(remote)?;
    if !quiet {
        let count = |o: FetchOutcome| report.fetched.iter().filter(|f| f.outcome == o).count();
        let _ = writeln!(
            err,
            "Fetched {} checkpoint ref(s) from {remote}: {} new, {} updated, {} merged, {} failed.",
            report.fetched.len(),
            count(FetchOutcome::Created),
            count(FetchOutcome::FastForwarded),
            count(FetchOutcome::Replayed),
            report.failed.len()
        );
    }
    if json {
        writeln!(out, "{}", to_json(&report)?).map_err(stdout_error)?;
    } else {
        for f in report
            .fetched
            .iter()
            .filter(|f| f.outcome != FetchOutcome::UpToDate)
        {
            writeln!(out, "{}\t{}", f.outcome.as_str(), f.ref_name).map_err(stdout_error)?;
        }
        print_failures(out, &report.failed)?;
    }
    Ok(if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// One line per ref: `queued <ref> <code>: <reason>`.
fn print_failures(out: &mut Vec<u8>, failures: &[RefFailure]) -> Result<(), Error> {
    for f in failures {
        writeln!(
            out,
            "queued\t{}\t{}: {}",
            f.ref_name,
            f.code.as_str(),
            f.reason
        )
        .map_err(stdout_error)?;
    }
    Ok(())
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|e| Error::invalid_argument("json", e.to_string()))
}

fn stdout_error(e: std::io::Error) -> Error {
    Error::io("<stdout>", e)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use clap::Parser;
    use serde_json::json;
    use std::path::Path;

    fn git(dir: &Path, args: &[&str]) -> String {
        crate::test_git::git_with_home(dir, &dir.parent().unwrap().join("home"), args)
    }

    /// A bare remote and two clones `a`, `b` whose origin it is.
    fn setup() -> (tempfile::TempDir, String) {
        let tmp = tempfile::tempdir().unwrap();
        let remote = tmp.path().join("remote.git");
        std::fs::create_dir(&remote).unwrap();
        git(&remote, &["init", "-q", "--bare"]);
        let url = format!("file://{}", remote.display());
        for name in ["a", "b"] {
            let dir = tmp.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            git(&dir, &["init", "-q"]);
            git(&dir, &["config", "user.name", "T"]);
            git(&dir, &["config", "user.email", "t@example.com"]);
            git(&dir, &["remote", "add", "origin", &url]);
        }
        (tmp, url)
    }

    /// `agent-checkpoint store --repo <dir> <args>`: (exit code, stdout, stderr) or the error.
    fn store(dir: &Path, args: &[&str], tty: bool) -> Result<(ExitCode, String, String), Error> {
        let mut argv = vec!["agent-checkpoint", "store", "--repo", dir.to_str().unwrap()];
        argv.extend(args);
        let cli = crate::Cli::try_parse_from(argv).unwrap();
        let crate::Command::Store(args) = cli.command else {
            panic!("not a store command");
        };
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let progress = Progress {
            err: &mut err,
            tty,
            quiet: cli.quiet,
        };
        let code = crate::store::run_with(args, cli.json, &mut out, progress)?;
        Ok((
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        ))
    }

    const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";
    const OTHER: &str = "01KVBJCWYA4YW6J5M9GP655HZP";

    #[test]
    fn push_fetch_ls_remote_with_progress_and_exit_codes() {
        let (tmp, _) = setup();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        for id in [ULID, OTHER] {
            store(
                &a,
                &["write", "--id", id, "--session", "s1", "--prompt", "hi"],
                false,
            )
            .unwrap();
        }
        let (code, out, err) = store(&a, &["push"], true).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(out, "");
        assert_eq!(
            err,
            "Pushing 2 checkpoint ref(s) to origin...\n\rPushing checkpoint refs: 100% (2/2), done.\nPushed 2 checkpoint ref(s) to origin; 0 still queued.\n"
        );
        // Not a terminal: the first and last lines only; --quiet: nothing.
        let (_, _, err) = store(&a, &["push"], false).unwrap();
        assert_eq!(
            err,
            "Pushing 0 checkpoint ref(s) to origin...\nPushed 0 checkpoint ref(s) to origin; 0 still queued.\n"
        );
        let (_, _, err) = store(&a, &["push", "--quiet"], true).unwrap();
        assert_eq!(err, "");

        let (_, listed, _) = store(&b, &["ls-remote"], false).unwrap();
        assert_eq!(listed, format!("{ULID}\n{OTHER}\n"));
        let (_, listed, _) =
            store(&b, &["--json", "ls-remote", "--remote", "origin"], false).unwrap();
        let v: serde_json::Value = serde_json::from_str(&listed).unwrap();
        assert_eq!(v[0]["local"], "absent");
        assert_eq!(v[0]["backend"], "git-refs");

        let (code, out, _) = store(&b, &["fetch", ULID], false).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(out, format!("created\trefs/entire/checkpoints/ZN/{ULID}\n"));
        let (_, shown, _) = store(&b, &["show", ULID], false).unwrap();
        assert!(shown.contains(ULID));
        let (code, out, err) = store(&b, &["fetch"], false).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(
            out,
            format!("created\trefs/entire/checkpoints/ZP/{OTHER}\n")
        );
        assert!(
            err.ends_with(
                "2 checkpoint ref(s) from origin: 1 new, 0 updated, 0 merged, 0 failed.\n"
            ),
            "{err}"
        );
        let missing = store(&b, &["fetch", "01KVBJCWYA4YW6J5M9GP655HZQ"], false).unwrap_err();
        assert_eq!(missing.code().as_str(), "not_found");
    }

    #[test]
    fn a_conflict_exits_1_with_the_ref_and_its_reason_and_errors_exit_2() {
        let (tmp, _) = setup();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        store(
            &a,
            &["write", "--id", ULID, "--session", "s1", "--prompt", "a"],
            false,
        )
        .unwrap();
        store(&a, &["push", "-q"], false).unwrap();
        store(
            &b,
            &["write", "--id", ULID, "--session", "s1", "--prompt", "b"],
            false,
        )
        .unwrap();
        let (code, out, _) = store(&b, &["push", "-q"], false).unwrap();
        assert_eq!(code, ExitCode::from(1));
        assert!(
            out.starts_with(&format!(
                "queued\trefs/entire/checkpoints/ZN/{ULID}\tconflict: session \"s1\""
            )),
            "{out}"
        );
        let (code, out, _) = store(&b, &["--json", "push", "-q"], false).unwrap();
        assert_eq!(code, ExitCode::from(1));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["queued"][0]["code"], "conflict");
        assert_eq!(v["pushed"], json!([]));
        // The remote cannot be reached: an error (main exits 2 with it).
        let err = store(
            &b,
            &["push", "--remote", "file:///nonexistent/r.git"],
            false,
        )
        .unwrap_err();
        assert_eq!(err.code().as_str(), "remote_unreachable");
        let err = store(&b, &["ls-remote", "--remote=-x"], false).unwrap_err();
        assert_eq!(err.code().as_str(), "invalid_argument");
    }

    #[test]
    fn push_dry_run_lists_what_the_push_sends_in_text_and_json_and_sends_nothing() {
        let (tmp, _) = setup();
        let a = tmp.path().join("a");
        let write = |id: &str, session: &str| {
            let args = [
                "write",
                "--id",
                id,
                "--session",
                session,
                "--agent",
                "Codex",
                "--file",
                "x.rs",
                "--file",
                "y.rs",
            ];
            store(&a, &args, false).unwrap();
        };
        write(ULID, "s1");
        store(&a, &["push", "-q"], false).unwrap();
        write(OTHER, "s2");
        // The pushed one queued again: listed as on the remote.
        let queue = a.join(".git/entire-checkpoint-push-queue.jsonl");
        let mut lines = std::fs::read_to_string(&queue).unwrap();
        lines.push_str(&format!(
            "{{\"ref\":\"refs/entire/checkpoints/ZN/{ULID}\"}}\n"
        ));
        std::fs::write(&queue, &lines).unwrap();

        let (code, out, err) = store(&a, &["push", "--dry-run"], false).unwrap();
        assert_eq!(code, ExitCode::SUCCESS);
        assert_eq!(err, "");
        let rows: Vec<&str> = out.lines().collect();
        assert_eq!(rows.len(), 3, "{out}");
        assert!(
            rows[0].starts_with(&format!(
                "send\trefs/entire/checkpoints/ZP/{OTHER}\t1 session(s)\tCodex\t2 file(s)\t"
            )),
            "{out}"
        );
        assert_eq!(
            rows[1],
            format!(
                "on-remote\trefs/entire/checkpoints/ZN/{ULID}\t1 session(s)\tCodex\t2 file(s)\t0 bytes"
            )
        );
        assert!(
            rows[2].starts_with("Would push 1 checkpoint ref(s) to origin (1 already there), "),
            "{out}"
        );
        assert_eq!(
            std::fs::read_to_string(&queue).unwrap(),
            lines,
            "queue untouched"
        );

        let (_, out, _) = store(&a, &["--json", "push", "--dry-run"], false).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["remote"], "origin");
        let first = &v["checkpoints"][0];
        assert_eq!(first["checkpoint_id"], OTHER);
        assert_eq!(first["on_remote"], false);
        assert_eq!(first["queued"], true);
        assert_eq!(first["session_ids"], json!(["s2"]));
        assert_eq!(first["agent"], "Codex");
        assert_eq!(first["files_touched"], json!(["x.rs", "y.rs"]));
        assert!(first["upload_bytes"].as_u64().unwrap() > 0);
        assert_eq!(v["checkpoints"][1]["on_remote"], true);
        assert_eq!(v["upload_bytes"], first["upload_bytes"]);

        // The push then sends just that one.
        let (_, out, _) = store(&a, &["--json", "push", "-q"], false).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["queued"], json!([]));
        let (_, out, _) = store(&a, &["push", "--dry-run"], false).unwrap();
        assert!(
            out.starts_with("Would push 0 checkpoint ref(s) to origin (0 already there), 0 bytes"),
            "{out}"
        );
    }
}
