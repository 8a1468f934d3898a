//! Push (STORE.md §5): drain the queue, drop refs that no longer exist
//! locally, `git push --no-verify --porcelain <remote> <ref>:<ref> ...` in
//! batches of at most [`PUSH_BATCH`] refs, never forced. What the remote
//! confirmed leaves the queue; a ref the batch did not get through is
//! pushed alone; a ref the remote also changed is fetched into
//! `refs/entire-fetch-tmp/...`, ours replayed on the remote's tip by
//! meaning, and pushed again (at most [`MAX_PUSH_ROUNDS`] times). The v1
//! branch, when it exists here, is pushed the same way.

use gix::ObjectId;

use crate::branch_backend::BRANCH_REF;
use crate::ref_update::read_tip;
use crate::remote::fetch::Remote;
use crate::remote::git_program::{remote_error, remote_message};
use crate::remote::integrate::integrate;
use crate::remote::porcelain::{self, RefStatus};
use crate::remote::scratch::Scratch;
use crate::remote::{PushProgress, PushReport, RefFailure};
use crate::store::Store;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::PushQueue;

/// The most refs one `git push` carries.
pub const PUSH_BATCH: usize = 200;

/// Fetch-replay-push rounds for one ref whose remote tip keeps moving,
/// before it is left queued as `rejected`.
pub const MAX_PUSH_ROUNDS: u32 = 8;

impl Store {
    /// Pushes every queued checkpoint ref (and the v1 branch, when it
    /// exists here) to `remote` (a remote name or URL). See
    /// [`Store::push_with_progress`].
    ///
    /// # Errors
    /// As [`Store::push_with_progress`].
    pub fn push(&self, remote: &str) -> Result<PushReport> {
        self.push_with_progress(remote, &mut |_| {})
    }

    /// Pushes as [`Store::push`], calling `progress` before the first batch
    /// and after each. Refs the remote confirmed leave the queue; refs it
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
        let queue = PushQueue::new(&self.common_dir);
        let drained = queue.drain()?;
        let mut report = PushReport {
            remote: remote.to_owned(),
            dropped: drained.dropped,
            ..PushReport::default()
        };
        let mut targets = Vec::new();
        let mut gone = Vec::new();
        for name in drained.refs {
            match read_tip(&r.repo, &name)? {
                Some(tip) => targets.push((name, tip)),
                None => gone.push(name),
            }
        }
        queue.remove(&gone)?;
        report.dropped.extend(gone);
        if let Some(tip) = read_tip(&r.repo, BRANCH_REF)? {
            targets.push((BRANCH_REF.to_owned(), tip));
        }
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
        };
        pusher.tell();
        for batch in targets.chunks(PUSH_BATCH) {
            pusher.batch(batch).map_err(|e| pusher.with_count(e))?;
            pusher.tell();
        }
        Ok(pusher.report)
    }
}

struct Pusher<'s, 'p> {
    r: Remote<'s>,
    scratch: Scratch,
    queue: PushQueue,
    report: PushReport,
    total: usize,
    progress: &'p mut dyn FnMut(&PushProgress),
}

/// One `git push` of some refs: the remote's status of each, the exit
/// status and stderr.
struct Pushed {
    statuses: std::collections::HashMap<String, RefStatus>,
    success: bool,
    stderr: String,
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

    /// `git push --no-verify --porcelain <remote> <ref>:<ref> ...` of
    /// `refs` at these tips (run from the scratch repository holding just them).
    fn git_push(&self, refs: &[(&str, ObjectId)]) -> Result<Pushed> {
        self.scratch.set_refs(refs)?;
        let specs: Vec<String> = refs.iter().map(|(r, _)| format!("{r}:{r}")).collect();
        let mut args = vec!["push", "--no-verify", "--porcelain", self.r.name];
        args.extend(specs.iter().map(String::as_str));
        let out = self.scratch.git.run(&args, None)?;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let statuses = porcelain::parse(&String::from_utf8_lossy(&out.stdout));
        if statuses.is_empty() && !out.status.success() {
            return Err(remote_error(self.r.name, &stderr));
        }
        if let Some(reason) = statuses.values().find_map(|s| match s {
            RefStatus::Failed(reason) => Some(reason.clone()),
            _ => None,
        }) {
            let said = remote_error(self.r.name, &stderr);
            let reason = match said {
                Error::RemoteUnreachable { reason: r, .. } if !stderr.trim().is_empty() => r,
                _ => reason,
            };
            return Err(Error::RemoteUnreachable {
                remote: self.r.name.to_owned(),
                reason,
            });
        }
        Ok(Pushed {
            statuses,
            success: out.status.success(),
            stderr,
        })
    }

