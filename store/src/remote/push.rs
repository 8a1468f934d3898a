//! Push (STORE.md §5): every queued checkpoint ref, every local checkpoint
//! ref whose tip differs from what the remote was last seen holding (see
//! `record`: the queue is a hint), and the v1 branch, in **one**
//! `git push --porcelain --no-verify --no-atomic <remote>` (never forced),
//! whose per-ref status lines say what the remote did with each:
//!
//! - confirmed (new, moved, up to date): leaves the queue;
//! - refused (a hook, a policy): stays queued with the remote's reason,
//!   and costs nothing more — the rest of the push landed;
//! - diverged (the remote's ref moved on): all such refs are fetched in one
//!   `git fetch` into this call's temp refs, ours replayed on the remote's
//!   tip by meaning, and pushed again together (at most [`MAX_PUSH_ROUNDS`]
//!   rounds);
//! - a failure of the whole command (a connection cut mid-push), a
//!   `pre-receive` hook declining the whole push, or a pack the remote
//!   would not take (a size limit, an object its fsck refuses) splits the
//!   set in halves and pushes each, so pushes grow with the failures, not
//!   with the refs ([`MAX_SPLIT_PUSHES`] extra pushes at most). A remote that cannot be
//!   reached at all (or refuses the credentials) is an error at once.

use std::collections::HashMap;

use gix::ObjectId;

use crate::branch_backend::BRANCH_REF;
use crate::ref_update::read_tip;
use crate::refs_backend;
use crate::remote::fetch::Remote;
use crate::remote::git_program::{never_connected, remote_error, remote_message};
use crate::remote::integrate::integrate;
use crate::remote::porcelain::{self, RefStatus};
use crate::remote::scratch::Scratch;
use crate::remote::{PushProgress, PushReport, RefFailure};
use crate::store::Store;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::refs::{ref_name, CHECKPOINT_REF_PREFIX};
use agent_checkpoint_naming::PushQueue;

/// Fetch-replay-push rounds for refs whose remote tip keeps moving, before
/// they are left queued as `rejected`.
pub const MAX_PUSH_ROUNDS: u32 = 8;

/// The most extra `git push` runs one push spends splitting sets that
/// failed as a whole (or that a `pre-receive` hook declined as a whole);
/// refs not settled by then stay queued.
pub const MAX_SPLIT_PUSHES: usize = 256;

/// Whether a refusal git reports for every ref of a push is about the push
/// as a whole, not the ref: a `pre-receive` hook declining it, or the
/// remote failing to take the pack (`receive.maxInputSize`, an object its
/// `receive.fsckObjects` refuses).
fn declines_whole_push(reason: &str) -> bool {
    reason == "pre-receive hook declined" || reason.contains("unpacker error")
}

/// Refs with the tips to push.
type Refs = Vec<(String, ObjectId)>;

impl Store {
    /// Pushes every checkpoint ref the remote may lack (and the v1 branch,
    /// when it exists here) to `remote` (a remote name or URL). See
    /// [`Store::push_with_progress`].
    ///
    /// # Errors
    /// As [`Store::push_with_progress`].
    pub fn push(&self, remote: &str) -> Result<PushReport> {
        self.push_with_progress(remote, &mut |_| {})
    }

