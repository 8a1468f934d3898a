//! Reading shadow branches back (STORE.md §4 "Listing"): the branches with
//! base commit, tip, session and time; one branch's steps newest first,
//! by session, with a limit (at most 5 x limit commits scanned); the
//! transcript of a step. Trailers are read anywhere in the message, the
//! first match winning.

use std::collections::BTreeMap;

use gix::objs::tree::Entry;
use gix::ObjectId;

use super::cas::full_ref;
use super::diff::{entry_at, Leaf};
use super::message::StepTrailers;
use crate::layout::{chunk_index, LEGACY_TRANSCRIPT_FILE};
use crate::objects::{corrupt, read_blob, read_object, read_tree};
use crate::ref_store::{self, Value};
use crate::ref_update::read_tip;
use crate::timestamp::Timestamp;
use crate::Store;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::refs::{
    is_shadow_branch, parse_shadow_branch_name, shadow_branch_name,
};

/// How many commits a limited log scans per step asked for.
pub const SCAN_FACTOR: usize = 5;

/// One shadow branch (serialized with these field names).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ShadowBranchInfo {
    /// The branch name (`entire/abc1234-e3b0c4`).
    pub branch: String,
    /// The base commit's prefix, as the name holds it.
    pub base_commit: String,
    /// The worktree hash the name holds (empty in the legacy form).
    pub worktree_hash: String,
    /// The tip commit.
    pub tip: String,
    /// The tip's session (`Entire-Session` trailer).
    pub session_id: String,
    /// When the tip was committed.
    pub timestamp: Timestamp,
}

/// One step on a shadow branch (serialized with these field names).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ShadowStepInfo {
    /// The step's commit.
    pub commit: String,
    /// The first line of its message.
    pub message: String,
    /// Its session (`Entire-Session`).
    pub session_id: String,
    /// Its session's metadata directory in the tree (`Entire-Metadata`).
    pub metadata_dir: String,
    /// Whether it is a task step (`Entire-Metadata-Task`).
    pub is_task: bool,
    /// The task's tool-use ID (empty for other steps).
    pub tool_use_id: String,
    /// When it was committed.
    pub timestamp: Timestamp,
    /// The branch it is on.
    pub branch: String,
}

/// Which steps [`Store::shadow_log`] shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShadowLogQuery {
    /// The branch (default: the one of `HEAD` and this worktree).
    pub branch: Option<String>,
    /// Only this session's steps.
    pub session_id: Option<String>,
    /// At most this many steps (0: all); at most 5 x limit commits are scanned.
    pub limit: usize,
}

impl ShadowLogQuery {
    /// Every step of the current branch.
    pub fn new() -> ShadowLogQuery {
        ShadowLogQuery::default()
    }

    /// Sets the branch.
    #[must_use]
    pub fn branch(mut self, branch: impl Into<String>) -> ShadowLogQuery {
        self.branch = Some(branch.into());
        self
    }

    /// Sets the session.
    #[must_use]
    pub fn session(mut self, session_id: impl Into<String>) -> ShadowLogQuery {
        self.session_id = Some(session_id.into());
        self
    }

    /// Sets the limit.
    #[must_use]
    pub fn limit(mut self, limit: usize) -> ShadowLogQuery {
        self.limit = limit;
        self
    }
}

/// A commit of a shadow branch, decoded.
#[derive(Debug, Clone)]
pub(crate) struct CommitInfo {
    pub tree: ObjectId,
    pub parent: Option<ObjectId>,
    pub message: String,
    pub seconds: i64,
}

impl CommitInfo {
    pub(crate) fn trailers(&self) -> StepTrailers {
        StepTrailers::parse(&self.message)
    }
}

/// Reads the commit `id`.
pub(crate) fn read_commit(repo: &gix::Repository, id: ObjectId) -> Result<CommitInfo> {
    let what = "a shadow step";
    let mut buf = Vec::new();
    read_object(repo, &id, gix::objs::Kind::Commit, what, &mut buf)?;
    let commit = gix::objs::CommitRef::from_bytes(&buf, repo.object_hash())
        .map_err(|e| corrupt(format!("{what} ({id})"), e))?;
    let time = commit
        .committer()
        .map_err(|e| corrupt(format!("{what} ({id})"), e))?
        .time()
        .map_err(|e| corrupt(format!("{what} ({id})"), e))?;
    let tree = commit.tree();
    let parent = commit.parents().next();
    let message = String::from_utf8_lossy(commit.message).into_owned();
    Ok(CommitInfo {
        tree,
        parent,
        message,
        seconds: time.seconds,
    })
}

