//! **\[ours\]** Rewind: the working tree goes back to a step, through the
//! core's rollback (capability root, atomic per-file writes, modes,
//! symlinks, redo), for exactly the paths the step's session touched.
//!
//! The paths the session touched are those its steps changed (content,
//! or the recorded mode alone), each against its parent, except its first step (which records the working
//! tree as the session found it: files that were untracked or modified
//! before the session are not the session's doing). Among them, the ones
//! that differ between the working tree and the chosen step become one
//! core snapshot: a file or link the step holds is its content, with the
//! full mode the step recorded for it (`modes.json`, see `super::modes`;
//! else the current mode with the tree's executable bit), a file the step
//! does not hold is `null` (the session created it afterwards: removed), and the directories the step
//! does not hold above those are `created_dirs` (pruned when empty). Paths
//! under `.git` or `.entire`, and paths git ignores now (unless `HEAD`
//! tracks them), are never in it. [`Store::shadow_rewind_plan`] runs the
//! core's plan on the very same snapshot, so the plan is what the rewind
//! does. A scope (`Store::shadow_rewind_scoped`, ...) confines all of
//! it to one directory of the working tree: only the touched paths inside
//! it, relative to it, against a root that stands for that directory (the
//! core's capability root, so nothing outside it is read or written).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use base64::Engine as _;
use gix::ObjectId;

use super::blob::Blob;
use super::diff::{changed_files, entry_at, Leaf};
use super::modes::{self, Modes};
use super::paths::{is_reserved, Scope};
use super::read::{read_commit, FoundStep};
use super::status::Ignores;
use super::worktree::{OnDisk, Worktree};
use crate::objects::{self, git_error};
use crate::Store;
use agent_checkpoint::{
    Error, ParseOptions, Plan, PlanOptions, RelPath, Result, RollbackOptions, RollbackReport,
    Snapshot,
};

impl Store {
    /// Rewinds the working tree at `root_dir` to shadow step `commit` (a
    /// full or abbreviated commit id): every path the step's session
    /// touched that differs from the step is restored (modified files come
    /// back, files it created afterwards are removed, directories it
    /// created are pruned when empty), through the core's rollback with
    /// `options`. The report's `redo` undoes the rewind (roll it back with
    /// the core). Each file comes back with the full mode the step recorded
    /// (see the module docs). A file untracked before the session is touched
    /// only when a later step of the session named it; ignored files, `.git`
    /// and `.entire` are never touched.
    ///
    /// # Errors
    /// `invalid_argument` / `not_found` for a commit that names no step (or
    /// several); an I/O error when the working tree or git's ignore rules
    /// cannot be read (nothing touched); the core's errors for a snapshot
    /// it refuses as a whole (a symlink leaving the root, ...).
    pub fn shadow_rewind(
        &self,
        commit: &str,
        root_dir: impl AsRef<Path>,
        options: &RollbackOptions,
    ) -> Result<RollbackReport> {
        self.shadow_rewind_scoped(commit, "", root_dir, options)
    }

    /// [`Store::shadow_rewind`] confined to the directory `scope` of the
    /// working tree (relative to its root; `""` for all of it), with
    /// `root_dir` standing for that directory: only the paths inside it
    /// that the session touched are restored, and nothing outside
    /// `root_dir` is read or written (the core's capability root is
    /// `root_dir`). An MCP server serving a subdirectory rewinds so.
    ///
    /// # Errors
    /// As [`Store::shadow_rewind`]; `invalid_path` / `path_escapes_root`
    /// for a scope that is no directory path inside the working tree.
    pub fn shadow_rewind_scoped(
        &self,
        commit: &str,
        scope: &str,
        root_dir: impl AsRef<Path>,
        options: &RollbackOptions,
    ) -> Result<RollbackReport> {
        let (worktree, snapshot) = self.rewind_snapshot(commit, scope, root_dir.as_ref())?;
        agent_checkpoint::rollback(worktree.root(), &snapshot, options)
    }

    /// What [`Store::shadow_rewind`] would do to each path, touching
    /// nothing: the core's plan of the same snapshot.
    ///
    /// # Errors
    /// As [`Store::shadow_rewind`].
    pub fn shadow_rewind_plan(
        &self,
        commit: &str,
        root_dir: impl AsRef<Path>,
        options: &PlanOptions,
    ) -> Result<Plan> {
        self.shadow_rewind_plan_scoped(commit, "", root_dir, options)
    }

    /// What [`Store::shadow_rewind_scoped`] would do to each path, touching
    /// nothing.
    ///
    /// # Errors
    /// As [`Store::shadow_rewind_scoped`].
    pub fn shadow_rewind_plan_scoped(
        &self,
        commit: &str,
        scope: &str,
        root_dir: impl AsRef<Path>,
        options: &PlanOptions,
    ) -> Result<Plan> {
        let (worktree, snapshot) = self.rewind_snapshot(commit, scope, root_dir.as_ref())?;
        agent_checkpoint::plan_rollback(worktree.root(), &snapshot, options)
    }

