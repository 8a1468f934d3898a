//! Backfills: later updates of a stored checkpoint, each its own commit on
//! the checkpoint's ref (compare-and-swap like every write).
//!
//! - transcript: replaces a session's transcript (chunks, content hash) and,
//!   when given, its prompts — `Finalize transcript for Checkpoint: <id>`;
//! - summary: sets a session's AI summary —
//!   `Update summary for checkpoint <id> (session: <sid>)`;
//! - attribution: sets the root `combined_attribution` —
//!   `Update checkpoint summary for <id>`.

use gix::ObjectId;

use crate::checkpoint::{utf8, CheckpointDir, MetadataCache};
use crate::documents::{Attribution, Document, Metadata, Summary};
use crate::layout::{
    chunk, chunk_index, chunk_name, content_hash, CONTENT_HASH_FILE, LEGACY_TRANSCRIPT_FILE,
    METADATA_FILE, PROMPT_FILE, TRANSCRIPT_FILE,
};
use crate::message::{
    attribution_backfill_message, summary_backfill_message, transcript_backfill_message,
};
use crate::objects::{
    self, blob_entry, corrupt, find, read_blob, read_tree, remove, upsert, FileMode,
};
use crate::redaction::redact_summary;
use crate::session::validate_segment_id;
use crate::store::{signature, Store};
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::id::validate_checkpoint_id;
use agent_checkpoint_naming::prompts::join_prompts;

impl Store {
    /// Replaces the transcript of session `session_id` of checkpoint `id`
    /// (redacted, chunked, with a new content hash) and, when `prompts` is
    /// given, its prompts. Returns the new commit.
    ///
    /// # Errors
    /// `not_found` for a missing checkpoint or session; `invalid_argument`
    /// for an empty or non-UTF-8 transcript; as [`Store::write_session`].
    pub fn backfill_transcript(
        &self,
        id: &str,
        session_id: &str,
        transcript: &[u8],
        prompts: Option<&[String]>,
    ) -> Result<String> {
        let id = validate_checkpoint_id(id)?;
        validate_segment_id("session_id", session_id)?;
        let text = std::str::from_utf8(transcript)
            .map_err(|_| Error::invalid_argument("transcript", "is not UTF-8"))?;
        if text.is_empty() {
            return Err(Error::invalid_argument("transcript", "is empty"));
        }
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let redactor = self.options.redactor.as_ref();
        let stored = redactor.json(text);
        let chunks = chunk(stored.as_bytes(), self.options.transcript_chunk_bytes)
            .into_iter()
            .map(|c| objects::write_blob(&repo, c))
            .collect::<Result<Vec<_>>>()?;
        let hash = objects::write_blob(&repo, content_hash(stored.as_bytes()).as_bytes())?;
        let prompt_blob = match prompts {
            Some(p) if !p.is_empty() => Some(Some(objects::write_blob(
                &repo,
                redactor.text(&join_prompts(p)).as_bytes(),
            )?)),
            Some(_) => Some(None),
            None => None,
        };
        let who = signature(&repo, None);
        let prefix = found.place.prefix().to_owned();
        let what = format!("checkpoint {id}");
        let (commit, ()) = self.commit(
            &repo,
            &found.place,
            &who,
            &transcript_backfill_message(id.as_str()),
            |repo, tree| {
                let (mut dir, slot) = session_dir(repo, tree, session_id, &what, &self.cache)?;
                let mut entries = slot_entries(repo, &dir, slot, &what)?;
                entries.retain(|e| {
                    let name = e.filename.to_string();
                    chunk_index(&name).is_none()
                        && name != LEGACY_TRANSCRIPT_FILE
                        && name != CONTENT_HASH_FILE
                });
                for (i, blob) in chunks.iter().enumerate() {
                    entries.push(blob_entry(&chunk_name(i), FileMode::Regular, *blob));
                }
                entries.push(blob_entry(CONTENT_HASH_FILE, FileMode::Regular, hash));
                if let Some(prompt) = prompt_blob {
                    remove(&mut entries, PROMPT_FILE);
                    if let Some(blob) = prompt {
                        entries.push(blob_entry(PROMPT_FILE, FileMode::Regular, blob));
                    }
                }
                let slot_tree = objects::write_tree(repo, entries)?;
                let keep = dir.metadata(repo, slot)?.cloned();
                dir.set_slot(slot, slot_tree, keep);
                let mut summary = dir
                    .summary
                    .take()
                    .ok_or_else(|| corrupt(&what, "it has no metadata.json"))?;
                let base = format!("/{prefix}{slot}/");
                if let Some(paths) = summary.sessions.as_mut().and_then(|s| s.get_mut(slot)) {
                    paths.transcript = format!("{base}{TRANSCRIPT_FILE}");
                    paths.content_hash = format!("{base}{CONTENT_HASH_FILE}");
                    match prompt_blob {
                        Some(Some(_)) => paths.prompt = format!("{base}{PROMPT_FILE}"),
                        Some(None) => paths.prompt.clear(),
                        None => {}
                    }
                }
                Ok((dir.write(repo, &summary)?, ()))
            },
            |_, _, v| Ok(v),
        )?;
        Ok(commit.to_string())
    }

