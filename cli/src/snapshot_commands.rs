//! The snapshot commands: capture, rollback, plan, record-applied, inspect, paths.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, CaptureOptions, Error, OnConflict, ParseOptions, PlanOptions, RecordOptions,
    RollbackOptions, Snapshot,
};

use crate::plan_diff::{self, DiffArgs};
use crate::progress::Bars;
use crate::{files, output};

/// Where a snapshot is applied: the root and the snapshot file.
#[derive(Debug, clap::Args)]
pub struct Target {
    /// The project root (default: the current directory).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// The snapshot file (`-` for stdin).
    file: PathBuf,
    /// Allow snapshot keys with a `.git` component.
    #[arg(long)]
    allow_git_dir: bool,
}

/// The options that change what a rollback decides (and so its plan).
#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    /// Refuse the snapshot unless it is sealed with this file's bytes as key.
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// What to do with paths changed after `record-applied`.
    #[arg(long, value_enum, default_value = "overwrite")]
    on_conflict: ConflictArg,
    /// Restore set-user-id / set-group-id bits (never restored otherwise).
    #[arg(long)]
    restore_setid: bool,
    /// Refuse a snapshot taken under another root (otherwise: a warning).
    #[arg(long)]
    strict_root: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ConflictArg {
    /// Restore them anyway.
    Overwrite,
    /// Leave them and report them as conflicts.
    Skip,
}

impl PlanArgs {
    /// The plan options these arguments ask for.
    pub fn options(&self) -> Result<PlanOptions, Error> {
        Ok(PlanOptions::default()
            .with_key(files::read_key(self.key_file.as_deref())?)
            .with_on_conflict(match self.on_conflict {
                ConflictArg::Overwrite => OnConflict::Overwrite,
                ConflictArg::Skip => OnConflict::Skip,
            })
            .with_restore_setid(self.restore_setid)
            .with_strict_root(self.strict_root))
    }

    /// The rollback options these arguments ask for, with `durable` and
    /// `redo` (the same decisions as [`PlanArgs::options`]).
    pub fn rollback_options(&self, durable: bool, redo: bool) -> Result<RollbackOptions, Error> {
        let plan = self.options()?;
        Ok(RollbackOptions::default()
            .with_key(plan.key)
            .with_on_conflict(plan.on_conflict)
            .with_restore_setid(plan.restore_setid)
            .with_strict_root(plan.strict_root)
            .with_durable(durable)
            .with_redo(redo))
    }
}

impl Target {
    /// The root, opened, and the snapshot, parsed (with `key` checked first).
    fn open(&self, key: Option<&agent_checkpoint::SealKey>) -> Result<(CapRoot, Snapshot), Error> {
        let text = files::read_snapshot(&self.file)?;
        let parse = ParseOptions::allowing_git_dir(self.allow_git_dir).with_key(key.cloned());
        let snapshot = Snapshot::parse(&text, &parse)?;
        let root = CapRoot::open(&self.root, ambient_authority())?;
        Ok((root, snapshot))
    }
}

/// The arguments of `capture`.
pub struct CaptureArgs {
    pub root: PathBuf,
    pub paths: Vec<OsString>,
    pub output: Option<PathBuf>,
    pub allow_git_dir: bool,
    pub max_file_bytes: Option<u64>,
    pub key_file: Option<PathBuf>,
    pub record_root: bool,
    pub quiet: bool,
}

/// How a command shows its work: JSON or text, with or without progress.
#[derive(Debug, Clone, Copy)]
pub struct Show {
    pub json: bool,
    pub quiet: bool,
}

