//! `agent-checkpoint`: capture and roll back batches of file edits from the shell.
//!
//! Exit codes: 0 success; 1 a rollback that was not `ok` (or a naming check
//! that failed); 2 bad input or an I/O error, printed as one line
//! `error[<code>]: <message>` on stderr.

mod demo;
mod files;
mod naming;

use std::path::PathBuf;
use std::process::ExitCode;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, Error, OnConflict, RollbackOptions};
use clap::{Parser, Subcommand};

/// Targeted snapshot and rollback of the files an edit batch touches.
#[derive(Debug, Parser)]
#[command(name = "agent-checkpoint", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Snapshot PATHs under the root; prints the snapshot JSON (or writes it to -o).
    Capture {
        /// The project root; every path stays inside it.
        #[arg(long)]
        root: PathBuf,
        /// Paths the batch will touch (relative, or absolute inside the root).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Write the snapshot here instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Allow paths with a `.git` component.
        #[arg(long)]
        allow_git_dir: bool,
        /// Refuse files larger than this many bytes.
        #[arg(long)]
        max_file_bytes: Option<u64>,
        /// Seal the snapshot with an HMAC-SHA256 keyed by this file's bytes.
        #[arg(long)]
        key_file: Option<PathBuf>,
    },
    /// Restore the paths captured in FILE; prints the report, exits 1 when not ok.
    Rollback {
        /// The project root.
        #[arg(long)]
        root: PathBuf,
        /// The snapshot file (`-` for stdin).
        file: PathBuf,
        /// Skip fsync of files and directories (faster, not crash-safe).
        #[arg(long)]
        no_durable: bool,
        /// Allow snapshot keys with a `.git` component.
        #[arg(long)]
        allow_git_dir: bool,
        #[command(flatten)]
        guard: GuardArgs,
        /// Write the redo snapshot (the paths as they were before this
        /// rollback) here; rolling it back brings the batch back.
        #[arg(long)]
        redo_out: Option<PathBuf>,
    },
    /// Show what `rollback` would do to each path, touching nothing.
    Plan {
        /// The project root.
        #[arg(long)]
        root: PathBuf,
        /// The snapshot file (`-` for stdin).
        file: PathBuf,
        /// Allow snapshot keys with a `.git` component.
        #[arg(long)]
        allow_git_dir: bool,
        #[command(flatten)]
        guard: GuardArgs,
    },
    /// Record the post-batch state of each captured path (run right after
    /// the batch), so `rollback --on-conflict skip` spares later human edits.
    RecordApplied {
        /// The project root.
        #[arg(long)]
        root: PathBuf,
        /// The snapshot file (`-` for stdin).
        file: PathBuf,
        /// Write the updated snapshot here instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Allow snapshot keys with a `.git` component.
        #[arg(long)]
        allow_git_dir: bool,
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
    /// Run an end-to-end demo in a temporary project and print the check.
    Demo,
    #[command(flatten)]
    Naming(naming::NamingCommand),
}

/// The options `rollback` and `plan` share.
#[derive(Debug, clap::Args)]
struct GuardArgs {
    /// Refuse the snapshot unless it is sealed with this file's bytes as key.
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// What to do with paths changed after `record-applied`.
    #[arg(long, value_enum, default_value = "overwrite")]
    on_conflict: ConflictArg,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ConflictArg {
    /// Restore them anyway.
    Overwrite,
    /// Leave them and report them as conflicts.
    Skip,
}

impl GuardArgs {
    fn options(&self, allow_git_dir: bool) -> Result<RollbackOptions, Error> {
        let mut options = RollbackOptions::default();
        options.allow_git_dir = allow_git_dir;
        options.key = files::read_key(self.key_file.as_deref())?;
        options.on_conflict = match self.on_conflict {
            ConflictArg::Overwrite => OnConflict::Overwrite,
            ConflictArg::Skip => OnConflict::Skip,
        };
        Ok(options)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error[{}]: {e}", e.code());
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<ExitCode, Error> {
    match command {
        Command::Capture {
            root,
            paths,
            output,
            allow_git_dir,
            max_file_bytes,
            key_file,
        } => {
            let root = CapRoot::open(&root, ambient_authority())?;
            let paths = paths
                .iter()
                .map(|p| files::utf8(p))
                .collect::<Result<Vec<_>, _>>()?;
            let mut options = CaptureOptions::default();
            options.allow_git_dir = allow_git_dir;
            options.max_file_bytes = max_file_bytes;
            options.key = files::read_key(key_file.as_deref())?;
            let snapshot = agent_checkpoint::capture(&root, &paths, &options)?;
            files::write_output(output.as_deref(), &snapshot)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Rollback {
            root,
            file,
            no_durable,
            allow_git_dir,
            guard,
            redo_out,
        } => {
            let snapshot = files::read_input(&file)?;
            let root = CapRoot::open(&root, ambient_authority())?;
            let mut options = guard.options(allow_git_dir)?;
            options.durable = !no_durable;
            options.redo = redo_out.is_some();
            let report = agent_checkpoint::rollback(&root, &snapshot, &options);
            if let (Some(path), Some(redo)) = (redo_out.as_deref(), report.redo.as_deref()) {
                files::write_output(Some(path), redo)?;
            }
            print!("{}", files::format_report(&report));
            Ok(if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Plan {
            root,
            file,
            allow_git_dir,
            guard,
        } => {
            let snapshot = files::read_input(&file)?;
            let root = CapRoot::open(&root, ambient_authority())?;
            let plan =
                agent_checkpoint::plan_rollback(&root, &snapshot, &guard.options(allow_git_dir)?)?;
            print!("{}", files::format_plan(&plan));
            Ok(ExitCode::SUCCESS)
        }
        Command::RecordApplied {
            root,
            file,
            output,
            allow_git_dir,
            key_file,
        } => {
            let snapshot = files::read_input(&file)?;
            let root = CapRoot::open(&root, ambient_authority())?;
            let key = files::read_key(key_file.as_deref())?;
            let recorded =
                agent_checkpoint::record_applied(&root, &snapshot, allow_git_dir, key.as_deref())?;
            files::write_output(output.as_deref(), &recorded)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Inspect { file } => {
            let snapshot = files::read_input(&file)?;
            print!(
                "{}",
                files::format_inspect(&agent_checkpoint::inspect_snapshot(&snapshot)?)
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Paths { file } => {
            let snapshot = files::read_input(&file)?;
            // Strict here, unlike `snapshot_paths`: a CLI user wants to know why.
            let parsed = agent_checkpoint::Snapshot::parse(
                &snapshot,
                &agent_checkpoint::ParseOptions::allowing_git_dir(true),
            )?;
            for path in parsed.paths() {
                println!("{path}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo => demo::run(),
        Command::Naming(cmd) => naming::run(cmd),
    }
}
