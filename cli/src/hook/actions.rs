//! What the hook does for each event, whatever the agent (see the issue's
//! mapping): a session's baseline step; a turn step at each prompt; an
//! undo snapshot before a file tool and a step naming its files after it;
//! a step before a shell command and one after it naming what `git status`
//! shows it changed; a step at the end of a turn; at the session's end a
//! step and the condensed checkpoint. Outside git (or before the first
//! commit) only the file tools' undo snapshots are kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, Error, ParseOptions, RecordOptions, Snapshot};
use agent_checkpoint_naming::prompts::join_prompts;
use agent_checkpoint_store::{SessionWrite, ShadowStep, Store, StoreOptions};

use super::event::{Event, EventKind, Tool, ToolKind};
use super::state::{self, hex_digest, RepoDir, SessionDir, SessionState};
use super::worktree;
use super::Agent;

/// How long a hook waits for a lock another process holds (the store's
/// compare-and-swap locks): a tool call is never held up for long.
pub(crate) const HOOK_LOCK_WAIT: Duration = Duration::from_secs(2);

/// The longest prompt or command kept in a step's message, in characters.
const MESSAGE_CHARS: usize = 72;

/// Where an event's work happens: the repository (or the bare root), the
/// hook's directories, and the session.
pub(crate) struct Context {
    agent: Agent,
    /// The working tree's root (the repository's, or the event's directory).
    root: PathBuf,
    /// The event's directory (relative tool paths are relative to it).
    cwd: PathBuf,
    /// The store, in a repository with a commit at `HEAD`.
    store: Option<Store>,
    session: SessionDir,
    state: SessionState,
    /// A shell event's `git status`, started before the store was opened.
    status: Option<worktree::StatusRun>,
}

/// Opens the store of the repository holding `dir`, with the hook's lock
/// wait; `None` outside git or before the first commit.
pub(crate) fn open_store(dir: &Path) -> Option<Store> {
    let options = StoreOptions::default().lock_wait(HOOK_LOCK_WAIT);
    let store = Store::open_with(dir, options).ok()?;
    store.shadow_branch().ok()?;
    store.work_dir()?;
    Some(store)
}

/// The hook's directory for `dir`: in its repository's git common dir,
/// else under the user's state directory.
pub(crate) fn repo_dir_of(dir: &Path) -> RepoDir {
    match Store::open(dir) {
        Ok(store) => RepoDir::in_git(store.common_dir()),
        Err(_) => RepoDir::outside_git(dir),
    }
}

