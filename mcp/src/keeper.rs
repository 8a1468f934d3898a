//! Where the server keeps the snapshots it captures: in the git store when
//! the root is inside a git repository (the checkpoint under
//! `refs/entire/checkpoints/`, the snapshot under the local-only
//! `refs/entire/snapshots/`, so both survive a restart), else in memory for
//! the server's life.
//!
//! A checkpoint in the git store is this server's only when the keeper
//! recorded, as it kept it, the same root (the root's path relative to the
//! working tree, `""` for the top): another server with another `--root`,
//! or the CLI, stores into the same repository, and their snapshots hold
//! bytes from outside this root. Every read refuses any other checkpoint as
//! `not_found`, so nothing about it leaks, and `list` leaves it out. The
//! record is a file `<git-common-dir>/entire-mcp-roots/<checkpoint id>`
//! (mode `0600`, never written or read through a symlink: see
//! [`crate::records`]) holding the working tree's resolved path and that relative
//! path (linked worktrees share the common dir, and a server at the top of
//! one must not take another's checkpoints as its own): local, outside
//! every tree and ref, so the Entire documents keep their shapes and
//! nothing of it is pushed.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::id::{new_ulid, validate_checkpoint_id};
use agent_checkpoint_store::snapshots::snapshot_sha256;
use agent_checkpoint_store::{snapshot_ref, SessionWrite, Store, Timestamp};
use schemars::JsonSchema;
use serde::Serialize;

use crate::records::{read_record, record_root, record_text};

/// One checkpoint as the tools and resources describe it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct CheckpointEntry {
    /// The checkpoint ID (a ULID for the ones this server makes).
    pub checkpoint_id: String,
    /// When its last session was written (RFC 3339, UTC).
    pub created_at: String,
    /// The agent of its last session (may be empty).
    pub agent: String,
    /// Its session IDs, by slot.
    pub session_ids: Vec<String>,
    /// The files its sessions touched.
    pub files_touched: Vec<String>,
    /// Whether it holds an undo snapshot (so it can be rolled back to).
    pub has_snapshot: bool,
    /// Present only for a stored checkpoint that cannot be read (a
    /// teammate's malformed ref, a commit with an empty tree): why. It is
    /// listed after the sound ones, never the end of the listing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub damaged: Option<DamageEntry>,
}

/// Why a listed checkpoint cannot be read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct DamageEntry {
    /// The stable error code a read of it gives (`corrupt_object`, ...).
    pub code: String,
    /// The error's message.
    pub reason: String,
}

/// A snapshot kept in memory.
pub(crate) struct Kept {
    snapshot: String,
    entry: CheckpointEntry,
    created: Timestamp,
}

/// What [`Keeper::keep`] stored.
pub(crate) struct Stored {
    /// The new checkpoint's ID.
    pub checkpoint_id: String,
    /// The local-only ref holding the snapshot (git storage only).
    pub snapshot_ref: Option<String>,
}

/// The snapshots' home.
pub(crate) enum Keeper {
    /// The git store of the repository around the root, and the root's
    /// path relative to its working tree.
    Git(Box<Store>, String),
    /// A map that lives as long as the server.
    Memory(Mutex<BTreeMap<String, Kept>>),
}

impl Keeper {
    /// The git store around `root` when there is one the caller may use
    /// (owned by the caller or trusted by `safe.directory`, as
    /// [`Store::open`] judges it) whose working tree contains `root` (and
    /// `root` is not inside its git dir), else memory.
    pub fn open(root: &Path) -> Keeper {
        match Store::open(root) {
            Ok(store) => match relative_root(&store, root) {
                Some(rel) => Keeper::Git(Box::new(store), rel),
                None => Keeper::Memory(Mutex::new(BTreeMap::new())),
            },
            _ => Keeper::Memory(Mutex::new(BTreeMap::new())),
        }
    }

