//! Recording a step (STORE.md §4): [`ShadowStep`], [`StepResult`],
//! [`Store::shadow_step`] and [`Store::shadow_task_step`].
//!
//! Everything that reads the working tree runs once, before the lock: the
//! named files are checked against git's ignore rules (before a byte of
//! them is read, so an ignored secret never becomes an object), read raw
//! and written as blobs, a large one streamed from the file into the object
//! database (memory stays bounded whatever its size); the metadata
//! directory is redacted and written.
//! Each compare-and-swap attempt then edits the fresh tip's tree along
//! those paths only (gix's tree editor rewrites the trees on the way and
//! reuses every other one), so a later step costs the same in a
//! 100-file and a 100,000-file repository. A session's first step also
//! takes everything `git status` shows, computed once, when an attempt
//! first finds the session has no step on the branch yet.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gix::objs::tree::EntryKind;
use gix::ObjectId;

use super::blob::Blob;
use super::cas::{self, Attempt};
use super::diff::{entry_at, Leaf};
use super::message::{check_message, step_message, DEFAULT_STEP_MESSAGE};
use super::modes::{self, Taken};
use super::paths::{Named, Scope};
use super::read::{read_commit, session_has_step};
use super::status::{changed_paths, Ignores};
use super::worktree::{OnDisk, Worktree};
use super::{metadata_dir, task_metadata_dir, ENTIRE_DIR};
use crate::documents::{Document, TaskCheckpoint};
use crate::layout::{TASKS_DIR, TASK_FILE};
use crate::objects::{self, git_error, FileMode};
use crate::session::{validate_segment_id, Author, TaskInfo};
use crate::store::signature;
use crate::Store;
use agent_checkpoint::{Error, RelPath, Result};
use agent_checkpoint_naming::refs::shadow_branch_name;

/// One agent step: [`Store::shadow_step`]'s input, built with chained
/// setters.
///
/// ```
/// use agent_checkpoint_store::ShadowStep;
/// let step = ShadowStep::new("session-1")
///     .file("src/lib.rs")
///     .deleted(["old.txt"])
///     .message("Edit lib.rs");
/// assert_eq!(step.files, ["src/lib.rs"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShadowStep {
    /// The session (a tree path segment: no `/`, `..` or control characters).
    pub session_id: String,
    /// Files the step touched, relative to the working tree's root (or
    /// absolute inside it). A directory stands for every file below it; a
    /// file that is gone is recorded as deleted.
    pub files: Vec<String>,
    /// Files the step deleted.
    pub deleted: Vec<String>,
    /// The commit message's first part (default `Checkpoint`).
    pub message: Option<String>,
    /// The session's metadata directory on disk (transcript, prompts, ...):
    /// its files go, redacted, under `.entire/metadata/<session>/`.
    pub metadata_dir: Option<PathBuf>,
    /// Commit author (default: the repository's `user.name` / `user.email`,
    /// else `Unknown` / `unknown@local`).
    pub author: Option<Author>,
    /// Whether this is the session's first step (which takes every change
    /// `git status` shows). Default: when the session has no step on the
    /// branch yet.
    pub first: Option<bool>,
    /// Confines the step to one directory of the working tree (relative to
    /// its root, or absolute inside it; default: all of it): `files` and
    /// `deleted` are then relative to that directory, one outside it is
    /// refused with `path_escapes_root` (nothing written), a first step
    /// takes only the changes `git status` shows inside it, and the paths
    /// of the result are relative to it. An MCP server serving a
    /// subdirectory passes it, so nothing outside reaches the branch.
    pub scope: Option<String>,
    /// The largest file `HEAD` does not track that the step takes, in bytes
    /// (default [`DEFAULT_MAX_UNTRACKED_BYTES`], 100 MiB): a larger one is
    /// never read, listed in [`StepResult::too_large`] with its size and
    /// left as the branch had it.
    pub max_untracked_bytes: Option<u64>,
}

/// The default [`ShadowStep::max_untracked_bytes`]: 100 MiB (a dataset or
/// build output, not a source file; Cline and Codex skip such files too).
pub const DEFAULT_MAX_UNTRACKED_BYTES: u64 = 100 << 20;

