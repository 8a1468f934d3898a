//! One checkpoint's directory as a write sees it: the root summary, the
//! session slots `0/`, `1/`, ... and `tasks/`, read lazily from the tree and
//! written back with every untouched entry keeping its hash.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

use gix::objs::tree::Entry;
use gix::ObjectId;

use crate::documents::{CheckpointSummary, Document, Metadata, TokenUsage};
use crate::layout::{METADATA_FILE, TASKS_DIR, TASK_FILE};
use crate::objects::{
    self, blob_entry, corrupt, find, read_blob, read_tree, tree_entry, upsert, FileMode,
};
use agent_checkpoint::{Error, Result};

/// Parsed session metadata by the id of its slot tree. Trees are content
/// addressed, so an entry never goes stale; the cache only saves re-reading
/// every slot of a checkpoint on each write and list.
#[derive(Debug, Default)]
pub(crate) struct MetadataCache {
    entries: Mutex<HashMap<ObjectId, Metadata>>,
}

/// Entries kept before the cache starts over.
const CACHE_LIMIT: usize = 16_384;

impl MetadataCache {
    fn get(&self, tree: &ObjectId) -> Option<Metadata> {
        self.entries.lock().ok()?.get(tree).cloned()
    }

    fn put(&self, tree: ObjectId, meta: &Metadata) {
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= CACHE_LIMIT {
                entries.clear();
            }
            entries.insert(tree, meta.clone());
        }
    }
}

/// A checkpoint directory being edited.
pub(crate) struct CheckpointDir<'c> {
    /// Its entries (top level only).
    pub entries: Vec<Entry>,
    /// The root summary, when there is one.
    pub summary: Option<CheckpointSummary>,
    /// Session metadata read so far, by slot.
    metadata: BTreeMap<usize, Metadata>,
    what: String,
    cache: &'c MetadataCache,
}

