//! `agent-checkpoint`: capture and roll back batches of file edits from the shell.
//!
//! Exit codes: 0 success; 1 a rollback that was not `ok` (or a naming check
//! that failed); 2 bad input or an I/O error — a refused snapshot included,
//! for `rollback` and `plan` alike — printed as one line
//! `error[<code>]: <message>` on stderr (a JSON object with `--json`).
//! Reports go to stdout; warnings and errors to stderr.

mod demo;
mod files;
mod hook;
mod install;
mod mcp;
mod naming;
mod output;
mod plan_diff;
mod progress;
mod redact_command;
mod rewind;
mod shadow;
mod snapshot_commands;
mod store;
mod store_migrate;
mod store_remote;
mod store_storage;
#[cfg(test)]
mod test_git;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use agent_checkpoint::Error;
use clap::{Parser, Subcommand};

/// Targeted snapshot and rollback of the files an edit batch touches.
#[derive(Debug, Parser)]
#[command(name = "agent-checkpoint", version, about)]
struct Cli {
    /// Print results (and errors) as JSON, one document on stdout.
    #[arg(long, global = true)]
    json: bool,
    /// No progress bars (they appear on stderr, when it is a terminal,
    /// for work that runs longer than a second).
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Snapshot PATHs under the root; prints the snapshot JSON (or writes it to -o).
    Capture {
        /// The project root (default: the current directory); every path stays inside it.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Paths the batch will touch (relative, or absolute inside the root).
        #[arg(required = true, value_parser = clap::value_parser!(OsString))]
        paths: Vec<OsString>,
        /// Write the snapshot here instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Allow paths with a `.git` component.
        #[arg(long)]
        allow_git_dir: bool,
        /// Skip (unread, listed on stderr and in the snapshot's `skipped`) files larger than this many bytes (default 100 MiB).
        #[arg(long, value_name = "N")]
        max_file_bytes: Option<u64>,
        /// Seal the snapshot with an HMAC-SHA256 keyed by this file's bytes.
        #[arg(long)]
        key_file: Option<PathBuf>,
        /// Do not record the root's path in the snapshot.
        #[arg(long)]
        no_record_root: bool,
    },
    /// Restore the paths captured in FILE; prints the report, exits 1 when not ok.
    Rollback {
        #[command(flatten)]
        target: snapshot_commands::Target,
        #[command(flatten)]
        plan: snapshot_commands::PlanArgs,
        /// Skip fsync of files and directories (faster, not crash-safe).
        #[arg(long)]
        no_durable: bool,
        /// Write the redo snapshot (the paths as they were before this
        /// rollback) here; rolling it back brings the batch back.
        #[arg(long)]
        redo_out: Option<PathBuf>,
    },
    /// Show what `rollback` would do to each path, touching nothing.
    Plan {
        #[command(flatten)]
        target: snapshot_commands::Target,
        #[command(flatten)]
        plan: snapshot_commands::PlanArgs,
        #[command(flatten)]
        diff: plan_diff::DiffArgs,
    },
    /// Record the post-batch state of each captured path (run right after
    /// the batch), so `rollback --on-conflict skip` spares later human edits.
    RecordApplied {
        #[command(flatten)]
        target: snapshot_commands::Target,
        /// Write the updated snapshot here instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The key of a sealed snapshot (it is verified and sealed again).
        #[arg(long)]
        key_file: Option<PathBuf>,
    },
    /// Describe each captured path: kind, size, mode, link target, digest.
    Inspect {
        /// The snapshot file (`-` for stdin).
        file: PathBuf,
    },
    /// List the paths captured in FILE.
    Paths {
        /// The snapshot file (`-` for stdin).
        file: PathBuf,
    },
    /// Run an end-to-end demo in a temporary project and print the check
    /// (`--quiet`: the check only; `--json`: one JSON document).
    Demo(demo::DemoArgs),
    /// Redact secrets from FILE (or stdin) onto stdout; `--json`: JSON/JSONL input.
    Redact(redact_command::RedactArgs),
    #[command(flatten)]
    Naming(naming::NamingCommand),
    /// Checkpoints kept in git: write, show, session, list, rollback, plan, push, fetch, ls-remote.
    Store(store::StoreArgs),
    /// Shadow branches, one commit per agent step: step, list, log, rewind, condense, clean.
    Shadow(shadow::ShadowArgs),
    /// Serve the root over the Model Context Protocol (MCP) on stdin/stdout.
    Mcp(mcp::McpArgs),
    /// Write an agent's hook configuration so it runs `agent-checkpoint hook`
    /// (keeps every other hook; `--dry-run` prints the diff).
    Install(install::HookConfigArgs),
    /// Remove our hooks from an agent's configuration, leaving the others.
    Uninstall(install::HookConfigArgs),
    /// Say for each agent whether our hooks are installed, current or drifted.
    Doctor,
    /// Rewind a hooked agent session: --list its turns, --turn N, --step COMMIT, --redo.
    Rewind(rewind::RewindArgs),
    /// Handle one event of an agent's hook (JSON on stdin); always exits 0.
    Hook {
        /// The agent: claude-code, codex, gemini, copilot or cursor.
        agent: String,
        /// The event, for payloads that do not name it.
        event: Option<String>,
    },
}