/// A file a step did not take for its size.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SkippedFile {
    /// The path (relative to the step's scope when it has one).
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
}

impl ShadowStep {
    /// A step of session `session_id`.
    pub fn new(session_id: impl Into<String>) -> ShadowStep {
        ShadowStep {
            session_id: session_id.into(),
            ..ShadowStep::default()
        }
    }

    /// Adds a file the step touched.
    #[must_use]
    pub fn file(mut self, path: impl Into<String>) -> ShadowStep {
        self.files.push(path.into());
        self
    }

    /// Adds files the step touched.
    #[must_use]
    pub fn files<I: IntoIterator<Item = S>, S: Into<String>>(mut self, paths: I) -> ShadowStep {
        self.files.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Adds files the step deleted.
    #[must_use]
    pub fn deleted<I: IntoIterator<Item = S>, S: Into<String>>(mut self, paths: I) -> ShadowStep {
        self.deleted.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Sets the message.
    #[must_use]
    pub fn message(mut self, message: impl Into<String>) -> ShadowStep {
        self.message = Some(message.into());
        self
    }

    /// Sets the metadata directory.
    #[must_use]
    pub fn metadata_dir(mut self, dir: impl Into<PathBuf>) -> ShadowStep {
        self.metadata_dir = Some(dir.into());
        self
    }

    /// Sets the author.
    #[must_use]
    pub fn author(mut self, author: Author) -> ShadowStep {
        self.author = Some(author);
        self
    }

    /// Sets [`ShadowStep::scope`].
    #[must_use]
    pub fn scope(mut self, dir: impl Into<String>) -> ShadowStep {
        self.scope = Some(dir.into());
        self
    }

    /// Sets [`ShadowStep::max_untracked_bytes`].
    #[must_use]
    pub fn max_untracked_bytes(mut self, bytes: u64) -> ShadowStep {
        self.max_untracked_bytes = Some(bytes);
        self
    }

    /// Says whether this is the session's first step.
    #[must_use]
    pub fn first(mut self, first: bool) -> ShadowStep {
        self.first = Some(first);
        self
    }
}

/// What a step did (serialized with these field names).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct StepResult {
    /// The step's commit; the branch's unchanged tip when skipped.
    pub commit: String,
    /// The shadow branch (`entire/<commit7>-<worktree6>`).
    pub branch: String,
    /// No commit was made: the tree equals the previous step's.
    pub skipped: bool,
    /// The commit `HEAD` pointed at (the branch's base).
    pub base_commit: String,
    /// Whether the step was taken as the session's first.
    pub first: bool,
    /// Named paths not taken: ignored by git's rules, or under `.git` or
    /// `.entire` (relative to the step's scope when it has one); and files at
    /// paths git refuses in a tree (`.GIT/x`, `git~1/x`, a `.gitmodules`
    /// symlink), from the named or the changed files.
    pub left_out: Vec<String>,
    /// Files `HEAD` does not track left out for their size (over
    /// [`ShadowStep::max_untracked_bytes`]), never read, sorted by path.
    pub too_large: Vec<SkippedFile>,
}

/// A path's new tree entry, or `None` to remove it.
type Edits = BTreeMap<String, Option<(FileMode, ObjectId)>>;

impl Store {
    /// Records one agent step on the shadow branch of `HEAD` and this
    /// worktree (see the module docs of [`crate::shadow`]).
    ///
    /// # Errors
    /// `invalid_argument` / `invalid_path` for bad input (nothing written);
    /// `not_found` when `HEAD` has no commit; an I/O error when the working
    /// tree, the metadata directory or git's ignore rules cannot be read
    /// (fail closed: no file is taken and nothing is written); `ref_busy`
    /// when the branch kept moving.
    pub fn shadow_step(&self, step: &ShadowStep) -> Result<StepResult> {
        self.step(step, None)
    }

