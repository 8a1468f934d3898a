//! The field lists of du's and gc's reports (`FIELDS`, checked against
//! each struct by the compiler), for the drift test that finds each field
//! on the Node typings and the Python stub
//! (`store/tests/storage_surface_fields.rs`).

use super::{DuEntry, DuReport, GcReport, RemovedCheckpoint, RemovedSnapshot, SessionUsage, Usage};
use crate::shadow::CleanedBranch;

agent_checkpoint::field_list!(DuReport {
    total_bytes,
    object_bytes,
    objects,
    snapshot_file_bytes,
    checkpoints,
    snapshots,
    shadow_branches,
    shared_bytes,
    largest,
    sessions,
});
agent_checkpoint::field_list!(DuEntry {
    kind,
    name,
    ref_name,
    session_id,
    bytes,
});
agent_checkpoint::field_list!(Usage { refs, bytes });
agent_checkpoint::field_list!(SessionUsage {
    session_id,
    snapshots,
    bytes,
});
agent_checkpoint::field_list!(GcReport {
    dry_run,
    keep,
    older_than_seconds,
    removed_snapshots,
    removed_branches,
    removed_checkpoints,
    objects_removed,
    object_bytes_freed,
    snapshot_files_removed,
    snapshot_file_bytes_freed,
    repacked,
});
agent_checkpoint::field_list!(RemovedSnapshot {
    ref_name,
    checkpoint_id,
    session_id,
    tip,
    reason,
});
agent_checkpoint::field_list!(RemovedCheckpoint {
    checkpoint_id,
    ref_name,
    tip,
});
agent_checkpoint::field_list!(CleanedBranch {
    branch,
    tip,
    reason
});