    /// Pushes as [`Store::push`], calling `progress` before the first
    /// `git push` and after each. What is sent: the queued checkpoint refs,
    /// every local checkpoint ref whose tip is not what `remote` was last
    /// seen holding (so a write whose enqueue was lost still goes), and the
    /// v1 branch. Refs the remote confirmed leave the queue; refs it
    /// refused, and refs whose checkpoint was written differently on both
    /// sides, stay queued and are listed with their code and reason in
    /// [`PushReport::queued`]; the local checkpoints are never touched then.
    ///
    /// # Errors
    /// `invalid_argument` (remote); `remote_unreachable` / `auth_failed`
    /// when the remote cannot be reached, hangs up or refuses the
    /// credentials — every ref not confirmed by then stays queued.
    pub fn push_with_progress(
        &self,
        remote: &str,
        progress: &mut dyn FnMut(&PushProgress),
    ) -> Result<PushReport> {
        let r = Remote::new(self, remote)?;
        crate::remote::known::require_known(&r.repo, remote)?;
        Scratch::sweep(&self.common_dir);
        let queue = crate::locks::push_queue(&self.common_dir);
        // The queue is a hint: unreadable, it names nothing, and the
        // record below still finds every unpushed ref.
        let drained = queue.drain().unwrap_or_default();
        let mut report = PushReport {
            remote: remote.to_owned(),
            dropped: drained.dropped,
            ..PushReport::default()
        };
        let (targets, gone) = self.targets(&r, drained.refs)?;
        let _ = queue.remove(&gone);
        report.dropped.extend(gone);
        if targets.is_empty() {
            progress(&PushProgress {
                total: 0,
                pushed: 0,
                queued: 0,
            });
            return Ok(report);
        }
        let scratch = Scratch::new(&self.common_dir, r.repo.git_dir(), &r.git)?;
        let mut pusher = Pusher {
            r,
            scratch,
            queue,
            report,
            total: targets.len(),
            progress,
            splits: 0,
        };
        pusher.tell();
        let result = pusher.run(targets);
        pusher.r.save_record();
        result.map_err(|e| pusher.with_count(e))?;
        Ok(pusher.report)
    }

    /// The refs to push, with their local tips: the queued ones that exist
    /// here, every valid local checkpoint ref whose tip differs from the
    /// record, the v1 branch; and the queued refs gone here. The one
    /// choice of what a push sends: [`Store::push_plan`] lists the same.
    pub(crate) fn targets(
        &self,
        r: &Remote<'_>,
        queued: Vec<String>,
    ) -> Result<(Refs, Vec<String>)> {
        let local: HashMap<String, ObjectId> = refs_backend::list(&r.repo)?
            .into_iter()
            // Only refs with valid IDs are ours to push.
            // and only refs naming a commit can be pushed.
            .filter_map(|(id, tip)| Some((ref_name(&id).ok()?, tip.ok()?)))
            .collect();
        let mut targets = Vec::new();
        let mut gone = Vec::new();
        let mut taken = std::collections::HashSet::new();
        for name in queued {
            match local.get(&name) {
                Some(tip) => {
                    taken.insert(name.clone());
                    targets.push((name, *tip));
                }
                None => match read_tip(&r.repo, &name)? {
                    // Moved in since the listing: push it too.
                    Some(tip) => {
                        taken.insert(name.clone());
                        targets.push((name, tip));
                    }
                    None => gone.push(name),
                },
            }
        }
        let record = r.record.borrow();
        let mut unqueued: Vec<(String, ObjectId)> = local
            .into_iter()
            .filter(|(name, tip)| !taken.contains(name) && record.get(name) != Some(*tip))
            .collect();
        unqueued.sort();
        targets.extend(unqueued);
        if let Some(tip) = read_tip(&r.repo, BRANCH_REF)? {
            targets.push((BRANCH_REF.to_owned(), tip));
        }
        Ok((targets, gone))
    }
}

struct Pusher<'s, 'p> {
    r: Remote<'s>,
    scratch: Scratch,
    queue: PushQueue,
    report: PushReport,
    total: usize,
    progress: &'p mut dyn FnMut(&PushProgress),
    /// Extra pushes spent on splitting so far.
    splits: usize,
}

/// What one `git push` of a set of refs came to.
enum Pushed {
    /// The remote reported on refs (by name), with git's stderr.
    Statuses(HashMap<String, RefStatus>, String),
    /// The whole command failed before the remote reported on any ref.
    Failed(Error, String),
}

impl Pusher<'_, '_> {
    fn tell(&mut self) {
        let p = PushProgress {
            total: self.total,
            pushed: self.report.pushed.len(),
            queued: self.report.queued.len(),
        };
        (self.progress)(&p);
    }

    /// A transport error, saying how far the push got.
    fn with_count(&self, e: Error) -> Error {
        let done = self.report.pushed.len();
        if done == 0 {
            return e;
        }
        let more = format!(" ({done} of {} ref(s) pushed before)", self.total);
        match e {
            Error::RemoteUnreachable { remote, reason } => Error::RemoteUnreachable {
                remote,
                reason: reason + &more,
            },
            Error::AuthFailed { remote, reason } => Error::AuthFailed {
                remote,
                reason: reason + &more,
            },
            other => other,
        }
    }