    /// Records a subagent task step: as [`Store::shadow_step`], plus
    /// `.entire/metadata/<session>/tasks/<tool use id>/checkpoint.json`, and
    /// the message names the task directory (`Entire-Metadata-Task`).
    ///
    /// # Errors
    /// As [`Store::shadow_step`]; `invalid_argument` for a bad tool-use or
    /// agent ID.
    pub fn shadow_task_step(&self, step: &ShadowStep, task: &TaskInfo) -> Result<StepResult> {
        validate_segment_id("tool_use_id", &task.tool_use_id)?;
        if !task.agent_id.is_empty() {
            validate_segment_id("agent_id", &task.agent_id)?;
        }
        self.step(step, Some(task))
    }

    fn step(&self, step: &ShadowStep, task: Option<&TaskInfo>) -> Result<StepResult> {
        validate_segment_id("session_id", &step.session_id)?;
        let text = step.message.as_deref().unwrap_or(DEFAULT_STEP_MESSAGE);
        check_message(text)?;
        let repo = self.local();
        let workdir = repo
            .workdir()
            .ok_or_else(|| Error::invalid_argument("repository", "has no working tree"))?
            .to_path_buf();
        let head = head_commit(&repo)?;
        let head_tree = objects::commit_tree(&repo, &head, "HEAD")?;
        let base_commit = head.to_string();
        let branch = shadow_branch_name(&base_commit, &super::worktree_id::of_repo(&repo))?;
        let mut worktree = Worktree::open(&workdir)?;
        let scope = Scope::parse(step.scope.as_deref(), &workdir)?;

        let mut left_out = Vec::new();
        let mut sizes = Sizes {
            head_tree,
            max: step
                .max_untracked_bytes
                .unwrap_or(DEFAULT_MAX_UNTRACKED_BYTES),
            too_large: BTreeMap::new(),
        };
        let (mut named_edits, named_taken) = self.named_edits(
            &repo,
            &mut worktree,
            (&workdir, &scope),
            &mut sizes,
            step,
            &mut left_out,
        )?;
        objects::drop_refused(&mut named_edits, &mut left_out);
        let mut meta_edits = match &step.metadata_dir {
            Some(dir) => self.metadata_edits(&repo, dir, &step.session_id)?,
            None => Edits::new(),
        };
        let task_dir = match task {
            Some(task) => {
                let dir = task_metadata_dir(&step.session_id, &task.tool_use_id);
                let doc = TaskCheckpoint {
                    session_id: step.session_id.clone(),
                    tool_use_id: task.tool_use_id.clone(),
                    checkpoint_uuid: task.checkpoint_uuid.clone(),
                    agent_id: task.agent_id.clone(),
                };
                let blob = objects::write_blob(&repo, doc.to_go_json()?.as_bytes())?;
                meta_edits.insert(
                    format!("{dir}/{TASK_FILE}"),
                    Some((FileMode::Regular, blob)),
                );
                Some(dir)
            }
            None => None,
        };
        debug_assert!(task_dir.as_deref().is_none_or(|d| d.contains(TASKS_DIR)));
        let message = step_message(
            &self.options.redactor.text(text),
            &step.session_id,
            task_dir.as_deref(),
        );
        let who = signature(&repo, step.author.as_ref());

        let mut status_edits: Option<(Edits, Taken)> = None;
        let mut first_taken = false;
        let mut created_branch = false;
        let commit = cas::update(&repo, &self.common_dir, &branch, &who, |tip| {
            let tip_tree = match tip {
                Some(tip) => Some(read_commit(&repo, tip)?.tree),
                None => None,
            };
            let first = match (step.first, tip) {
                (Some(first), _) => first,
                (None, None) => true,
                (None, Some(tip)) => !session_has_step(&repo, tip, &step.session_id)?,
            };
            first_taken = first;
            let mut editor = if first {
                if status_edits.is_none() {
                    let paths = changed_paths(&repo, head_tree, &scope)?;
                    let mut taken = Taken::new();
                    let mut edits = read_edits(
                        &repo,
                        &mut worktree,
                        &mut sizes,
                        paths.iter().map(String::as_str),
                        &mut taken,
                    )?;
                    objects::drop_refused(&mut edits, &mut left_out);
                    status_edits = Some((edits, taken));
                }
                let mut editor = edit_tree(&repo, head_tree)?;
                apply(&mut editor, status_edits.iter().flat_map(|(e, _)| e))?;
                if let Some(tip_tree) = tip_tree {
                    // Keep the other sessions' metadata.
                    match entry_at(&repo, tip_tree, ENTIRE_DIR)? {
                        Some(Leaf::Tree(id)) => {
                            editor
                                .upsert([ENTIRE_DIR], EntryKind::Tree, id)
                                .map_err(edit_error)?;
                        }
                        _ => {
                            editor.remove([ENTIRE_DIR]).map_err(edit_error)?;
                        }
                    }
                }
                editor
            } else {
                edit_tree(&repo, tip_tree.unwrap_or(head_tree))?
            };
            apply(&mut editor, named_edits.iter())?;
            apply(&mut editor, meta_edits.iter())?;
            let mut taken = Taken::new();
            if first {
                taken.extend(status_edits.iter().flat_map(|(_, t)| t.clone()));
            }
            taken.extend(named_taken.iter().map(|(p, m)| (p.clone(), *m)));
            let recorded = modes::update(modes::read(&repo, tip_tree, &step.session_id)?, &taken);
            let modes_edit: Edits = [(
                modes::modes_path(&step.session_id),
                Some((FileMode::Regular, modes::write(&repo, &recorded)?)),
            )]
            .into();
            apply(&mut editor, modes_edit.iter())?;
            let tree = write_tree(&repo, &mut editor)?;
            if let (Some(tip), Some(tip_tree)) = (tip, tip_tree) {
                if tree == tip_tree {
                    return Ok(Attempt::Stay((tip, true)));
                }
            }
            let (commit, fresh) = cas::write_commit(&repo, tree, tip, &message, &who)?;
            created_branch = tip.is_none();
            Ok(Attempt::Move {
                commit,
                fresh,
                value: (commit, false),
            })
        })?;
        if created_branch {
            // A new base commit: the branches no session needs any more go
            // now (`entire.shadowAutoClean`), so a long session never piles
            // them up. The step landed: a clean that cannot run now is left
            // to the next new branch or `gc`, never a failed step.
            let _ = crate::storage::clean_on_new_branch(self, &repo, &branch);
        }
        let mut left_out: Vec<String> = left_out
            .iter()
            .map(|p| scope.strip(p).unwrap_or(p).to_owned())
            .collect();
        left_out.sort();
        left_out.dedup();
        let too_large = sizes
            .too_large
            .into_iter()
            .map(|(path, size)| SkippedFile {
                path: scope.strip(&path).unwrap_or(&path).to_owned(),
                size,
            })
            .collect();
        Ok(StepResult {
            too_large,
            commit: commit.0.to_string(),
            branch,
            skipped: commit.1,
            base_commit,
            first: first_taken,
            left_out,
        })
    }

