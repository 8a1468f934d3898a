//! Deleting shadow branches no session needs: those whose base commit is
//! gone from the repository, and those whose every session was condensed
//! (has a persistent checkpoint holding its session ID). A branch some
//! worktree has checked out is never deleted.

use std::collections::{BTreeSet, HashSet};
use std::io::Read;
use std::path::Path;

use gix::ObjectId;

use super::cas;
use super::read::{branches, chain};
use crate::Store;
use agent_checkpoint::Result;
use agent_checkpoint_naming::refs::parse_shadow_branch_name;

/// A branch [`Store::shadow_clean`] deleted, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct CleanedBranch {
    /// The branch name.
    pub branch: String,
    /// Its tip when it was deleted.
    pub tip: String,
    /// `base_commit_gone` or `sessions_condensed`.
    pub reason: String,
}

/// The commits whose id starts with `prefix` (hex).
pub(crate) fn commits_with_prefix(repo: &gix::Repository, prefix: &str) -> Vec<ObjectId> {
    let Some(prefix) = crate::objects::prefix(repo, prefix) else {
        return Vec::new();
    };
    let mut candidates = HashSet::new();
    if repo
        .objects
        .lookup_prefix(prefix, Some(&mut candidates))
        .is_err()
    {
        return Vec::new();
    }
    let mut commits: Vec<ObjectId> = candidates
        .into_iter()
        .filter(|id| {
            repo.find_header(*id)
                .is_ok_and(|h| h.kind() == gix::objs::Kind::Commit)
        })
        .collect();
    commits.sort();
    commits
}

/// The sessions of the chain ending at `tip`.
pub(crate) fn sessions_on(repo: &gix::Repository, tip: ObjectId) -> Result<BTreeSet<String>> {
    Ok(chain(repo, tip, 0)?
        .into_iter()
        .map(|(_, info)| info.trailers().session_id)
        .filter(|s| !s.is_empty())
        .collect())
}

/// The most of a `HEAD` file read: a symbolic ref is one short line.
const HEAD_MAX_BYTES: u64 = 4096;

/// The branches some worktree has checked out: what the `HEAD` of the main
/// worktree (`<common dir>/HEAD`) and of each linked one
/// (`<common dir>/worktrees/<id>/HEAD`) names (`ref: refs/heads/...`).
/// Each `HEAD` is read without following a symlink, at most
/// [`HEAD_MAX_BYTES`]; one that cannot be read names nothing.
pub(crate) fn checked_out(common_dir: &Path) -> HashSet<String> {
    let mut dirs = vec![common_dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(common_dir.join("worktrees")) {
        dirs.extend(entries.flatten().map(|e| e.path()));
    }
    dirs.iter()
        .filter_map(|dir| {
            let dir = crate::nofollow::Dir::open(dir).ok()?;
            let file = dir
                .open_file(
                    "HEAD",
                    false,
                    crate::nofollow::Create::No,
                    crate::sharing::Sharing::Private,
                )
                .ok()?;
            let mut text = String::new();
            file.take(HEAD_MAX_BYTES).read_to_string(&mut text).ok()?;
            let name = text.trim().strip_prefix("ref:")?.trim();
            Some(name.to_owned())
        })
        .collect()
}

impl Store {
    /// Every session ID some persistent checkpoint holds.
    pub(crate) fn condensed_sessions(&self) -> Result<BTreeSet<String>> {
        Ok(self
            .list()?
            .into_iter()
            .flat_map(|c| c.session_ids)
            .collect())
    }

    /// The shadow branches no session needs (what [`Store::shadow_clean`]
    /// deletes), each with its tip and why, touching nothing.
    ///
    /// # Errors
    /// As [`Store::shadow_clean`].
    pub(crate) fn unneeded_branches(&self, repo: &gix::Repository) -> Result<Vec<CleanedBranch>> {
        let condensed = self.condensed_sessions()?;
        let checked_out = checked_out(&self.common_dir);
        let mut out = Vec::new();
        for (branch, tip) in branches(repo)? {
            if checked_out.contains(&format!("refs/heads/{branch}")) {
                // Someone works on it (`git switch`, `git worktree add`):
                // deleting it would leave that HEAD on nothing.
                continue;
            }
            let prefix = parse_shadow_branch_name(&branch)
                .map(|p| p.commit_prefix)
                .unwrap_or_default();
            let reason = if commits_with_prefix(repo, &prefix).is_empty() {
                "base_commit_gone"
            } else if sessions_on(repo, tip)?.is_subset(&condensed) {
                "sessions_condensed"
            } else {
                continue;
            };
            out.push(CleanedBranch {
                branch,
                tip: tip.to_string(),
                reason: reason.to_owned(),
            });
        }
        Ok(out)
    }

    /// Deletes the shadow branches no session needs: whose base commit is
    /// gone, or whose every session has a persistent checkpoint. A branch
    /// that moves meanwhile is kept. Returns what was deleted.
    ///
    /// # Errors
    /// `corrupt_object` when a branch or checkpoint cannot be read; an I/O
    /// error from the ref store.
    pub fn shadow_clean(&self) -> Result<Vec<CleanedBranch>> {
        let repo = self.local();
        let mut out = Vec::new();
        for cleaned in self.unneeded_branches(&repo)? {
            let Ok(tip) = ObjectId::from_hex(cleaned.tip.as_bytes()) else {
                continue;
            };
            if cas::delete(&repo, &self.common_dir, &cleaned.branch, tip)? {
                out.push(cleaned);
            }
        }
        Ok(out)
    }
}
