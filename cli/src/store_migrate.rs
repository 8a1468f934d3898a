//! `agent-checkpoint store migrate --to git-refs [--dry-run]`: every
//! checkpoint of the v1 branch copied to git-refs, verified document by
//! document (the store's `Store::migrate`). Exits 0 when every checkpoint
//! is migrated or already present, 1 when any was skipped (a conflict, an
//! unreadable checkpoint); `--json` prints the store's report.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use agent_checkpoint::Error;
use agent_checkpoint_store::{Backend, MigrateOptions, Store};

use crate::output;

/// Checkpoints between two progress lines when stderr is not a terminal.
const PROGRESS_EVERY: usize = 100;

/// Runs the migration; progress on stderr unless `quiet`.
///
/// # Errors
/// `invalid_argument` for a target other than git-refs; the store's errors
/// for a branch that cannot be walked.
pub fn run(
    store: &Store,
    to: Backend,
    dry_run: bool,
    json: bool,
    out: &mut Vec<u8>,
    tty: bool,
    quiet: bool,
) -> Result<ExitCode, Error> {
    let mut options = MigrateOptions::new().dry_run(dry_run);
    if !quiet {
        options = options.progress(Arc::new(move |done: usize, all: usize| {
            let mut err = std::io::stderr().lock();
            // Progress is best effort: a closed stderr stops nothing.
            if tty {
                let _ = write!(err, "\rmigrating checkpoints: {done}/{all}");
                if done == all {
                    let _ = writeln!(err);
                }
            } else if done.is_multiple_of(PROGRESS_EVERY) || done == all {
                let _ = writeln!(err, "migrating checkpoints: {done}/{all}");
            }
        }));
    }
    let report = store.migrate(to, &options)?;
    let code = if report.skipped.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if json {
        out.extend_from_slice(output::to_json(&report)?.as_bytes());
        return Ok(code);
    }
    let verb = if report.dry_run {
        "would migrate"
    } else {
        "migrated"
    };
    let mut text = String::new();
    for s in &report.skipped {
        text.push_str(&format!(
            "skipped {}: [{}] {}\n",
            s.checkpoint_id,
            s.code.as_str(),
            s.reason
        ));
    }
    let commits: usize = report.migrated.iter().map(|m| m.commits).sum();
    text.push_str(&format!(
        "{verb} {} of {} checkpoint(s) to {} ({commits} commit(s)); {} already there; {} skipped; the branch is kept\n",
        report.migrated.len(),
        report.on_branch,
        report.to,
        report.already_present.len(),
        report.skipped.len(),
    ));
    out.extend_from_slice(text.as_bytes());
    Ok(code)
}
