//! `Store::migrate`: every checkpoint of the v1 branch copied to git-refs
//! (the Entire CLI's `doctor migrate-checkpoints`), with its ID, sessions,
//! summary and history.
//!
//! Per checkpoint: when its ref already exists, the two copies are compared
//! document by document: equal is "already present" (so a second run, or a
//! run after a kill, moves nothing twice), unequal is a conflict and the ref
//! is left as it is. Otherwise each version of the checkpoint on the branch
//! becomes one commit of a linear history (the branch commit's message and
//! author, its tree with the summary's session paths relocated), the ref
//! is created by compare-and-swap ("must not exist") in one step, and every
//! document is read back from both and compared byte for byte before the
//! checkpoint counts as migrated. A kill leaves either no ref or a whole
//! one, never half; the branch is never changed.

use std::sync::Arc;

use gix::ObjectId;

use crate::backend::{Backend, Place};
use crate::branch_backend::{self, BRANCH_REF};
use crate::layout::METADATA_FILE;
use crate::migrate_history::{self, Version};
use crate::objects::{self, corrupt};
use crate::ref_update::{self, cas_edit, read_tip, Proposal};
use crate::remote::history;
use crate::store::{signature, Store};
use crate::{refs_backend, relocate};
use agent_checkpoint::{Error, ErrorCode, Result};
use agent_checkpoint_naming::id::validate_checkpoint_id;

/// Called after each checkpoint with (checkpoints done, checkpoints in all).
pub type MigrateProgress = Arc<dyn Fn(usize, usize) + Send + Sync>;

/// How [`Store::migrate`] runs.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct MigrateOptions {
    /// Report what would be migrated; write nothing (not even objects).
    pub dry_run: bool,
    /// Told after each checkpoint (default: nothing).
    pub progress: Option<MigrateProgress>,
}

impl std::fmt::Debug for MigrateOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MigrateOptions")
            .field("dry_run", &self.dry_run)
            .finish_non_exhaustive()
    }
}

impl MigrateOptions {
    /// A real run, without progress.
    pub fn new() -> MigrateOptions {
        MigrateOptions::default()
    }

    /// Sets [`MigrateOptions::dry_run`].
    #[must_use]
    pub fn dry_run(mut self, dry_run: bool) -> MigrateOptions {
        self.dry_run = dry_run;
        self
    }

    /// Sets [`MigrateOptions::progress`].
    #[must_use]
    pub fn progress(mut self, progress: MigrateProgress) -> MigrateOptions {
        self.progress = Some(progress);
        self
    }
}

/// One checkpoint copied (or, in a dry run, to be copied) to git-refs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct MigratedCheckpoint {
    /// The checkpoint ID (unchanged).
    pub checkpoint_id: String,
    /// Its new ref.
    pub ref_name: String,
    /// The commits of its history there (one per version on the branch).
    pub commits: usize,
}

/// One checkpoint left where it is, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SkippedCheckpoint {
    /// The checkpoint ID.
    pub checkpoint_id: String,
    /// `conflict` for a ref that exists with other documents (left as it
    /// is) or a summary this version cannot relocate byte for byte;
    /// `corrupt_object` for a checkpoint that cannot be read; `ref_busy`
    /// when its ref stayed locked.
    #[serde(serialize_with = "code_name")]
    pub code: ErrorCode,
    /// The error's message.
    pub reason: String,
}

fn code_name<S: serde::Serializer>(c: &ErrorCode, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(c.as_str())
}

fn backend_name<S: serde::Serializer>(b: &Backend, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(b.as_str())
}

/// What [`Store::migrate`] did (or, with `dry_run`, would do).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct MigrateReport {
    /// The backend checkpoints went to (`git-refs`).
    #[serde(serialize_with = "backend_name")]
    pub to: Backend,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// The checkpoints on the v1 branch.
    pub on_branch: usize,
    /// Those copied now (or to be copied), each verified.
    pub migrated: Vec<MigratedCheckpoint>,
    /// Those whose ref already held the same documents.
    pub already_present: Vec<String>,
    /// Those left as they are, with why.
    pub skipped: Vec<SkippedCheckpoint>,
}