    /// The core snapshot a rewind to `commit` under `root_dir` rolls back
    /// (its JSON text): what the working tree would be given back.
    ///
    /// # Errors
    /// As [`Store::shadow_rewind`].
    pub fn shadow_rewind_snapshot(
        &self,
        commit: &str,
        root_dir: impl AsRef<Path>,
    ) -> Result<String> {
        self.shadow_rewind_snapshot_scoped(commit, "", root_dir)
    }

    /// The core snapshot [`Store::shadow_rewind_scoped`] rolls back, its
    /// paths relative to `scope`.
    ///
    /// # Errors
    /// As [`Store::shadow_rewind_scoped`].
    pub fn shadow_rewind_snapshot_scoped(
        &self,
        commit: &str,
        scope: &str,
        root_dir: impl AsRef<Path>,
    ) -> Result<String> {
        let repo = self.local();
        let scope = self.rewind_scope(&repo, scope)?;
        let found = self.find_step(&repo, commit)?;
        let mut worktree = Worktree::open(root_dir.as_ref())?;
        build(&repo, &found, &mut worktree, &scope)
    }

    fn rewind_scope(&self, repo: &gix::Repository, scope: &str) -> Result<Scope> {
        if scope.is_empty() {
            return Ok(Scope::default());
        }
        let workdir = repo
            .workdir()
            .ok_or_else(|| Error::invalid_argument("repository", "has no working tree"))?;
        Scope::parse(Some(scope), workdir)
    }

    fn rewind_snapshot(
        &self,
        commit: &str,
        scope: &str,
        root_dir: &Path,
    ) -> Result<(Worktree, Snapshot)> {
        let repo = self.local();
        let scope = self.rewind_scope(&repo, scope)?;
        let found = self.find_step(&repo, commit)?;
        let mut worktree = Worktree::open(root_dir)?;
        let text = build(&repo, &found, &mut worktree, &scope)?;
        let snapshot = Snapshot::parse(&text, &ParseOptions::default())?;
        Ok((worktree, snapshot))
    }
}

/// The paths session `session_id` touched on `found`'s chain: what each of
/// its steps but the first changed against its parent.
fn touched(
    repo: &gix::Repository,
    found: &FoundStep,
    session_id: &str,
) -> Result<BTreeSet<String>> {
    let steps: Vec<_> = found
        .chain
        .iter()
        .filter(|(_, info)| info.trailers().session_id == session_id)
        .collect();
    let mut paths = BTreeSet::new();
    // The chain is newest first: the session's first step is the last.
    for (_, info) in steps.iter().rev().skip(1) {
        let parent_tree = match info.parent {
            Some(parent) => Some(read_commit(repo, parent)?.tree),
            None => None,
        };
        paths.extend(changed_files(repo, parent_tree, Some(info.tree))?);
        paths.extend(modes::changed(
            modes::read(repo, parent_tree, session_id)?.as_ref(),
            modes::read(repo, Some(info.tree), session_id)?.as_ref(),
        ));
    }
    paths.retain(|p| !is_reserved(p));
    Ok(paths)
}

/// Builds the snapshot text of a rewind to `found.commit`: the paths inside
/// `scope`, relative to it (`worktree` stands for its directory).
fn build(
    repo: &gix::Repository,
    found: &FoundStep,
    worktree: &mut Worktree,
    scope: &Scope,
) -> Result<String> {
    let step = found.info().ok_or_else(|| {
        objects::corrupt(format!("step {}", found.commit), "missing from its chain")
    })?;
    let session_id = step.trailers().session_id;
    let tree = step.tree;
    let head_tree = crate::ref_store::head_tree(repo)?;
    let mut ignores = Ignores::new(repo)?;
    let mut doc = Doc {
        recorded: modes::read(repo, Some(tree), &session_id)?.unwrap_or_default(),
        ..Doc::default()
    };
    for path in touched(repo, found, &session_id)? {
        // Outside the scope: never looked at, never in the snapshot.
        let Some(inside) = scope.strip(&path) else {
            continue;
        };
        let rel = RelPath::try_from(inside)?;
        let is_dir = matches!(
            worktree.kind(&rel)?,
            Some((agent_checkpoint::root::EntryKind::Dir, _))
        );
        if ignores.is_ignored(&path, is_dir)? && !tracked(repo, head_tree, &path)? {
            continue;
        }
        let target = entry_at(repo, tree, &path)?;
        // Only hashed, in pieces: the working tree's files are compared,
        // never held whole.
        let current = worktree.read(repo, &rel, None, Blob::Hash)?;
        // Recorded by the work tree's path; the snapshot is the scope's.
        let recorded = doc.recorded.get(&path).copied();
        doc.add(repo, rel.as_str(), target, &current, recorded)?;
    }
    doc.created_dirs(repo, tree, scope.prefix())?;
    doc.to_json()
}

