//! **[ours]** Replay by meaning: our commits since the merge base, applied
//! one by one on the remote's tip, each as what it means for the
//! checkpoint — sessions matched by session ID, not slots compared as trees.
//!
//! For one commit (its parent's checkpoint = base, its own = ours, the tip
//! being built = theirs): a session ours changed and theirs lacks takes the
//! next free slot there; a session both hold is merged file by file (a file
//! only one side changed is taken from that side), and a file both changed
//! differently is a `conflict` naming the session; `tasks/<id>/` entries
//! merge the same way. The root summary is recomputed from every slot
//! (count, files, tokens), `combined_attribution`, `branch`, `commit_sha`,
//! `strategy` and `cli_version` come from ours when ours changed them, and
//! `has_review` / `has_investigation` / `imported` stay set when either side
//! set them. On the v1 branch each checkpoint directory a commit changed is
//! merged this way. A replayed commit keeps its message and author; one
//! that changes nothing on the tip is left out, so the history stays linear
//! and free of empty commits.

use gix::objs::tree::Entry;
use gix::ObjectId;

use crate::branch_backend::BRANCH_REF;
use crate::checkpoint::{CheckpointDir, MetadataCache};
use crate::documents::{CheckpointSummary, SessionFilePaths};
use crate::layout::{CONTENT_HASH_FILE, METADATA_FILE, PROMPT_FILE, TASKS_DIR, TRANSCRIPT_FILE};
use crate::objects::{self, find, read_tree, tree_entry, upsert};
use crate::remote::history::{self, CommitInfo};
use crate::store::signature;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::refs::parse_ref;

/// What a replayed ref holds.
enum Holds {
    /// One checkpoint (a git-refs ref), by ID.
    Checkpoint(String),
    /// The v1 branch.
    Branch,
}

/// Our commits on `ref_name` since `base` (`ours` is our tip), replayed on
/// `theirs` (the remote's tip, whose objects are local). Returns the new tip,
/// a descendant of `theirs`.
///
/// # Errors
/// `conflict` when one session was written differently on both sides;
/// `corrupt_object` for unreadable objects; `invalid_argument` for a ref
/// that is neither a checkpoint ref nor the v1 branch.
pub(crate) fn replay(
    repo: &gix::Repository,
    cache: &MetadataCache,
    ref_name: &str,
    ours: ObjectId,
    theirs: ObjectId,
    base: Option<ObjectId>,
) -> Result<ObjectId> {
    let holds = if ref_name == BRANCH_REF {
        Holds::Branch
    } else {
        Holds::Checkpoint(parse_ref(ref_name).ok_or_else(|| {
            Error::invalid_argument("ref", format!("{ref_name:?} is not a checkpoint ref"))
        })?)
    };
    let merger = Merger { repo, cache };
    let committer = signature(repo, None);
    let mut tip = theirs;
    let mut tip_tree = history::commit(repo, &theirs)?.tree;
    for (_, commit) in history::since(repo, ours, base)? {
        let parent_tree = match commit.parents.first() {
            Some(p) => Some(history::commit(repo, p)?.tree),
            None => None,
        };
        let tree = match &holds {
            Holds::Checkpoint(id) => {
                merger.checkpoint(id, "", parent_tree, commit.tree, Some(tip_tree))?
            }
            Holds::Branch => merger.branch(parent_tree, commit.tree, tip_tree)?,
        };
        if tree == tip_tree {
            continue;
        }
        tip = write_replayed(repo, tree, tip, &commit, &committer)?;
        tip_tree = tree;
    }
    Ok(tip)
}

fn write_replayed(
    repo: &gix::Repository,
    tree: ObjectId,
    parent: ObjectId,
    original: &CommitInfo,
    committer: &gix::actor::Signature,
) -> Result<ObjectId> {
    let commit = gix::objs::Commit {
        tree,
        parents: std::iter::once(parent).collect(),
        author: original.author.clone(),
        committer: committer.clone(),
        encoding: None,
        message: original.message.as_str().into(),
        extra_headers: Vec::new(),
    };
    let commit = crate::signing::encode_commit(repo, &commit)?;
    objects::write_encoded_commit(repo, &commit)
}

struct Merger<'a> {
    repo: &'a gix::Repository,
    cache: &'a MetadataCache,
}

/// One side of a three-way merge of one entry.
fn same(a: Option<&Entry>, b: Option<&Entry>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.oid == b.oid && a.mode == b.mode,
        _ => false,
    }
}

