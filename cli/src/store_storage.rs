//! `agent-checkpoint store du|gc`: what the checkpoints take on disk and
//! getting it back (the store's `storage` module). Both exit 0; `--json`
//! prints the store's report as JSON.

use std::process::ExitCode;
use std::time::Duration;

use agent_checkpoint::Error;
use agent_checkpoint_store::storage::{parse_age, DEFAULT_DU_TOP};
use agent_checkpoint_store::{GcOptions, Store};

use crate::output;

/// The storage subcommands of `store`.
#[derive(Debug, clap::Subcommand)]
pub enum StorageCommand {
    /// Bytes the checkpoints take (persistent checkpoints, undo snapshots,
    /// shadow branches): objects only they reach, packed or loose, plus the
    /// snapshot files; the largest named.
    Du {
        /// How many of the largest entries and sessions to name.
        #[arg(long, default_value_t = DEFAULT_DU_TOP)]
        top: usize,
    },
    /// Remove undo snapshots beyond the retention and shadow branches no
    /// session needs, then free exactly the objects only they reached.
    Gc {
        /// Undo snapshots kept per session (0: every one; default: git
        /// config entire.snapshotRetention, else 100).
        #[arg(long, value_name = "N")]
        keep: Option<usize>,
        /// Undo snapshots older than this go (30d, 12h, 2w, never; default:
        /// git config entire.snapshotMaxAge, else 30d).
        #[arg(long, value_name = "DURATION")]
        older_than: Option<String>,
        /// Also remove persistent checkpoints (git-refs) older than the age
        /// limit; without it they are kept forever.
        #[arg(long)]
        include_checkpoints: bool,
        /// Report what would go; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

/// Runs one storage subcommand.
///
/// # Errors
/// `invalid_argument` for a `--older-than` that is not an age; every
/// store error.
pub fn run(
    store: &Store,
    command: StorageCommand,
    json: bool,
    out: &mut Vec<u8>,
) -> Result<ExitCode, Error> {
    match command {
        StorageCommand::Du { top } => {
            let report = store.du(top)?;
            if json {
                out.extend_from_slice(output::to_json(&report)?.as_bytes());
                return Ok(ExitCode::SUCCESS);
            }
            let mut text = format!(
                "{} bytes in total: {} in {} git objects, {} in snapshot files\n",
                report.total_bytes, report.object_bytes, report.objects, report.snapshot_file_bytes
            );
            for (what, usage) in [
                ("checkpoints", report.checkpoints),
                ("undo snapshots", report.snapshots),
                ("shadow branches", report.shadow_branches),
            ] {
                text.push_str(&format!(
                    "  {what}: {} ref(s), {} bytes\n",
                    usage.refs, usage.bytes
                ));
            }
            if report.shared_bytes > 0 {
                text.push_str(&format!(
                    "  shared between them: {} bytes\n",
                    report.shared_bytes
                ));
            }
            for e in &report.largest {
                text.push_str(&format!(
                    "{:>12}  {}  {}\n",
                    e.bytes,
                    e.kind.as_str(),
                    e.name
                ));
            }
            out.extend_from_slice(text.as_bytes());
            Ok(ExitCode::SUCCESS)
        }
        StorageCommand::Gc {
            keep,
            older_than,
            include_checkpoints,
            dry_run,
        } => {
            let mut options = GcOptions::new()
                .include_checkpoints(include_checkpoints)
                .dry_run(dry_run);
            options.keep = keep;
            if let Some(text) = older_than {
                let age = parse_age(&text).map_err(|r| Error::invalid_argument("older-than", r))?;
                options.older_than = Some(age.unwrap_or(Duration::ZERO));
            }
            let report = store.gc(&options)?;
            if json {
                out.extend_from_slice(output::to_json(&report)?.as_bytes());
                return Ok(ExitCode::SUCCESS);
            }
            let verb = if report.dry_run {
                "would remove"
            } else {
                "removed"
            };
            let mut text = String::new();
            for s in &report.removed_snapshots {
                text.push_str(&format!("{verb} {}  ({})\n", s.ref_name, s.reason));
            }
            for b in &report.removed_branches {
                text.push_str(&format!("{verb} refs/heads/{}  ({})\n", b.branch, b.reason));
            }
            for c in &report.removed_checkpoints {
                text.push_str(&format!("{verb} {}  (checkpoint)\n", c.ref_name));
            }
            text.push_str(&format!(
                "{verb} {} snapshot ref(s), {} shadow branch(es), {} checkpoint(s); {} object(s), {} bytes; {} snapshot file(s), {} bytes\n",
                report.removed_snapshots.len(),
                report.removed_branches.len(),
                report.removed_checkpoints.len(),
                report.objects_removed,
                report.object_bytes_freed,
                report.snapshot_files_removed,
                report.snapshot_file_bytes_freed,
            ));
            out.extend_from_slice(text.as_bytes());
            Ok(ExitCode::SUCCESS)
        }
    }
}