fn tracked(repo: &gix::Repository, head_tree: Option<ObjectId>, path: &str) -> Result<bool> {
    match head_tree {
        Some(tree) => Ok(entry_at(repo, tree, path)?.is_some()),
        None => Ok(false),
    }
}

/// The snapshot being built.
#[derive(Default)]
struct Doc {
    entries: BTreeMap<String, Option<String>>,
    modes: BTreeMap<String, u32>,
    links: BTreeMap<String, String>,
    created_dirs: BTreeSet<String>,
    /// The full modes the chosen step recorded (see [`modes`]).
    recorded: Modes,
}

impl Doc {
    /// Adds `path` when the working tree differs from the step there
    /// (`recorded`: the full mode the step recorded for it).
    fn add(
        &mut self,
        repo: &gix::Repository,
        path: &str,
        target: Option<Leaf>,
        current: &OnDisk,
        recorded: Option<u32>,
    ) -> Result<()> {
        let what = format!("{path} in the step");
        match target {
            None | Some(Leaf::Tree(_)) => {
                if matches!(
                    current,
                    OnDisk::File { .. } | OnDisk::TooLarge(_) | OnDisk::Link(_) | OnDisk::Special
                ) {
                    self.entries.insert(path.to_owned(), None);
                }
            }
            Some(Leaf::Commit) => {}
            Some(Leaf::Blob { oid, executable }) => {
                let (same, mode) = match current {
                    OnDisk::File {
                        id,
                        executable: x,
                        mode,
                    } => {
                        let same_mode = match recorded {
                            Some(r) => r == *mode & 0o7777,
                            None => *x == executable,
                        };
                        (
                            same_mode && *id == oid,
                            Some(recorded.unwrap_or_else(|| with_exec(*mode, executable))),
                        )
                    }
                    _ => (false, recorded.or(executable.then_some(0o755))),
                };
                if !same {
                    let bytes = objects::read_blob(repo, &oid, &what)?;
                    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
                    self.entries.insert(path.to_owned(), Some(encoded));
                    if let Some(mode) = mode {
                        self.modes.insert(path.to_owned(), mode);
                    }
                }
            }
            Some(Leaf::Link(oid)) => {
                let bytes = objects::read_blob(repo, &oid, &what)?;
                let target = String::from_utf8(bytes)
                    .map_err(|_| Error::invalid_path(path, "symlink target is not UTF-8"))?;
                if !matches!(current, OnDisk::Link(t) if *t == target) {
                    self.links.insert(path.to_owned(), target);
                }
            }
        }
        Ok(())
    }

    /// The directories above the `null` entries that the step does not hold.
    /// (`prefix`: the scope's directory, which the entries are relative to.)
    fn created_dirs(
        &mut self,
        repo: &gix::Repository,
        tree: ObjectId,
        prefix: Option<&str>,
    ) -> Result<()> {
        let removed: Vec<String> = self
            .entries
            .iter()
            .filter(|(_, v)| v.is_none())
            .map(|(k, _)| k.clone())
            .collect();
        for path in removed {
            let mut dir = path.as_str();
            while let Some(i) = dir.rfind('/') {
                dir = &dir[..i];
                if self.created_dirs.contains(dir) {
                    break;
                }
                let in_tree = match prefix {
                    Some(prefix) => format!("{prefix}/{dir}"),
                    None => dir.to_owned(),
                };
                if entry_at(repo, tree, &in_tree)?.is_some() {
                    break;
                }
                self.created_dirs.insert(dir.to_owned());
            }
        }
        Ok(())
    }

    fn to_json(&self) -> Result<String> {
        let doc = serde_json::json!({
            "version": 1,
            "entries": self.entries,
            "created_dirs": self.created_dirs,
            "modes": self.modes,
            "links": self.links,
        });
        serde_json::to_string(&doc).map_err(|e| git_error("encoding a rewind snapshot", e))
    }
}

/// `mode` with its executable bits set (where it can be read) or cleared.
fn with_exec(mode: u32, executable: bool) -> u32 {
    let mode = mode & 0o7777;
    if executable {
        if mode & 0o111 != 0 {
            mode
        } else {
            mode | ((mode & 0o444) >> 2)
        }
    } else {
        mode & !0o111
    }
}

#[cfg(test)]
mod tests {
    use super::with_exec;

    #[test]
    fn exec_bits() {
        assert_eq!(with_exec(0o644, true), 0o755);
        assert_eq!(with_exec(0o600, true), 0o700);
        assert_eq!(with_exec(0o755, false), 0o644);
        assert_eq!(with_exec(0o750, true), 0o750);
    }
}
