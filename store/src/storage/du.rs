//! [`crate::Store::du`]: the bytes the checkpoints take.

use std::collections::{BTreeMap, HashMap, HashSet};

use gix::prelude::Find;
use gix::ObjectId;
use serde::Serialize;

use super::objects::{disk_sizes, reachable_only_from};
use super::snapshot_refs;
use crate::branch_backend::BRANCH_REF;
use crate::objects::corrupt;
use crate::ref_store::{self, Value};
use crate::shadow::read::branches;
use crate::snapshots::{snapshot_path, SNAPSHOT_REF_PREFIX};
use crate::Store;
use agent_checkpoint::Result;
use agent_checkpoint_naming::refs::CHECKPOINT_REF_PREFIX;

/// How many of the largest entries [`crate::Store::du`] names by default.
pub const DEFAULT_DU_TOP: usize = 10;

/// What a [`DuEntry`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EntryKind {
    /// A persistent checkpoint's own ref (`refs/entire/checkpoints/...`).
    Checkpoint,
    /// The `entire/checkpoints/v1` branch (every branch checkpoint).
    CheckpointBranch,
    /// A checkpoint's undo snapshot ref (`refs/entire/snapshots/...`).
    Snapshot,
    /// A shadow branch (`entire/<commit7>-<worktree6>`).
    ShadowBranch,
}

impl EntryKind {
    /// The snake_case name (`checkpoint`, `checkpoint_branch`, `snapshot`,
    /// `shadow_branch`).
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Checkpoint => "checkpoint",
            EntryKind::CheckpointBranch => "checkpoint_branch",
            EntryKind::Snapshot => "snapshot",
            EntryKind::ShadowBranch => "shadow_branch",
        }
    }

    fn category(self) -> usize {
        match self {
            EntryKind::Checkpoint | EntryKind::CheckpointBranch => 0,
            EntryKind::Snapshot => 1,
            EntryKind::ShadowBranch => 2,
        }
    }
}

/// One of the store's refs and the bytes only it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DuEntry {
    /// What it is.
    pub kind: EntryKind,
    /// The checkpoint ID (checkpoints, snapshots) or branch name.
    pub name: String,
    /// The full ref name.
    pub ref_name: String,
    /// The session of a snapshot's tip (`None` for other kinds).
    pub session_id: Option<String>,
    /// Bytes of the objects this ref reaches and no other ref does, plus
    /// for a snapshot its file when no other snapshot names it.
    pub bytes: u64,
}

/// The refs of one kind of storage and the bytes only they hold.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Usage {
    /// How many refs.
    pub refs: usize,
    /// Bytes of the objects these refs reach and no ref of another kind
    /// (nor a user's ref) does; for snapshots plus their files.
    pub bytes: u64,
}

/// The undo snapshots of one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SessionUsage {
    /// The session ID (empty for snapshots without one).
    pub session_id: String,
    /// How many snapshot refs.
    pub snapshots: usize,
    /// The sum of their entries' bytes.
    pub bytes: u64,
}

/// What [`crate::Store::du`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DuReport {
    /// [`DuReport::object_bytes`] plus [`DuReport::snapshot_file_bytes`].
    pub total_bytes: u64,
    /// Bytes on disk of the git objects the store's refs reach and no
    /// other ref does: what `git rev-list --objects --disk-usage <the
    /// store's refs> --not <every other ref>` prints.
    pub object_bytes: u64,
    /// How many such objects.
    pub objects: usize,
    /// Bytes of the undo snapshots' files (`entire-snapshots/`) a snapshot
    /// ref names.
    pub snapshot_file_bytes: u64,
    /// Persistent checkpoints (their refs and the `entire/checkpoints/v1`
    /// branch).
    pub checkpoints: Usage,
    /// Undo snapshots.
    pub snapshots: Usage,
    /// Shadow branches.
    pub shadow_branches: Usage,
    /// Bytes reached by refs of more than one kind (counted in none).
    pub shared_bytes: u64,
    /// The largest entries, largest first (ties by ref name).
    pub largest: Vec<DuEntry>,
    /// The sessions whose undo snapshots take the most, largest first.
    pub sessions: Vec<SessionUsage>,
}

