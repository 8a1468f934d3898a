//! Fetch and discover (STORE.md §5): one checkpoint, every checkpoint, or
//! the list of what a remote holds. The remote's tips are fetched into
//! `refs/entire-fetch-tmp/...` (never straight over a local ref), brought
//! into the local refs by compare-and-swap (see `integrate`), and the temp
//! refs deleted. Absent on the remote is `not_found`; a transport failure
//! is an error, never "absent".

use std::collections::BTreeMap;

use gix::ObjectId;

use crate::backend::{Backend, Place};
use crate::branch_backend::{self, BRANCH_REF};
use crate::ref_update::read_tip;
use crate::refs_backend;
use crate::remote::git_program::{check_remote, failure_kind, remote_error, Failure, GitProgram};
use crate::remote::integrate::{create_all, delete_refs, integrate, tmp_ref, FetchOutcome};
use crate::remote::{FetchReport, FetchedRef, LocalCopy, RefFailure, RemoteCheckpoint};
use crate::store::Store;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::id::{validate_checkpoint_id, IdKind};
use agent_checkpoint_naming::refs::{parse_ref, CHECKPOINT_REF_PREFIX};
use agent_checkpoint_naming::PushQueue;

/// One remote, as the store talks to it.
pub(crate) struct Remote<'s> {
    pub store: &'s Store,
    pub repo: gix::Repository,
    pub git: GitProgram,
    pub name: &'s str,
}

impl<'s> Remote<'s> {
    /// `remote` (a remote name or URL) of `store`'s repository.
    ///
    /// # Errors
    /// `invalid_argument` for a remote that is empty, starts with `-` or has
    /// control characters.
    pub(crate) fn new(store: &'s Store, remote: &'s str) -> Result<Remote<'s>> {
        check_remote(remote)?;
        let repo = store.local();
        let git = GitProgram::new(repo.git_dir(), repo.workdir());
        Ok(Remote {
            store,
            repo,
            git,
            name: remote,
        })
    }

    /// Fetches the remote's `ref_name` into its temp ref; its tip, or
    /// `None` when the remote has no such ref.
    ///
    /// # Errors
    /// `remote_unreachable` / `auth_failed` with the remote's reason.
    pub(crate) fn fetch_one(&self, ref_name: &str) -> Result<Option<ObjectId>> {
        let tmp = tmp_ref(ref_name);
        let spec = format!("+{ref_name}:{tmp}");
        let out = self.git.run(
            &[
                "fetch",
                "--no-tags",
                "--no-write-fetch-head",
                "--quiet",
                self.name,
                &spec,
            ],
            None,
        )?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            if failure_kind(&stderr) == Failure::NoSuchRef {
                return Ok(None);
            }
            return Err(remote_error(self.name, &stderr));
        }
        let tip = read_tip(&self.repo, &tmp)?;
        Ok(tip)
    }

    /// Fetches each of `refs` into its temp ref, in one `git fetch` (the
    /// refspecs on its standard input).
    fn fetch_many(&self, refs: &[String]) -> Result<()> {
        if refs.is_empty() {
            return Ok(());
        }
        let mut specs = String::new();
        for r in refs {
            specs.push_str(&format!("+{r}:{}\n", tmp_ref(r)));
        }
        let out = self.git.run(
            &[
                "fetch",
                "--no-tags",
                "--no-write-fetch-head",
                "--quiet",
                "--stdin",
                self.name,
            ],
            Some(specs.as_bytes()),
        )?;
        if out.status.success() {
            Ok(())
        } else {
            Err(remote_error(
                self.name,
                &String::from_utf8_lossy(&out.stderr),
            ))
        }
    }

    /// `git ls-remote <remote> refs/entire/checkpoints/* <v1 branch>`: the
    /// remote's checkpoint refs (those `parse_ref` accepts) and the v1
    /// branch, with their tips.
    pub(crate) fn ls_remote(&self) -> Result<Vec<(String, ObjectId)>> {
        let pattern = format!("{CHECKPOINT_REF_PREFIX}*");
        let out = self
            .git
            .run(&["ls-remote", self.name, &pattern, BRANCH_REF], None)?;
        if !out.status.success() {
            return Err(remote_error(
                self.name,
                &String::from_utf8_lossy(&out.stderr),
            ));
        }
        let mut refs = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Some((oid, name)) = line.split_once('\t') else {
                continue;
            };
            let Ok(oid) = ObjectId::from_hex(oid.trim().as_bytes()) else {
                continue;
            };
            if name == BRANCH_REF || parse_ref(name).is_some() {
                refs.push((name.to_owned(), oid));
            }
        }
        Ok(refs)
    }

    /// Brings the fetched tips of `refs` into the local refs, deletes the
    /// temp refs and enqueues the refs that end up ahead of the remote.
    fn bring_in(&self, refs: &[String], report: &mut FetchReport) -> Result<()> {
        let mut tips = Vec::new();
        for r in refs {
            if let Some(tip) = read_tip(&self.repo, &tmp_ref(r))? {
                tips.push((r.clone(), tip));
            }
        }
        // Refs absent here are created together (each only if still absent).
        let mut absent = Vec::new();
        for (r, tip) in &tips {
            if read_tip(&self.repo, r)?.is_none() {
                absent.push((r.clone(), *tip));
            }
        }
        let created = create_all(&self.repo, &absent)?;
        let mut ahead = Vec::new();
        for (r, tip) in tips {
            if created && absent.iter().any(|(a, _)| *a == r) {
                report.fetched.push(FetchedRef {
                    ref_name: r,
                    outcome: FetchOutcome::Created,
                    commit: tip.to_string(),
                });
                continue;
            }
            match integrate(self.store, &self.repo, &r, tip) {
                Ok((outcome, local)) => {
                    if outcome.ahead() && r != BRANCH_REF {
                        ahead.push(r.clone());
                    }
                    report.fetched.push(FetchedRef {
                        ref_name: r,
                        outcome,
                        commit: local.to_string(),
                    });
                }
                Err(e @ (Error::Conflict { .. } | Error::RefBusy { .. })) => {
                    report.failed.push(RefFailure::new(r, &e));
                }
                Err(e) => {
                    self.drop_tmp(refs);
                    return Err(e);
                }
            }
        }
        self.drop_tmp(refs);
        let _ = PushQueue::new(&self.store.common_dir).enqueue_all(&ahead);
        Ok(())
    }

    /// Deletes the temp ref of `name` (best effort).
    pub(crate) fn drop_tmp_one(&self, name: &str) {
        self.drop_tmp(&[name.to_owned()]);
    }

    fn drop_tmp(&self, refs: &[String]) {
        let tmp: Vec<String> = refs.iter().map(|r| tmp_ref(r)).collect();
        let _ = delete_refs(&self.repo, &tmp);
    }
}