impl Merger<'_> {
    fn entries(&self, tree: Option<ObjectId>, what: &str) -> Result<Vec<Entry>> {
        match tree {
            Some(t) => read_tree(self.repo, &t, what),
            None => Ok(Vec::new()),
        }
    }

    /// The v1 branch's root trees merged: every checkpoint directory ours
    /// changed is merged by meaning into theirs; other entries whole.
    fn branch(&self, base: Option<ObjectId>, ours: ObjectId, theirs: ObjectId) -> Result<ObjectId> {
        let what = "the entire/checkpoints/v1 branch";
        let b = self.entries(base, what)?;
        let o = self.entries(Some(ours), what)?;
        let mut result = self.entries(Some(theirs), what)?;
        let before = result.clone();
        for oe in &o {
            let name = oe.filename.to_string();
            let be = find(&b, &name);
            if same(be, Some(oe)) {
                continue;
            }
            let te = find(&before, &name).cloned();
            if name.len() == 2 && oe.mode.is_tree() {
                let tree = |e: Option<&Entry>| e.filter(|e| e.mode.is_tree()).map(|e| e.oid);
                let bs = self.entries(tree(be), what)?;
                let os = self.entries(Some(oe.oid), what)?;
                let ts = self.entries(tree(te.as_ref()), what)?;
                let mut shard = ts.clone();
                for ce in os.iter().filter(|e| e.mode.is_tree()) {
                    let rest = ce.filename.to_string();
                    let bce = find(&bs, &rest);
                    if same(bce, Some(ce)) {
                        continue;
                    }
                    let tce = find(&ts, &rest).filter(|e| e.mode.is_tree()).map(|e| e.oid);
                    let prefix = format!("{name}/{rest}/");
                    let merged = self.checkpoint(
                        &format!("{name}{rest}"),
                        &prefix,
                        bce.filter(|e| e.mode.is_tree()).map(|e| e.oid),
                        ce.oid,
                        tce,
                    )?;
                    upsert(&mut shard, tree_entry(&rest, merged));
                }
                upsert(
                    &mut result,
                    tree_entry(&name, objects::write_tree(self.repo, shard)?),
                );
            } else {
                take_whole(&mut result, be, oe, te.as_ref(), what)?;
            }
        }
        if result == before {
            return Ok(theirs);
        }
        objects::write_tree(self.repo, result)
    }

    /// One checkpoint directory merged: `base` and `ours` are its tree
    /// before and after our commit, `theirs` the tip's (`None`: absent).
    fn checkpoint(
        &self,
        id: &str,
        prefix: &str,
        base: Option<ObjectId>,
        ours: ObjectId,
        theirs: Option<ObjectId>,
    ) -> Result<ObjectId> {
        let Some(theirs) = theirs else {
            return Ok(ours);
        };
        if Some(ours) == base || ours == theirs {
            return Ok(theirs);
        }
        if Some(theirs) == base {
            return Ok(ours);
        }
        let what = format!("checkpoint {id}");
        let mut b = CheckpointDir::load(self.repo, base, &what, self.cache)?;
        let mut o = CheckpointDir::load(self.repo, Some(ours), &what, self.cache)?;
        let mut t = CheckpointDir::load(self.repo, Some(theirs), &what, self.cache)?;
        let b_sessions = sessions(self.repo, &mut b)?;
        let o_sessions = sessions(self.repo, &mut o)?;
        let t_sessions = sessions(self.repo, &mut t)?;
        let b_summary = b.summary.clone().unwrap_or_default();
        let o_summary = o.summary.clone().unwrap_or_default();
        let t_summary = t.summary.clone().unwrap_or_default();
        let mut paths = t_summary.sessions.clone().unwrap_or_default();

        for (o_slot, sid, o_tree) in &o_sessions {
            let b_tree = b_sessions.iter().find(|s| &s.1 == sid).map(|s| s.2);
            if b_tree == Some(*o_tree) {
                continue;
            }
            let template = o_summary
                .sessions
                .as_ref()
                .and_then(|s| s.get(*o_slot))
                .cloned()
                .unwrap_or_default();
            match t_sessions.iter().find(|s| &s.1 == sid) {
                None => {
                    let slot = paths.len();
                    let entries = read_tree(self.repo, o_tree, &what)?;
                    paths.push(paths_for(prefix, slot, &entries, &template));
                    t.set_slot(slot, *o_tree, None);
                }
                Some((t_slot, _, t_tree)) if t_tree != o_tree => {
                    let session = format!("session {sid:?} of checkpoint {id}");
                    let entries = merge_entries(
                        &self.entries(b_tree, &what)?,
                        &self.entries(Some(*o_tree), &what)?,
                        &self.entries(Some(*t_tree), &what)?,
                        &session,
                    )?;
                    if let Some(p) = paths.get_mut(*t_slot) {
                        *p = paths_for(prefix, *t_slot, &entries, p);
                    }
                    let tree = objects::write_tree(self.repo, entries)?;
                    t.set_slot(*t_slot, tree, None);
                }
                Some(_) => {}
            }
        }
        self.other_entries(id, &b, &o, &mut t)?;

        let (checkpoints_count, files_touched, token_usage) =
            t.aggregate(self.repo, paths.len())?;
        let pick = |b: &String, o: &String, t: &String| if o != b { o.clone() } else { t.clone() };
        let summary = CheckpointSummary {
            cli_version: pick(
                &b_summary.cli_version,
                &o_summary.cli_version,
                &t_summary.cli_version,
            ),
            checkpoint_id: if t_summary.checkpoint_id.is_empty() {
                o_summary.checkpoint_id.clone()
            } else {
                t_summary.checkpoint_id.clone()
            },
            strategy: pick(
                &b_summary.strategy,
                &o_summary.strategy,
                &t_summary.strategy,
            ),
            branch: pick(&b_summary.branch, &o_summary.branch, &t_summary.branch),
            commit_sha: pick(
                &b_summary.commit_sha,
                &o_summary.commit_sha,
                &t_summary.commit_sha,
            ),
            checkpoints_count,
            files_touched,
            sessions: Some(paths),
            token_usage,
            combined_attribution: if o_summary.combined_attribution
                != b_summary.combined_attribution
            {
                o_summary.combined_attribution.clone()
            } else {
                t_summary.combined_attribution.clone()
            },
            has_review: t_summary.has_review || o_summary.has_review,
            has_investigation: t_summary.has_investigation || o_summary.has_investigation,
            imported: t_summary.imported || o_summary.imported,
        };
        t.write(self.repo, &summary)
    }

    /// Top-level entries that are neither slots nor the root summary:
    /// `tasks/` merged task by task, anything else whole.
    fn other_entries(
        &self,
        id: &str,
        b: &CheckpointDir,
        o: &CheckpointDir,
        t: &mut CheckpointDir,
    ) -> Result<()> {
        let what = format!("checkpoint {id}");
        let others = |e: &&Entry| {
            let name = e.filename.to_string();
            name != METADATA_FILE && !name.bytes().all(|c| c.is_ascii_digit())
        };
        for oe in o.entries.iter().filter(others) {
            let name = oe.filename.to_string();
            let be = find(&b.entries, &name);
            if same(be, Some(oe)) {
                continue;
            }
            let te = find(&t.entries, &name).cloned();
            if name == TASKS_DIR && oe.mode.is_tree() {
                let tree = |e: Option<&Entry>| e.filter(|e| e.mode.is_tree()).map(|e| e.oid);
                let tasks = merge_entries(
                    &self.entries(tree(be), &what)?,
                    &self.entries(Some(oe.oid), &what)?,
                    &self.entries(tree(te.as_ref()), &what)?,
                    &format!("the tasks of checkpoint {id}"),
                )?;
                let tree = objects::write_tree(self.repo, tasks)?;
                upsert(&mut t.entries, tree_entry(TASKS_DIR, tree));
            } else {
                take_whole(&mut t.entries, be, oe, te.as_ref(), &what)?;
            }
        }
        Ok(())
    }
}

