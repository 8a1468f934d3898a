//! [`Store`]: a repository opened for checkpoints, and its writes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gix::ObjectId;

use crate::backend::{Backend, Place};
use crate::checkpoint::{CheckpointDir, MetadataCache};
use crate::layout::MAX_CHUNK_BYTES;
use crate::locks::{self, LockPolicy};
use crate::message::snapshot_message;
use crate::mirror::MirrorWrite;
use crate::objects;
use crate::redaction::Redact;
use crate::ref_update::{self, cas_edit, Proposal};
use crate::session::{Author, SessionWrite};
use crate::session_write::{validate, PreparedSession};
use crate::signing::{self, LogSink, SigningPolicy};
use crate::snapshots::{self, snapshot_ref, snapshot_sha256};
use crate::{refs_backend, sharing, trust, undo};
use agent_checkpoint::{
    Error, ParseOptions, Plan, PlanOptions, Result, RollbackOptions, RollbackReport,
};
use agent_checkpoint_naming::id::{validate_checkpoint_id, CheckpointId, IdKind};
pub use agent_checkpoint_naming::lock_wait::{DEFAULT_LOCK_WAIT, MAX_WAIT_FACTOR};

/// How a [`Store`] is opened.
#[derive(Clone)]
#[non_exhaustive]
pub struct StoreOptions {
    /// Where new checkpoints go (default [`Backend::GitRefs`]).
    pub backend: Backend,
    /// A second backend every write is copied to after the primary
    /// (`None`, the default: no mirror). Only [`Backend::GitBranch`] behind
    /// a [`Backend::GitRefs`] primary, the seed's rollout topology: see
    /// [`StoreOptions::mirror`].
    pub mirror: Option<Backend>,
    /// The redaction step every prompt, transcript and summary passes
    /// through (default: the redactor of `agent-checkpoint-redact` with its
    /// default rules).
    pub redactor: Arc<dyn Redact>,
    /// Transcripts above this many bytes are split into chunks (default
    /// 50 MiB, as the Go tool; smaller only to exercise chunking).
    pub transcript_chunk_bytes: usize,
    /// The remote (a name or URL) a read of a checkpoint that is not here
    /// asks first, fetching it (default: none; reads stay local).
    pub fetch_missing_from: Option<String>,
    /// The longest wait for a lock (per-ref, shadow branch, push queue)
    /// another process holds without any other process taking and
    /// releasing it meanwhile, before the operation ends in `ref_busy`
    /// naming the lock file (default [`DEFAULT_LOCK_WAIT`], 10 s). Within
    /// one process, the store opened last on a repository sets it for
    /// that repository.
    pub lock_wait: Duration,
    /// Whether the commits the store writes are signed: `None` (the
    /// default) follows git's `commit.gpgSign`; `Some(true)` signs with
    /// the signer git's configuration names (`gpg.format`,
    /// `user.signingKey`, `gpg.*.program`) even when `commit.gpgSign` is
    /// off; `Some(false)` never signs. Signing is best effort: a failure
    /// leaves the commit unsigned and logs one line to [`StoreOptions::log`].
    pub sign_commits: Option<bool>,
    /// Where the store logs what it does not fail for (a commit left
    /// unsigned); default [`crate::stderr_log`]. Within one process, the
    /// store opened last on a repository sets it for that repository.
    pub log: LogSink,
}

impl std::fmt::Debug for StoreOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreOptions")
            .field("backend", &self.backend)
            .field("mirror", &self.mirror)
            .field("transcript_chunk_bytes", &self.transcript_chunk_bytes)
            .field("fetch_missing_from", &self.fetch_missing_from)
            .field("lock_wait", &self.lock_wait)
            .field("sign_commits", &self.sign_commits)
            .finish_non_exhaustive()
    }
}

impl Default for StoreOptions {
    /// The default redactor, the git-refs backend and 50 MiB chunks.
    fn default() -> StoreOptions {
        StoreOptions::new(Arc::new(agent_checkpoint_redact::Redactor::default()))
    }
}

