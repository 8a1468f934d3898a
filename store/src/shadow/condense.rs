//! Condense: a session's shadow steps become one persistent checkpoint
//! (files touched, prompts, transcript, metadata; `Ephemeral-branch`
//! trailer), and the shadow branch goes once no session on it still needs
//! it.

use std::collections::BTreeSet;

use gix::ObjectId;

use super::clean::{commits_with_prefix, sessions_on};
use super::diff::{changed_files, entry_at, Leaf};
use super::paths::is_reserved;
use super::read::{branches, chain, join_transcript, read_commit, CommitInfo};
use super::{cas, metadata_dir};
use crate::layout::PROMPT_FILE;
use crate::objects::{commit_tree, read_blob, read_tree};
use crate::session::{validate_segment_id, SessionWrite};
use crate::Store;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::prompts::split_prompts;
use agent_checkpoint_naming::refs::parse_shadow_branch_name;

/// What [`Store::shadow_condense`] did (serialized with these field names).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Condensed {
    /// The checkpoint written.
    pub checkpoint_id: String,
    /// Its new commit.
    pub commit: String,
    /// The ref that points at it.
    pub ref_name: String,
    /// The session's slot in the checkpoint.
    pub session_index: usize,
    /// The shadow branch the steps were on.
    pub branch: String,
    /// How many steps the session had there.
    pub steps: usize,
    /// The files the steps touched, sorted.
    pub files_touched: Vec<String>,
    /// Whether the branch was deleted (it is kept while another session on
    /// it has no persistent checkpoint, or when it moved meanwhile).
    pub branch_deleted: bool,
}

impl Store {
    /// Writes session `write.session_id`'s shadow steps as session
    /// `write.session_id` of checkpoint `write.checkpoint_id`, filling in
    /// what `write` leaves unset from the steps: `files_touched` (every
    /// path its steps changed against the step before; a branch's first
    /// step against the base commit),
    /// the transcript and prompts of its latest step's metadata directory
    /// (`full.jsonl`, `prompt.txt`, already redacted; redacted again, which
    /// changes nothing; a transcript that is not UTF-8 gets U+FFFD for each
    /// invalid sequence), `save_step_count`, and `ephemeral_branch`. The
    /// session's steps are found on whichever shadow branch holds its
    /// newest one. Then the branch is deleted when every session on it has
    /// a persistent checkpoint.
    ///
    /// # Errors
    /// `not_found` when no shadow branch holds a step of the session; the
    /// errors of [`Store::write_session`].
    pub fn shadow_condense(&self, write: &SessionWrite) -> Result<Condensed> {
        self.condense(write, true)
    }

    /// [`Store::shadow_condense`] that keeps the shadow branch, so the
    /// session's steps can still be rewound (an agent hook condenses at the
    /// end of a session the user may rewind afterwards);
    /// [`Store::shadow_clean`] deletes it later. `branch_deleted` is `false`.
    ///
    /// # Errors
    /// As [`Store::shadow_condense`].
    pub fn shadow_condense_keeping_branch(&self, write: &SessionWrite) -> Result<Condensed> {
        self.condense(write, false)
    }