    /// Pushes `targets`; refs the remote moved are merged and pushed again.
    fn run(&mut self, targets: Refs) -> Result<()> {
        let mut set = targets;
        for _ in 0..MAX_PUSH_ROUNDS {
            let diverged = self.push_set(set)?;
            if diverged.is_empty() {
                return Ok(());
            }
            set = self.merge_remote(diverged)?;
            if set.is_empty() {
                return Ok(());
            }
        }
        for (name, _) in set {
            self.refused(
                &name,
                format!(
                    "the remote's ref kept moving ({MAX_PUSH_ROUNDS} fetch-replay-push rounds)"
                ),
            );
        }
        Ok(())
    }

    /// `git push` of `refs` (from the scratch repository holding just
    /// them): one pattern refspec for the checkpoint refs (git matches it in
    /// one pass, where 10,000 explicit refspecs cost it a quadratic match),
    /// and the v1 branch by name.
    fn git_push(&self, refs: &[(String, ObjectId)]) -> Result<Pushed> {
        let named: Vec<(&str, ObjectId)> = refs.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        self.scratch.set_refs(&named)?;
        let pattern = format!("{CHECKPOINT_REF_PREFIX}*:{CHECKPOINT_REF_PREFIX}*");
        let branch = format!("{BRANCH_REF}:{BRANCH_REF}");
        let mut args = vec![
            "push",
            "--no-verify",
            "--porcelain",
            "--no-atomic",
            self.r.name,
        ];
        if refs.iter().any(|(n, _)| n != BRANCH_REF) {
            args.push(&pattern);
        }
        if refs.iter().any(|(n, _)| n == BRANCH_REF) {
            args.push(&branch);
        }
        let out = self.scratch.git.run(&args, None)?;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let statuses = porcelain::parse(&String::from_utf8_lossy(&out.stdout));
        let failed = statuses.values().any(|s| matches!(s, RefStatus::Failed(_)));
        if (statuses.is_empty() && !out.status.success()) || failed {
            let e = match statuses.values().find_map(|s| match s {
                RefStatus::Failed(reason) if stderr.trim().is_empty() => Some(reason.clone()),
                _ => None,
            }) {
                Some(reason) => Error::RemoteUnreachable {
                    remote: self.r.name.to_owned(),
                    reason,
                },
                None => remote_error(self.r.name, &stderr),
            };
            return Ok(Pushed::Failed(e, stderr));
        }
        Ok(Pushed::Statuses(statuses, stderr))
    }

    /// Pushes `set`, splitting what fails as a whole; returns the refs the
    /// remote reported as moved on (to merge).
    fn push_set(&mut self, set: Refs) -> Result<Refs> {
        let mut diverged = Vec::new();
        let mut stack = vec![set];
        // A single ref failing as a whole is left queued; two in a row
        // mean the remote itself is failing.
        let mut lone_failure = false;
        while let Some(part) = stack.pop() {
            if part.is_empty() {
                continue;
            }
            let pushed = self.git_push(&part)?;
            let (statuses, stderr) = match pushed {
                Pushed::Failed(e, stderr) => {
                    if never_connected(&stderr) {
                        return Err(e);
                    }
                    if part.len() == 1 {
                        if lone_failure {
                            return Err(e);
                        }
                        self.report
                            .queued
                            .push(RefFailure::new(part[0].0.clone(), &e));
                        lone_failure = true;
                        self.tell();
                        continue;
                    }
                    if !self.split(&mut stack, part) {
                        return Err(e);
                    }
                    continue;
                }
                Pushed::Statuses(statuses, stderr) => (statuses, stderr),
            };
            lone_failure = false;
            let whole_declined = part.len() > 1
                && part.iter().all(|(n, _)| {
                    matches!(statuses.get(n), Some(RefStatus::Refused(r)) if declines_whole_push(r))
                });
            if whole_declined && self.split(&mut stack, part.clone()) {
                continue;
            }
            let mut confirmed = Vec::new();
            let mut unreported = Vec::new();
            // The hook's own words belong to a ref only when it is the one refused.
            let refusals = part
                .iter()
                .filter(|(n, _)| matches!(statuses.get(n), Some(RefStatus::Refused(_))))
                .count();
            let said = remote_message(&stderr).filter(|_| refusals == 1);
            for (name, tip) in part.iter().cloned() {
                match statuses.get(&name) {
                    Some(RefStatus::Confirmed) => confirmed.push((name, tip)),
                    Some(RefStatus::Diverged(_)) => diverged.push((name, tip)),
                    Some(RefStatus::Refused(reason)) => {
                        let reason = match &said {
                            Some(said) => format!("{reason}: {said}"),
                            None => reason.clone(),
                        };
                        self.refused(&name, reason);
                    }
                    Some(RefStatus::Failed(_)) | None => unreported.push((name, tip)),
                }
            }
            self.confirm(&confirmed);
            if unreported.len() == part.len() || part.len() == 1 {
                for (name, _) in unreported {
                    self.refused(&name, "the remote did not report on it".to_owned());
                }
            } else if !unreported.is_empty() {
                stack.push(unreported);
            }
            self.tell();
        }
        Ok(diverged)
    }

