//! Commit messages and trailers, exactly as STORE.md §3 writes them.

/// Trailer naming the session.
pub const SESSION_TRAILER: &str = "Entire-Session";
/// Trailer naming the strategy.
pub const STRATEGY_TRAILER: &str = "Entire-Strategy";
/// Trailer naming the agent.
pub const AGENT_TRAILER: &str = "Entire-Agent";
/// Trailer naming the shadow branch the session came from.
pub const EPHEMERAL_BRANCH_TRAILER: &str = "Ephemeral-branch";
/// Trailer naming a task checkpoint's directory.
pub const METADATA_TASK_TRAILER: &str = "Entire-Metadata-Task";
/// Message of the commit that seeds the v1 branch.
pub const INIT_BRANCH_MESSAGE: &str = "Initialize sessions branch";

/// The message of a session write: `Checkpoint: <id>`, a blank line, then
/// `Entire-Session`, `Entire-Strategy`, and when set `Entire-Agent`,
/// `Ephemeral-branch`, `Entire-Metadata-Task`, one per line.
pub fn session_message(
    checkpoint_id: &str,
    session_id: &str,
    strategy: &str,
    agent: &str,
    ephemeral_branch: &str,
    task_path: Option<&str>,
) -> String {
    let mut m = format!(
        "Checkpoint: {checkpoint_id}\n\n{SESSION_TRAILER}: {session_id}\n{STRATEGY_TRAILER}: {strategy}\n"
    );
    if !agent.is_empty() {
        m.push_str(&format!("{AGENT_TRAILER}: {agent}\n"));
    }
    if !ephemeral_branch.is_empty() {
        m.push_str(&format!("{EPHEMERAL_BRANCH_TRAILER}: {ephemeral_branch}\n"));
    }
    if let Some(task) = task_path {
        m.push_str(&format!("{METADATA_TASK_TRAILER}: {task}\n"));
    }
    m
}

/// The message of a transcript backfill.
pub fn transcript_backfill_message(checkpoint_id: &str) -> String {
    format!("Finalize transcript for Checkpoint: {checkpoint_id}")
}

/// The message of a summary backfill.
pub fn summary_backfill_message(checkpoint_id: &str, session_id: &str) -> String {
    format!("Update summary for checkpoint {checkpoint_id} (session: {session_id})")
}

/// The message of an attribution backfill.
pub fn attribution_backfill_message(checkpoint_id: &str) -> String {
    format!("Update checkpoint summary for {checkpoint_id}")
}

/// **\[ours\]** Trailer of an undo-snapshot commit: when the store wrote it,
/// in Unix nanoseconds (retention's order: a committer time has one-second
/// steps and may be set by whoever wrote the commit).
pub const SNAPSHOT_WRITTEN_TRAILER: &str = "Snapshot-Written-Ns";

/// **\[ours\]** The message of an undo-snapshot commit, written at
/// `written_ns` (Unix nanoseconds).
pub fn snapshot_message(
    checkpoint_id: &str,
    session_id: &str,
    sha256: &str,
    written_ns: u128,
) -> String {
    format!("Undo snapshot for Checkpoint: {checkpoint_id}\n\n{SESSION_TRAILER}: {session_id}\nSnapshot-SHA256: {sha256}\n{SNAPSHOT_WRITTEN_TRAILER}: {written_ns}\n")
}

/// The value of the first `key: value` trailer line anywhere in `message`.
pub fn trailer<'a>(message: &'a str, key: &str) -> Option<&'a str> {
    message.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k == key).then(|| v.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_messages() {
        assert_eq!(
            session_message("a1b2c3d4e5f6", "s1", "manual-commit", "", "", None),
            "Checkpoint: a1b2c3d4e5f6\n\nEntire-Session: s1\nEntire-Strategy: manual-commit\n"
        );
        let m = session_message(
            "a1b2c3d4e5f6",
            "s1",
            "manual-commit",
            "Claude Code",
            "entire/abc1234-e3b0c4",
            Some("a1/b2c3d4e5f6/tasks/t1"),
        );
        assert_eq!(
            m,
            "Checkpoint: a1b2c3d4e5f6\n\nEntire-Session: s1\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\nEphemeral-branch: entire/abc1234-e3b0c4\nEntire-Metadata-Task: a1/b2c3d4e5f6/tasks/t1\n"
        );
        assert_eq!(trailer(&m, AGENT_TRAILER), Some("Claude Code"));
        assert_eq!(trailer(&m, "Nope"), None);
    }
}