impl StoreOptions {
    /// Options with this redactor, the git-refs backend and 50 MiB chunks.
    pub fn new(redactor: Arc<dyn Redact>) -> StoreOptions {
        StoreOptions {
            backend: Backend::GitRefs,
            mirror: None,
            redactor,
            transcript_chunk_bytes: MAX_CHUNK_BYTES,
            fetch_missing_from: None,
            lock_wait: DEFAULT_LOCK_WAIT,
            sign_commits: None,
            log: crate::signing::stderr_log(),
        }
    }

    /// Signs every commit, or none, whatever `commit.gpgSign` says
    /// ([`StoreOptions::sign_commits`]).
    #[must_use]
    pub fn sign_commits(mut self, sign: bool) -> StoreOptions {
        self.sign_commits = Some(sign);
        self
    }

    /// Sets where the store's log lines go ([`StoreOptions::log`]).
    #[must_use]
    pub fn log(mut self, log: LogSink) -> StoreOptions {
        self.log = log;
        self
    }

    /// Sets the lock wait ([`StoreOptions::lock_wait`]).
    #[must_use]
    pub fn lock_wait(mut self, wait: Duration) -> StoreOptions {
        self.lock_wait = wait;
        self
    }

    /// Sets the backend.
    #[must_use]
    pub fn backend(mut self, backend: Backend) -> StoreOptions {
        self.backend = backend;
        self
    }

    /// Mirrors every write to `mirror` (the seed's rollout topology:
    /// git-refs primary, git-branch mirror). The primary is written first;
    /// then the checkpoint's whole new tree is copied to the mirror, so a
    /// mirror that missed a write is brought level by the next write of
    /// that checkpoint. A mirror failure leaves the primary write standing
    /// and is reported in [`SessionWritten::mirror`] (and logged). A
    /// legacy-ID checkpoint found only on the mirror is migrated to the
    /// primary (as [`Store::migrate`] does) before the write, so no session
    /// is lost; ULID checkpoints are not mirrored (the branch holds legacy
    /// IDs only). Reads prefer the primary.
    #[must_use]
    pub fn mirror(mut self, mirror: Backend) -> StoreOptions {
        self.mirror = Some(mirror);
        self
    }

    /// Sets the redactor.
    #[must_use]
    pub fn redactor(mut self, redactor: Arc<dyn Redact>) -> StoreOptions {
        self.redactor = redactor;
        self
    }

    /// Makes a read of a checkpoint that is not here fetch it from `remote`
    /// first ([`Store::fetch`]): `not_found` only when the remote does not
    /// have it either; a transport failure is that error, never "absent".
    #[must_use]
    pub fn fetch_missing_from(mut self, remote: impl Into<String>) -> StoreOptions {
        self.fetch_missing_from = Some(remote.into());
        self
    }

    /// Sets the transcript chunk size.
    #[must_use]
    pub fn transcript_chunk_bytes(mut self, bytes: usize) -> StoreOptions {
        self.transcript_chunk_bytes = bytes.max(1);
        self
    }
}

/// What a session write produced (serialized with these field names).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SessionWritten {
    /// The new commit (hex).
    pub commit: String,
    /// The ref that now points at it.
    pub ref_name: String,
    /// The session's slot in the checkpoint.
    pub session_index: usize,
    /// The undo-snapshot commit, when the write carried a snapshot.
    pub snapshot_commit: Option<String>,
    /// The mirror's part of the write, when the store has a mirror.
    pub mirror: Option<MirrorWrite>,
}

/// A git repository opened for checkpoints. Cheap to share across threads
/// (`Send + Sync`); every operation opens its own view of the repository.
pub struct Store {
    pub(crate) repo: gix::ThreadSafeRepository,
    pub(crate) common_dir: PathBuf,
    pub(crate) options: StoreOptions,
    pub(crate) cache: MetadataCache,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("common_dir", &self.common_dir)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens the repository containing `path` (any directory of a worktree,
    /// a linked worktree, or a git dir) with [`StoreOptions::default`]: the
    /// git-refs backend and the default redactor.
    ///
    /// # Errors
    /// As [`Store::open_with`].
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_with(path, StoreOptions::default())
    }