/// Ours' `oe` replaces theirs' entry unless theirs changed it too, differently.
fn take_whole(
    result: &mut Vec<Entry>,
    be: Option<&Entry>,
    oe: &Entry,
    te: Option<&Entry>,
    what: &str,
) -> Result<()> {
    if same(te, be) {
        upsert(result, oe.clone());
        Ok(())
    } else if same(te, Some(oe)) {
        Ok(())
    } else {
        Err(Error::Conflict {
            what: format!("{:?} in {what}", oe.filename.to_string()),
            reason: "written differently here and on the remote".to_owned(),
        })
    }
}

/// Each listed slot's (slot, session ID, tree).
fn sessions(
    repo: &gix::Repository,
    dir: &mut CheckpointDir,
) -> Result<Vec<(usize, String, ObjectId)>> {
    let mut out = Vec::new();
    for slot in 0..dir.session_count() {
        let (Some(tree), Some(meta)) = (dir.slot_tree(slot), dir.metadata(repo, slot)?) else {
            continue;
        };
        out.push((slot, meta.session_id.clone(), tree));
    }
    Ok(out)
}

/// The three-way merge of one level of entries, by name: a name only one
/// side changed takes that side; both changed the same way is fine; both
/// changed differently is a conflict on `what`.
fn merge_entries(b: &[Entry], o: &[Entry], t: &[Entry], what: &str) -> Result<Vec<Entry>> {
    let mut result = t.to_vec();
    let mut names: Vec<String> = o
        .iter()
        .chain(b.iter())
        .map(|e| e.filename.to_string())
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        let (be, oe, te) = (find(b, &name), find(o, &name), find(t, &name));
        if same(oe, be) || same(oe, te) {
            continue;
        }
        if !same(te, be) {
            return Err(Error::Conflict {
                what: what.to_owned(),
                reason: format!("{name} was written differently here and on the remote"),
            });
        }
        match oe {
            Some(oe) => upsert(&mut result, oe.clone()),
            None => objects::remove(&mut result, &name),
        }
    }
    Ok(result)
}