impl Store {
    /// Fetches checkpoint `id` from `remote` (a remote name or URL) and
    /// brings it into the local store: created, fast-forwarded, left as is
    /// when ours is ahead, or — when both sides wrote to it — our writes
    /// replayed on the remote's (the ref is then queued for push). IDs route
    /// as reads do: a ULID from its ref; a legacy ID from its ref then the
    /// v1 branch (git-refs store) or from the branch (git-branch store).
    ///
    /// # Errors
    /// `invalid_checkpoint_id`, `invalid_argument` (remote); `not_found`
    /// when the remote does not have it; `remote_unreachable` /
    /// `auth_failed` with the remote's reason; `conflict` (the local
    /// checkpoint untouched) when one session was written differently on
    /// both sides.
    pub fn fetch(&self, remote: &str, id: &str) -> Result<FetchedRef> {
        let id = validate_checkpoint_id(id)?;
        let r = Remote::new(self, remote)?;
        for backend in self.read_order(id.kind()) {
            let place = Place::new(&id, *backend)?;
            let name = place.ref_name().to_owned();
            let Some(tip) = r.fetch_one(&name)? else {
                continue;
            };
            let result = if *backend == Backend::GitBranch
                && branch_backend::checkpoint_tree(&r.repo, tip, &id)?.is_none()
            {
                None
            } else {
                Some(integrate(self, &r.repo, &name, tip))
            };
            r.drop_tmp(std::slice::from_ref(&name));
            let Some(result) = result else { continue };
            let (outcome, local) = result?;
            if outcome.ahead() && *backend == Backend::GitRefs {
                refs_backend::enqueue(&self.common_dir, &name);
            }
            return Ok(FetchedRef {
                ref_name: name,
                outcome,
                commit: local.to_string(),
            });
        }
        Err(Error::NotFound {
            what: format!("checkpoint {id} on remote {remote:?}"),
        })
    }

