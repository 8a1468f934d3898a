//! Reads and listing (STORE.md §3 "Reads"), with routing by ID kind: a ULID
//! is read from refs only; a legacy ID from refs then the branch (git-refs
//! store) or from the branch (git-branch store). A missing checkpoint is
//! `not_found`; one that exists but cannot be read is `corrupt_object`.

use std::collections::BTreeMap;

use gix::objs::tree::Entry;
use gix::ObjectId;

use crate::backend::{Backend, Place};
use crate::branch_backend::{self, BRANCH_REF};
use crate::checkpoint::{utf8, CheckpointDir, MetadataCache};
use crate::documents::{CheckpointSummary, Document, Metadata};
use crate::layout::{chunk_index, LEGACY_TRANSCRIPT_FILE, METADATA_FILE, PROMPT_FILE};
use crate::objects::{corrupt, find, read_blob, read_tree};
use crate::ref_update::read_tip;
use crate::refs_backend;
use crate::store::Store;
use crate::timestamp::Timestamp;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::id::{validate_checkpoint_id, CheckpointId, IdKind};
use agent_checkpoint_naming::prompts::split_prompts;

/// One session's content.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SessionContent {
    /// The session's metadata.
    pub metadata: Metadata,
    /// Its `metadata.json` exactly as stored.
    pub metadata_json: String,
    /// The prompts (`prompt.txt` split on the separator; empty without one).
    pub prompts: Vec<String>,
    /// The transcript, chunks joined (`full.jsonl`, `.001`, ...; else `full.log`).
    pub transcript: Vec<u8>,
}

/// One checkpoint as [`Store::list`] shows it (serialized with these
/// field names, `backend` as `git-refs` / `git-branch`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct CheckpointInfo {
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// Where it is stored.
    #[serde(serialize_with = "backend_name")]
    pub backend: Backend,
    /// The session IDs, by slot.
    pub session_ids: Vec<String>,
    /// The last session's creation time.
    pub created_at: Timestamp,
    /// The last session's agent.
    pub agent: String,
    /// Whether the last session is a task checkpoint.
    pub is_task: bool,
    /// The last session's tool-use ID.
    pub tool_use_id: String,
    /// The summary's step count.
    pub checkpoints_count: i64,
    /// The summary's files touched.
    pub files_touched: Vec<String>,
    /// Whether the checkpoint was imported.
    pub imported: bool,
}

fn backend_name<S: serde::Serializer>(b: &Backend, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(b.as_str())
}

/// A checkpoint found where routing sent the read.
pub(crate) struct Found {
    pub place: Place,
    pub tree: ObjectId,
}

impl Store {
    /// Finds checkpoint `id` by ID kind; `None` when it is nowhere.
    pub(crate) fn locate(
        &self,
        repo: &gix::Repository,
        id: &CheckpointId,
    ) -> Result<Option<Found>> {
        let order: &[Backend] = if id.kind() == IdKind::Ulid {
            &[Backend::GitRefs]
        } else if self.options.backend == Backend::GitRefs {
            &[Backend::GitRefs, Backend::GitBranch]
        } else {
            &[Backend::GitBranch]
        };
        for &backend in order {
            let place = Place::new(id, backend)?;
            let tip = read_tip(repo, place.ref_name())?;
            if let Some(tree) = place.checkpoint_tree(repo, tip)? {
                return Ok(Some(Found { place, tree }));
            }
        }
        Ok(None)
    }

    pub(crate) fn require(&self, repo: &gix::Repository, id: &CheckpointId) -> Result<Found> {
        if let Some(found) = self.locate(repo, id)? {
            return Ok(found);
        }
        if self.fetch_if_missing(id)? {
            if let Some(found) = self.locate(repo, id)? {
                return Ok(found);
            }
        }
        Err(not_found(id))
    }

    /// The root summary of checkpoint `id`.
    ///
    /// # Errors
    /// `invalid_checkpoint_id`; `not_found`; `corrupt_object`.
    pub fn read(&self, id: &str) -> Result<CheckpointSummary> {
        let id = validate_checkpoint_id(id)?;
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let dir = CheckpointDir::load(
            &repo,
            Some(found.tree),
            &format!("checkpoint {id}"),
            &self.cache,
        )?;
        dir.summary
            .ok_or_else(|| corrupt(format!("checkpoint {id}"), "it has no metadata.json"))
    }

    /// The root `metadata.json` of checkpoint `id`, exactly as stored.
    ///
    /// # Errors
    /// As [`Store::read`].
    pub fn read_raw(&self, id: &str) -> Result<String> {
        let id = validate_checkpoint_id(id)?;
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let what = format!("checkpoint {id}");
        let entries = read_tree(&repo, &found.tree, &what)?;
        let entry = find(&entries, METADATA_FILE)
            .ok_or_else(|| corrupt(&what, "it has no metadata.json"))?;
        let bytes = read_blob(&repo, &entry.oid, &what)?;
        Ok(utf8(&bytes, &what)?.to_owned())
    }

    /// Session `index` (0-based) of checkpoint `id`: metadata, prompts and
    /// the transcript.
    ///
    /// # Errors
    /// `not_found` for a missing checkpoint or index; `no_transcript` when
    /// the session has none; `corrupt_object`.
    pub fn read_session(&self, id: &str, index: usize) -> Result<SessionContent> {
        let content = self.session(id, index)?;
        if content.transcript.is_empty() {
            return Err(Error::NoTranscript {
                what: format!("session {index} of checkpoint {id}"),
            });
        }
        Ok(content)
    }

