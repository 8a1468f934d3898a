//! Naming subcommands: mint and inspect checkpoint IDs, build and parse
//! checkpoint refs and shadow branch names. Results go to stdout; a failed
//! check prints `error[<code>]: <message>` on stderr and exits 1.

use std::process::ExitCode;

use agent_checkpoint::{id, refs, Error};

/// The naming subcommands, flattened into the top-level command.
#[derive(Debug, clap::Subcommand)]
pub enum NamingCommand {
    /// Mint or inspect checkpoint IDs.
    Id {
        /// What to do with IDs.
        #[command(subcommand)]
        cmd: IdCommand,
    },
    /// Print the per-checkpoint ref of ID (refs/entire/checkpoints/<shard>/<id>).
    Ref {
        /// A legacy (12 lowercase hex) or ULID checkpoint ID.
        id: String,
    },
    /// Print the checkpoint ID a ref names; exit 1 if it is not a checkpoint ref.
    ParseRef {
        /// A full ref name, e.g. refs/entire/checkpoints/f6/a1b2c3d4e5f6.
        #[arg(value_name = "REF")]
        name: String,
    },
    /// Print the shadow branch of COMMIT in WORKTREE (the main worktree if omitted).
    ShadowBranch {
        /// The base commit hash (its first 7 characters are used).
        commit: String,
        /// The internal git worktree name; empty or omitted for the main worktree.
        worktree: Option<String>,
    },
}

/// `id` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum IdCommand {
    /// Print a new checkpoint ID: legacy 12-hex, or a ULID with --ulid.
    New {
        /// Mint a ULID instead of a legacy ID.
        #[arg(long)]
        ulid: bool,
        /// The ULID's timestamp in milliseconds since the Unix epoch (default: now).
        #[arg(long, value_name = "N", requires = "ulid")]
        at_ms: Option<u64>,
    },
    /// Print kind, shard, path and ref of ID; exit 1 if it is not a valid ID.
    Check {
        /// The ID to inspect.
        id: String,
    },
}

/// Runs one naming subcommand.
///
/// # Errors
/// Invalid input to `ref` and failures to mint an ID; checks that fail
/// (`id check`, `parse-ref`) are reported here and exit 1 instead.
pub fn run(cmd: NamingCommand) -> Result<ExitCode, Error> {
    match cmd {
        NamingCommand::Id { cmd } => run_id(cmd),
        NamingCommand::Ref { id } => {
            println!("{}", refs::ref_name(&id)?);
            Ok(ExitCode::SUCCESS)
        }
        NamingCommand::ParseRef { name } => Ok(parse_ref(&name)),
        NamingCommand::ShadowBranch { commit, worktree } => {
            let worktree = worktree.unwrap_or_default();
            println!("{}", refs::shadow_branch_name(&commit, &worktree));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run_id(cmd: IdCommand) -> Result<ExitCode, Error> {
    match cmd {
        IdCommand::New { ulid: false, .. } => println!("{}", id::new_checkpoint_id()?),
        IdCommand::New { ulid: true, at_ms } => println!("{}", id::new_ulid(at_ms)?),
        IdCommand::Check { id } => return check_id(&id),
    }
    Ok(ExitCode::SUCCESS)
}

fn check_id(s: &str) -> Result<ExitCode, Error> {
    let checked = match id::validate_checkpoint_id(s) {
        Ok(checked) => checked,
        Err(e) => return Ok(failed_check(&e)),
    };
    let s = checked.as_str();
    println!("id: {s}");
    println!("kind: {}", checked.kind());
    println!("shard: {}", id::shard_for(s));
    println!("path: {}", id::checkpoint_path(s));
    println!("ref: {}", refs::ref_name(s)?);
    if let Some(ms) = id::ulid_timestamp_ms(s) {
        println!("timestamp_ms: {ms}");
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_ref(name: &str) -> ExitCode {
    match refs::parse_ref(name) {
        Some(id) => {
            println!("{id}");
            ExitCode::SUCCESS
        }
        None => failed_check(&Error::InvalidRefName {
            name: name.to_owned(),
            reason: format!(
                "not a checkpoint ref ({}<shard>/<id> with <shard> the id's last two characters)",
                refs::CHECKPOINT_REF_PREFIX
            ),
        }),
    }
}

fn failed_check(e: &Error) -> ExitCode {
    eprintln!("error[{}]: {e}", e.code());
    ExitCode::from(1)
}