    /// Fetches every checkpoint `remote` holds (its checkpoint refs and the
    /// v1 branch) that differs from the local copy, and brings each in as
    /// [`Store::fetch`] does. Per-ref conflicts are reported, not raised.
    ///
    /// # Errors
    /// `invalid_argument` (remote); `remote_unreachable` / `auth_failed`.
    pub fn fetch_all(&self, remote: &str) -> Result<FetchReport> {
        let r = Remote::new(self, remote)?;
        let mut report = FetchReport {
            remote: remote.to_owned(),
            ..FetchReport::default()
        };
        let mut wanted = Vec::new();
        for (name, tip) in r.ls_remote()? {
            if read_tip(&r.repo, &name)? == Some(tip) {
                report.fetched.push(FetchedRef {
                    ref_name: name,
                    outcome: FetchOutcome::UpToDate,
                    commit: tip.to_string(),
                });
            } else {
                wanted.push(name);
            }
        }
        r.fetch_many(&wanted)?;
        r.bring_in(&wanted, &mut report)?;
        Ok(report)
    }

    /// The checkpoints `remote` holds: one per checkpoint ref, and one per
    /// legacy checkpoint on its v1 branch (whose tip is fetched, into a
    /// temp ref, when its objects are not here), sorted by ID; each says
    /// whether the local store has the same, another or no copy.
    ///
    /// # Errors
    /// `invalid_argument` (remote); `remote_unreachable` / `auth_failed`.
    pub fn list_remote(&self, remote: &str) -> Result<Vec<RemoteCheckpoint>> {
        let r = Remote::new(self, remote)?;
        let mut out: BTreeMap<String, RemoteCheckpoint> = BTreeMap::new();
        for (name, tip) in r.ls_remote()? {
            if name == BRANCH_REF {
                for item in r.branch_checkpoints(tip)? {
                    out.entry(item.checkpoint_id.clone()).or_insert(item);
                }
                continue;
            }
            let Some(id) = parse_ref(&name) else { continue };
            let local = match read_tip(&r.repo, &name)? {
                None => LocalCopy::Absent,
                Some(t) if t == tip => LocalCopy::Same,
                Some(_) => LocalCopy::Different,
            };
            out.insert(
                id.clone(),
                RemoteCheckpoint {
                    checkpoint_id: id,
                    backend: Backend::GitRefs,
                    ref_name: name,
                    commit: tip.to_string(),
                    local,
                },
            );
        }
        Ok(out.into_values().collect())
    }

    /// The backends a read of an ID of `kind` looks in, in order.
    pub(crate) fn read_order(&self, kind: IdKind) -> &'static [Backend] {
        if kind == IdKind::Ulid {
            &[Backend::GitRefs]
        } else if self.options.backend == Backend::GitRefs {
            &[Backend::GitRefs, Backend::GitBranch]
        } else {
            &[Backend::GitBranch]
        }
    }
}

impl Remote<'_> {
    /// The legacy checkpoints on the remote's v1 branch at `tip`.
    fn branch_checkpoints(&self, tip: ObjectId) -> Result<Vec<RemoteCheckpoint>> {
        let fetched = !self.repo.has_object(tip);
        if fetched && self.fetch_one(BRANCH_REF)?.is_none() {
            return Ok(Vec::new());
        }
        let walked = branch_backend::walk(&self.repo, tip);
        if fetched {
            self.drop_tmp(&[BRANCH_REF.to_owned()]);
        }
        let local_tip = read_tip(&self.repo, BRANCH_REF)?;
        let mut out = Vec::new();
        for (id, tree) in walked? {
            let local = match local_tip {
                None => LocalCopy::Absent,
                Some(local_tip) => {
                    let id = validate_checkpoint_id(&id)?;
                    match branch_backend::checkpoint_tree(&self.repo, local_tip, &id)? {
                        None => LocalCopy::Absent,
                        Some(t) if t == tree => LocalCopy::Same,
                        Some(_) => LocalCopy::Different,
                    }
                }
            };
            out.push(RemoteCheckpoint {
                checkpoint_id: id,
                backend: Backend::GitBranch,
                ref_name: BRANCH_REF.to_owned(),
                commit: tip.to_string(),
                local,
            });
        }
        Ok(out)
    }
}

impl Store {
    /// With [`crate::StoreOptions::fetch_missing_from`] set, fetches the
    /// missing checkpoint `id`; whether it was found there.
    ///
    /// # Errors
    /// A transport failure or conflict of [`Store::fetch`].
    pub(crate) fn fetch_if_missing(
        &self,
        id: &agent_checkpoint_naming::id::CheckpointId,
    ) -> Result<bool> {
        let Some(remote) = self.options.fetch_missing_from.as_deref() else {
            return Ok(false);
        };
        match self.fetch(remote, id.as_str()) {
            Ok(_) => Ok(true),
            Err(Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
