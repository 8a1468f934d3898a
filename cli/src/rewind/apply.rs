//! Carrying out a rewind (and its redo): the store's rewind snapshot of
//! the step, guarded with the state each file was in when the agent last
//! wrote it (the core's `applied`), so the core keeps the user's later
//! edits as conflicts; the redo snapshot kept in the repository's hook
//! directory.

use std::path::Path;
use std::process::ExitCode;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{
    CapRoot, Error, OnConflict, ParseOptions, PlanOptions, RollbackOptions, RollbackReport,
    Snapshot,
};
use agent_checkpoint_store::Store;
use serde_json::Value;

use super::RewindArgs;
use crate::hook::state::{self, RepoDir, SessionDir};
use crate::{output, plan_diff};

/// Rewinds (or, with `preview`, shows what it would do: `--plan`, with
/// `--diff` a diff) the working tree at `root` to step `commit` of
/// `session`.
#[allow(clippy::too_many_arguments)]
pub(super) fn rewind(
    store: &Store,
    repo: &RepoDir,
    session: &SessionDir,
    root: &Path,
    commit: &str,
    args: &RewindArgs,
    preview: bool,
    json: bool,
) -> Result<ExitCode, Error> {
    let text = store.shadow_rewind_snapshot(commit, root)?;
    let snapshot = guarded(&text, session)?;
    let on_conflict = if args.force {
        OnConflict::Overwrite
    } else {
        OnConflict::Skip
    };
    let cap = CapRoot::open(root, ambient_authority())?;
    if preview {
        let options = PlanOptions::default()
            .with_diff(args.diff.options())
            .with_on_conflict(on_conflict);
        return print_plan(&cap, &snapshot, &options, args, json);
    }
    let options = RollbackOptions::default()
        .with_on_conflict(on_conflict)
        .with_durable(!args.no_durable)
        .with_redo(true);
    let report = agent_checkpoint::rollback(&cap, &snapshot, &options)?;
    let redo_file = match &report.redo {
        Some(redo) => {
            let file = repo.redo_dir().join(format!("{}.json", state::seq()));
            state::write_atomic(&file, redo.as_str().as_bytes())?;
            Some(file)
        }
        None => None,
    };
    print_report(&report, redo_file.as_deref(), json)
}

/// `--redo`: rolls back the newest rewind's redo snapshot (then drops it).
pub(super) fn redo(
    repo: &RepoDir,
    root: &Path,
    args: &RewindArgs,
    json: bool,
) -> Result<ExitCode, Error> {
    let file = state::sorted_files(&repo.redo_dir())
        .pop()
        .ok_or_else(|| Error::NotFound {
            what: "a rewind to redo".to_owned(),
        })?;
    let text =
        std::fs::read_to_string(&file).map_err(|e| Error::io(file.display().to_string(), e))?;
    let snapshot = Snapshot::parse(&text, &ParseOptions::default())?;
    let cap = CapRoot::open(root, ambient_authority())?;
    if args.plan || args.diff.options().is_some() {
        let options = PlanOptions::default().with_diff(args.diff.options());
        return print_plan(&cap, &snapshot, &options, args, json);
    }
    let options = RollbackOptions::default()
        .with_durable(!args.no_durable)
        .with_redo(false);
    let report = agent_checkpoint::rollback(&cap, &snapshot, &options)?;
    if report.ok() {
        std::fs::remove_file(&file).map_err(|e| Error::io(file.display().to_string(), e))?;
    }
    print_report(&report, None, json)
}

/// The rewind snapshot `text` with `applied` set, for each path it
/// restores, to the state the agent last left it in (recorded by the
/// hook): a path the user changed since is then a conflict.
fn guarded(text: &str, session: &SessionDir) -> Result<Snapshot, Error> {
    let mut doc: Value = serde_json::from_str(text)
        .map_err(|e| Error::malformed(format!("a rewind snapshot: {e}")))?;
    let wrote = session.wrote();
    let mut applied = serde_json::Map::new();
    for key in ["entries", "links"] {
        if let Some(map) = doc.get(key).and_then(Value::as_object) {
            for path in map.keys() {
                if let Some(state) = wrote.get(path) {
                    let value = match state {
                        Some(s) => Value::String(s.clone()),
                        None => Value::Null,
                    };
                    applied.insert(path.clone(), value);
                }
            }
        }
    }
    if let Some(obj) = doc.as_object_mut() {
        obj.insert("applied".to_owned(), Value::Object(applied));
    }
    Snapshot::parse(&doc.to_string(), &ParseOptions::default())
}

fn print_report(
    report: &RollbackReport,
    redo_file: Option<&Path>,
    json: bool,
) -> Result<ExitCode, Error> {
    if json {
        let mut doc = serde_json::to_value(report)
            .map_err(|e| Error::io("<stdout>", std::io::Error::other(e)))?;
        if let (Some(obj), Some(file)) = (doc.as_object_mut(), redo_file) {
            obj.remove("redo");
            obj.insert(
                "redo_file".to_owned(),
                Value::String(file.display().to_string()),
            );
        }
        output::print_json(&doc)?;
    } else {
        let mut text = output::format_report(report);
        if redo_file.is_some() {
            text.push_str("undo this rewind: agent-checkpoint rewind --redo\n");
        }
        output::print_text(&text)?;
    }
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `--plan` / `--diff`: prints what a rollback of `snapshot` would do.
fn print_plan(
    cap: &CapRoot,
    snapshot: &Snapshot,
    options: &PlanOptions,
    args: &RewindArgs,
    json: bool,
) -> Result<ExitCode, Error> {
    let plan = agent_checkpoint::plan_rollback(cap, snapshot, options)?;
    let text = if json {
        output::to_json(&plan)?
    } else if options.diff.is_some() {
        plan_diff::format(&plan, args.diff.colored())
    } else {
        output::format_plan(&plan)
    };
    output::print_text(&text)?;
    Ok(ExitCode::SUCCESS)
}