    /// The edits of the files and deletions a step names, and what it took
    /// at each path (for the modes file).
    fn named_edits(
        &self,
        repo: &gix::Repository,
        worktree: &mut Worktree,
        (workdir, scope): (&Path, &Scope),
        sizes: &mut Sizes,
        step: &ShadowStep,
        left_out: &mut Vec<String>,
    ) -> Result<(Edits, Taken)> {
        // Every name is checked before anything is read: one outside the
        // scope fails the step as a whole.
        for raw in step.files.iter().chain(&step.deleted) {
            scope.named(raw, workdir)?;
        }
        let mut take: Vec<RelPath> = Vec::new();
        let mut edits = Edits::new();
        let mut taken = Taken::new();
        if !step.files.is_empty() {
            // Fail closed: without git's rules, no file is taken.
            let mut ignores = Ignores::new(repo)?;
            for raw in &step.files {
                let path = match scope.named(raw, workdir)? {
                    Named::Reserved(p) => {
                        left_out.push(p);
                        continue;
                    }
                    Named::Path(p) => p,
                };
                collect(
                    repo,
                    worktree,
                    &mut ignores,
                    sizes.head_tree,
                    path,
                    &mut take,
                    left_out,
                )?;
            }
        }
        edits.extend(read_edits(
            repo,
            worktree,
            sizes,
            take.iter().map(RelPath::as_str),
            &mut taken,
        )?);
        for raw in &step.deleted {
            match scope.named(raw, workdir)? {
                Named::Reserved(p) => left_out.push(p),
                Named::Path(p) => {
                    taken.insert(p.as_str().to_owned(), None);
                    edits.insert(p.as_str().to_owned(), None);
                }
            }
        }
        Ok((edits, taken))
    }

