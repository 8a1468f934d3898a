//! The hook's own files: one directory per repository (in its git common
//! dir, `agent-checkpoint/`; outside git, under the user's state directory)
//! holding the log and the rewinds' redo snapshots, and one directory per
//! session holding what a session's events hand to each other:
//!
//! - `session.json`: the agent, the turn number, the checkpoint id the
//!   session condenses into, the transcript's path, whether the baseline
//!   step was taken;
//! - `metadata/prompt.txt`: the prompts, stored (redacted) with each step;
//! - `undo/<seq>-<tool id>.json`: each file tool's undo snapshot (the
//!   core's capture of the named paths before the call, its `applied`
//!   state recorded after it);
//! - `pending/<tool id>.json`: what `git status` showed before a shell
//!   command, to tell what the command changed;
//! - `wrote/<seq>-<tool id>.json`: the state each file was in right after
//!   the agent wrote it (what a rewind compares with to find the user's
//!   later edits).
//!
//! Events of one session may run at once (parallel tool calls): each writes
//! files of its own (`<seq>` is the time in nanoseconds), and only the
//! sequential events (session start, prompt, end) rewrite `session.json`,
//! always through a rename.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use agent_checkpoint::Error;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

/// The directory name of the hook's files, in a git common dir or the
/// user's state directory.
pub(crate) const DIR_NAME: &str = "agent-checkpoint";
/// The log file, in the repository's directory.
pub(crate) const LOG_FILE: &str = "hook.log";

/// What a session's events share (`session.json`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct SessionState {
    /// The agent's name (`claude-code`...).
    pub agent: String,
    /// The session id as the agent sent it.
    pub session_id: String,
    /// The last turn started (0 before the first prompt).
    pub turn: u32,
    /// The checkpoint the session condenses into.
    pub checkpoint_id: String,
    /// The transcript, as the last event that named one gave it.
    pub transcript_path: Option<PathBuf>,
    /// Whether the baseline step was taken.
    pub baseline: bool,
    /// The working tree's root.
    pub root: PathBuf,
}

/// The hook's directory of one repository (or, outside git, of one root).
#[derive(Debug, Clone)]
pub(crate) struct RepoDir(pub PathBuf);

impl RepoDir {
    /// The directory in the git common dir `common_dir`.
    pub(crate) fn in_git(common_dir: &Path) -> RepoDir {
        RepoDir(common_dir.join(DIR_NAME))
    }

    /// The directory of the root `root` outside git: under the user's
    /// state directory, named after a hash of the root's path.
    pub(crate) fn outside_git(root: &Path) -> RepoDir {
        let key = hex_digest(root.to_string_lossy().as_bytes());
        RepoDir(state_home().join("projects").join(&key[..16]))
    }

    /// The log file.
    pub(crate) fn log_file(&self) -> PathBuf {
        self.0.join(LOG_FILE)
    }

    /// The directory of the redo snapshots of the rewinds.
    pub(crate) fn redo_dir(&self) -> PathBuf {
        self.0.join("redo")
    }

    /// The directory of session `session_id` (any string: a name that is
    /// not a plain file name is hashed).
    pub(crate) fn session(&self, session_id: &str) -> SessionDir {
        SessionDir(self.0.join("sessions").join(file_name(session_id)))
    }

    /// Every session directory, newest `session.json` first.
    pub(crate) fn sessions(&self) -> Vec<SessionDir> {
        let mut found: Vec<(SystemTime, PathBuf)> = std::fs::read_dir(self.0.join("sessions"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let when = std::fs::metadata(e.path().join(SESSION_FILE))
                    .and_then(|m| m.modified())
                    .ok()?;
                Some((when, e.path()))
            })
            .collect();
        found.sort_by_key(|(when, _)| std::cmp::Reverse(*when));
        found.into_iter().map(|(_, p)| SessionDir(p)).collect()
    }
}

const SESSION_FILE: &str = "session.json";

/// One session's directory.
#[derive(Debug, Clone)]
pub(crate) struct SessionDir(pub PathBuf);