    /// The metadata of session `index` of checkpoint `id` (no transcript needed).
    ///
    /// # Errors
    /// `not_found` for a missing checkpoint or index; `corrupt_object`.
    pub fn read_session_metadata(&self, id: &str, index: usize) -> Result<Metadata> {
        self.session(id, index).map(|c| c.metadata)
    }

    fn session(&self, id: &str, index: usize) -> Result<SessionContent> {
        let id = validate_checkpoint_id(id)?;
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let what = format!("checkpoint {id}");
        let dir = CheckpointDir::load(&repo, Some(found.tree), &what, &self.cache)?;
        if index >= dir.session_count() {
            return Err(Error::NotFound {
                what: format!("session {index} of checkpoint {id}"),
            });
        }
        let what = format!("{what}: session {index}");
        let slot = dir
            .slot_tree(index)
            .ok_or_else(|| corrupt(&what, "the summary lists it but its directory is missing"))?;
        let entries = read_tree(&repo, &slot, &what)?;
        let meta = find(&entries, METADATA_FILE)
            .ok_or_else(|| corrupt(&what, "it has no metadata.json"))?;
        let metadata_json = utf8(&read_blob(&repo, &meta.oid, &what)?, &what)?.to_owned();
        let metadata = Metadata::from_json(&metadata_json, &format!("{what}/metadata.json"))?;
        let prompts = match find(&entries, PROMPT_FILE) {
            Some(p) => split_prompts(&String::from_utf8_lossy(&read_blob(&repo, &p.oid, &what)?)),
            None => Vec::new(),
        };
        Ok(SessionContent {
            metadata,
            metadata_json,
            prompts,
            transcript: transcript(&repo, &entries, &what)?,
        })
    }

    /// Every local checkpoint: the refs `parse_ref` accepts and the legacy
    /// checkpoints on the v1 branch (a ref wins over the branch for one ID),
    /// newest first (by the last session's `created_at`, then ID).
    ///
    /// # Errors
    /// `corrupt_object` when a checkpoint cannot be read.
    pub fn list(&self) -> Result<Vec<CheckpointInfo>> {
        let repo = self.local();
        let mut all: BTreeMap<String, CheckpointInfo> = BTreeMap::new();
        for (id, tip) in refs_backend::list(&repo)? {
            let what = format!("checkpoint {id}");
            let tree = refs_backend::checkpoint_tree(&repo, tip, &what)?;
            let info = describe(&self.cache, &repo, &id, tree, Backend::GitRefs)?;
            all.insert(id, info);
        }
        if let Some(tip) = read_tip(&repo, BRANCH_REF)? {
            for (id, tree) in branch_backend::walk(&repo, tip)? {
                if let std::collections::btree_map::Entry::Vacant(slot) = all.entry(id) {
                    let info = describe(&self.cache, &repo, slot.key(), tree, Backend::GitBranch)?;
                    slot.insert(info);
                }
            }
        }
        let mut list: Vec<CheckpointInfo> = all.into_values().collect();
        list.sort_by(|a, b| {
            (b.created_at, &b.checkpoint_id).cmp(&(a.created_at, &a.checkpoint_id))
        });
        Ok(list)
    }
}

fn not_found(id: &CheckpointId) -> Error {
    Error::NotFound {
        what: format!("checkpoint {id}"),
    }
}

fn describe(
    cache: &MetadataCache,
    repo: &gix::Repository,
    id: &str,
    tree: ObjectId,
    backend: Backend,
) -> Result<CheckpointInfo> {
    let what = format!("checkpoint {id}");
    let mut dir = CheckpointDir::load(repo, Some(tree), &what, cache)?;
    let summary = dir
        .summary
        .take()
        .ok_or_else(|| corrupt(&what, "it has no metadata.json"))?;
    let count = summary.sessions.as_ref().map_or(0, Vec::len);
    dir.summary = Some(summary.clone());
    let mut info = CheckpointInfo {
        checkpoint_id: id.to_owned(),
        backend,
        session_ids: Vec::with_capacity(count),
        created_at: Timestamp::default(),
        agent: String::new(),
        is_task: false,
        tool_use_id: String::new(),
        checkpoints_count: summary.checkpoints_count,
        files_touched: summary.files_touched.unwrap_or_default(),
        imported: summary.imported,
    };
    for slot in 0..count {
        let meta = dir
            .metadata(repo, slot)?
            .ok_or_else(|| corrupt(&what, format!("session slot {slot} has no metadata.json")))?;
        info.session_ids.push(meta.session_id.clone());
        if slot + 1 == count {
            info.created_at = meta.created_at;
            info.agent = meta.agent.clone();
            info.is_task = meta.is_task;
            info.tool_use_id = meta.tool_use_id.clone();
        }
    }
    Ok(info)
}

/// The transcript of a session directory: `full.jsonl` then the numbered
/// chunks in order, else `full.log`, else empty.
fn transcript(repo: &gix::Repository, entries: &[Entry], what: &str) -> Result<Vec<u8>> {
    let mut chunks: Vec<(usize, &Entry)> = entries
        .iter()
        .filter(|e| !e.mode.is_tree())
        .filter_map(|e| {
            std::str::from_utf8(&e.filename)
                .ok()
                .and_then(chunk_index)
                .map(|i| (i, e))
        })
        .collect();
    chunks.sort_by_key(|(i, _)| *i);
    if chunks.is_empty() {
        return match find(entries, LEGACY_TRANSCRIPT_FILE) {
            Some(e) => read_blob(repo, &e.oid, what),
            None => Ok(Vec::new()),
        };
    }
    let mut out = Vec::new();
    for (_, e) in chunks {
        out.extend_from_slice(&read_blob(repo, &e.oid, what)?);
    }
    Ok(out)
}