    fn condense(&self, write: &SessionWrite, delete_branch: bool) -> Result<Condensed> {
        validate_segment_id("session_id", &write.session_id)?;
        let repo = self.local();
        let session = write.session_id.as_str();
        let (branch, tip, steps) =
            newest_branch_of(&repo, session)?.ok_or_else(|| Error::NotFound {
                what: format!("shadow steps of session {session:?}"),
            })?;
        let prefix = parse_shadow_branch_name(&branch)
            .map(|p| p.commit_prefix)
            .unwrap_or_default();
        let base_tree = match commits_with_prefix(&repo, &prefix).as_slice() {
            [base] => Some(commit_tree(&repo, base, "the shadow branch's base commit")?),
            _ => None,
        };
        let files = files_touched(&repo, &steps, base_tree)?;
        let mut full = write.clone();
        if full.files_touched.is_none() {
            full.files_touched = Some(files.iter().cloned().collect());
        }
        let (_, latest) = steps.first().ok_or_else(|| Error::NotFound {
            what: format!("shadow steps of session {session:?}"),
        })?;
        let dir = match entry_at(&repo, latest.tree, &metadata_dir(session))? {
            Some(Leaf::Tree(id)) => read_tree(&repo, &id, "a session's metadata directory")?,
            _ => Vec::new(),
        };
        if full.transcript.is_none() {
            let transcript = join_transcript(&repo, &dir, "a session's transcript")?;
            if !transcript.is_empty() {
                full.transcript = Some(utf8_transcript(transcript));
            }
        }
        if full.prompts.is_empty() {
            if let Some(p) = crate::objects::find(&dir, PROMPT_FILE) {
                let text = read_blob(&repo, &p.oid, "a session's prompts")?;
                full.prompts = split_prompts(&String::from_utf8_lossy(&text));
            }
        }
        if full.save_step_count == 0 {
            full.save_step_count = i64::try_from(steps.len()).unwrap_or(i64::MAX);
        }
        if full.ephemeral_branch.is_empty() {
            full.ephemeral_branch = branch.clone();
        }
        let written = self.write_session(&full)?;
        let condensed = self.condensed_sessions()?;
        let branch_deleted = delete_branch
            && sessions_on(&repo, tip)?.is_subset(&condensed)
            && cas::delete(&repo, &self.common_dir, &branch, tip)?;
        Ok(Condensed {
            checkpoint_id: full.checkpoint_id,
            commit: written.commit,
            ref_name: written.ref_name,
            session_index: written.session_index,
            branch,
            steps: steps.len(),
            files_touched: files.into_iter().collect(),
            branch_deleted,
        })
    }
}

/// A shadow step's transcript as the UTF-8 a persistent checkpoint holds:
/// as is when it is UTF-8; otherwise (a tool printed Latin-1, say; the
/// step redacted it as text all the same) each invalid sequence becomes
/// U+FFFD, as the prompts do.
fn utf8_transcript(bytes: Vec<u8>) -> Vec<u8> {
    match String::from_utf8(bytes) {
        Ok(text) => text.into_bytes(),
        Err(e) => String::from_utf8_lossy(e.as_bytes())
            .into_owned()
            .into_bytes(),
    }
}

type Steps = Vec<(ObjectId, CommitInfo)>;

/// The shadow branch holding the session's newest step: its name, tip and
/// the session's steps there, newest first.
fn newest_branch_of(
    repo: &gix::Repository,
    session: &str,
) -> Result<Option<(String, ObjectId, Steps)>> {
    let mut best: Option<(i64, String, ObjectId, Steps)> = None;
    for (branch, tip) in branches(repo)? {
        let steps: Steps = chain(repo, tip, 0)?
            .into_iter()
            .filter(|(_, info)| info.trailers().session_id == session)
            .collect();
        let Some((_, newest)) = steps.first() else {
            continue;
        };
        let when = newest.seconds;
        if best.as_ref().is_none_or(|(t, ..)| when > *t) {
            best = Some((when, branch, tip, steps));
        }
    }
    Ok(best.map(|(_, b, t, s)| (b, t, s)))
}

/// Every file path the steps changed, each against its parent step (a
/// parentless first step against `base_tree` when known), `.entire` and
/// `.git` left out.
fn files_touched(
    repo: &gix::Repository,
    steps: &Steps,
    base_tree: Option<ObjectId>,
) -> Result<BTreeSet<String>> {
    let mut files = BTreeSet::new();
    for (_, info) in steps {
        let parent_tree = match info.parent {
            Some(p) => Some(read_commit(repo, p)?.tree),
            None => base_tree,
        };
        files.extend(changed_files(repo, parent_tree, Some(info.tree))?);
    }
    files.retain(|p| !is_reserved(p));
    Ok(files)
}
