//! A session's turns and steps, newest first, read from its shadow steps:
//! each turn is its boundary step (`Turn <n>: <prompt>`, written by the
//! hook at the prompt) and the steps after it; the files each step changed
//! come from `git log` of the branch.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use agent_checkpoint::Error;
use agent_checkpoint_store::{ShadowLogQuery, ShadowStepInfo, Store};
use serde::Serialize;

/// One step of a turn.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Step {
    /// The step's commit.
    pub commit: String,
    /// When it was recorded.
    pub time: String,
    /// Its message's first line.
    pub message: String,
    /// The files it changed.
    pub files: Vec<String>,
}

/// One turn.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Turn {
    /// Its number (0: before the first prompt).
    pub turn: u32,
    /// Its boundary step (the state before the turn): what `--turn`
    /// rewinds to.
    pub commit: String,
    /// When it started.
    pub time: String,
    /// The prompt, redacted and shortened as the step's message holds it.
    pub prompt: String,
    /// Every file the turn's steps changed.
    pub files: Vec<String>,
    /// Its steps, newest first (the boundary step last).
    pub steps: Vec<Step>,
}

/// The turns of session `session` (the store's id), newest first.
///
/// # Errors
/// The store's errors; an I/O error when `git log` fails.
pub(crate) fn turns(store: &Store, session: &str) -> Result<Vec<Turn>, Error> {
    let mut steps: Vec<ShadowStepInfo> = Vec::new();
    let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for branch in store.shadow_branches()? {
        let query = ShadowLogQuery::new()
            .branch(branch.branch.clone())
            .session(session);
        let found = store.shadow_log(&query)?;
        if found.is_empty() {
            continue;
        }
        if let Some(dir) = store.work_dir() {
            files.extend(changed_files(&dir, &branch.tip)?);
        }
        steps.extend(found);
    }
    // Oldest first, by time, each branch's own order kept (it is newest
    // first, so reverse it before a stable sort).
    steps.reverse();
    steps.sort_by_key(|s| s.timestamp);
    let mut turns: Vec<Turn> = Vec::new();
    for step in steps {
        let step = Step {
            files: files.get(&step.commit).cloned().unwrap_or_default(),
            time: step.timestamp.to_string(),
            commit: step.commit,
            message: step.message,
        };
        match turn_number(&step.message) {
            Some((n, prompt)) => turns.push(Turn {
                turn: n,
                commit: step.commit.clone(),
                time: step.time.clone(),
                prompt: prompt.to_owned(),
                files: Vec::new(),
                steps: vec![step],
            }),
            None => match turns.last_mut() {
                Some(turn) => turn.steps.push(step),
                None => turns.push(Turn {
                    turn: 0,
                    commit: step.commit.clone(),
                    time: step.time.clone(),
                    prompt: String::new(),
                    files: Vec::new(),
                    steps: vec![step],
                }),
            },
        }
    }
    for turn in &mut turns {
        // The session-start step holds what the session found, not its work.
        let mut all: Vec<String> = turn
            .steps
            .iter()
            .filter(|s| !(turn.turn == 0 && s.message.starts_with("Session start")))
            .flat_map(|s| s.files.iter().cloned())
            .collect();
        all.sort();
        all.dedup();
        turn.files = all;
        turn.steps.reverse();
    }
    turns.reverse();
    Ok(turns)
}

/// `Some((n, prompt))` for a turn boundary's message `Turn <n>: <prompt>`.
pub(crate) fn turn_number(message: &str) -> Option<(u32, &str)> {
    let rest = message.strip_prefix("Turn ")?;
    let (digits, prompt) = match rest.split_once(':') {
        Some((d, p)) => (d, p.trim_start()),
        None => (rest, ""),
    };
    Some((digits.trim().parse().ok()?, prompt))
}

/// The files each commit from `tip` down changed against its parent
/// (`.entire/` left out).
fn changed_files(dir: &Path, tip: &str) -> Result<BTreeMap<String, Vec<String>>, Error> {
    let out = Command::new("git")
        .args([
            "--no-optional-locks",
            "log",
            "--format=%x01%H",
            "--name-only",
            "--no-renames",
            "-z",
            tip,
            "--",
        ])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::io("git log", e))?;
    if !out.status.success() {
        return Err(Error::io(
            "git log",
            std::io::Error::other(String::from_utf8_lossy(&out.stderr).trim().to_owned()),
        ));
    }
    let mut map = BTreeMap::new();
    for chunk in out.stdout.split(|b| *b == 1).filter(|c| !c.is_empty()) {
        let mut parts = chunk.split(|b| *b == 0);
        let Some(commit) = parts.next().and_then(|c| std::str::from_utf8(c).ok()) else {
            continue;
        };
        let files = parts
            .filter_map(|f| std::str::from_utf8(f).ok())
            .map(|f| f.trim_start_matches('\n'))
            .filter(|f| !f.is_empty() && *f != ".entire" && !f.starts_with(".entire/"))
            .map(str::to_owned)
            .collect();
        map.insert(commit.trim().to_owned(), files);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::turn_number;

    #[test]
    fn turn_messages() {
        assert_eq!(turn_number("Turn 3: fix it"), Some((3, "fix it")));
        assert_eq!(turn_number("Turn 12"), Some((12, "")));
        assert_eq!(turn_number("Turnip: x"), None);
        assert_eq!(turn_number("Edit a.txt"), None);
    }
}