    /// `git` or `memory`.
    pub fn storage(&self) -> &'static str {
        match self {
            Keeper::Git(..) => "git",
            Keeper::Memory(_) => "memory",
        }
    }

    /// The git store, for the tools that need one.
    pub fn store(&self) -> Result<&Store> {
        match self {
            Keeper::Git(store, _) => Ok(store),
            Keeper::Memory(_) => Err(Error::NotARepository {
                path: ".".into(),
                reason: "the server's root is not inside a git repository with a working tree, so checkpoints live in memory and sessions cannot be saved".into(),
            }),
        }
    }

    /// Stores `snapshot` (capturing `paths`) as a new checkpoint of
    /// session `session_id`. The text is moved in, never copied: a capture
    /// holds it once.
    pub fn keep(
        &self,
        snapshot: String,
        paths: &[String],
        session_id: &str,
        agent: &str,
    ) -> Result<Stored> {
        let id = new_ulid(None)?;
        match self {
            Keeper::Git(store, rel) => {
                // Recorded first: a checkpoint without its record is refused.
                record_root(store, id.as_str(), rel)?;
                store.write_session(
                    &SessionWrite::new(id.as_str(), session_id)
                        .agent(agent)
                        .files_touched(paths.iter().cloned())
                        .snapshot(snapshot),
                )?;
                Ok(Stored {
                    snapshot_ref: Some(snapshot_ref(&id)),
                    checkpoint_id: id.into_string(),
                })
            }
            Keeper::Memory(map) => {
                agent_checkpoint_store::validate_segment_id("session_id", session_id)?;
                let created = Timestamp::now();
                let entry = CheckpointEntry {
                    checkpoint_id: id.as_str().to_owned(),
                    created_at: created.to_string(),
                    agent: agent.to_owned(),
                    session_ids: vec![session_id.to_owned()],
                    files_touched: paths.to_vec(),
                    has_snapshot: true,
                    damaged: None,
                };
                let kept = Kept {
                    snapshot,
                    entry,
                    created,
                };
                lock(map).insert(id.as_str().to_owned(), kept);
                Ok(Stored {
                    checkpoint_id: id.into_string(),
                    snapshot_ref: None,
                })
            }
        }
    }

    /// Makes checkpoint `id` this root's for a `save_session` write: a
    /// checkpoint that exists must be this root's (another root's, the
    /// CLI's, or one without a record is `not_found`, so a confined server
    /// neither writes into it nor learns it exists); a new one is recorded
    /// as this root's before it is written. Memory storage keeps no
    /// sessions, so it has nothing to claim.
    ///
    /// # Errors
    /// `invalid_checkpoint_id`; `not_found` as said; what reading the
    /// store or writing the record fails with.
    pub fn claim(&self, id: &str) -> Result<()> {
        validate_checkpoint_id(id)?;
        let Keeper::Git(store, rel) = self else {
            return Ok(());
        };
        match store.read(id) {
            Err(e) if e.code() == agent_checkpoint::ErrorCode::NotFound => {
                record_root(store, id, rel)
            }
            // Damaged or sound, it exists: only its own root may write it.
            _ => ours(store, rel, id),
        }
    }

    /// The undo snapshot of checkpoint `id`.
    ///
    /// # Errors
    /// `invalid_checkpoint_id`; `not_found` when there is no such
    /// checkpoint or it holds no snapshot.
    pub fn snapshot(&self, id: &str) -> Result<String> {
        validate_checkpoint_id(id)?;
        match self {
            Keeper::Git(store, rel) => {
                ours(store, rel, id)?;
                store.undo_snapshot(id)
            }
            Keeper::Memory(map) => lock(map)
                .get(id)
                .map(|k| k.snapshot.clone())
                .ok_or_else(|| not_found(id)),
        }
    }

    /// Replaces the undo snapshot of checkpoint `id` with `text` (the same
    /// paths, with more recorded: `record_applied`). In git, the session
    /// that carries the snapshot is written again with it, which is only
    /// done while that session holds nothing a later `save_session` added.
    ///
    /// # Errors
    /// `not_found` without such a checkpoint or snapshot; `conflict` when
    /// the carrying session has prompts or a transcript.
    pub fn replace_snapshot(&self, id: &str, text: &str) -> Result<()> {
        validate_checkpoint_id(id)?;
        match self {
            Keeper::Git(store, rel) => {
                ours(store, rel, id)?;
                rewrite_carrier(store, id, text)
            }
            Keeper::Memory(map) => match lock(map).get_mut(id) {
                Some(kept) => {
                    kept.snapshot = text.to_owned();
                    Ok(())
                }
                None => Err(not_found(id)),
            },
        }
    }

    /// Checkpoint `id`, described.
    pub fn describe(&self, id: &str) -> Result<CheckpointEntry> {
        validate_checkpoint_id(id)?;
        match self {
            Keeper::Git(store, rel) => {
                ours(store, rel, id)?;
                describe_stored(store, id)
            }
            Keeper::Memory(map) => lock(map)
                .get(id)
                .map(|k| k.entry.clone())
                .ok_or_else(|| not_found(id)),
        }
    }

    /// The newest `limit` checkpoints, newest first, and how many there are.
    /// Without `check_snapshots`, git checkpoints are not looked into for
    /// an undo snapshot (reading one means reading its blob) and say
    /// `has_snapshot: false`.
    pub fn list(
        &self,
        limit: usize,
        check_snapshots: bool,
    ) -> Result<(Vec<CheckpointEntry>, usize)> {
        match self {
            Keeper::Git(store, rel) => {
                let all: Vec<_> = store
                    .list()?
                    .into_iter()
                    .filter(|info| ours(store, rel, &info.checkpoint_id).is_ok())
                    .collect();
                let total = all.len();
                let mut out = Vec::new();
                for info in all.into_iter().take(limit) {
                    let damaged = info.damaged.map(|d| DamageEntry {
                        code: d.code.as_str().to_owned(),
                        reason: d.reason,
                    });
                    let has_snapshot = check_snapshots
                        && damaged.is_none()
                        && store.snapshot(&info.checkpoint_id)?.is_some();
                    out.push(CheckpointEntry {
                        created_at: info.created_at.to_string(),
                        agent: info.agent,
                        session_ids: info.session_ids,
                        files_touched: info.files_touched,
                        has_snapshot,
                        checkpoint_id: info.checkpoint_id,
                        damaged,
                    });
                }
                Ok((out, total))
            }
            Keeper::Memory(map) => {
                let map = lock(map);
                let mut all: Vec<&Kept> = map.values().collect();
                all.sort_by(|a, b| {
                    (b.created, &b.entry.checkpoint_id).cmp(&(a.created, &a.entry.checkpoint_id))
                });
                let out = all.iter().take(limit).map(|k| k.entry.clone()).collect();
                Ok((out, all.len()))
            }
        }
    }
}

