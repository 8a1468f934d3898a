//! The WIT option records as the core's options, and the WIT spellings of
//! the core's plan. Only the shape changes here; every default not in the
//! records is the core's own (`Default`).

use agent_checkpoint::OnConflict as Core;

use crate::bindings::{
    CaptureOptions, OnConflict, PlanAction, PlanItem, PlanOptions, RollbackOptions,
};

fn on_conflict(choice: OnConflict) -> Core {
    match choice {
        OnConflict::Overwrite => Core::Overwrite,
        OnConflict::Skip => Core::Skip,
    }
}

/// The core's capture options.
pub fn capture(options: CaptureOptions) -> agent_checkpoint::CaptureOptions {
    let mut core = agent_checkpoint::CaptureOptions::default();
    core.allow_git_dir = options.allow_git_dir;
    core.max_file_bytes = options.max_file_bytes;
    core.key = options.key;
    core
}

/// The core's rollback options.
pub fn rollback(options: RollbackOptions) -> agent_checkpoint::RollbackOptions {
    let mut core = agent_checkpoint::RollbackOptions::default();
    core.durable = options.durable;
    core.allow_git_dir = options.allow_git_dir;
    core.on_conflict = on_conflict(options.on_conflict);
    core.key = options.key;
    core.redo = options.redo;
    core
}

/// The core's rollback options for a plan (`durable` and `redo` change
/// nothing in one).
pub fn plan(options: PlanOptions) -> agent_checkpoint::RollbackOptions {
    let mut core = agent_checkpoint::RollbackOptions::default();
    core.allow_git_dir = options.allow_git_dir;
    core.on_conflict = on_conflict(options.on_conflict);
    core.key = options.key;
    core
}

/// One plan line in WIT. The match is exhaustive on purpose: a new core
/// action must be given a WIT spelling here.
pub fn plan_item(item: agent_checkpoint::PlanItem) -> PlanItem {
    PlanItem {
        path: item.path,
        action: match item.action {
            agent_checkpoint::PlanAction::Keep => PlanAction::Keep,
            agent_checkpoint::PlanAction::Write => PlanAction::Write,
            agent_checkpoint::PlanAction::Remove => PlanAction::Remove,
            agent_checkpoint::PlanAction::Rmdir => PlanAction::Rmdir,
            agent_checkpoint::PlanAction::Conflict => PlanAction::Conflict,
        },
        conflict: item.conflict,
    }
}