/// Who reaches one object: the first entry, whether another entry does
/// too, and the kinds (bit per category).
#[derive(Clone, Copy)]
struct Reach {
    first: usize,
    shared: bool,
    categories: u8,
}

/// One of the store's refs, before its bytes are known.
struct Root {
    kind: EntryKind,
    name: String,
    ref_name: String,
    session_id: Option<String>,
    tip: ObjectId,
    file_sha: Option<String>,
}

/// The store's refs: checkpoints, the branch, snapshots, shadow branches.
fn roots(repo: &gix::Repository) -> Result<Vec<Root>> {
    let mut out = Vec::new();
    for (name, value) in ref_store::list(repo, CHECKPOINT_REF_PREFIX)? {
        let Value::Object(tip) = value else { continue };
        out.push(Root {
            kind: EntryKind::Checkpoint,
            name: name.rsplit('/').next().unwrap_or_default().to_owned(),
            ref_name: name,
            session_id: None,
            tip,
            file_sha: None,
        });
    }
    if let Some(tip) = ref_store::read_tip(repo, BRANCH_REF)? {
        out.push(Root {
            kind: EntryKind::CheckpointBranch,
            name: BRANCH_REF.trim_start_matches("refs/heads/").to_owned(),
            ref_name: BRANCH_REF.to_owned(),
            session_id: None,
            tip,
            file_sha: None,
        });
    }
    for s in snapshot_refs::list(repo)? {
        out.push(Root {
            kind: EntryKind::Snapshot,
            name: s.checkpoint_id,
            ref_name: s.ref_name,
            session_id: Some(s.session_id),
            tip: s.tip,
            file_sha: s.file_sha,
        });
    }
    for (branch, tip) in branches(repo)? {
        out.push(Root {
            kind: EntryKind::ShadowBranch,
            ref_name: format!("refs/heads/{branch}"),
            name: branch,
            session_id: None,
            tip,
            file_sha: None,
        });
    }
    Ok(out)
}

/// The `--not` side: every ref but the store's (and `HEAD`).
pub(crate) fn others_than(roots_refs: &[&str]) -> Vec<String> {
    let mut args = vec![
        format!("--exclude={CHECKPOINT_REF_PREFIX}*"),
        format!("--exclude={SNAPSHOT_REF_PREFIX}*"),
        format!("--exclude={BRANCH_REF}"),
    ];
    for name in roots_refs {
        if !name.starts_with(CHECKPOINT_REF_PREFIX) && !name.starts_with(SNAPSHOT_REF_PREFIX) {
            args.push(format!("--exclude={name}"));
        }
    }
    args.push("--all".to_owned());
    args
}

/// Marks every object of `only` reachable from `tip` as reached by entry
/// `index` of `category`. Objects outside `only` are never entered: what
/// another ref reaches, it reaches whole.
fn walk(
    repo: &gix::Repository,
    tip: ObjectId,
    index: usize,
    category: usize,
    reach: &mut HashMap<ObjectId, Option<Reach>>,
) -> Result<()> {
    let mut seen = HashSet::new();
    let mut stack = vec![tip];
    let mut buf = Vec::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Some(slot) = reach.get_mut(&id) else {
            continue;
        };
        let bit = 1u8 << category;
        *slot = Some(match *slot {
            None => Reach {
                first: index,
                shared: false,
                categories: bit,
            },
            Some(r) => Reach {
                first: r.first,
                shared: r.shared || r.first != index,
                categories: r.categories | bit,
            },
        });
        let data = repo
            .objects
            .try_find(&id, &mut buf)
            .map_err(|e| corrupt(format!("object {id}"), e))?;
        let Some(data) = data else { continue };
        match data.kind {
            gix::objs::Kind::Commit => {
                let commit = gix::objs::CommitRef::from_bytes(data.data, repo.object_hash())
                    .map_err(|e| corrupt(format!("commit {id}"), e))?;
                stack.push(commit.tree());
                stack.extend(commit.parents());
            }
            gix::objs::Kind::Tree => {
                let tree = gix::objs::TreeRef::from_bytes(data.data, repo.object_hash())
                    .map_err(|e| corrupt(format!("tree {id}"), e))?;
                stack.extend(
                    tree.entries
                        .iter()
                        .filter(|e| !e.mode.is_commit())
                        .map(|e| e.oid.to_owned()),
                );
            }
            gix::objs::Kind::Tag => {
                let tag = gix::objs::TagRef::from_bytes(data.data, repo.object_hash())
                    .map_err(|e| corrupt(format!("tag {id}"), e))?;
                stack.push(tag.target());
            }
            gix::objs::Kind::Blob => {}
        }
    }
    Ok(())
}