    /// Opens the repository containing `path` with `options`.
    ///
    /// The repository is found as git finds it (walking up from `path`,
    /// stopping at `GIT_CEILING_DIRECTORIES` and at a filesystem boundary
    /// unless `GIT_DISCOVERY_ACROSS_FILESYSTEM` is set) and used only when
    /// the caller owns it as git judges ownership, or git's `safe.directory`
    /// (system, global or command-line config, never the repository's own)
    /// trusts it.
    ///
    /// # Errors
    /// [`Error::NotARepository`] when no repository contains `path`; a
    /// `permission_denied` [`Error::Io`] for a repository another user owns
    /// and `safe.directory` does not trust (its message gives the
    /// `git config --global --add safe.directory <path>` that trusts it).
    pub fn open_with(path: impl AsRef<Path>, options: StoreOptions) -> Result<Store> {
        let path = path.as_ref();
        if let Some(mirror) = options.mirror {
            if (options.backend, mirror) != (Backend::GitRefs, Backend::GitBranch) {
                return Err(Error::invalid_argument(
                    "mirror",
                    format!(
                        "a {} store cannot mirror to {mirror}: the mirror topology is git-refs primary, git-branch mirror",
                        options.backend
                    ),
                ));
            }
        }
        let not_a_repository = |e: &dyn std::fmt::Display| Error::NotARepository {
            path: path.display().to_string(),
            reason: e.to_string(),
        };
        // Found as git finds it (ceilings, one filesystem), and refused as
        // git refuses it when someone else owns it, before anything writes
        // into it or starts git in it.
        let (found, _) = gix::discover::upwards_opts(path, trust::discovery_options())
            .map_err(|e| not_a_repository(&e))?;
        let candidate = trust::Candidate::from_discovered(&found);
        trust::check(&candidate)?;
        trust::check_bare(&candidate, path)?;
        let repo = gix::ThreadSafeRepository::discover_opts(
            path,
            trust::discovery_options(),
            Default::default(),
        )
        .map_err(|e| not_a_repository(&e))?;
        // The second walk must have found the repository that was checked.
        trust::check_same(&candidate, repo.to_thread_local().git_dir())?;
        let local = repo.to_thread_local();
        let common_dir = local.common_dir().to_path_buf();
        locks::register(
            &common_dir,
            LockPolicy {
                wait: options.lock_wait,
                sharing: sharing::of(&local),
            },
        );
        signing::register(
            &common_dir,
            SigningPolicy {
                sign: options.sign_commits,
                log: options.log.clone(),
            },
        );
        Ok(Store {
            repo,
            common_dir,
            options,
            cache: MetadataCache::default(),
        })
    }

    /// The working tree the store was opened in (`None` for a bare
    /// repository): the default root of [`Store::rollback`] for callers
    /// that captured relative to it.
    pub fn work_dir(&self) -> Option<PathBuf> {
        self.repo.to_thread_local().workdir().map(Path::to_path_buf)
    }

    /// The backend new checkpoints go to.
    pub fn backend(&self) -> Backend {
        self.options.backend
    }

    /// The backend writes are mirrored to, if any ([`StoreOptions::mirror`]).
    pub fn mirror(&self) -> Option<Backend> {
        self.options.mirror
    }

    /// The git common dir (shared by every worktree of the repository),
    /// where the push queue and the ref lock files live.
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    pub(crate) fn local(&self) -> gix::Repository {
        let mut repo = self.repo.to_thread_local();
        repo.object_cache_size_if_unset(4 * 1024 * 1024);
        repo
    }

