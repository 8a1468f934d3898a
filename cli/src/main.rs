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
use agent_checkpoint::{CapRoot, CaptureOptions, Error, RollbackOptions};
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
        } => {
            let root = CapRoot::open(&root, ambient_authority())?;
            let paths = paths
                .iter()
                .map(|p| files::utf8(p))
                .collect::<Result<Vec<_>, _>>()?;
            let mut options = CaptureOptions::default();
            options.allow_git_dir = allow_git_dir;
            options.max_file_bytes = max_file_bytes;
            let snapshot = agent_checkpoint::capture(&root, &paths, &options)?;
            files::write_output(output.as_deref(), &snapshot)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Rollback {
            root,
            file,
            no_durable,
            allow_git_dir,
        } => {
            let snapshot = files::read_input(&file)?;
            let root = CapRoot::open(&root, ambient_authority())?;
            let mut options = RollbackOptions::default();
            options.durable = !no_durable;
            options.allow_git_dir = allow_git_dir;
            let report = agent_checkpoint::rollback(&root, &snapshot, &options);
            print!("{}", files::format_report(&report));
            Ok(if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
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