fn describe_stored(store: &Store, id: &str) -> Result<CheckpointEntry> {
    let summary = store.read(id)?;
    let sessions = summary.sessions.as_ref().map_or(0, Vec::len);
    let mut entry = CheckpointEntry {
        checkpoint_id: id.to_owned(),
        created_at: String::new(),
        agent: String::new(),
        session_ids: Vec::with_capacity(sessions),
        files_touched: summary.files_touched.unwrap_or_default(),
        has_snapshot: store.snapshot(id)?.is_some(),
        damaged: None,
    };
    for slot in 0..sessions {
        let meta = store.read_session_metadata(id, slot)?;
        entry.session_ids.push(meta.session_id);
        entry.created_at = meta.created_at.to_string();
        entry.agent = meta.agent;
    }
    Ok(entry)
}

/// Writes the session of checkpoint `id` that carries its snapshot again,
/// with the snapshot `text`.
fn rewrite_carrier(store: &Store, id: &str, text: &str) -> Result<()> {
    let sha = snapshot_sha256(&store.undo_snapshot(id)?);
    let sessions = store.read(id)?.sessions.unwrap_or_default();
    for (slot, files) in sessions.iter().enumerate() {
        let meta = store.read_session_metadata(id, slot)?;
        if meta.snapshot_sha256 != sha {
            continue;
        }
        if !files.transcript.is_empty() || !files.prompt.is_empty() {
            return Err(Error::Conflict {
                what: format!("session {:?} of checkpoint {id}", meta.session_id),
                reason: "it was saved with prompts or a transcript after the capture: record the applied state right after the batch, before save_session".into(),
            });
        }
        let mut write = SessionWrite::new(id, meta.session_id.as_str())
            .agent(meta.agent)
            .model(meta.model)
            .branch(meta.branch)
            .created_at(meta.created_at)
            .snapshot(text);
        write.files_touched = meta.files_touched;
        store.write_session(&write)?;
        return Ok(());
    }
    Err(Error::NotFound {
        what: format!("the session of checkpoint {id} that carries its undo snapshot"),
    })
}