/// The commits from `tip` down to the root, newest first, at most `max`
/// (0: all).
pub(crate) fn chain(
    repo: &gix::Repository,
    tip: ObjectId,
    max: usize,
) -> Result<Vec<(ObjectId, CommitInfo)>> {
    let mut out = Vec::new();
    let mut next = Some(tip);
    while let Some(id) = next {
        if max != 0 && out.len() >= max {
            break;
        }
        let info = read_commit(repo, id)?;
        next = info.parent;
        out.push((id, info));
    }
    Ok(out)
}

/// Whether session `session_id` has a step on the chain ending at `tip`.
pub(crate) fn session_has_step(
    repo: &gix::Repository,
    tip: ObjectId,
    session_id: &str,
) -> Result<bool> {
    let mut next = Some(tip);
    while let Some(id) = next {
        let info = read_commit(repo, id)?;
        if info.trailers().session_id == session_id {
            return Ok(true);
        }
        next = info.parent;
    }
    Ok(false)
}

/// Every shadow branch name with its tip, sorted by name.
pub(crate) fn branches(repo: &gix::Repository) -> Result<Vec<(String, ObjectId)>> {
    let mut out = Vec::new();
    for (full, value) in ref_store::list(repo, "refs/heads/entire/")? {
        let Some(branch) = full.strip_prefix("refs/heads/") else {
            continue;
        };
        if !is_shadow_branch(branch) {
            continue;
        }
        let Value::Object(tip) = value else {
            continue;
        };
        out.push((branch.to_owned(), tip));
    }
    out.sort();
    Ok(out)
}

fn timestamp(seconds: i64) -> Timestamp {
    Timestamp::from_unix(seconds, 0).unwrap_or_default()
}

fn step_info(branch: &str, id: ObjectId, info: &CommitInfo) -> ShadowStepInfo {
    let trailers = info.trailers();
    ShadowStepInfo {
        commit: id.to_string(),
        message: info.message.lines().next().unwrap_or_default().to_owned(),
        session_id: trailers.session_id.clone(),
        metadata_dir: trailers.metadata_dir.clone(),
        is_task: trailers.task_dir.is_some(),
        tool_use_id: trailers.tool_use_id().unwrap_or_default().to_owned(),
        timestamp: timestamp(info.seconds),
        branch: branch.to_owned(),
    }
}

/// A step found by (a prefix of) its commit id.
pub(crate) struct FoundStep {
    pub commit: ObjectId,
    /// The branch's chain, newest first (down to the root).
    pub chain: Vec<(ObjectId, CommitInfo)>,
}

impl FoundStep {
    /// The found step's commit.
    pub(crate) fn info(&self) -> Option<&CommitInfo> {
        self.chain
            .iter()
            .find(|(id, _)| *id == self.commit)
            .map(|(_, info)| info)
    }
}

impl Store {
    /// The shadow branch of `HEAD` in this worktree (it may not exist yet).
    ///
    /// # Errors
    /// `not_found` when `HEAD` has no commit.
    pub fn shadow_branch(&self) -> Result<String> {
        let repo = self.local();
        let head = ref_store::head(&repo)?.id.ok_or_else(|| Error::NotFound {
            what: "a commit at HEAD".to_owned(),
        })?;
        shadow_branch_name(&head.to_string(), &super::worktree_id::of_repo(&repo))
    }

    /// Every shadow branch (never `entire/checkpoints/v1`), newest tip first.
    ///
    /// # Errors
    /// `corrupt_object` when a tip cannot be read.
    pub fn shadow_branches(&self) -> Result<Vec<ShadowBranchInfo>> {
        let repo = self.local();
        let mut out = Vec::new();
        for (branch, tip) in branches(&repo)? {
            let info = read_commit(&repo, tip)?;
            let parsed = parse_shadow_branch_name(&branch);
            let (base_commit, worktree_hash) = parsed
                .map(|p| (p.commit_prefix, p.worktree_hash))
                .unwrap_or_default();
            out.push(ShadowBranchInfo {
                branch,
                base_commit,
                worktree_hash,
                tip: tip.to_string(),
                session_id: info.trailers().session_id,
                timestamp: timestamp(info.seconds),
            });
        }
        out.sort_by(|a, b| (b.timestamp, &b.branch).cmp(&(a.timestamp, &a.branch)));
        Ok(out)
    }