    /// The files of the metadata directory `dir`, redacted, under
    /// `.entire/metadata/<session>/`.
    fn metadata_edits(
        &self,
        repo: &gix::Repository,
        dir: &Path,
        session_id: &str,
    ) -> Result<Edits> {
        let mut files = Vec::new();
        list_files(dir, String::new(), &mut files)?;
        let base = metadata_dir(session_id);
        let mut edits = Edits::new();
        for (relative, full) in files {
            let bytes =
                std::fs::read(&full).map_err(|e| Error::io(full.display().to_string(), e))?;
            let in_tree = format!("{base}/{relative}");
            let redacted = self.options.redactor.blob(&in_tree, &bytes);
            let blob = objects::write_blob(repo, &redacted)?;
            objects::split_path(&in_tree)?;
            edits.insert(in_tree, Some((FileMode::Regular, blob)));
        }
        Ok(edits)
    }
}

/// The commit `HEAD` points at.
fn head_commit(repo: &gix::Repository) -> Result<ObjectId> {
    crate::ref_store::head(repo)?
        .id
        .ok_or_else(|| Error::NotFound {
            what: "a commit at HEAD (a shadow branch is named after it; commit first)".to_owned(),
        })
}

/// Adds `path` to `take` unless git ignores it (a path `HEAD` tracks is
/// never ignored, as in git); a directory stands for the files below it.
fn collect(
    repo: &gix::Repository,
    worktree: &mut Worktree,
    ignores: &mut Ignores<'_>,
    head_tree: ObjectId,
    path: RelPath,
    take: &mut Vec<RelPath>,
    left_out: &mut Vec<String>,
) -> Result<()> {
    use agent_checkpoint::root::EntryKind as Kind;
    let kind = worktree.kind(&path)?.map(|(k, _)| k);
    let is_dir = kind == Some(Kind::Dir);
    if ignores.is_ignored(path.as_str(), is_dir)?
        && entry_at(repo, head_tree, path.as_str())?.is_none()
    {
        left_out.push(path.as_str().to_owned());
        return Ok(());
    }
    if !is_dir {
        take.push(path);
        return Ok(());
    }
    let mut names = worktree.read_dir(&path)?;
    if names.iter().any(|n| n.eq_ignore_ascii_case(".git")) {
        // A nested repository: git keeps it apart too.
        left_out.push(path.as_str().to_owned());
        return Ok(());
    }
    names.sort();
    for name in names {
        let child = path.join(&name)?;
        collect(repo, worktree, ignores, head_tree, child, take, left_out)?;
    }
    Ok(())
}

/// The size rule of a step: files `HEAD` does not track above `max` bytes
/// are not read, and listed.
struct Sizes {
    head_tree: ObjectId,
    max: u64,
    too_large: BTreeMap<String, u64>,
}

/// Reads each path raw and writes its blob (streaming: see [`super::blob`]):
/// the edits that make the tree hold what the working tree holds (absent, a
/// directory or a special file is a removal); `taken` gets each path's full
/// mode (see [`modes`]). A file `HEAD` does not track that holds more than
/// `sizes.max` bytes when it is opened (or grows past it while it is read)
/// gets no edit and is listed in `sizes.too_large`.
fn read_edits<'a>(
    repo: &gix::Repository,
    worktree: &mut Worktree,
    sizes: &mut Sizes,
    paths: impl Iterator<Item = &'a str>,
    taken: &mut Taken,
) -> Result<Edits> {
    let mut edits = Edits::new();
    for path in paths {
        let rel = RelPath::try_from(path)?;
        let mut on_disk = worktree.read(repo, &rel, Some(sizes.max), Blob::Write)?;
        if let OnDisk::TooLarge(size) = on_disk {
            // The limit is for files `HEAD` does not track (looked up only
            // for the large ones): a tracked one is taken whatever its size.
            if entry_at(repo, sizes.head_tree, path)?.is_none() {
                sizes.too_large.insert(path.to_owned(), size);
                continue;
            }
            on_disk = worktree.read(repo, &rel, None, Blob::Write)?;
        }
        taken.insert(
            path.to_owned(),
            match &on_disk {
                OnDisk::File { mode, .. } => Some(*mode),
                _ => None,
            },
        );
        let entry = match on_disk {
            OnDisk::File { id, executable, .. } => {
                let mode = if executable {
                    FileMode::Executable
                } else {
                    FileMode::Regular
                };
                Some((mode, id))
            }
            OnDisk::Link(target) => Some((
                FileMode::Symlink,
                objects::write_blob(repo, target.as_bytes())?,
            )),
            OnDisk::Absent | OnDisk::Dir | OnDisk::Special | OnDisk::TooLarge(_) => None,
        };
        edits.insert(path.to_owned(), entry);
    }
    Ok(edits)
}