/// `capture`: prints (or writes) the snapshot.
pub fn capture(args: &CaptureArgs) -> Result<ExitCode, Error> {
    let root = CapRoot::open(&args.root, ambient_authority())?;
    let paths = args
        .paths
        .iter()
        .map(|p| files::utf8(Path::new(p)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut options = CaptureOptions::default()
        .with_allow_git_dir(args.allow_git_dir)
        .with_key(files::read_key(args.key_file.as_deref())?)
        .with_record_root(args.record_root);
    if let Some(max) = args.max_file_bytes {
        options = options.with_max_file_bytes(max);
    }
    let bars = Bars::for_stderr(args.quiet);
    let options = options.with_progress(bars.as_ref().map(Bars::callback));
    let captured = agent_checkpoint::capture_report(&root, &paths, &options)?;
    drop(bars);
    files::write_output(args.output.as_deref(), captured.snapshot.as_str())?;
    if !args.quiet {
        for file in &captured.skipped {
            eprintln!(
                "skipped {} ({} bytes, over --max-file-bytes): not captured, a rollback leaves it as it is",
                file.path, file.size
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `rollback`: prints the report; exit 1 when not ok.
pub fn rollback(
    target: &Target,
    plan: &PlanArgs,
    durable: bool,
    redo_out: Option<&Path>,
    show: Show,
) -> Result<ExitCode, Error> {
    let json = show.json;
    let bars = Bars::for_stderr(show.quiet);
    let options = plan
        .rollback_options(durable, redo_out.is_some())?
        .with_progress(bars.as_ref().map(Bars::callback));
    let (root, snapshot) = target.open(options.key.as_ref())?;
    let report = agent_checkpoint::rollback(&root, &snapshot, &options)?;
    drop(bars);
    if let (Some(path), Some(redo)) = (redo_out, &report.redo) {
        files::write_output(Some(path), redo.as_str())?;
    }
    output::warn_other_root(report.other_root(), &root, json);
    output::print_report(&report, json)?;
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `plan`: prints what rollback would do (with `--diff`, what each change
/// would be).
pub fn plan(
    target: &Target,
    plan: &PlanArgs,
    diff: &DiffArgs,
    show: Show,
) -> Result<ExitCode, Error> {
    let json = show.json;
    let bars = Bars::for_stderr(show.quiet);
    let options = plan
        .options()?
        .with_diff(diff.options())
        .with_progress(bars.as_ref().map(Bars::callback));
    let (root, snapshot) = target.open(options.key.as_ref())?;
    let plan = agent_checkpoint::plan_rollback(&root, &snapshot, &options)?;
    drop(bars);
    output::warn_other_root(plan.other_root.as_deref(), &root, json);
    if options.diff.is_some() && !json {
        output::print_text(&plan_diff::format(&plan, diff.colored()))?;
    } else {
        output::print_plan(&plan, json)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `record-applied`: prints (or writes) the snapshot with `applied`.
pub fn record_applied(
    target: &Target,
    out: Option<&Path>,
    key_file: Option<&Path>,
) -> Result<ExitCode, Error> {
    let key = files::read_key(key_file)?;
    let (root, snapshot) = target.open(key.as_ref())?;
    let recorded = agent_checkpoint::record_applied(
        &root,
        &snapshot,
        &RecordOptions::default().with_key(key),
    )?;
    files::write_output(out, recorded.as_str())?;
    Ok(ExitCode::SUCCESS)
}

/// `inspect`: one line (or one JSON object) per captured path.
pub fn inspect(file: &Path, json: bool) -> Result<ExitCode, Error> {
    let text = files::read_snapshot(file)?;
    let items = agent_checkpoint::inspect_snapshot(&text)?;
    output::print_inspect(&items, json)?;
    Ok(ExitCode::SUCCESS)
}

/// `paths`: the captured paths. Strict, unlike `snapshot_paths`: a CLI
/// user wants to know why a snapshot has none.
pub fn paths(file: &Path, json: bool) -> Result<ExitCode, Error> {
    let text = files::read_snapshot(file)?;
    let parsed = Snapshot::parse(&text, &ParseOptions::allowing_git_dir(true))?;
    output::print_lines(&parsed.paths(), json)?;
    Ok(ExitCode::SUCCESS)
}
