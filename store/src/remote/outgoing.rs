//! What a push would send, without sending it ([`Store::push_plan`], the
//! CLI's `store push --dry-run`): the same refs [`Store::push`] would push
//! (one function, `Store::targets`, decides for both), each with what it
//! holds and whether the remote already has it.

use std::collections::{HashMap, HashSet};

use gix::objs::Kind;
use gix::prelude::Find;
use gix::ObjectId;
use serde::Serialize;

use crate::backend::Backend;
use crate::branch_backend::BRANCH_REF;
use crate::objects::corrupt;
use crate::read::{describe, Damage};
use crate::refs_backend;
use crate::remote::fetch::{valid_checkpoint_ref, Remote};
use crate::store::Store;
use agent_checkpoint::Result;

/// One ref a push would send, as [`Store::push_plan`] lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct OutgoingCheckpoint {
    /// The ref (`refs/entire/checkpoints/<shard>/<id>` or the v1 branch).
    pub ref_name: String,
    /// The checkpoint ID; `None` (`null`) for the v1 branch, which goes
    /// whole with every legacy checkpoint on it.
    pub checkpoint_id: Option<String>,
    /// The local tip that would be pushed (hex).
    pub commit: String,
    /// Whether it is in the push queue (`false`: found because its tip is
    /// not what the remote was last seen holding, e.g. a lost enqueue).
    pub queued: bool,
    /// The session IDs, by slot (empty for the v1 branch).
    pub session_ids: Vec<String>,
    /// The last session's agent (empty for the v1 branch).
    pub agent: String,
    /// The summary's files touched (empty for the v1 branch).
    pub files_touched: Vec<String>,
    /// The bytes that would be uploaded for it: the uncompressed size of
    /// its objects (commits, trees, blobs) that are here and not reachable
    /// from the remote's tip of the same ref — an upper bound, as git
    /// compresses and deltas what it sends. `0` when `on_remote`.
    pub upload_bytes: u64,
    /// Whether the remote already holds the ref at `commit` (the push
    /// would confirm it, "up to date", and upload nothing for it).
    pub on_remote: bool,
    /// The remote's tip of the ref when it holds it at another commit
    /// (hex); `None` when it does not hold it or holds `commit`.
    pub remote_commit: Option<String>,
    /// Why the checkpoint cannot be described, when it cannot (it is still
    /// pushed); `None` for a sound one and for the v1 branch.
    pub damaged: Option<Damage>,
}

/// What [`Store::push`] would do now, as [`Store::push_plan`] found it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PushPlan {
    /// The remote, as given.
    pub remote: String,
    /// Every ref the push would send, in the order it would: the queued
    /// ones, the unqueued ones the remote was not seen holding, the v1
    /// branch.
    pub checkpoints: Vec<OutgoingCheckpoint>,
    /// Queue entries the push would drop: lines that are not checkpoint
    /// refs, and refs that no longer exist here.
    pub dropped: Vec<String>,
    /// The bytes that would be uploaded in all, each object counted once
    /// (as in [`OutgoingCheckpoint::upload_bytes`]).
    pub upload_bytes: u64,
}

impl PushPlan {
    /// The refs the remote would receive (those not already on it).
    pub fn to_send(&self) -> Vec<&str> {
        self.checkpoints
            .iter()
            .filter(|c| !c.on_remote)
            .map(|c| c.ref_name.as_str())
            .collect()
    }
}