impl Store {
    /// The bytes the checkpoints take (persistent checkpoints, undo
    /// snapshots, shadow branches), counted as git counts them (module
    /// [`crate::storage`]), with the `top` largest entries and sessions
    /// named.
    ///
    /// # Errors
    /// `corrupt_object` for a ref or object that cannot be read; an I/O
    /// error when git fails.
    pub fn du(&self, top: usize) -> Result<DuReport> {
        let repo = self.local();
        let roots = roots(&repo)?;
        let names: Vec<&str> = roots.iter().map(|r| r.ref_name.as_str()).collect();
        let tips: Vec<ObjectId> = roots.iter().map(|r| r.tip).collect();
        let only = reachable_only_from(&repo, &tips, &others_than(&names))?;
        let sizes = disk_sizes(&repo, &only)?;
        let mut reach: HashMap<ObjectId, Option<Reach>> =
            only.iter().map(|id| (*id, None)).collect();
        for (index, root) in roots.iter().enumerate() {
            walk(&repo, root.tip, index, root.kind.category(), &mut reach)?;
        }
        let mut entry_bytes = vec![0u64; roots.len()];
        let mut category_bytes = [0u64; 3];
        let mut object_bytes = 0;
        let mut shared_bytes = 0;
        for (id, r) in &reach {
            let size = sizes.get(id).copied().unwrap_or(0);
            object_bytes += size;
            let Some(r) = r else { continue };
            if !r.shared {
                entry_bytes[r.first] += size;
            }
            if r.categories.count_ones() == 1 {
                category_bytes[r.categories.trailing_zeros() as usize] += size;
            } else {
                shared_bytes += size;
            }
        }
        // Snapshot files: each counted once, to the one ref naming it.
        let mut named: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (index, root) in roots.iter().enumerate() {
            if let Some(sha) = &root.file_sha {
                named.entry(sha.as_str()).or_default().push(index);
            }
        }
        let mut snapshot_file_bytes = 0;
        for (sha, holders) in named {
            let Ok(meta) = std::fs::symlink_metadata(snapshot_path(&self.common_dir, sha)) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            snapshot_file_bytes += meta.len();
            if let [only_one] = holders[..] {
                entry_bytes[only_one] += meta.len();
            }
        }
        category_bytes[1] += snapshot_file_bytes;
        let mut count = [0usize; 3];
        for root in &roots {
            count[root.kind.category()] += 1;
        }
        let mut sessions: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
        for (root, bytes) in roots.iter().zip(&entry_bytes) {
            if let Some(session) = &root.session_id {
                let s = sessions.entry(session.as_str()).or_default();
                s.0 += 1;
                s.1 += bytes;
            }
        }
        let mut sessions: Vec<SessionUsage> = sessions
            .into_iter()
            .map(|(session_id, (snapshots, bytes))| SessionUsage {
                session_id: session_id.to_owned(),
                snapshots,
                bytes,
            })
            .collect();
        sessions.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.session_id.cmp(&b.session_id)));
        sessions.truncate(top);
        let mut largest: Vec<DuEntry> = roots
            .into_iter()
            .zip(entry_bytes)
            .map(|(r, bytes)| DuEntry {
                kind: r.kind,
                name: r.name,
                ref_name: r.ref_name,
                session_id: r.session_id,
                bytes,
            })
            .collect();
        largest.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.ref_name.cmp(&b.ref_name)));
        largest.truncate(top);
        let usage = |i: usize| Usage {
            refs: count[i],
            bytes: category_bytes[i],
        };
        Ok(DuReport {
            total_bytes: object_bytes + snapshot_file_bytes,
            object_bytes,
            objects: only.len(),
            snapshot_file_bytes,
            checkpoints: usage(0),
            snapshots: usage(1),
            shadow_branches: usage(2),
            shared_bytes,
            largest,
            sessions,
        })
    }
}