    /// Splits `part` into halves on `stack` (the first half pushed first);
    /// `false` when the split budget is spent (the refs stay queued).
    fn split(&mut self, stack: &mut Vec<Refs>, mut part: Refs) -> bool {
        if self.splits + 2 > MAX_SPLIT_PUSHES {
            return false;
        }
        self.splits += 2;
        let second = part.split_off(part.len() / 2);
        stack.push(second);
        stack.push(part);
        true
    }

    fn refused(&mut self, name: &str, reason: String) {
        let e = Error::Rejected {
            remote: self.r.name.to_owned(),
            reason,
        };
        self.report
            .queued
            .push(RefFailure::new(name.to_owned(), &e));
    }

    /// Fetches the remote's tips of `diverged` (one `git fetch`) and brings
    /// each in: settled ones are confirmed, conflicts stay queued; returns
    /// the refs now ahead of the remote (to push again), at their new tips.
    fn merge_remote(&mut self, diverged: Refs) -> Result<Refs> {
        let names: Vec<String> = diverged.iter().map(|(n, _)| n.clone()).collect();
        if let Err(e) = self.r.fetch_many(&names) {
            // One may have vanished from the remote: fetch them one by one.
            if !matches!(e, Error::RemoteUnreachable { .. }) {
                return Err(e);
            }
            for name in &names {
                self.r.fetch_one(name)?;
            }
        }
        let all = names.clone();
        let mut again = Vec::new();
        for name in names {
            let remote_tip = read_tip(&self.r.repo, &self.r.tmp_ref(&name)?)?;
            let merged = match remote_tip {
                None => Ok(None),
                Some(tip) => {
                    self.r.seen(&name, tip);
                    integrate(self.r.store, &self.r.repo, &name, tip).map(Some)
                }
            };
            match merged {
                Ok(Some((outcome, local))) if !outcome.ahead() => {
                    self.confirm(&[(name, local)]);
                }
                Ok(_) => match read_tip(&self.r.repo, &name)? {
                    Some(tip) => again.push((name, tip)),
                    None => {
                        let _ = self.queue.remove(&[name.as_str()]);
                        self.report.dropped.push(name);
                    }
                },
                Err(e @ (Error::Conflict { .. } | Error::RefBusy { .. })) => {
                    self.report.queued.push(RefFailure::new(name, &e));
                }
                Err(e) => {
                    self.r.drop_tmp(&all);
                    return Err(e);
                }
            }
        }
        self.r.drop_tmp(&all);
        Ok(again)
    }

    /// Refs the remote now holds at `tip` leave the queue (and are
    /// recorded); one that moved here since it was read goes back in (its
    /// new commits are not pushed yet). Queue failures are ignored: the
    /// record still finds what is left to push.
    fn confirm(&mut self, refs: &[(String, ObjectId)]) {
        if refs.is_empty() {
            return;
        }
        let names: Vec<&str> = refs
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| *n != BRANCH_REF)
            .collect();
        let _ = self.queue.remove(&names);
        let mut moved = Vec::new();
        for (name, tip) in refs {
            self.r.seen(name, *tip);
            if name != BRANCH_REF && read_tip(&self.r.repo, name).ok().flatten() != Some(*tip) {
                moved.push(name.as_str());
            }
        }
        let _ = self.queue.enqueue_all(&moved);
        self.report
            .pushed
            .extend(refs.iter().map(|(n, _)| n.clone()));
    }
}
