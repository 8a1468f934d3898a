//! Fetch and discover (STORE.md §5): one checkpoint, every checkpoint, or
//! the list of what a remote holds. The remote's tips are fetched into this
//! call's own temp refs (`refs/entire-fetch-tmp/<token>/...`, see
//! `tmp_refs`; never straight over a local ref), brought into the local
//! refs by compare-and-swap (see `integrate`), and the temp refs deleted.
//! Absent on the remote is `not_found`; a transport failure is an error,
//! never "absent". Only refs whose names are valid checkpoint refs (an ID
//! of a known kind, in its shard) are ever fetched: a remote's other refs
//! under `refs/entire/checkpoints/` are not ours to bring in.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, HashMap};

use gix::ObjectId;

use crate::backend::{Backend, Place};
use crate::branch_backend::{self, BRANCH_REF};
use crate::objects::commit_tree;
use crate::ref_store;
use crate::ref_update::read_tip;
use crate::refs_backend;
use crate::remote::blobs::{blobs, Which};
use crate::remote::git_program::{check_remote, failure_kind, remote_error, Failure, GitProgram};
use crate::remote::integrate::{delete_refs, integrate, FetchOutcome};
use crate::remote::ls_refs;
use crate::remote::promisor::{self, Treeless};
use crate::remote::record::Record;
use crate::remote::tmp_refs::TmpRefs;
use crate::remote::{
    FetchOptions, FetchReport, FetchedRef, LocalCopy, RefFailure, RemoteCheckpoint,
};
use crate::store::Store;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::id::{validate_checkpoint_id, CheckpointId, IdKind};
use agent_checkpoint_naming::refs::{parse_ref, ref_name, CHECKPOINT_REF_PREFIX};

/// What a remote holds in the checkpoint namespaces.
#[derive(Debug, Default)]
pub(crate) struct RemoteRefs {
    /// Its valid checkpoint refs and the v1 branch, with their tips.
    pub refs: Vec<(String, ObjectId)>,
    /// Its other refs under `refs/entire/checkpoints/` (never fetched).
    pub invalid: Vec<String>,
    /// Whether it serves filtered fetches, when known.
    pub filter: Option<bool>,
}

/// One remote, as the store talks to it.
pub(crate) struct Remote<'s> {
    pub store: &'s Store,
    pub repo: gix::Repository,
    pub git: GitProgram,
    pub name: &'s str,
    /// What the remote was last seen holding.
    pub record: RefCell<Record>,
    tmp: OnceCell<TmpRefs>,
}