/// The file paths of slot `slot` holding `entries`, from `template` (the
/// session's paths on the side it came from) re-rooted at the slot.
fn paths_for(
    prefix: &str,
    slot: usize,
    entries: &[Entry],
    template: &SessionFilePaths,
) -> SessionFilePaths {
    let base = format!("/{prefix}{slot}/");
    let has = |name: &str| find(entries, name).is_some();
    let rebase = |path: &str, standard: &str| -> String {
        let name = path.rsplit('/').next().filter(|n| !n.is_empty());
        match name {
            Some(name) if has(name) => format!("{base}{name}"),
            _ if has(standard) => format!("{base}{standard}"),
            _ => String::new(),
        }
    };
    let mut paths = template.clone();
    paths.metadata = format!("{base}{METADATA_FILE}");
    paths.transcript = rebase(&template.transcript, TRANSCRIPT_FILE);
    paths.content_hash = rebase(&template.content_hash, CONTENT_HASH_FILE);
    paths.prompt = rebase(&template.prompt, PROMPT_FILE);
    if !template.compact_transcript.is_empty() {
        paths.compact_transcript = rebase(&template.compact_transcript, "");
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_the_slot_and_the_files() {
        let oid = ObjectId::null(gix::hash::Kind::Sha1);
        let entries = vec![
            objects::blob_entry(METADATA_FILE, objects::FileMode::Regular, oid),
            objects::blob_entry(TRANSCRIPT_FILE, objects::FileMode::Regular, oid),
            objects::blob_entry(CONTENT_HASH_FILE, objects::FileMode::Regular, oid),
        ];
        let template = SessionFilePaths {
            metadata: "/a1/b2c3d4e5f6/0/metadata.json".into(),
            prompt: "/a1/b2c3d4e5f6/0/prompt.txt".into(),
            ..SessionFilePaths::default()
        };
        let p = paths_for("a1/b2c3d4e5f6/", 3, &entries, &template);
        assert_eq!(p.metadata, "/a1/b2c3d4e5f6/3/metadata.json");
        assert_eq!(p.transcript, "/a1/b2c3d4e5f6/3/full.jsonl");
        assert_eq!(p.content_hash, "/a1/b2c3d4e5f6/3/content_hash.txt");
        assert_eq!(p.prompt, "", "no prompt.txt in the merged slot");
    }

    #[test]
    fn entries_merge_three_ways() {
        let id = |n: u8| ObjectId::from_bytes_or_panic(&[n; 20]);
        let e = |name: &str, n: u8| objects::blob_entry(name, objects::FileMode::Regular, id(n));
        let b = vec![e("a", 1), e("b", 1)];
        let o = vec![e("a", 2), e("b", 1), e("c", 1)];
        let t = vec![e("a", 1), e("b", 3)];
        let mut m = merge_entries(&b, &o, &t, "x").unwrap();
        m.sort();
        assert_eq!(m, vec![e("a", 2), e("b", 3), e("c", 1)]);
        let t = vec![e("a", 4), e("b", 1)];
        let err = merge_entries(&b, &o, &t, "session \"s\"").unwrap_err();
        assert_eq!(err.code(), agent_checkpoint::ErrorCode::Conflict);
        assert!(
            err.to_string().contains("a was written differently"),
            "{err}"
        );
    }
}
