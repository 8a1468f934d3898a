//! The field lists of the store's option and result types the host
//! surfaces mirror (see `agent_checkpoint::field_list!`: the compiler
//! checks each list against its struct). `store/tests/surface_fields.rs`
//! checks every surface names each listed field.

use crate::{PushPlan, PushReport, SessionWrite, SessionWritten, StoreOptions};

agent_checkpoint::field_list!(PushReport {
    remote,
    pushed,
    queued,
    dropped,
});
agent_checkpoint::field_list!(PushPlan {
    remote,
    checkpoints,
    dropped,
    upload_bytes,
});
agent_checkpoint::field_list!(StoreOptions {
    backend,
    mirror,
    redactor,
    transcript_chunk_bytes,
    fetch_missing_from,
    lock_wait,
    sign_commits,
    log,
});
agent_checkpoint::field_list!(SessionWrite {
    checkpoint_id,
    session_id,
    strategy,
    agent,
    model,
    prompts,
    transcript,
    files_touched,
    snapshot,
    task,
    author,
    created_at,
    token_usage,
    branch,
    commit_sha,
    cli_version,
    checkpoints_count,
    save_step_count,
    turn_id,
    transcript_identifier_at_start,
    checkpoint_transcript_start,
    compact_transcript_start,
    session_metrics,
    summary,
    initial_attribution,
    prompt_attributions,
    skill_events,
    skill_events_version,
    kind,
    review_skills,
    review_prompt,
    investigate_run_id,
    investigate_topic,
    has_review,
    has_investigation,
    imported,
    combined_attribution,
    ephemeral_branch,
});
agent_checkpoint::field_list!(SessionWritten {
    commit,
    ref_name,
    session_index,
    snapshot_commit,
    mirror,
});