/// How one checkpoint went.
enum Outcome {
    Migrated(usize),
    AlreadyPresent,
}

impl Store {
    /// Copies every checkpoint of the v1 branch that is not under
    /// `refs/entire/checkpoints/` yet to git-refs: same ID, sessions,
    /// documents (the summary's session paths relocated to `/0/...`) and
    /// history (one commit per version on the branch, with its message and
    /// author), verified document by document. Idempotent and safe to
    /// re-run after a kill; the branch is never changed or deleted; new
    /// refs are queued for push like any written checkpoint.
    ///
    /// # Errors
    /// `invalid_argument` for `to` other than [`Backend::GitRefs`];
    /// `corrupt_object` when the branch itself cannot be walked. A single
    /// checkpoint that cannot be migrated is listed in
    /// [`MigrateReport::skipped`], never the end of the run.
    pub fn migrate(&self, to: Backend, options: &MigrateOptions) -> Result<MigrateReport> {
        if to != Backend::GitRefs {
            return Err(Error::invalid_argument(
                "to",
                format!("checkpoints migrate from git-branch to git-refs, not to {to}"),
            ));
        }
        let repo = self.local();
        let mut report = MigrateReport {
            to,
            dry_run: options.dry_run,
            on_branch: 0,
            migrated: Vec::new(),
            already_present: Vec::new(),
            skipped: Vec::new(),
        };
        let Some(tip) = read_tip(&repo, BRANCH_REF)? else {
            return Ok(report);
        };
        let current = branch_backend::walk(&repo, tip)?;
        let mut versions = migrate_history::versions(&repo, tip, None)?;
        report.on_branch = current.len();
        for (done, (id, tree)) in current.into_iter().enumerate() {
            let history = versions.remove(&id).unwrap_or_default();
            match self.migrate_one(&repo, &id, tip, tree, history, options.dry_run) {
                Ok(Outcome::Migrated(commits)) => report.migrated.push(MigratedCheckpoint {
                    ref_name: refs_backend::ref_for(&validate_checkpoint_id(&id)?)?,
                    checkpoint_id: id,
                    commits,
                }),
                Ok(Outcome::AlreadyPresent) => report.already_present.push(id),
                Err(e) => report.skipped.push(SkippedCheckpoint {
                    checkpoint_id: id,
                    code: e.code(),
                    reason: e.to_string(),
                }),
            }
            if let Some(progress) = &options.progress {
                progress(done + 1, report.on_branch);
            }
        }
        Ok(report)
    }

    /// Migrates checkpoint `id` alone when it is on the branch and not
    /// under its ref (a git-refs write in the mirror topology adopts the
    /// mirror's copy first, so its sessions are kept).
    pub(crate) fn adopt_from_branch(&self, repo: &gix::Repository, place: &Place) -> Result<()> {
        if read_tip(repo, place.ref_name())?.is_some() {
            return Ok(());
        }
        let branch = Place::new(&place.id, Backend::GitBranch)?;
        let Some(tip) = read_tip(repo, BRANCH_REF)? else {
            return Ok(());
        };
        let Some(tree) = branch.checkpoint_tree(repo, Some(tip))? else {
            return Ok(());
        };
        let id = place.id.as_str();
        let history = migrate_history::versions(repo, tip, Some(id))?
            .remove(id)
            .unwrap_or_default();
        self.migrate_one(repo, id, tip, tree, history, false)
            .map(|_| ())
    }

