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
use crate::remote::blobs::{blobs, Which};
use crate::remote::promisor::missing;
use crate::store::Store;
use crate::timestamp::Timestamp;
use agent_checkpoint::{Error, ErrorCode, Result};
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
    /// The transcript, chunks joined (`full.jsonl`, `.001`, ...; else
    /// `full.log`); `None` when the session was written without one (an
    /// empty transcript is none, as on write).
    pub transcript: Option<Vec<u8>>,
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
    /// Why the checkpoint cannot be read, when it cannot (a ref whose name
    /// is not a valid checkpoint ID, a commit or tree that is missing or
    /// malformed, a summary without sessions' metadata): then only
    /// `checkpoint_id` and `backend` say anything. `None` (`null`) for a
    /// sound checkpoint.
    pub damaged: Option<Damage>,
}

agent_checkpoint::field_list!(CheckpointInfo {
    checkpoint_id,
    backend,
    session_ids,
    created_at,
    agent,
    is_task,
    tool_use_id,
    checkpoints_count,
    files_touched,
    imported,
    damaged,
});

/// Why a listed checkpoint cannot be read (serialized as
/// `{"code": "corrupt_object", "reason": "..."}`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Damage {
    /// The stable error code a read of it gives (`corrupt_object`,
    /// `invalid_checkpoint_id`, ...).
    #[serde(serialize_with = "code_name")]
    pub code: ErrorCode,
    /// The error's message.
    pub reason: String,
}

fn code_name<S: serde::Serializer>(c: &ErrorCode, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(c.as_str())
}

impl CheckpointInfo {
    /// A checkpoint listed but unreadable: its ID, where, and why.
    fn damaged(id: &str, backend: Backend, error: &Error) -> CheckpointInfo {
        CheckpointInfo {
            checkpoint_id: id.to_owned(),
            backend,
            session_ids: Vec::new(),
            created_at: Timestamp::default(),
            agent: String::new(),
            is_task: false,
            tool_use_id: String::new(),
            checkpoints_count: 0,
            files_touched: Vec::new(),
            imported: false,
            damaged: Some(Damage {
                code: error.code(),
                reason: error.to_string(),
            }),
        }
    }
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
        let what = format!("checkpoint {id}");
        self.fetch_named(&repo, found.tree, &[METADATA_FILE], &what)?;
        let dir = CheckpointDir::load(&repo, Some(found.tree), &what, &self.cache)?;
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
        self.fetch_blobs(&repo, &[entry.oid])?;
        let bytes = read_blob(&repo, &entry.oid, &what)?;
        Ok(utf8(&bytes, &what)?.to_owned())
    }

    /// Session `index` (0-based) of checkpoint `id`: metadata, prompts and
    /// the transcript (`None` for a session written without one: its
    /// prompts and metadata read back all the same).
    ///
    /// # Errors
    /// `not_found` for a missing checkpoint or index; `corrupt_object`.
    ///
    /// After a treeless fetch, the session's blobs that are not here
    /// (transcript chunks, prompts) are fetched first, together in one
    /// `git fetch` from the promisor remote; offline that is
    /// `remote_unreachable`.
    pub fn read_session(&self, id: &str, index: usize) -> Result<SessionContent> {
        self.session(id, index, true)
    }

    /// The metadata of session `index` of checkpoint `id` (no transcript needed).
    ///
    /// # Errors
    /// `not_found` for a missing checkpoint or index; `corrupt_object`.
    pub fn read_session_metadata(&self, id: &str, index: usize) -> Result<Metadata> {
        self.session(id, index, false).map(|c| c.metadata)
    }

    /// Session `index` of checkpoint `id`; its prompts and transcript only
    /// when `content` (else they are left empty, and never fetched).
    fn session(&self, id: &str, index: usize, content: bool) -> Result<SessionContent> {
        let id = validate_checkpoint_id(id)?;
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let what = format!("checkpoint {id}");
        self.fetch_named(&repo, found.tree, &[METADATA_FILE], &what)?;
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
        // What this read will read, fetched together when missing.
        let wanted: Vec<ObjectId> = entries
            .iter()
            .filter(|e| !e.mode.is_tree() && (content || e.oid == meta.oid))
            .map(|e| e.oid)
            .collect();
        self.fetch_blobs(&repo, &wanted)?;
        let metadata_json = utf8(&read_blob(&repo, &meta.oid, &what)?, &what)?.to_owned();
        let metadata = Metadata::from_json(&metadata_json, &format!("{what}/metadata.json"))?;
        if !content {
            return Ok(SessionContent {
                metadata,
                metadata_json,
                prompts: Vec::new(),
                transcript: None,
            });
        }
        let prompts = match find(&entries, PROMPT_FILE) {
            Some(p) => split_prompts(&String::from_utf8_lossy(&read_blob(&repo, &p.oid, &what)?)),
            None => Vec::new(),
        };
        Ok(SessionContent {
            metadata,
            metadata_json,
            prompts,
            transcript: Some(transcript(&repo, &entries, &what)?).filter(|t| !t.is_empty()),
        })
    }

    /// Every local checkpoint: the refs `parse_ref` accepts and the legacy
    /// checkpoints on the v1 branch (a ref wins over the branch for one ID),
    /// newest first (by the last session's `created_at`, then ID). One that
    /// cannot be read (a teammate's malformed ref, a commit with an empty
    /// tree) is listed with `CheckpointInfo::damaged` saying why, after
    /// the sound ones; it never ends the listing.
    ///
    /// # Errors
    /// `corrupt_object` when the ref store or the v1 branch's own trees
    /// cannot be read.
    pub fn list(&self) -> Result<Vec<CheckpointInfo>> {
        let repo = self.local();
        let mut all: BTreeMap<String, CheckpointInfo> = BTreeMap::new();
        // The trees of checkpoints that did not read: their documents may
        // be on the remote still (a treeless fetch git ran by itself).
        let mut unread: Vec<(String, Backend, ObjectId)> = Vec::new();
        for (id, tip) in refs_backend::list(&repo)? {
            let mut tree = None;
            let info = validate_checkpoint_id(&id)
                .and_then(|_| {
                    let tip = tip?;
                    let what = format!("checkpoint {id}");
                    let t = refs_backend::checkpoint_tree(&repo, tip, &what)?;
                    tree = Some(t);
                    describe(&self.cache, &repo, &id, t, Backend::GitRefs)
                })
                .unwrap_or_else(|e| {
                    if let Some(t) = tree {
                        unread.push((id.clone(), Backend::GitRefs, t));
                    }
                    CheckpointInfo::damaged(&id, Backend::GitRefs, &e)
                });
            all.insert(id, info);
        }
        if let Some(tip) = read_tip(&repo, BRANCH_REF)? {
            for (id, tree) in branch_backend::walk(&repo, tip)? {
                if let std::collections::btree_map::Entry::Vacant(slot) = all.entry(id) {
                    let info = describe(&self.cache, &repo, slot.key(), tree, Backend::GitBranch)
                        .unwrap_or_else(|e| {
                            unread.push((slot.key().clone(), Backend::GitBranch, tree));
                            CheckpointInfo::damaged(slot.key(), Backend::GitBranch, &e)
                        });
                    slot.insert(info);
                }
            }
        }
        self.describe_fetched(&repo, unread, &mut all);
        let mut list: Vec<CheckpointInfo> = all.into_values().collect();
        list.sort_by(|a, b| {
            (a.damaged.is_some().cmp(&b.damaged.is_some())).then_with(|| {
                (b.created_at, &b.checkpoint_id).cmp(&(a.created_at, &a.checkpoint_id))
            })
        });
        Ok(list)
    }
}