    /// One branch's steps, newest first, filtered by session, at most
    /// `limit` of them (scanning at most 5 x limit commits). A branch that
    /// does not exist has no steps.
    ///
    /// # Errors
    /// `invalid_argument` for a name that is not a shadow branch;
    /// `not_found` when no branch is given and `HEAD` has no commit;
    /// `corrupt_object`.
    pub fn shadow_log(&self, query: &ShadowLogQuery) -> Result<Vec<ShadowStepInfo>> {
        let branch = match &query.branch {
            Some(b) => {
                if !is_shadow_branch(b) {
                    return Err(Error::invalid_argument(
                        "branch",
                        format!("{b:?} is not a shadow branch"),
                    ));
                }
                b.clone()
            }
            None => self.shadow_branch()?,
        };
        let repo = self.local();
        let Some(tip) = read_tip(&repo, &full_ref(&branch))? else {
            return Ok(Vec::new());
        };
        let scan = query.limit.saturating_mul(SCAN_FACTOR);
        let mut out = Vec::new();
        for (id, info) in chain(&repo, tip, scan)? {
            let step = step_info(&branch, id, &info);
            if query
                .session_id
                .as_deref()
                .is_some_and(|s| s != step.session_id)
            {
                continue;
            }
            out.push(step);
            if query.limit != 0 && out.len() >= query.limit {
                break;
            }
        }
        Ok(out)
    }

    /// The transcript stored with step `commit` (a full or abbreviated
    /// commit id of a shadow step): its session metadata directory's
    /// `full.jsonl` (chunks joined), else `full.log`.
    ///
    /// # Errors
    /// `not_found` for no such step; `no_transcript` when the step holds
    /// none; `corrupt_object`.
    pub fn shadow_transcript(&self, commit: &str) -> Result<Vec<u8>> {
        let repo = self.local();
        let found = self.find_step(&repo, commit)?;
        let info = found
            .info()
            .ok_or_else(|| corrupt(format!("step {commit}"), "missing from its chain"))?;
        let dir = info.trailers().metadata_dir;
        let what = format!("the transcript of step {}", found.commit);
        let entries = match (!dir.is_empty())
            .then(|| entry_at(&repo, info.tree, &dir))
            .transpose()?
            .flatten()
        {
            Some(Leaf::Tree(id)) => read_tree(&repo, &id, &what)?,
            _ => Vec::new(),
        };
        let transcript = join_transcript(&repo, &entries, &what)?;
        if transcript.is_empty() {
            return Err(Error::NoTranscript {
                what: format!("step {}", found.commit),
            });
        }
        Ok(transcript)
    }

    /// Finds the step `commit` (hex, at least 4 digits) on any shadow branch.
    pub(crate) fn find_step(&self, repo: &gix::Repository, commit: &str) -> Result<FoundStep> {
        let wanted = commit.to_ascii_lowercase();
        if wanted.len() < 4 || wanted.len() > 64 || !wanted.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::invalid_argument(
                "commit",
                format!("{commit:?} is not a commit id (4 to 64 hex digits)"),
            ));
        }
        let mut matches: BTreeMap<ObjectId, FoundStep> = BTreeMap::new();
        for (_, tip) in branches(repo)? {
            let full = chain(repo, tip, 0)?;
            let hits: Vec<ObjectId> = full
                .iter()
                .map(|(id, _)| *id)
                .filter(|id| id.to_string().starts_with(&wanted))
                .collect();
            if hits.len() > 1 {
                return ambiguous(commit);
            }
            if let Some(&hit) = hits.first() {
                if let Some(other) = matches.keys().next() {
                    if *other != hit {
                        return ambiguous(commit);
                    }
                }
                matches.entry(hit).or_insert(FoundStep {
                    commit: hit,
                    chain: full,
                });
            }
        }
        matches.into_values().next().ok_or_else(|| Error::NotFound {
            what: format!("shadow step {commit}"),
        })
    }
}

fn ambiguous<T>(commit: &str) -> Result<T> {
    Err(Error::invalid_argument(
        "commit",
        format!("{commit:?} names more than one shadow step"),
    ))
}

/// `full.jsonl` and its numbered chunks in order, else `full.log`, else empty.
pub(crate) fn join_transcript(
    repo: &gix::Repository,
    entries: &[Entry],
    what: &str,
) -> Result<Vec<u8>> {
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
        return match crate::objects::find(entries, LEGACY_TRANSCRIPT_FILE) {
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