impl Store {
    /// What [`Store::push`] to `remote` (a remote name or URL) would send
    /// now, changing nothing: the queue is read, not drained; no ref,
    /// record or scratch repository is written. The refs are the ones the
    /// push itself would choose (the same function picks them). The remote
    /// is contacted once, to list its checkpoint refs (`ls-refs` of that
    /// namespace only, as [`Store::list_remote`]), so `on_remote` says what
    /// it holds now — not when nothing would be pushed, then it is not
    /// contacted at all.
    ///
    /// # Errors
    /// `invalid_argument` (remote); `remote_unreachable` / `auth_failed`
    /// when the remote cannot be listed; `corrupt_object` when a local
    /// object cannot be read.
    pub fn push_plan(&self, remote: &str) -> Result<PushPlan> {
        let r = Remote::new(self, remote)?;
        crate::remote::known::require_known(&r.repo, remote)?;
        let queue = crate::locks::push_queue(&self.common_dir);
        let peeked = queue.peek().unwrap_or_default();
        let queued: HashSet<String> = peeked.refs.iter().cloned().collect();
        let (targets, gone) = self.targets(&r, peeked.refs)?;
        let mut plan = PushPlan {
            remote: remote.to_owned(),
            dropped: peeked.dropped,
            ..PushPlan::default()
        };
        plan.dropped.extend(gone);
        if targets.is_empty() {
            return Ok(plan);
        }
        let theirs: HashMap<String, ObjectId> = r.ls_remote()?.refs.into_iter().collect();
        let mut all: HashMap<ObjectId, u64> = HashMap::new();
        for (name, tip) in targets {
            let remote_tip = theirs.get(&name).copied();
            let on_remote = remote_tip == Some(tip);
            let mut out = OutgoingCheckpoint {
                checkpoint_id: None,
                commit: tip.to_string(),
                queued: queued.contains(&name),
                session_ids: Vec::new(),
                agent: String::new(),
                files_touched: Vec::new(),
                upload_bytes: 0,
                on_remote,
                remote_commit: remote_tip.filter(|t| *t != tip).map(|t| t.to_string()),
                damaged: None,
                ref_name: name,
            };
            if out.ref_name != BRANCH_REF {
                self.describe_outgoing(&r.repo, tip, &mut out);
            }
            if !on_remote {
                let mut known = HashMap::new();
                if let Some(t) = remote_tip {
                    walk(&r.repo, t, &HashMap::new(), &mut known)?;
                }
                let mut sent = HashMap::new();
                walk(&r.repo, tip, &known, &mut sent)?;
                out.upload_bytes = sent.values().sum();
                all.extend(sent);
            }
            plan.checkpoints.push(out);
        }
        plan.upload_bytes = all.values().sum();
        Ok(plan)
    }

    /// Fills `out`'s sessions, agent and files touched from the checkpoint
    /// at `tip`, or says why it cannot be read.
    fn describe_outgoing(
        &self,
        repo: &gix::Repository,
        tip: ObjectId,
        out: &mut OutgoingCheckpoint,
    ) {
        let Some(id) = valid_checkpoint_ref(&out.ref_name) else {
            return;
        };
        let id = id.as_str().to_owned();
        let what = format!("checkpoint {id}");
        let described = refs_backend::checkpoint_tree(repo, tip, &what)
            .and_then(|tree| describe(&self.cache, repo, &id, tree, Backend::GitRefs));
        match described {
            Ok(info) => {
                out.session_ids = info.session_ids;
                out.agent = info.agent;
                out.files_touched = info.files_touched;
            }
            Err(e) => {
                out.damaged = Some(Damage {
                    code: e.code(),
                    reason: e.to_string(),
                });
            }
        }
        out.checkpoint_id = Some(id);
    }
}

/// Adds to `seen` every object reachable from `start` that is here and not
/// in `stop`, with its uncompressed size (objects missing here, as after a
/// treeless fetch, are not followed).
///
/// # Errors
/// `corrupt_object` when a commit or tree here cannot be parsed.
fn walk(
    repo: &gix::Repository,
    start: ObjectId,
    stop: &HashMap<ObjectId, u64>,
    seen: &mut HashMap<ObjectId, u64>,
) -> Result<()> {
    let hash = repo.object_hash();
    let mut stack = vec![(start, None)];
    let mut buf = Vec::new();
    while let Some((id, kind)) = stack.pop() {
        if stop.contains_key(&id) || seen.contains_key(&id) {
            continue;
        }
        if kind == Some(Kind::Blob) {
            if let Ok(Some(header)) = repo.try_find_header(id) {
                seen.insert(id, header.size());
            }
            continue;
        }
        let Ok(Some(data)) = repo.objects.try_find(&id, &mut buf) else {
            continue;
        };
        let bad = |e: &dyn std::fmt::Display| corrupt(format!("object {id}"), e);
        match data.kind {
            Kind::Commit => {
                let mut iter = gix::objs::CommitRefIter::from_bytes(data.data, hash);
                stack.push((iter.tree_id().map_err(|e| bad(&e))?, Some(Kind::Tree)));
                stack.extend(iter.parent_ids().map(|p| (p, Some(Kind::Commit))));
            }
            Kind::Tree => {
                let tree = gix::objs::TreeRef::from_bytes(data.data, hash).map_err(|e| bad(&e))?;
                for e in tree.entries {
                    if e.mode.is_tree() {
                        stack.push((e.oid.to_owned(), Some(Kind::Tree)));
                    } else if e.mode.is_blob_or_symlink() {
                        stack.push((e.oid.to_owned(), Some(Kind::Blob)));
                    }
                }
            }
            Kind::Blob | Kind::Tag => {}
        }
        seen.insert(id, data.data.len() as u64);
    }
    Ok(())
}