/// The checkpoint ID of `name` when it is a valid checkpoint ref: an ID of
/// a known kind, under the shard it belongs in, exactly as the store names
/// it (so `refs/entire/checkpoints/ZN/-ZN` is not one).
pub(crate) fn valid_checkpoint_ref(name: &str) -> Option<CheckpointId> {
    let id = validate_checkpoint_id(&parse_ref(name)?).ok()?;
    (ref_name(id.as_str()).ok()? == name).then_some(id)
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
            record: RefCell::new(Record::load(&store.common_dir, remote)),
            tmp: OnceCell::new(),
        })
    }

    /// The arguments of the `git fetch` of this remote: `rest` after the
    /// treeless filter's options when `treeless`, then the remote.
    fn fetch_args(&self, treeless: Option<&Treeless>, rest: &[&str]) -> Vec<String> {
        match treeless {
            Some(t) => {
                let mut a = t.fetch_args(rest);
                a.push(t.remote.clone());
                a
            }
            None => {
                let mut a = vec!["fetch".to_owned()];
                a.extend(rest.iter().map(|s| (*s).to_owned()));
                a.push(self.name.to_owned());
                a
            }
        }
    }

    /// The temp ref this call fetches the remote's `ref_name` into.
    ///
    /// # Errors
    /// An I/O error when the temp-ref namespace cannot be made.
    pub(crate) fn tmp_ref(&self, ref_name: &str) -> Result<String> {
        if self.tmp.get().is_none() {
            let made = TmpRefs::new(&self.repo, &self.store.common_dir)?;
            let _ = self.tmp.set(made);
        }
        match self.tmp.get() {
            Some(t) => Ok(t.name(ref_name)),
            None => Err(Error::Io {
                path: None,
                error: std::io::Error::other("the fetch's temp-ref namespace vanished"),
            }),
        }
    }

    /// The remote holds `ref_name` at `tip`: noted (saved by [`Remote::save_record`]).
    pub(crate) fn seen(&self, ref_name: &str, tip: ObjectId) {
        self.record.borrow_mut().set(ref_name, tip);
    }

    /// Saves what this call saw the remote hold. Best effort: a record not
    /// saved only makes a later push send those refs again.
    pub(crate) fn save_record(&self) {
        let _ = self.record.borrow_mut().save();
    }

    /// Fetches the remote's `ref_name` into its temp ref; its tip, or
    /// `None` when the remote has no such ref.
    ///
    /// # Errors
    /// `remote_unreachable` / `auth_failed` with the remote's reason.
    pub(crate) fn fetch_one(&self, ref_name: &str) -> Result<Option<ObjectId>> {
        self.fetch_one_with(ref_name, None)
    }

    /// As [`Remote::fetch_one`], treeless with `treeless`.
    ///
    /// # Errors
    /// As [`Remote::fetch_one`].
    fn fetch_one_with(
        &self,
        ref_name: &str,
        treeless: Option<&Treeless>,
    ) -> Result<Option<ObjectId>> {
        let tmp = self.tmp_ref(ref_name)?;
        let spec = format!("+{ref_name}:{tmp}");
        let rest = ["--no-tags", "--no-write-fetch-head", "--quiet"];
        let args = self.fetch_args(treeless, &rest);
        let mut argv: Vec<&str> = args.iter().map(String::as_str).collect();
        argv.push(&spec);
        let out = self.git.run(&argv, None)?;
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
    ///
    /// # Errors
    /// `remote_unreachable` / `auth_failed` with the remote's reason (also
    /// when one of `refs` is gone from the remote).
    pub(crate) fn fetch_many(&self, refs: &[String]) -> Result<()> {
        if refs.is_empty() {
            return Ok(());
        }
        let mut specs = String::new();
        for r in refs {
            specs.push_str(&format!("+{r}:{}\n", self.tmp_ref(r)?));
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

    /// The remote's valid checkpoint refs ([`valid_checkpoint_ref`]) and
    /// the v1 branch, with their tips, asking it for those namespaces only
    /// (see `ls_refs`).
    ///
    /// # Errors
    /// `remote_unreachable` / `auth_failed` with the remote's reason.
    pub(crate) fn ls_remote(&self) -> Result<RemoteRefs> {
        let prefix = CHECKPOINT_REF_PREFIX;
        let listing = ls_refs::list(&self.git, &self.repo, self.name, &[prefix, BRANCH_REF])?;
        let mut out = RemoteRefs {
            filter: listing.filter,
            ..RemoteRefs::default()
        };
        for (name, oid) in listing.refs {
            if name == BRANCH_REF || valid_checkpoint_ref(&name).is_some() {
                out.refs.push((name, oid));
            } else if name.starts_with(prefix) {
                out.invalid.push(name);
            }
        }
        Ok(out)
    }

    /// Deletes the temp refs of `refs` (best effort).
    pub(crate) fn drop_tmp(&self, refs: &[String]) {
        let Ok(tmp) = refs
            .iter()
            .map(|r| self.tmp_ref(r))
            .collect::<Result<Vec<String>>>()
        else {
            return;
        };
        let _ = delete_refs(&self.repo, &tmp);
    }
}

impl Remote<'_> {
    /// One `git fetch` of every ref of `wanted` straight into the local
    /// refs, never forced (git creates the new ones and fast-forwards the
    /// rest; a ref written on both sides is refused and merged after), and
    /// of the v1 branch into its temp ref when `branch`. The checkpoint
    /// refs go as one pattern refspec (git matches it in one pass; 10,000
    /// explicit refspecs cost it a quadratic match, minutes) with the
    /// remote's malformed names excluded (`^<ref>`), or one by one when
    /// there are too many of those. Treeless with `treeless`.
    ///
    /// # Errors
    /// `remote_unreachable` / `auth_failed` with the remote's reason.
    fn fetch_wanted(
        &self,
        wanted: &[(String, ObjectId, Option<ObjectId>)],
        branch: bool,
        invalid: &[String],
        treeless: Option<&Treeless>,
    ) -> Result<()> {
        let mut specs = String::new();
        if !wanted.is_empty() {
            if invalid.len() <= MAX_EXCLUDED {
                specs.push_str(&format!(
                    "{CHECKPOINT_REF_PREFIX}*:{CHECKPOINT_REF_PREFIX}*\n"
                ));
                for name in invalid {
                    specs.push_str(&format!("^{name}\n"));
                }
            } else {
                for (name, _, _) in wanted {
                    specs.push_str(&format!("{name}:{name}\n"));
                }
            }
        }
        if branch {
            specs.push_str(&format!("+{BRANCH_REF}:{}\n", self.tmp_ref(BRANCH_REF)?));
        }
        let rest = ["--no-tags", "--no-write-fetch-head", "--quiet", "--stdin"];
        let args = self.fetch_args(treeless, &rest);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.git.run(&argv, Some(specs.as_bytes()))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Refs git would not update (not a fast-forward, locked meanwhile)
        // fail the command without failing the fetch: each is looked at.
        if out.status.success() || (out.status.code() == Some(1) && refused_updates_only(&stderr)) {
            Ok(())
        } else {
            Err(remote_error(self.name, &stderr))
        }
    }

    /// After a treeless fetch, fetches the documents of the fetched tips
    /// (`wanted`'s and the v1 branch's) that are not here, in one `git
    /// fetch`; whether the fetch left blobs on the remote (the remote
    /// honoured the filter).
    ///
    /// # Errors
    /// `corrupt_object` for a fetched tree that cannot be read;
    /// `remote_unreachable` / `auth_failed`.
    fn fetch_documents(
        &self,
        wanted: &[(String, ObjectId, Option<ObjectId>)],
        branch: Option<ObjectId>,
        promisor: &str,
    ) -> Result<bool> {
        // One lookup that rescans the object directories sees the new pack.
        if let Some((_, tip, _)) = wanted.first() {
            let _ = self.repo.has_object(tip);
        } else if let Some(tip) = branch {
            let _ = self.repo.has_object(tip);
        }
        let quiet = promisor::without_refresh(&self.repo);
        let mut trees = Vec::new();
        for (name, tip, _) in wanted {
            if quiet.has_object(tip) {
                trees.push((name.clone(), commit_tree(&quiet, tip, name)?));
            }
        }
        if let Some(tip) = branch.filter(|t| quiet.has_object(t)) {
            for (id, tree) in branch_backend::walk(&quiet, tip)? {
                trees.push((id, tree));
            }
        }
        // Whether the remote honoured the filter: blobs of a fetched tree
        // are missing (a remote that ignores it sends them all).
        let left_out = match trees.first() {
            Some((name, tree)) => {
                let all: Vec<ObjectId> = blobs(&quiet, *tree, Which::All, name)?
                    .into_iter()
                    .map(|(_, oid)| oid)
                    .collect();
                !promisor::missing(&quiet, &all).is_empty()
            }
            None => false,
        };
        if !left_out {
            return Ok(false);
        }
        let mut docs = Vec::new();
        for (name, tree) in &trees {
            let found = blobs(&quiet, *tree, Which::Documents, name)?;
            let oids: Vec<ObjectId> = found.into_iter().map(|(_, oid)| oid).collect();
            docs.extend(promisor::missing(&quiet, &oids));
        }
        if docs.is_empty() {
            return Ok(true);
        }
        promisor::fetch_objects_from(&self.git, &self.repo, &docs, &[promisor.to_owned()])?;
        Ok(true)
    }

    /// Brings the remote's `tip` of `name` (its objects here) into the
    /// local ref by [`integrate`], recording the outcome in `report`
    /// (`ahead` gets the refs left ahead of the remote).
    ///
    /// # Errors
    /// What [`integrate`] fails with, but for `conflict` and `ref_busy`
    /// (reported per ref).
    fn merge_in(
        &self,
        name: &str,
        tip: ObjectId,
        report: &mut FetchReport,
        ahead: &mut Vec<String>,
    ) -> Result<()> {
        match integrate(self.store, &self.repo, name, tip) {
            Ok((outcome, local)) => {
                if outcome.ahead() && name != BRANCH_REF {
                    ahead.push(name.to_owned());
                }
                report.fetched.push(FetchedRef {
                    ref_name: name.to_owned(),
                    outcome,
                    commit: local.to_string(),
                });
                Ok(())
            }
            Err(e @ (Error::Conflict { .. } | Error::RefBusy { .. })) => {
                report.failed.push(RefFailure::new(name.to_owned(), &e));
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

/// The most malformed remote names a pattern fetch excludes one by one.
const MAX_EXCLUDED: usize = 256;

/// Whether a `git fetch` that exited 1 only failed to update some local
/// refs (each is then looked at), the transfer itself having gone through:
/// `--quiet` keeps git from saying which (it prints nothing then), and any
/// other failure says `fatal:`.
fn refused_updates_only(stderr: &str) -> bool {
    let lower = stderr.to_ascii_lowercase();
    !lower.contains("fatal:")
        && (lower.trim().is_empty()
            || lower.contains("some local refs could not be updated")
            || lower.contains("[rejected]")
            || lower.contains("cannot lock ref"))
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
            r.seen(&name, tip);
            let result = if *backend == Backend::GitBranch
                && branch_backend::checkpoint_tree(&r.repo, tip, &id)?.is_none()
            {
                None
            } else {
                Some(integrate(self, &r.repo, &name, tip))
            };
            r.drop_tmp(std::slice::from_ref(&name));
            let Some(result) = result else { continue };
            r.save_record();
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
    /// v1 branch) that differs from the local copy, treeless where the
    /// remote allows it, and brings each in as [`Store::fetch`] does. See
    /// [`Store::fetch_all_with`].
    ///
    /// # Errors
    /// As [`Store::fetch_all_with`].
    pub fn fetch_all(&self, remote: &str) -> Result<FetchReport> {
        self.fetch_all_with(remote, &FetchOptions::default())
    }

    /// Fetches every checkpoint `remote` holds that differs from the local
    /// copy: the remote is asked only for the checkpoint namespaces, then
    /// one `git fetch` of them all — with `--filter=blob:none` when
    /// `options.treeless` and the remote serves filters, then the
    /// checkpoints' documents (`metadata.json` files) in one more `git
    /// fetch`, so listing, `read` and `show` work offline while transcripts
    /// and prompts wait on the remote until a read needs them (see
    /// [`FetchReport::treeless`], [`Store::prefetch`]). A checkpoint new
    /// here is created and one the remote moved forward is fast-forwarded
    /// (both by git's own non-forced update); one written on both sides
    /// has our writes replayed on the remote's (then queued for push).
    /// Per-ref conflicts are reported, not raised.
    ///
    /// # Errors
    /// `invalid_argument` (remote); `remote_unreachable` / `auth_failed`.
    pub fn fetch_all_with(&self, remote: &str, options: &FetchOptions) -> Result<FetchReport> {
        let r = Remote::new(self, remote)?;
        let mut report = FetchReport {
            remote: remote.to_owned(),
            ..FetchReport::default()
        };
        let listed = r.ls_remote()?;
        let local: HashMap<String, ObjectId> = ref_store::list(&r.repo, CHECKPOINT_REF_PREFIX)?
            .into_iter()
            .filter_map(|(name, value)| match value {
                ref_store::Value::Object(tip) => Some((name, tip)),
                _ => None,
            })
            .collect();
        // (ref, remote tip, local tip before)
        let mut wanted: Vec<(String, ObjectId, Option<ObjectId>)> = Vec::new();
        let mut branch = None;
        for (name, tip) in listed.refs {
            let here = if name == BRANCH_REF {
                read_tip(&r.repo, BRANCH_REF)?
            } else {
                local.get(&name).copied()
            };
            if here == Some(tip) {
                r.seen(&name, tip);
                report.fetched.push(FetchedRef {
                    ref_name: name,
                    outcome: FetchOutcome::UpToDate,
                    commit: tip.to_string(),
                });
            } else if name == BRANCH_REF {
                branch = Some(tip);
            } else {
                wanted.push((name, tip, here));
            }
        }
        drop(local);
        if wanted.is_empty() && branch.is_none() {
            r.save_record();
            return Ok(report);
        }
        let treeless = if options.treeless && listed.filter != Some(false) {
            promisor::prepare(&r.git, &r.repo, remote)
        } else {
            None
        };
        r.fetch_wanted(
            &wanted,
            branch.is_some(),
            &listed.invalid,
            treeless.as_ref(),
        )?;
        if let Some(t) = &treeless {
            report.treeless = r.fetch_documents(&wanted, branch, &t.promisor)?;
        }
        let mut ahead = Vec::new();
        let mut again = Vec::new();
        for (name, tip, before) in wanted {
            let now = read_tip(&r.repo, &name)?;
            if now == Some(tip) {
                r.seen(&name, tip);
                report.fetched.push(FetchedRef {
                    ref_name: name,
                    outcome: if before.is_none() {
                        FetchOutcome::Created
                    } else {
                        FetchOutcome::FastForwarded
                    },
                    commit: tip.to_string(),
                });
            } else if r.repo.has_object(tip) {
                // Refused by git as not a fast-forward (written on both
                // sides, or ours is ahead): merged here.
                r.seen(&name, tip);
                r.merge_in(&name, tip, &mut report, &mut ahead)?;
            } else {
                // The remote moved it since the listing.
                again.push(name);
            }
        }
        if let Some(tip) = branch {
            let tmp = r.tmp_ref(BRANCH_REF)?;
            if let Some(fetched) = read_tip(&r.repo, &tmp)?.filter(|t| *t == tip) {
                r.seen(BRANCH_REF, fetched);
                let merged = r.merge_in(BRANCH_REF, fetched, &mut report, &mut Vec::new());
                r.drop_tmp(&[BRANCH_REF.to_owned()]);
                merged?;
            } else {
                r.drop_tmp(&[BRANCH_REF.to_owned()]);
                again.push(BRANCH_REF.to_owned());
            }
        }
        for name in again {
            // One by one, as `fetch` does: rare (a remote moving meanwhile).
            if let Some(tip) = r.fetch_one(&name)? {
                r.seen(&name, tip);
                let merged = r.merge_in(&name, tip, &mut report, &mut ahead);
                r.drop_tmp(std::slice::from_ref(&name));
                merged?;
            }
        }
        r.save_record();
        let _ = crate::locks::push_queue(&self.common_dir).enqueue_all(&ahead);
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
        for (name, tip) in r.ls_remote()?.refs {
            if name == BRANCH_REF {
                for item in r.branch_checkpoints(tip)? {
                    out.entry(item.checkpoint_id.clone()).or_insert(item);
                }
                continue;
            }
            let Some(id) = valid_checkpoint_ref(&name) else {
                continue;
            };
            let id = id.into_string();
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
        if fetched {
            // Its trees are all a listing reads.
            let treeless = promisor::prepare(&self.git, &self.repo, self.name);
            if self
                .fetch_one_with(BRANCH_REF, treeless.as_ref())?
                .is_none()
            {
                return Ok(Vec::new());
            }
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