/// gix's plumbing tree editor on `tree`. (The checked editor of `gix`
/// looks up every entry of every tree it writes, a `stat` per entry with
/// loose objects: 1,200 of them for 10 files in a 20,000-file repository.
/// Every path given to this one is checked already: [`RelPath`] components,
/// no `.git`, and the blobs were just written.)
fn edit_tree(repo: &gix::Repository, tree: ObjectId) -> Result<TreeEditor<'_>> {
    Ok(repo
        .edit_tree(tree)
        .map_err(|e| objects::corrupt(format!("tree {tree}"), e))?
        .detach())
}

type TreeEditor<'repo> = gix::objs::tree::Editor<'repo>;

fn edit_error(e: impl std::fmt::Display) -> Error {
    git_error("editing a shadow step's tree", e)
}

fn write_tree(repo: &gix::Repository, editor: &mut TreeEditor<'_>) -> Result<ObjectId> {
    editor
        .write(|tree| repo.write_object(tree).map(gix::Id::detach))
        .map_err(|e| git_error("writing a shadow step's tree", e))
}

/// Applies `edits`: removals first, then files (so a file may replace a
/// directory and a directory a file).
fn apply<'a>(
    editor: &mut TreeEditor<'_>,
    edits: impl Iterator<Item = (&'a String, &'a Option<(FileMode, ObjectId)>)> + Clone,
) -> Result<()> {
    for (path, _) in edits.clone().filter(|(_, e)| e.is_none()) {
        editor.remove(path.split('/')).map_err(edit_error)?;
    }
    for (path, entry) in edits {
        if let Some((mode, oid)) = entry {
            let kind = match mode {
                FileMode::Regular => EntryKind::Blob,
                FileMode::Executable => EntryKind::BlobExecutable,
                FileMode::Symlink => EntryKind::Link,
            };
            editor
                .upsert(path.split('/'), kind, *oid)
                .map_err(edit_error)?;
        }
    }
    Ok(())
}

/// Every regular file below `dir`, as (`/`-joined path relative to `dir`,
/// full path), sorted; symlinks and special files are skipped.
fn list_files(dir: &Path, prefix: String, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir.display().to_string(), e))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir.display().to_string(), e))?;
        let name = entry.file_name().into_string().map_err(|raw| {
            Error::invalid_path(
                raw.to_string_lossy().into_owned(),
                "a name that is not UTF-8",
            )
        })?;
        let kind = entry
            .file_type()
            .map_err(|e| Error::io(entry.path().display().to_string(), e))?;
        found.push((name, kind, entry.path()));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind, path) in found {
        let relative = format!("{prefix}{name}");
        if kind.is_dir() {
            list_files(&path, format!("{relative}/"), out)?;
        } else if kind.is_file() {
            out.push((relative, path));
        }
    }
    Ok(())
}