fn main() -> ExitCode {
    // A hook exits 0 whatever its arguments: it must never break the agent.
    if std::env::args_os().nth(1).is_some_and(|a| a == "hook") {
        let args: Vec<String> = std::env::args_os()
            .skip(2)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let agent = args.first().map(String::as_str).unwrap_or_default();
        return hook::run(agent, args.get(1).map(String::as_str));
    }
    let cli = Cli::parse();
    let json = cli.json;
    match run(cli.command, json, cli.quiet) {
        Ok(code) => code,
        Err(e) => {
            output::print_error(&e, json);
            ExitCode::from(2)
        }
    }
}

fn run(command: Command, json: bool, quiet: bool) -> Result<ExitCode, Error> {
    match command {
        Command::Capture {
            root,
            paths,
            output,
            allow_git_dir,
            max_file_bytes,
            key_file,
            no_record_root,
        } => snapshot_commands::capture(&snapshot_commands::CaptureArgs {
            root,
            paths,
            output,
            allow_git_dir,
            max_file_bytes,
            key_file,
            record_root: !no_record_root,
            quiet,
        }),
        Command::Rollback {
            target,
            plan,
            no_durable,
            redo_out,
        } => snapshot_commands::rollback(
            &target,
            &plan,
            !no_durable,
            redo_out.as_deref(),
            snapshot_commands::Show { json, quiet },
        ),
        Command::Plan { target, plan, diff } => snapshot_commands::plan(
            &target,
            &plan,
            &diff,
            snapshot_commands::Show { json, quiet },
        ),
        Command::RecordApplied {
            target,
            output,
            key_file,
        } => snapshot_commands::record_applied(&target, output.as_deref(), key_file.as_deref()),
        Command::Inspect { file } => snapshot_commands::inspect(&file, json),
        Command::Paths { file } => snapshot_commands::paths(&file, json),
        Command::Demo(args) => demo::run(
            &args,
            match (json, quiet) {
                (true, _) => demo::Show::Json,
                (false, true) => demo::Show::Quiet,
                (false, false) => demo::Show::Text,
            },
        ),
        Command::Redact(args) => redact_command::run(&args, json),
        Command::Naming(cmd) => naming::run(cmd, json),
        Command::Store(args) => store::run(args, json, quiet),
        Command::Shadow(args) => shadow::run(args, json),
        Command::Mcp(args) => {
            // Stdout carries protocol messages only and there is no progress
            // bar: the two global flags would do nothing, so they are refused.
            if let Some(flag) = [(json, "--json"), (quiet, "--quiet")]
                .into_iter()
                .find_map(|(set, flag)| set.then_some(flag))
            {
                return Err(Error::invalid_argument(
                    flag,
                    "does not apply to `mcp` (stdout carries MCP messages only)",
                ));
            }
            mcp::run(args)
        }
        Command::Install(args) => install::install(&args, json),
        Command::Uninstall(args) => install::uninstall(&args, json),
        Command::Doctor => install::doctor(json),
        Command::Rewind(args) => rewind::run(&args, json),
        Command::Hook { agent, event } => Ok(hook::run(&agent, event.as_deref())),
    }
}