impl SessionDir {
    /// The session's shared state, if an event wrote it.
    pub(crate) fn load(&self) -> Option<SessionState> {
        let text = std::fs::read(self.0.join(SESSION_FILE)).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// Writes the shared state (through a rename).
    pub(crate) fn save(&self, state: &SessionState) -> Result<(), Error> {
        let text = serde_json::to_vec_pretty(state)
            .map_err(|e| Error::io(SESSION_FILE, std::io::Error::other(e)))?;
        write_atomic(&self.0.join(SESSION_FILE), &text)
    }

    /// The metadata directory stored with each step.
    pub(crate) fn metadata_dir(&self) -> PathBuf {
        self.0.join("metadata")
    }

    /// The directory of the undo snapshots.
    pub(crate) fn undo_dir(&self) -> PathBuf {
        self.0.join("undo")
    }

    /// The file of a shell command's status before it ran.
    pub(crate) fn pending_file(&self, tool_id: &str) -> PathBuf {
        self.0
            .join("pending")
            .join(format!("{}.json", file_name(tool_id)))
    }

    /// The directory of the pending shell commands.
    pub(crate) fn pending_dir(&self) -> PathBuf {
        self.0.join("pending")
    }

    /// Records the state of each file right after the agent wrote it.
    pub(crate) fn record_wrote(
        &self,
        tool_id: &str,
        states: &BTreeMap<String, Option<String>>,
    ) -> Result<(), Error> {
        if states.is_empty() {
            return Ok(());
        }
        let text =
            serde_json::to_vec(states).map_err(|e| Error::io("wrote", std::io::Error::other(e)))?;
        let name = format!("{}-{}.json", seq(), file_name(tool_id));
        write_atomic(&self.0.join("wrote").join(name), &text)
    }

    /// The state each file was in after the agent last wrote it.
    pub(crate) fn wrote(&self) -> BTreeMap<String, Option<String>> {
        let mut merged = BTreeMap::new();
        for file in sorted_files(&self.0.join("wrote")) {
            if let Some(map) = std::fs::read(&file)
                .ok()
                .and_then(|t| serde_json::from_slice::<BTreeMap<String, Option<String>>>(&t).ok())
            {
                merged.extend(map);
            }
        }
        merged
    }
}

/// The files of `dir`, sorted by name (`<seq>-...`: oldest first).
pub(crate) fn sorted_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// A sequence number: nanoseconds since the Unix epoch, zero-padded so
/// names sort by time.
pub(crate) fn seq() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{nanos:020}")
}

/// `name` when it is a plain, short file name; else a hash of it.
pub(crate) fn file_name(name: &str) -> String {
    let plain = !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !name.starts_with('.');
    if plain {
        name.to_owned()
    } else {
        format!("h-{}", &hex_digest(name.as_bytes())[..32])
    }
}

/// Lowercase hex SHA-256 of `bytes`.
pub(crate) fn hex_digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Writes `bytes` to `path` through a temporary file and a rename (the
/// directories made as needed; owner-only on Unix).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let tmp = dir.join(format!(".tmp-{}-{}", std::process::id(), seq()));
    {
        use std::io::Write as _;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(0o600);
        }
        let mut file = options
            .open(&tmp)
            .map_err(|e| Error::io(tmp.display().to_string(), e))?;
        file.write_all(bytes)
            .map_err(|e| Error::io(tmp.display().to_string(), e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path.display().to_string(), e)
    })
}

/// The user's state directory of agent-checkpoint (outside git):
/// `$AGENT_CHECKPOINT_STATE_DIR`, else `$XDG_STATE_HOME/agent-checkpoint`,
/// else `~/.local/state/agent-checkpoint` (Windows:
/// `%LOCALAPPDATA%\agent-checkpoint`).
pub(crate) fn state_home() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("AGENT_CHECKPOINT_STATE_DIR") {
        return dir;
    }
    if let Some(dir) = var("XDG_STATE_HOME") {
        return dir.join(DIR_NAME);
    }
    if cfg!(windows) {
        if let Some(dir) = var("LOCALAPPDATA") {
            return dir.join(DIR_NAME);
        }
    }
    match var("HOME") {
        Some(home) => home.join(".local").join("state").join(DIR_NAME),
        None => std::env::temp_dir().join(DIR_NAME),
    }
}