fn not_found(id: &str) -> Error {
    Error::NotFound {
        what: format!("checkpoint {id:?}"),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic while holding the lock leaves a map that is still consistent.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `Ok` when checkpoint `id` is this root's (`rel` of this working tree),
/// else `not_found`, whatever the reason (another root or worktree, no
/// record, an unreadable one).
fn ours(store: &Store, rel: &str, id: &str) -> Result<()> {
    match (read_record(store, id), record_text(store, rel)) {
        (Some(recorded), Some(expected)) if recorded == expected => Ok(()),
        _ => Err(not_found(id)),
    }
}

/// `root`'s path relative to `store`'s working tree (`""` for the top,
/// `/`-separated), both resolved; `None` when the working tree does not
/// hold `root` or `root` is inside the git dir.
fn relative_root(store: &Store, root: &Path) -> Option<String> {
    let root = std::fs::canonicalize(root).ok()?;
    let work_dir = std::fs::canonicalize(store.work_dir()?).ok()?;
    // A linked worktree's own git dir is inside the common dir.
    if std::fs::canonicalize(store.common_dir()).is_ok_and(|git_dir| root.starts_with(git_dir)) {
        return None;
    }
    let rel = root.strip_prefix(&work_dir).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn git_init(dir: &Path) {
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(dir)
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// A root below the work tree uses the repository; a root inside its
    /// git dir (which discovery also finds) does not.
    #[test]
    fn a_repository_is_used_only_when_its_work_tree_holds_the_root() {
        let dir = tempfile::tempdir().unwrap();
        git_init(dir.path());
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert_eq!(Keeper::open(&sub).storage(), "git");
        let inside = dir.path().join(".git").join("scratch");
        std::fs::create_dir(&inside).unwrap();
        assert_eq!(Keeper::open(&inside).storage(), "memory");
        assert_eq!(Keeper::open(&dir.path().join(".git")).storage(), "memory");
    }

    /// Linked worktrees share the common dir (and so the root records): a
    /// server at the top of one never takes the other's checkpoints.
    #[test]
    fn a_linked_worktrees_checkpoints_are_not_another_worktrees() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        git_init(&main);
        let git = |args: &[&str]| {
            let status = std::process::Command::new("git")
                .arg("-C")
                .arg(&main)
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .status()
                .unwrap();
            assert!(status.success(), "git {args:?}");
        };
        std::fs::write(main.join("a.txt"), "a").unwrap();
        git(&["add", "a.txt"]);
        git(&["commit", "-q", "-m", "init"]);
        let linked = dir.path().join("linked");
        git(&["worktree", "add", "-q", linked.to_str().unwrap()]);
        let in_main = Keeper::open(&main);
        let in_linked = Keeper::open(&linked);
        assert_eq!((in_main.storage(), in_linked.storage()), ("git", "git"));
        let snapshot = r#"{"version":1,"entries":{"a.txt":"YQ=="}}"#.to_owned();
        let kept = in_main
            .keep(snapshot.clone(), &["a.txt".to_owned()], "s1", "test")
            .unwrap();
        assert_eq!(in_main.snapshot(&kept.checkpoint_id).unwrap(), snapshot);
        let err = in_linked.snapshot(&kept.checkpoint_id).unwrap_err();
        assert_eq!(err.code(), agent_checkpoint::ErrorCode::NotFound, "{err}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let record = crate::records::record_path(in_main.store().unwrap(), &kept.checkpoint_id);
            let mode = std::fs::metadata(record).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    /// A symlink planted at a record's name is replaced, never written
    /// through; a symlinked records directory is refused; a record reached
    /// through a symlink is nobody's.
    #[cfg(unix)]
    #[test]
    fn root_records_never_follow_a_symlink() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git_init(&repo);
        let outside = dir.path().join("outside");
        std::fs::write(&outside, "keep\n").unwrap();
        let keeper = Keeper::open(&repo);
        let store = keeper.store().unwrap();
        let roots = store.common_dir().join(crate::records::ROOTS_DIR);
        std::fs::create_dir(&roots).unwrap();
        let id = "01J0000000000000000000000A";
        symlink(&outside, roots.join(id)).unwrap();
        keeper.claim(id).unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "keep\n");
        let record = std::fs::symlink_metadata(roots.join(id)).unwrap();
        assert!(record.is_file());
        assert_eq!(record.permissions().mode() & 0o777, 0o600);
        keeper.claim(id).unwrap();

        // The right text, reached through a link: not this root's.
        let other = "01J0000000000000000000000B";
        std::fs::copy(roots.join(id), dir.path().join("copied")).unwrap();
        symlink(dir.path().join("copied"), roots.join(other)).unwrap();
        assert!(ours(store, "", other).is_err());
        assert!(ours(store, "", id).is_ok());

        // The directory itself a symlink: refused, nothing written there.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::rename(&roots, dir.path().join("old-roots")).unwrap();
        symlink(&elsewhere, &roots).unwrap();
        let err = keeper.claim("01J0000000000000000000000C").unwrap_err();
        assert_eq!(err.code(), agent_checkpoint::ErrorCode::Io, "{err}");
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        assert!(ours(store, "", id).is_err());
    }

    /// A FIFO planted at a record's name (by anyone who may write the
    /// records directory: a member of a shared repository's group) is
    /// nobody's record, and looking at it never blocks: every listing
    /// reads the records. The look runs on a thread of its own: a blocking
    /// open would hang it, which fails the test at its deadline.
    #[cfg(unix)]
    #[test]
    fn a_fifo_at_a_records_name_never_blocks_the_look() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        git_init(&repo);
        let keeper = Keeper::open(&repo);
        let store = keeper.store().unwrap();
        let roots = store.common_dir().join(crate::records::ROOTS_DIR);
        std::fs::create_dir(&roots).unwrap();
        let id = "01J0000000000000000000000D";
        let made = std::process::Command::new("mkfifo")
            .arg(roots.join(id))
            .status()
            .unwrap();
        assert!(made.success());
        let (tx, rx) = std::sync::mpsc::channel();
        let looked_at = repo.clone();
        std::thread::spawn(move || {
            let keeper = Keeper::open(&looked_at);
            let store = keeper.store().unwrap();
            let _ = tx.send(ours(store, "", id).is_ok());
        });
        let was_ours = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("reading the record blocked on the FIFO at its name"));
        assert!(!was_ours, "a FIFO is nobody's record");
        // Claiming the ID replaces the FIFO with a record of this root.
        keeper.claim(id).unwrap();
        assert!(std::fs::symlink_metadata(roots.join(id)).unwrap().is_file());
        assert!(ours(store, "", id).is_ok());
    }
}