    fn batch(&mut self, batch: &[(String, ObjectId)]) -> Result<()> {
        let refs: Vec<(&str, ObjectId)> = batch.iter().map(|(n, t)| (n.as_str(), *t)).collect();
        let pushed = self.git_push(&refs)?;
        let mut confirmed = Vec::new();
        let mut again = Vec::new();
        for (name, tip) in batch {
            match pushed.statuses.get(name) {
                Some(RefStatus::Confirmed) => confirmed.push((name.clone(), *tip)),
                Some(RefStatus::Diverged(_)) => again.push((name.clone(), true)),
                _ => again.push((name.clone(), false)),
            }
        }
        self.confirm(&confirmed)?;
        for (name, diverged) in again {
            self.alone(&name, diverged)?;
        }
        Ok(())
    }

    /// One ref on its own: merged with the remote's tip when it diverged,
    /// then pushed, until the remote confirms or refuses it.
    fn alone(&mut self, name: &str, mut diverged: bool) -> Result<()> {
        for _ in 0..MAX_PUSH_ROUNDS {
            if diverged {
                match self.merge_remote(name)? {
                    Merged::Settled(tip) => return self.confirm(&[(name.to_owned(), tip)]),
                    Merged::Conflict(e) => {
                        self.report
                            .queued
                            .push(RefFailure::new(name.to_owned(), &e));
                        return Ok(());
                    }
                    Merged::Ahead => {}
                }
            }
            let Some(tip) = read_tip(&self.r.repo, name)? else {
                self.queue.remove(&[name])?;
                self.report.dropped.push(name.to_owned());
                return Ok(());
            };
            let pushed = self.git_push(&[(name, tip)])?;
            match pushed.statuses.get(name) {
                Some(RefStatus::Confirmed) => return self.confirm(&[(name.to_owned(), tip)]),
                Some(RefStatus::Diverged(_)) => diverged = true,
                Some(RefStatus::Refused(reason)) => {
                    let reason = match remote_message(&pushed.stderr) {
                        Some(said) => format!("{reason}: {said}"),
                        None => reason.clone(),
                    };
                    self.refused(name, reason);
                    return Ok(());
                }
                Some(RefStatus::Failed(_)) | None if !pushed.success => {
                    return Err(remote_error(self.r.name, &pushed.stderr));
                }
                _ => {
                    self.refused(name, "the remote did not report on it".to_owned());
                    return Ok(());
                }
            }
        }
        self.refused(
            name,
            format!("the remote's ref kept moving ({MAX_PUSH_ROUNDS} fetch-replay-push rounds)"),
        );
        Ok(())
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

    /// Fetches the remote's tip of `name` and brings it in.
    fn merge_remote(&mut self, name: &str) -> Result<Merged> {
        let Some(remote_tip) = self.r.fetch_one(name)? else {
            return Ok(Merged::Ahead);
        };
        let result = integrate(self.r.store, &self.r.repo, name, remote_tip);
        self.r.drop_tmp_one(name);
        match result {
            Ok((outcome, local)) if !outcome.ahead() => Ok(Merged::Settled(local)),
            Ok(_) => Ok(Merged::Ahead),
            Err(e @ (Error::Conflict { .. } | Error::RefBusy { .. })) => Ok(Merged::Conflict(e)),
            Err(e) => Err(e),
        }
    }

    /// Refs the remote now holds at `tip` leave the queue; one that moved
    /// here since it was read goes back in (its new commits are not pushed).
    fn confirm(&mut self, refs: &[(String, ObjectId)]) -> Result<()> {
        if refs.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = refs
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| *n != BRANCH_REF)
            .collect();
        self.queue.remove(&names)?;
        let mut moved = Vec::new();
        for (name, tip) in refs {
            if name != BRANCH_REF && read_tip(&self.r.repo, name)? != Some(*tip) {
                moved.push(name.as_str());
            }
        }
        self.queue.enqueue_all(&moved)?;
        self.report
            .pushed
            .extend(refs.iter().map(|(n, _)| n.clone()));
        Ok(())
    }
}

/// What fetching the remote's tip of a diverged ref led to.
enum Merged {
    /// The local ref now equals the remote's (nothing of ours was missing there).
    Settled(ObjectId),
    /// Ours is ahead of the remote's tip: push again.
    Ahead,
    /// One session written differently on both sides; the local ref untouched.
    Conflict(Error),
}
