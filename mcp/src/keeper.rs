//! Where the server keeps the snapshots it captures: in the git store when
//! the root is inside a git repository (the checkpoint under
//! `refs/entire/checkpoints/`, the snapshot under the local-only
//! `refs/entire/snapshots/`, so both survive a restart), else in memory for
//! the server's life.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::id::{new_ulid, validate_checkpoint_id};
use agent_checkpoint_store::snapshots::snapshot_sha256;
use agent_checkpoint_store::{snapshot_ref, SessionWrite, Store, Timestamp};
use schemars::JsonSchema;
use serde::Serialize;

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
    /// The git store of the repository around the root.
    Git(Box<Store>),
    /// A map that lives as long as the server.
    Memory(Mutex<BTreeMap<String, Kept>>),
}

impl Keeper {
    /// The git store around `root` when there is one with a working tree,
    /// else memory.
    pub fn open(root: &Path) -> Keeper {
        match Store::open(root) {
            Ok(store) if store.work_dir().is_some() => Keeper::Git(Box::new(store)),
            _ => Keeper::Memory(Mutex::new(BTreeMap::new())),
        }
    }

    /// `git` or `memory`.
    pub fn storage(&self) -> &'static str {
        match self {
            Keeper::Git(_) => "git",
            Keeper::Memory(_) => "memory",
        }
    }

    /// The git store, for the tools that need one.
    pub fn store(&self) -> Result<&Store> {
        match self {
            Keeper::Git(store) => Ok(store),
            Keeper::Memory(_) => Err(Error::NotARepository {
                path: ".".into(),
                reason: "the server's root is not inside a git repository with a working tree, so checkpoints live in memory and sessions cannot be saved".into(),
            }),
        }
    }

    /// Stores `snapshot` (capturing `paths`) as a new checkpoint of
    /// session `session_id`.
    pub fn keep(
        &self,
        snapshot: &str,
        paths: &[String],
        session_id: &str,
        agent: &str,
    ) -> Result<Stored> {
        let id = new_ulid(None)?;
        match self {
            Keeper::Git(store) => {
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
                };
                let kept = Kept {
                    snapshot: snapshot.to_owned(),
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

    /// The undo snapshot of checkpoint `id`.
    ///
    /// # Errors
    /// `invalid_checkpoint_id`; `not_found` when there is no such
    /// checkpoint or it holds no snapshot.
    pub fn snapshot(&self, id: &str) -> Result<String> {
        validate_checkpoint_id(id)?;
        match self {
            Keeper::Git(store) => store.undo_snapshot(id),
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
            Keeper::Git(store) => rewrite_carrier(store, id, text),
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
            Keeper::Git(store) => describe_stored(store, id),
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
            Keeper::Git(store) => {
                let all = store.list()?;
                let total = all.len();
                let mut out = Vec::new();
                for info in all.into_iter().take(limit) {
                    let has_snapshot =
                        check_snapshots && store.snapshot(&info.checkpoint_id)?.is_some();
                    out.push(CheckpointEntry {
                        created_at: info.created_at.to_string(),
                        agent: info.agent,
                        session_ids: info.session_ids,
                        files_touched: info.files_touched,
                        has_snapshot,
                        checkpoint_id: info.checkpoint_id,
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
