//! Naming subcommands: mint and inspect checkpoint IDs, build and parse
//! checkpoint refs and shadow branch names. Results go to stdout (a JSON
//! object with `--json`); a failed check prints `error[<code>]: <message>`
//! on stderr and exits 1.

use std::process::ExitCode;

use agent_checkpoint::Error;
use agent_checkpoint_naming::{id, refs};
use serde_json::json;

use crate::output::{print_error, print_json};

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
        /// The base commit id, hex (its first 7 characters are used).
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
/// Invalid input to `ref` and `shadow-branch`, and failures to mint an ID;
/// checks that fail (`id check`, `parse-ref`) are reported here and exit 1
/// instead.
pub fn run(cmd: NamingCommand, json: bool) -> Result<ExitCode, Error> {
    match cmd {
        NamingCommand::Id { cmd } => run_id(cmd, json),
        NamingCommand::Ref { id } => {
            let name = refs::ref_name(&id)?;
            show(json, &name, json!({ "ref": name }))
        }
        NamingCommand::ParseRef { name } => parse_ref(&name, json),
        NamingCommand::ShadowBranch { commit, worktree } => {
            let worktree = worktree.unwrap_or_default();
            let branch = refs::shadow_branch_name(&commit, &worktree)?;
            show(json, &branch, json!({ "branch": branch }))
        }
    }
}

/// Prints `text`, or `doc` with `--json`.
fn show(json: bool, text: &str, doc: serde_json::Value) -> Result<ExitCode, Error> {
    if json {
        print_json(&doc)?;
    } else {
        println!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

fn run_id(cmd: IdCommand, json: bool) -> Result<ExitCode, Error> {
    let minted = match cmd {
        IdCommand::New { ulid: false, .. } => id::new_checkpoint_id()?,
        IdCommand::New { ulid: true, at_ms } => id::new_ulid(at_ms)?,
        IdCommand::Check { id } => return check_id(&id, json),
    };
    show(json, minted.as_str(), json!({ "id": minted.as_str() }))
}

fn check_id(s: &str, json: bool) -> Result<ExitCode, Error> {
    let checked = match id::validate_checkpoint_id(s) {
        Ok(checked) => checked,
        Err(e) => return Ok(failed_check(&e, json)),
    };
    let s = checked.as_str();
    let doc = json!({
        "id": s,
        "kind": checked.kind().as_str(),
        "shard": id::shard_for(s),
        "path": id::checkpoint_path(s),
        "ref": refs::ref_name(s)?,
        "timestamp_ms": id::ulid_timestamp_ms(s),
    });
    if json {
        print_json(&doc)?;
        return Ok(ExitCode::SUCCESS);
    }
    for key in ["id", "kind", "shard", "path", "ref", "timestamp_ms"] {
        match &doc[key] {
            serde_json::Value::Null => {}
            serde_json::Value::String(v) => println!("{key}: {v}"),
            other => println!("{key}: {other}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_ref(name: &str, json: bool) -> Result<ExitCode, Error> {
    match refs::parse_ref(name) {
        Some(id) => show(json, &id, json!({ "id": id })),
        None => Ok(failed_check(
            &Error::InvalidRefName {
                name: name.to_owned(),
                reason: format!(
                    "not a checkpoint ref ({}<shard>/<id> with <shard> the id's last two characters)",
                    refs::CHECKPOINT_REF_PREFIX
                ),
            },
            json,
        )),
    }
}

fn failed_check(e: &Error, json: bool) -> ExitCode {
    print_error(e, json);
    ExitCode::from(1)
}