impl Store {
    /// Fetches the documents of the checkpoints `unread` lacks (all of
    /// them in one `git fetch` from the promisor remotes) and describes
    /// those checkpoints again; when the fetch fails (offline), each one
    /// missing a document is listed as damaged with that error
    /// (`remote_unreachable`). Nothing runs when no document is missing.
    fn describe_fetched(
        &self,
        repo: &gix::Repository,
        unread: Vec<(String, Backend, ObjectId)>,
        all: &mut BTreeMap<String, CheckpointInfo>,
    ) {
        let mut lacking = Vec::new();
        let mut docs = Vec::new();
        for (id, backend, tree) in unread {
            let what = format!("checkpoint {id}");
            let Ok(found) = blobs(repo, tree, Which::Documents, &what) else {
                continue;
            };
            let oids: Vec<ObjectId> = found.into_iter().map(|(_, oid)| oid).collect();
            let absent = missing(repo, &oids);
            if !absent.is_empty() {
                docs.extend(absent);
                lacking.push((id, backend, tree));
            }
        }
        if lacking.is_empty() {
            return;
        }
        let fetched = self.fetch_blobs(repo, &docs);
        for (id, backend, tree) in lacking {
            let info = match &fetched {
                Ok(_) => describe(&self.cache, repo, &id, tree, backend)
                    .unwrap_or_else(|e| CheckpointInfo::damaged(&id, backend, &e)),
                Err(e) => CheckpointInfo::damaged(&id, backend, e),
            };
            all.insert(id, info);
        }
    }

    /// Fetches the blobs named `names` in the tree `tree` when they are
    /// missing (after a treeless fetch), together.
    ///
    /// # Errors
    /// `corrupt_object` for an unreadable tree; `remote_unreachable` /
    /// `auth_failed` when they cannot be fetched.
    fn fetch_named(
        &self,
        repo: &gix::Repository,
        tree: ObjectId,
        names: &[&str],
        what: &str,
    ) -> Result<()> {
        let entries = read_tree(repo, &tree, what)?;
        let oids: Vec<ObjectId> = names
            .iter()
            .filter_map(|n| find(&entries, n))
            .filter(|e| !e.mode.is_tree())
            .map(|e| e.oid)
            .collect();
        self.fetch_blobs(repo, &oids).map(|_| ())
    }
}

fn not_found(id: &CheckpointId) -> Error {
    Error::NotFound {
        what: format!("checkpoint {id}"),
    }
}

/// Describes checkpoint `id` from its tree, as [`Store::list`] lists it.
pub(crate) fn describe(
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
        damaged: None,
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
