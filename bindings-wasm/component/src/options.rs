//! The WIT option records as the core's options, and the WIT spellings of
//! the core's plan. Only the shape changes here; every default not in the
//! records is the core's own (`Default`).

use agent_checkpoint::{OnConflict as Core, ParseOptions, SealKey};

use crate::bindings::{
    CaptureOptions, CheckpointError, OnConflict, PlanAction, PlanItem, PlanOptions,
    RecordAppliedOptions, RollbackOptions,
};
use crate::diff::{diff_options, path_diff};
use crate::errors::wit_code;

fn on_conflict(choice: OnConflict) -> Core {
    match choice {
        OnConflict::Overwrite => Core::Overwrite,
        OnConflict::Skip => Core::Skip,
    }
}

/// A sealing key (never empty: `invalid-argument`).
fn key(bytes: Option<Vec<u8>>) -> Result<Option<SealKey>, CheckpointError> {
    bytes
        .map(SealKey::new)
        .transpose()
        .map_err(|e| crate::errors::to_wit(&e))
}

/// The core's capture options.
pub fn capture(
    options: CaptureOptions,
) -> Result<agent_checkpoint::CaptureOptions, CheckpointError> {
    let mut core = agent_checkpoint::CaptureOptions::default()
        .with_allow_git_dir(options.allow_git_dir)
        .with_key(key(options.key)?)
        .with_record_root(options.record_root);
    if let Some(max) = options.max_file_bytes {
        core = core.with_max_file_bytes(max);
    }
    Ok(core)
}

/// The core's parse and rollback options.
pub fn rollback(
    options: RollbackOptions,
) -> Result<(ParseOptions, agent_checkpoint::RollbackOptions), CheckpointError> {
    let key = key(options.key)?;
    let parse = ParseOptions::allowing_git_dir(options.allow_git_dir).with_key(key.clone());
    let mut core = agent_checkpoint::RollbackOptions::default()
        .with_durable(options.durable)
        .with_on_conflict(on_conflict(options.on_conflict))
        .with_key(key)
        .with_redo(options.redo)
        .with_restore_setid(options.restore_setid)
        .with_strict_root(options.strict_root);
    if let Some(max) = options.max_file_bytes {
        core = core.with_max_file_bytes(max);
    }
    Ok((parse, core))
}

/// The core's parse and plan options.
pub fn plan(
    options: PlanOptions,
) -> Result<(ParseOptions, agent_checkpoint::PlanOptions), CheckpointError> {
    let key = key(options.key)?;
    let parse = ParseOptions::allowing_git_dir(options.allow_git_dir).with_key(key.clone());
    let core = agent_checkpoint::PlanOptions::default()
        .with_on_conflict(on_conflict(options.on_conflict))
        .with_key(key)
        .with_restore_setid(options.restore_setid)
        .with_strict_root(options.strict_root)
        .with_diff(options.diff.map(diff_options));
    Ok((parse, core))
}

/// The core's parse and record options.
pub fn record(
    options: RecordAppliedOptions,
) -> Result<(ParseOptions, agent_checkpoint::RecordOptions), CheckpointError> {
    let key = key(options.key)?;
    let parse = ParseOptions::allowing_git_dir(options.allow_git_dir).with_key(key.clone());
    Ok((
        parse,
        agent_checkpoint::RecordOptions::default().with_key(key),
    ))
}

/// One plan line in WIT.
pub fn plan_item(item: agent_checkpoint::PlanItem) -> PlanItem {
    use agent_checkpoint::PlanAction as A;
    PlanItem {
        path: item.path,
        action: match item.action {
            A::Keep => PlanAction::Keep,
            A::Write => PlanAction::Write,
            A::Remove => PlanAction::Remove,
            A::Rmdir => PlanAction::Rmdir,
            A::Conflict => PlanAction::Conflict,
            // `refuse`, and any action a newer core adds: left alone, reported.
            _ => PlanAction::Refuse,
        },
        conflict: item.conflict,
        code: item.code.map(wit_code),
        reason: item.reason,
        diff: item.diff.map(path_diff),
    }
}