    /// Writes one session into a checkpoint (creating it if needed) and
    /// moves the checkpoint's ref by compare-and-swap; with a snapshot,
    /// the snapshot ref moves in the same ref transaction.
    ///
    /// # Errors
    /// `invalid_checkpoint_id` / `invalid_argument` for bad input (nothing
    /// is written); `malformed_snapshot` for a snapshot the core cannot
    /// read; `conflict` when slot 0 holds another session; `ref_busy`
    /// when the ref kept moving; `corrupt_object` for an unreadable tree.
    pub fn write_session(&self, write: &SessionWrite) -> Result<SessionWritten> {
        let id = validate_checkpoint_id(&write.checkpoint_id)?;
        validate(write)?;
        let place = Place::new(&id, self.options.backend)?;
        if let Some(snapshot) = &write.snapshot {
            undo::check_snapshot(snapshot)?;
        }
        let repo = self.local();
        // Read before anything is written: a retention that does not
        // parse fails the write whole.
        let retention = match &write.snapshot {
            Some(_) => Some(crate::storage::Retention::from_config(&repo)?),
            None => None,
        };
        let prepared = PreparedSession::new(
            &repo,
            write,
            self.options.redactor.as_ref(),
            self.options.transcript_chunk_bytes,
        )?;
        let who = signature(&repo, write.author.as_ref());
        let snapshot = match &write.snapshot {
            Some(text) => Some((
                snapshots::write_tree(&repo, &self.common_dir, text)?,
                snapshot_sha256(text),
            )),
            None => None,
        };
        let snapshot_ref = snapshot_ref(&id);
        let message = prepared.message(place.prefix());
        let what = format!("checkpoint {id}");
        if self.mirror_of(&place).is_some() && id.kind() == IdKind::Legacy {
            // A mirror that cannot be read is the mirror's failure (the
            // mirror write below reports it), never the primary's.
            if let Err(e) = self.adopt_from_branch(&repo, &place) {
                (self.options.log)(&format!(
                    "checkpoint {id}: its copy on the mirror was not adopted: {e}"
                ));
            }
        }
        let (commit, (slot, snapshot_commit)) = self.commit_to(
            &repo,
            &place,
            &who,
            &message,
            |repo, tree| {
                let dir = CheckpointDir::load(repo, tree, &what, &self.cache)?;
                let (tree, slot) = prepared.apply(repo, dir, place.prefix())?;
                Ok((tree, slot))
            },
            |repo, edits, slot| {
                let Some((tree, sha)) = &snapshot else {
                    return Ok((slot, None));
                };
                let tip = ref_update::read_tip(repo, &snapshot_ref)?;
                let written_ns = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos());
                let msg = snapshot_message(
                    id.as_str(),
                    &prepared.metadata().session_id,
                    sha,
                    written_ns,
                );
                let commit = objects::write_commit(repo, *tree, tip, &msg, &who)?;
                edits.push(cas_edit(
                    &snapshot_ref,
                    tip,
                    commit,
                    "entire: undo snapshot",
                )?);
                Ok((slot, Some(commit.to_string())))
            },
        )?;
        if let Some(retention) = retention {
            // The write landed: a retention that cannot run now (a git
            // lock in the way) is left to the next write or `gc`, never
            // reported as a failed write.
            let _ = crate::storage::apply_on_write(&repo, &self.common_dir, &retention, &who);
        }
        let mirror = self.mirror_write(&repo, &place, commit, &message, &who);
        Ok(SessionWritten {
            commit: commit.to_string(),
            ref_name: place.ref_name().to_owned(),
            session_index: slot,
            snapshot_commit,
            mirror,
        })
    }

    /// [`Store::commit_to`], then the copy to the mirror when the store
    /// has one (a mirror failure is logged, never returned).
    pub(crate) fn commit<T, U>(
        &self,
        repo: &gix::Repository,
        place: &Place,
        who: &gix::actor::Signature,
        message: &str,
        edit: impl FnMut(&gix::Repository, Option<ObjectId>) -> Result<(ObjectId, T)>,
        extra: impl FnMut(&gix::Repository, &mut Vec<crate::ref_store::Edit>, T) -> Result<U>,
    ) -> Result<(ObjectId, U)> {
        let (commit, value) = self.commit_to(repo, place, who, message, edit, extra)?;
        let _ = self.mirror_write(repo, place, commit, message, who);
        Ok((commit, value))
    }

    /// The shared write loop: under the ref's lock, up to 16 times, read the
    /// tip, let `edit` rebuild the checkpoint tree, commit it, let `extra`
    /// add companion ref edits, compare-and-swap. The git-refs ref is
    /// enqueued for push once it moved.
    pub(crate) fn commit_to<T, U>(
        &self,
        repo: &gix::Repository,
        place: &Place,
        who: &gix::actor::Signature,
        message: &str,
        mut edit: impl FnMut(&gix::Repository, Option<ObjectId>) -> Result<(ObjectId, T)>,
        mut extra: impl FnMut(&gix::Repository, &mut Vec<crate::ref_store::Edit>, T) -> Result<U>,
    ) -> Result<(ObjectId, U)> {
        let ref_name = place.ref_name();
        let result = ref_update::update(repo, &self.common_dir, ref_name, who, |tip| {
            let tree = place.checkpoint_tree(repo, tip)?;
            let (new_tree, value) = edit(repo, tree)?;
            let (root, parent) = place.next_commit(repo, tip, new_tree, who)?;
            let commit = objects::write_commit(repo, root, parent, message, who)?;
            let mut edits = vec![cas_edit(ref_name, tip, commit, &first_line(message))?];
            let value = extra(repo, &mut edits, value)?;
            Ok(Proposal {
                edits,
                value: (commit, value),
            })
        })?;
        if place.backend == Backend::GitRefs {
            refs_backend::enqueue(&self.common_dir, ref_name);
        }
        Ok(result)
    }

    /// The undo snapshot stored with checkpoint `id`, byte for byte, or
    /// `None` when none was stored.
    ///
    /// # Errors
    /// `invalid_checkpoint_id`; `corrupt_object` when the snapshot ref's
    /// objects cannot be read.
    pub fn snapshot(&self, id: &str) -> Result<Option<String>> {
        let id = validate_checkpoint_id(id)?;
        snapshots::read(&self.local(), &self.common_dir, &snapshot_ref(&id))
    }

    /// Checkpoint `id`'s undo snapshot, as [`Store::snapshot`], but a
    /// checkpoint without one is an error.
    ///
    /// # Errors
    /// `not_found` when the checkpoint has no undo snapshot; as [`Store::snapshot`].
    pub fn undo_snapshot(&self, id: &str) -> Result<String> {
        let id = validate_checkpoint_id(id)?;
        self.require_snapshot(&id)
    }

    fn require_snapshot(&self, id: &CheckpointId) -> Result<String> {
        snapshots::read(&self.local(), &self.common_dir, &snapshot_ref(id))?.ok_or_else(|| {
            Error::NotFound {
                what: format!("undo snapshot of checkpoint {id}"),
            }
        })
    }

    /// Rolls the working tree at `root_dir` back to checkpoint `id`'s undo
    /// snapshot with the core's rollback and all its options. The snapshot
    /// is read with `parse` (its `.git` rule and limits); the key in
    /// `options` (or else `parse`'s) is checked before anything else.
    ///
    /// # Errors
    /// `not_found` when the checkpoint has no snapshot; an I/O error when
    /// `root_dir` cannot be opened; the core's errors for a snapshot it
    /// refuses (`malformed_snapshot`, `unauthenticated`, ...), with nothing
    /// touched.
    pub fn rollback(
        &self,
        id: &str,
        root_dir: impl AsRef<Path>,
        parse: &ParseOptions,
        options: &RollbackOptions,
    ) -> Result<RollbackReport> {
        let id = validate_checkpoint_id(id)?;
        let text = self.require_snapshot(&id)?;
        undo::rollback(root_dir.as_ref(), &text, parse, options)
    }

    /// What [`Store::rollback`] with the same options would do to each
    /// path, touching nothing.
    ///
    /// # Errors
    /// As [`Store::rollback`].
    pub fn plan_rollback(
        &self,
        id: &str,
        root_dir: impl AsRef<Path>,
        parse: &ParseOptions,
        options: &PlanOptions,
    ) -> Result<Plan> {
        let id = validate_checkpoint_id(id)?;
        let text = self.require_snapshot(&id)?;
        undo::plan(root_dir.as_ref(), &text, parse, options)
    }
}

// The bindings share one store across threads.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Store>();
};

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().to_owned()
}

/// The commit signature: the caller's author, else the repository's
/// `user.name` / `user.email`, else `Unknown` / `unknown@local`; now, UTC.
pub(crate) fn signature(repo: &gix::Repository, author: Option<&Author>) -> gix::actor::Signature {
    let (name, email) = match author {
        Some(a) => (a.name.clone(), a.email.clone()),
        None => {
            let config = repo.config_snapshot();
            let name = config.string("user.name").map(|s| s.to_string());
            let email = config.string("user.email").map(|s| s.to_string());
            (
                name.filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "Unknown".to_owned()),
                email
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "unknown@local".to_owned()),
            )
        }
    };
    gix::actor::Signature {
        name: name.into(),
        email: email.into(),
        time: gix::date::Time::now_utc(),
    }
}