impl Context {
    /// The context of `event` sent by `agent`. A shell tool's event starts
    /// its `git status` first, so it runs while the store opens.
    pub(crate) fn open(agent: Agent, event: &Event) -> Result<Context, Error> {
        let cwd = match &event.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir().map_err(|e| Error::io("<cwd>", e))?,
        };
        let status = match &event.kind {
            EventKind::BeforeTool(tool) | EventKind::AfterTool(tool)
                if matches!(tool.kind, ToolKind::Shell(_)) =>
            {
                Some(worktree::StatusRun::start(&cwd))
            }
            _ => None,
        };
        let mut context = Context::open_at(agent, event, cwd)?;
        context.status = status;
        Ok(context)
    }

    fn open_at(agent: Agent, event: &Event, cwd: PathBuf) -> Result<Context, Error> {
        let store = open_store(&cwd);
        let (root, repo_dir) = match &store {
            Some(store) => (
                store.work_dir().unwrap_or_else(|| cwd.clone()),
                RepoDir::in_git(store.common_dir()),
            ),
            None => {
                let git_dir = Store::open(&cwd).ok();
                let root = git_dir
                    .as_ref()
                    .and_then(Store::work_dir)
                    .unwrap_or_else(|| cwd.clone());
                let repo_dir = match &git_dir {
                    Some(s) => RepoDir::in_git(s.common_dir()),
                    None => RepoDir::outside_git(&root),
                };
                (root, repo_dir)
            }
        };
        let session = repo_dir.session(&event.session_id);
        let mut state = session.load().unwrap_or_default();
        if state.session_id.is_empty() {
            state = SessionState {
                agent: agent.name().to_owned(),
                session_id: event.session_id.clone(),
                checkpoint_id: agent_checkpoint_naming::id::new_ulid(None)?.to_string(),
                root: root.clone(),
                ..SessionState::default()
            };
        }
        if let Some(path) = &event.transcript_path {
            state.transcript_path = Some(path.clone());
        }
        Ok(Context {
            agent,
            root,
            cwd,
            store,
            session,
            state,
            status: None,
        })
    }

    /// Runs the event's action.
    pub(crate) fn handle(&mut self, event: &Event) -> Result<(), Error> {
        if event.kind == EventKind::Ignored {
            return Ok(());
        }
        match &event.kind {
            EventKind::SessionStart => {
                self.ensure_baseline()?;
                if self.store.is_none() {
                    self.session.save(&self.state)?;
                    return Err(Error::NotARepository {
                        path: self.root.display().to_string(),
                        reason: format!(
                            "no git repository with a commit here: only the file tools' undo \
                             snapshots are kept, in {}",
                            self.session.undo_dir().display()
                        ),
                    });
                }
            }
            EventKind::Prompt(text) => {
                self.ensure_baseline()?;
                self.turn(text)?;
            }
            EventKind::BeforeTool(tool) => {
                self.ensure_baseline()?;
                match &tool.kind {
                    ToolKind::Files(paths) => self.before_files(tool, paths)?,
                    ToolKind::Shell(command) => self.before_shell(tool, command)?,
                    ToolKind::Other => {}
                }
            }
            EventKind::AfterTool(tool) => {
                self.ensure_baseline()?;
                match &tool.kind {
                    ToolKind::Files(paths) => self.after_files(tool, paths)?,
                    ToolKind::Shell(command) => self.after_shell(tool, command)?,
                    ToolKind::Other => {}
                }
            }
            EventKind::TurnEnd => {
                self.ensure_baseline()?;
                self.turn_step(&[], &format!("End of turn {}", self.state.turn))?;
                if self.agent == Agent::Codex {
                    // Codex has no session-end event: every turn's end
                    // condenses (into the same checkpoint).
                    self.condense()?;
                }
            }
            EventKind::SessionEnd => {
                self.ensure_baseline()?;
                self.turn_step(&[], "Session end")?;
                self.condense()?;
            }
            EventKind::Ignored => {}
        }
        self.save_if_sequential(&event.kind)
    }

    /// `session.json` is rewritten by the sequential events only (and by
    /// the first event of a session, which makes the baseline).
    fn save_if_sequential(&self, kind: &EventKind) -> Result<(), Error> {
        let sequential = matches!(
            kind,
            EventKind::SessionStart
                | EventKind::Prompt(_)
                | EventKind::TurnEnd
                | EventKind::SessionEnd
        );
        if sequential || self.session.load().is_none() {
            self.session.save(&self.state)?;
        }
        Ok(())
    }

    /// The session's baseline step (every change `git status` shows, as the
    /// session found the working tree), once.
    fn ensure_baseline(&mut self) -> Result<(), Error> {
        if self.state.baseline {
            return Ok(());
        }
        self.write_prompts(&[])?;
        if let Some(store) = &self.store {
            let step = ShadowStep::new(self.session_id())
                .message(format!("Session start ({})", self.agent.display_name()))
                .metadata_dir(self.session.metadata_dir())
                .first(true);
            store.shadow_step(&step)?;
        }
        self.state.baseline = true;
        self.session.save(&self.state)
    }

    /// A turn boundary: the turn's number and prompt in the message; the
    /// files the session touched that the user changed since the agent
    /// last wrote them are taken, so the turn starts from them.
    fn turn(&mut self, prompt: &str) -> Result<(), Error> {
        self.state.turn += 1;
        let mut prompts = self.read_prompts();
        prompts.push(prompt.to_owned());
        self.write_prompts(&prompts)?;
        let short = shorten(&agent_checkpoint_redact::redact_text(prompt));
        let message = if short.is_empty() {
            format!("Turn {}", self.state.turn)
        } else {
            format!("Turn {}: {short}", self.state.turn)
        };
        let edited = self.user_edits();
        self.turn_step(&edited, &message)
    }

    /// Before a file tool: the core's capture of the paths it names, kept
    /// as the call's undo snapshot.
    fn before_files(&self, tool: &Tool, paths: &[String]) -> Result<(), Error> {
        let rel = self.relative_paths(paths);
        if rel.is_empty() {
            return Ok(());
        }
        let root = CapRoot::open(&self.root, ambient_authority())?;
        let snapshot = agent_checkpoint::capture(&root, &rel, &CaptureOptions::default())?;
        let name = format!(
            "{:04}-{}-{}.json",
            self.state.turn,
            state::seq(),
            state::file_name(&self.tool_id(tool))
        );
        state::write_atomic(
            &self.session.undo_dir().join(name),
            snapshot.as_str().as_bytes(),
        )
    }

    /// After a file tool: a step naming its files, their state recorded as
    /// the agent's, and the undo snapshot's `applied` state.
    fn after_files(&self, tool: &Tool, paths: &[String]) -> Result<(), Error> {
        let rel = self.relative_paths(paths);
        if rel.is_empty() {
            return Ok(());
        }
        let id = self.tool_id(tool);
        self.session
            .record_wrote(&id, &worktree::states(&self.root, &rel))?;
        self.record_applied(&id)?;
        let message = format!("{} {}{}", tool.name, shorten(&rel.join(" ")), id_note(tool));
        self.step(&rel, &message)
    }

    /// Before a shell command: what `git status` shows now (to tell what
    /// the command changes), and a step (taking the user's edits of the
    /// session's files first, so a rewind to it keeps them).
    fn before_shell(&mut self, tool: &Tool, command: &str) -> Result<(), Error> {
        if self.store.is_none() {
            return Ok(());
        }
        // The step while `git status` runs (neither changes the other).
        let message = format!(
            "Before {}: {}{}",
            tool.name,
            shorten(&agent_checkpoint_redact::redact_text(command)),
            id_note(tool)
        );
        self.step(&self.user_edits(), &message)?;
        let before = self.status()?;
        let text = serde_json::to_vec(&before)
            .map_err(|e| Error::io("pending", std::io::Error::other(e)))?;
        state::write_atomic(&self.session.pending_file(&self.tool_id(tool)), &text)
    }

    /// The `git status` started with the event (or a new one).
    fn status(&mut self) -> Result<BTreeMap<String, String>, Error> {
        match self.status.take() {
            Some(run) => run.finish(&self.root),
            None => worktree::status(&self.root),
        }
    }

    /// After a shell command: a step naming every path whose state moved
    /// since the status taken before it.
    fn after_shell(&mut self, tool: &Tool, command: &str) -> Result<(), Error> {
        if self.store.is_none() {
            return Ok(());
        }
        let after = self.status()?;
        let pending = self.session.pending_file(&self.tool_id(tool));
        let pending = if pending.exists() {
            Some(pending)
        } else {
            // The agent gave no id and the input changed: the newest one.
            state::sorted_files(&self.session.pending_dir())
                .into_iter()
                .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        };
        let before: Option<BTreeMap<String, String>> = pending
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|t| serde_json::from_slice(&t).ok());
        let changed = match &before {
            Some(before) => worktree::changed(before, &after),
            // No status from before the command: every path it shows.
            None => after.keys().cloned().collect(),
        };
        if let Some(p) = pending {
            let _ = std::fs::remove_file(p);
        }
        self.session
            .record_wrote(&self.tool_id(tool), &worktree::states(&self.root, &changed))?;
        let message = format!(
            "{}: {}{}",
            tool.name,
            shorten(&agent_checkpoint_redact::redact_text(command)),
            id_note(tool)
        );
        self.step(&changed, &message)
    }

    /// The condensed checkpoint: the session's steps, its prompts, the
    /// transcript read from the event's `transcript_path` (redacted by the
    /// store), the agent's name. The shadow branch is kept for rewinds. A
    /// transcript that cannot be read is left out (and the error returned
    /// after the checkpoint is written, to be logged).
    fn condense(&self) -> Result<(), Error> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        // The files the agent wrote (the store's default would also count
        // what the session found changed at its start).
        let mut write = SessionWrite::new(self.state.checkpoint_id.clone(), self.session_id())
            .agent(self.agent.display_name())
            .files_touched(self.session.wrote().into_keys());
        let mut missing = None;
        match &self.state.transcript_path {
            Some(path) => match std::fs::read(path) {
                Ok(bytes) => write = write.transcript(bytes),
                Err(e) => missing = Some(Error::io(path.display().to_string(), e)),
            },
            None => {
                missing = Some(Error::NoTranscript {
                    what: format!("the events of session {}", self.state.session_id),
                });
            }
        }
        store.shadow_condense_keeping_branch(&write)?;
        match missing {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// A shadow step of `files` with `message` (git only). A tool's step
    /// keeps the metadata of the step before it (the prompts change only
    /// at a turn): see [`Context::turn_step`].
    fn step(&self, files: &[String], message: &str) -> Result<(), Error> {
        self.step_with(files, message, false)
    }

    /// A step that also stores the session's metadata directory (the
    /// prompts, redacted).
    fn turn_step(&self, files: &[String], message: &str) -> Result<(), Error> {
        self.step_with(files, message, true)
    }

    fn step_with(&self, files: &[String], message: &str, metadata: bool) -> Result<(), Error> {
        let Some(store) = &self.store else {
            return Ok(());
        };
        let mut step = ShadowStep::new(self.session_id())
            .files(files.iter().cloned())
            .message(message);
        if metadata {
            step = step.metadata_dir(self.session.metadata_dir());
        }
        store.shadow_step(&step)?;
        Ok(())
    }

    /// The files the agent wrote whose state the user changed since.
    fn user_edits(&self) -> Vec<String> {
        self.session
            .wrote()
            .into_iter()
            .filter(|(path, state)| worktree::path_state(&self.root, path) != *state)
            .map(|(path, _)| path)
            .collect()
    }

    /// Records the applied state on the newest undo snapshot of `id`.
    fn record_applied(&self, id: &str) -> Result<(), Error> {
        let suffix = format!("-{}.json", state::file_name(id));
        let Some(file) = state::sorted_files(&self.session.undo_dir())
            .into_iter()
            .rfind(|p| p.to_string_lossy().ends_with(&suffix))
        else {
            return Ok(());
        };
        let text =
            std::fs::read_to_string(&file).map_err(|e| Error::io(file.display().to_string(), e))?;
        let snapshot = Snapshot::parse(&text, &ParseOptions::default())?;
        if !snapshot_lacks_applied(&text) {
            return Ok(());
        }
        let root = CapRoot::open(&self.root, ambient_authority())?;
        let recorded =
            agent_checkpoint::record_applied(&root, &snapshot, &RecordOptions::default())?;
        state::write_atomic(&file, recorded.as_str().as_bytes())
    }

    fn relative_paths(&self, paths: &[String]) -> Vec<String> {
        let mut out: Vec<String> = paths
            .iter()
            .filter_map(|p| worktree::relative(&self.root, &self.cwd, p))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The tool call's id: the agent's, else one derived from what the call
    /// touches (the same before and after it).
    fn tool_id(&self, tool: &Tool) -> String {
        if let Some(id) = &tool.id {
            return id.clone();
        }
        let what = match &tool.kind {
            ToolKind::Files(paths) => format!("files\0{}", self.relative_paths(paths).join("\0")),
            ToolKind::Shell(command) => format!("shell\0{command}"),
            ToolKind::Other => format!("other\0{}", tool.name),
        };
        format!("call-{}", &hex_digest(what.as_bytes())[..16])
    }

    /// The session id as the store takes it: the agent's when it is a plain
    /// name, else a hash of it.
    fn session_id(&self) -> String {
        state::file_name(&self.state.session_id)
    }

    fn read_prompts(&self) -> Vec<String> {
        std::fs::read_to_string(self.session.metadata_dir().join("prompt.txt"))
            .map(|t| agent_checkpoint_naming::prompts::split_prompts(&t))
            .unwrap_or_default()
    }

    fn write_prompts(&self, prompts: &[String]) -> Result<(), Error> {
        state::write_atomic(
            &self.session.metadata_dir().join("prompt.txt"),
            join_prompts(prompts).as_bytes(),
        )
    }
}

/// Whether a snapshot's text has no `applied` member yet.
fn snapshot_lacks_applied(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("applied").cloned())
        .is_none_or(|a| a.as_object().is_none_or(serde_json::Map::is_empty))
}

/// ` (<id>)` for a call the agent gave an id.
fn id_note(tool: &Tool) -> String {
    match &tool.id {
        Some(id) => format!(" ({})", shorten(id)),
        None => String::new(),
    }
}

/// The first line of `text`, control characters made spaces, at most
/// [`MESSAGE_CHARS`] characters (`...` marks a cut).
pub(crate) fn shorten(text: &str) -> String {
    let line: String = text
        .trim()
        .lines()
        .next()
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let line = line.trim();
    if line.chars().count() <= MESSAGE_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(MESSAGE_CHARS - 3).collect();
    format!("{}...", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn messages_are_one_short_line() {
        assert_eq!(shorten("  fix the bug\nand more"), "fix the bug");
        assert_eq!(shorten("a\tb"), "a b");
        let long = "x".repeat(100);
        assert_eq!(shorten(&long).chars().count(), 72);
        assert!(shorten(&long).ends_with("..."));
    }
}