impl<'c> CheckpointDir<'c> {
    /// The directory of the tree `tree` (empty for a new checkpoint).
    ///
    /// # Errors
    /// [`Error::CorruptObject`] when the tree or its root summary cannot be read.
    pub(crate) fn load(
        repo: &gix::Repository,
        tree: Option<ObjectId>,
        what: &str,
        cache: &'c MetadataCache,
    ) -> Result<CheckpointDir<'c>> {
        let entries = match tree {
            Some(tree) => read_tree(repo, &tree, what)?,
            None => Vec::new(),
        };
        let summary = match find(&entries, METADATA_FILE) {
            Some(entry) => {
                let bytes = read_blob(repo, &entry.oid, what)?;
                let text = utf8(&bytes, what)?;
                Some(CheckpointSummary::from_json(
                    text,
                    &format!("{what}: metadata.json"),
                )?)
            }
            None => None,
        };
        Ok(CheckpointDir {
            entries,
            summary,
            metadata: BTreeMap::new(),
            what: what.to_owned(),
            cache,
        })
    }

    /// The number of session slots the summary lists.
    pub(crate) fn session_count(&self) -> usize {
        self.summary
            .as_ref()
            .and_then(|s| s.sessions.as_ref())
            .map_or(0, Vec::len)
    }

    /// The tree of slot `slot`, if present.
    pub(crate) fn slot_tree(&self, slot: usize) -> Option<ObjectId> {
        find(&self.entries, &slot.to_string())
            .filter(|e| e.mode.is_tree())
            .map(|e| e.oid)
    }

    /// The metadata of slot `slot`, `None` when the slot has none.
    pub(crate) fn metadata(
        &mut self,
        repo: &gix::Repository,
        slot: usize,
    ) -> Result<Option<&Metadata>> {
        if !self.metadata.contains_key(&slot) {
            let Some(tree) = self.slot_tree(slot) else {
                return Ok(None);
            };
            if let Some(meta) = self.cache.get(&tree) {
                self.metadata.insert(slot, meta);
                return Ok(self.metadata.get(&slot));
            }
            let what = format!("{}: session {slot}", self.what);
            let entries = read_tree(repo, &tree, &what)?;
            let Some(entry) = find(&entries, METADATA_FILE) else {
                return Ok(None);
            };
            let bytes = read_blob(repo, &entry.oid, &what)?;
            let meta = Metadata::from_json(utf8(&bytes, &what)?, &format!("{what}/metadata.json"))?;
            self.cache.put(tree, &meta);
            self.metadata.insert(slot, meta);
        }
        Ok(self.metadata.get(&slot))
    }

    /// The slot holding `session_id`, if any of the listed slots does.
    pub(crate) fn find_session(
        &mut self,
        repo: &gix::Repository,
        session_id: &str,
    ) -> Result<Option<usize>> {
        for slot in 0..self.session_count() {
            if self
                .metadata(repo, slot)?
                .is_some_and(|m| m.session_id == session_id)
            {
                return Ok(Some(slot));
            }
        }
        Ok(None)
    }

    /// The slot a write of `session_id` goes to: its own, else the next
    /// free one; slot 0 is refused when it holds another session.
    ///
    /// # Errors
    /// [`Error::Conflict`] for the inconsistent slot-0 shape.
    pub(crate) fn slot_for(&mut self, repo: &gix::Repository, session_id: &str) -> Result<usize> {
        let slot = match self.find_session(repo, session_id)? {
            Some(slot) => slot,
            None => self.session_count(),
        };
        if slot == 0 {
            let what = format!("session slot 0 of {}", self.what);
            if let Some(existing) = self.metadata(repo, 0)? {
                if existing.session_id != session_id {
                    return Err(Error::Conflict {
                        what,
                        reason: format!(
                            "it holds session {:?}, not {session_id:?}, while the summary does not list it",
                            existing.session_id
                        ),
                    });
                }
            }
        }
        Ok(slot)
    }

    /// Replaces slot `slot` with the tree `tree` (whose metadata is `meta`,
    /// when known).
    pub(crate) fn set_slot(&mut self, slot: usize, tree: ObjectId, meta: Option<Metadata>) {
        upsert(&mut self.entries, tree_entry(&slot.to_string(), tree));
        match meta {
            Some(meta) => self.metadata.insert(slot, meta),
            None => self.metadata.remove(&slot),
        };
    }

    /// Field-wise aggregate of every listed slot: the sum of
    /// `checkpoints_count`, the sorted union of `files_touched` (`None` when
    /// empty) and the sum of token usage (`None` when no session has one).
    ///
    /// # Errors
    /// [`Error::CorruptObject`] when a listed slot has no metadata.
    pub(crate) fn aggregate(
        &mut self,
        repo: &gix::Repository,
        slots: usize,
    ) -> Result<(i64, Option<Vec<String>>, Option<TokenUsage>)> {
        let mut count = 0i64;
        let mut files = BTreeSet::new();
        let mut tokens: Option<TokenUsage> = None;
        for slot in 0..slots {
            let what = self.what.clone();
            let meta = self.metadata(repo, slot)?.ok_or_else(|| {
                corrupt(&what, format!("session slot {slot} has no metadata.json"))
            })?;
            count = count.saturating_add(meta.checkpoints_count);
            files.extend(meta.files_touched.iter().flatten().cloned());
            tokens = TokenUsage::sum(tokens.as_ref(), meta.token_usage.as_ref());
        }
        let files = (!files.is_empty()).then(|| files.into_iter().collect());
        Ok((count, files, tokens))
    }

    /// Writes `tasks/<tool_use_id>/checkpoint.json`, keeping the task
    /// directory's other files.
    pub(crate) fn set_task(
        &mut self,
        repo: &gix::Repository,
        tool_use_id: &str,
        blob: ObjectId,
    ) -> Result<()> {
        objects::check_name(tool_use_id)?;
        let what = format!("{}: tasks", self.what);
        let mut tasks = match find(&self.entries, TASKS_DIR).filter(|e| e.mode.is_tree()) {
            Some(e) => read_tree(repo, &e.oid, &what)?,
            None => Vec::new(),
        };
        let mut task = match find(&tasks, tool_use_id).filter(|e| e.mode.is_tree()) {
            Some(e) => read_tree(repo, &e.oid, &what)?,
            None => Vec::new(),
        };
        upsert(&mut task, blob_entry(TASK_FILE, FileMode::Regular, blob));
        upsert(
            &mut tasks,
            tree_entry(tool_use_id, objects::write_tree(repo, task)?),
        );
        upsert(
            &mut self.entries,
            tree_entry(TASKS_DIR, objects::write_tree(repo, tasks)?),
        );
        Ok(())
    }

    /// Writes the tree, the root `metadata.json` left as it is.
    pub(crate) fn write_unchanged_summary(self, repo: &gix::Repository) -> Result<ObjectId> {
        objects::write_tree(repo, self.entries)
    }

    /// Stores `summary` as the root `metadata.json` and writes the tree.
    pub(crate) fn write(
        mut self,
        repo: &gix::Repository,
        summary: &CheckpointSummary,
    ) -> Result<ObjectId> {
        let blob = objects::write_blob(repo, summary.to_go_json()?.as_bytes())?;
        upsert(
            &mut self.entries,
            blob_entry(METADATA_FILE, FileMode::Regular, blob),
        );
        objects::write_tree(repo, self.entries)
    }
}

/// The bytes as UTF-8, or corruption of `what`.
pub(crate) fn utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|_| corrupt(what, "a document is not UTF-8"))
}