    /// Sets the AI summary of session `session_id` of checkpoint `id`
    /// (redacted). Returns the new commit.
    ///
    /// # Errors
    /// `not_found` for a missing checkpoint or session; as [`Store::write_session`].
    pub fn backfill_summary(
        &self,
        id: &str,
        session_id: &str,
        summary: &Summary,
    ) -> Result<String> {
        let id = validate_checkpoint_id(id)?;
        validate_segment_id("session_id", session_id)?;
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let redacted = redact_summary(self.options.redactor.as_ref(), summary);
        let who = signature(&repo, None);
        let what = format!("checkpoint {id}");
        let message = summary_backfill_message(id.as_str(), session_id);
        let (commit, ()) = self.commit(
            &repo,
            &found.place,
            &who,
            &message,
            |repo, tree| {
                let (mut dir, slot) = session_dir(repo, tree, session_id, &what, &self.cache)?;
                let mut entries = slot_entries(repo, &dir, slot, &what)?;
                let slot_what = format!("{what}: session {slot}");
                let meta = find(&entries, METADATA_FILE)
                    .ok_or_else(|| corrupt(&slot_what, "it has no metadata.json"))?;
                let text = read_blob(repo, &meta.oid, &slot_what)?;
                let mut meta = Metadata::from_json(utf8(&text, &slot_what)?, &slot_what)?;
                meta.summary = Some(redacted.clone());
                let blob = objects::write_blob(repo, meta.to_go_json()?.as_bytes())?;
                upsert(
                    &mut entries,
                    blob_entry(METADATA_FILE, FileMode::Regular, blob),
                );
                let slot_tree = objects::write_tree(repo, entries)?;
                dir.set_slot(slot, slot_tree, Some(meta));
                Ok((dir.write_unchanged_summary(repo)?, ()))
            },
            |_, _, v| Ok(v),
        )?;
        Ok(commit.to_string())
    }

    /// Sets the root summary's `combined_attribution` of checkpoint `id`.
    /// Returns the new commit.
    ///
    /// # Errors
    /// `not_found` for a missing checkpoint; as [`Store::write_session`].
    pub fn backfill_attribution(&self, id: &str, attribution: &Attribution) -> Result<String> {
        let id = validate_checkpoint_id(id)?;
        let repo = self.local();
        let found = self.require(&repo, &id)?;
        let who = signature(&repo, None);
        let what = format!("checkpoint {id}");
        let (commit, ()) = self.commit(
            &repo,
            &found.place,
            &who,
            &attribution_backfill_message(id.as_str()),
            |repo, tree| {
                let tree = tree.ok_or_else(|| Error::NotFound { what: what.clone() })?;
                let mut dir = CheckpointDir::load(repo, Some(tree), &what, &self.cache)?;
                let mut summary = dir
                    .summary
                    .take()
                    .ok_or_else(|| corrupt(&what, "it has no metadata.json"))?;
                summary.combined_attribution = Some(attribution.clone());
                Ok((dir.write(repo, &summary)?, ()))
            },
            |_, _, v| Ok(v),
        )?;
        Ok(commit.to_string())
    }
}

/// The checkpoint directory and the slot of `session_id` in it.
fn session_dir<'c>(
    repo: &gix::Repository,
    tree: Option<ObjectId>,
    session_id: &str,
    what: &str,
    cache: &'c MetadataCache,
) -> Result<(CheckpointDir<'c>, usize)> {
    let tree = tree.ok_or_else(|| Error::NotFound {
        what: what.to_owned(),
    })?;
    let mut dir = CheckpointDir::load(repo, Some(tree), what, cache)?;
    let slot = dir
        .find_session(repo, session_id)?
        .ok_or_else(|| Error::NotFound {
            what: format!("session {session_id:?} of {what}"),
        })?;
    Ok((dir, slot))
}

fn slot_entries(
    repo: &gix::Repository,
    dir: &CheckpointDir,
    slot: usize,
    what: &str,
) -> Result<Vec<gix::objs::tree::Entry>> {
    let tree = dir
        .slot_tree(slot)
        .ok_or_else(|| corrupt(what, format!("session slot {slot} is missing")))?;
    read_tree(repo, &tree, what)
}