    /// Migrates one checkpoint whose tree at the branch commit `tip` is
    /// `tree` and whose versions are `history`.
    fn migrate_one(
        &self,
        repo: &gix::Repository,
        id: &str,
        tip: ObjectId,
        tree: ObjectId,
        mut history: Vec<Version>,
        dry_run: bool,
    ) -> Result<Outcome> {
        let cid = validate_checkpoint_id(id)?;
        let from = Place::new(&cid, Backend::GitBranch)?;
        let to = Place::new(&cid, Backend::GitRefs)?;
        if let Some(existing) = read_tip(repo, to.ref_name())? {
            return match same_documents(repo, &from, tree, &to, existing)? {
                None => Ok(Outcome::AlreadyPresent),
                Some(difference) => Err(Error::Conflict {
                    what: format!("ref {}", to.ref_name()),
                    reason: format!(
                        "it already exists and differs from the branch's copy ({difference}); left as it is"
                    ),
                }),
            };
        }
        if history.last().map(|v| v.tree) != Some(tree) {
            history.push(Version { commit: tip, tree });
        }
        if dry_run {
            check_history(repo, &history, &from, &to)?;
            return Ok(Outcome::Migrated(history.len()));
        }
        let head = write_history(repo, &history, &from, &to)?;
        let who = signature(repo, None);
        ref_update::update(repo, &self.common_dir, to.ref_name(), &who, |now| {
            if now.is_some() {
                return Err(Error::Conflict {
                    what: format!("ref {}", to.ref_name()),
                    reason: "it was created while the checkpoint was being migrated; the next run compares it".to_owned(),
                });
            }
            Ok(Proposal {
                edits: vec![cas_edit(
                    to.ref_name(),
                    None,
                    head,
                    "entire: migrate from git-branch",
                )?],
                value: (),
            })
        })?;
        refs_backend::enqueue(&self.common_dir, to.ref_name());
        // Verified before it counts: every document read back from both.
        match same_documents(repo, &from, tree, &to, head)? {
            None => Ok(Outcome::Migrated(history.len())),
            Some(difference) => Err(corrupt(
                to.ref_name(),
                format!("the copy does not read back as the branch's ({difference})"),
            )),
        }
    }
}

/// Why the checkpoint at the ref commit `copy` does not hold the documents
/// of the branch's `tree`; `None` when it does.
fn same_documents(
    repo: &gix::Repository,
    from: &Place,
    tree: ObjectId,
    to: &Place,
    copy: ObjectId,
) -> Result<Option<String>> {
    let copy = to
        .checkpoint_tree(repo, Some(copy))?
        .ok_or_else(|| corrupt(to.ref_name(), "names no commit"))?;
    relocate::difference(repo, tree, from, copy, to)
}

/// Fails as [`write_history`] would for a summary it cannot relocate,
/// writing nothing.
fn check_history(
    repo: &gix::Repository,
    history: &[Version],
    from: &Place,
    to: &Place,
) -> Result<()> {
    let what = format!("checkpoint {} in git-branch", from.id);
    for version in history {
        let entries = objects::read_tree(repo, &version.tree, &what)?;
        let summary = objects::find(&entries, METADATA_FILE)
            .ok_or_else(|| corrupt(&what, "it has no metadata.json"))?;
        relocate::summary_bytes(&objects::read_blob(repo, &summary.oid, &what)?, from, to)?;
    }
    Ok(())
}

/// Writes the git-refs history of the versions `history` (oldest first):
/// one commit each, the version's tree relocated, the branch commit's
/// message (relocated) and author; returns the newest commit.
fn write_history(
    repo: &gix::Repository,
    history: &[Version],
    from: &Place,
    to: &Place,
) -> Result<ObjectId> {
    let mut head = None;
    for version in history {
        let moved = relocate::tree(repo, version.tree, from, to)?;
        let commit = history::commit(repo, &version.commit)?;
        let message = relocate::message(&commit.message, from, to);
        head = Some(objects::write_commit(
            repo,
            moved,
            head,
            &message,
            &commit.author,
        )?);
    }
    head.ok_or_else(|| {
        corrupt(
            format!("checkpoint {} in git-branch", from.id),
            "it has no version",
        )
    })
}
