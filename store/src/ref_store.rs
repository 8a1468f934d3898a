//! The one door to the repository's refs: every ref the store reads or
//! moves goes through here, in the ref format the repository uses.
//!
//! - The files backend (loose refs and `packed-refs`): gitoxide, except
//!   while `packed-refs.lock` exists: a transaction without deletes is then
//!   made by `git update-ref` (git does not need `packed-refs` to create or
//!   move a loose ref and ignores its lock; gitoxide waits on it), one with
//!   a delete is [`Outcome::Locked`] at once (a delete needs it).
//! - Reftable (`extensions.refStorage = reftable`, which gitoxide does not
//!   read): the `git` program (at least [`MIN_GIT_REFTABLE`]):
//!   `git update-ref --stdin` with `start`, `create` / `update` / `delete`
//!   / `verify` with the expected old values, `prepare`, `commit` (one
//!   transaction, all or nothing), `git for-each-ref` for reads and
//!   listings, `git symbolic-ref` / `git rev-parse` for `HEAD`.
//!
//! A transaction whose expected values no longer hold is [`Outcome::Moved`]
//! and one that met a git lock file [`Outcome::Locked`], both for the
//! caller's compare-and-swap loop (STORE.md §3) to retry; in front of it
//! the store's own per-ref lock files stay as they are.

use std::path::{Path, PathBuf};

use gix::refs::transaction::{Change, LogChange, PreviousValue, RefEdit, RefLog};
use gix::refs::{FullName, Target};
use gix::ObjectId;

use crate::git_version::{self, MIN_GIT_REFTABLE};
use crate::objects::{corrupt, git_error};
use crate::remote::git_program::{one_line_reason, GitProgram};
use agent_checkpoint::{Error, Result};

/// How the repository stores its refs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Loose files and `packed-refs`.
    Files,
    /// Reftable (`extensions.refStorage = reftable`).
    Reftable,
}

/// The ref format of `repo`.
///
/// # Errors
/// [`Error::NotARepository`] for a `refStorage` git does not know either.
pub(crate) fn format(repo: &gix::Repository) -> Result<Format> {
    let config = repo.config_snapshot();
    match config.string("extensions.refStorage") {
        None => Ok(Format::Files),
        Some(v) if v.eq_ignore_ascii_case(b"files") => Ok(Format::Files),
        Some(v) if v.eq_ignore_ascii_case(b"reftable") => Ok(Format::Reftable),
        Some(v) => Err(Error::NotARepository {
            path: repo.git_dir().display().to_string(),
            reason: format!("unknown ref storage format {v:?} (extensions.refStorage)"),
        }),
    }
}

/// What a ref holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// A commit (or other object).
    Object(ObjectId),
    /// Another ref, by name.
    Symbolic(String),
}

/// The value expected of a ref before an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expected {
    /// It must not exist.
    Absent,
    /// It must hold this object.
    Is(ObjectId),
    /// Anything, or nothing.
    Any,
}

/// One ref edit of a transaction: move (or create) `name` to `new`, or
/// delete it (`new` is `None`), when it holds what is `expected`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub name: String,
    pub expected: Expected,
    pub new: Option<ObjectId>,
    /// The reflog message.
    pub log: String,
}

impl Edit {
    /// An update of `name` (checked as a full ref name) to `new`.
    ///
    /// # Errors
    /// [`Error::InvalidRefName`].
    pub(crate) fn update(name: &str, expected: Expected, new: ObjectId, log: &str) -> Result<Edit> {
        check_name(name)?;
        Ok(Edit {
            name: name.to_owned(),
            expected,
            new: Some(new),
            log: log.to_owned(),
        })
    }

    /// A delete of `name`.
    ///
    /// # Errors
    /// [`Error::InvalidRefName`].
    pub(crate) fn delete(name: &str, expected: Expected, log: &str) -> Result<Edit> {
        check_name(name)?;
        Ok(Edit {
            name: name.to_owned(),
            expected,
            new: None,
            log: log.to_owned(),
        })
    }
}

fn check_name(name: &str) -> Result<FullName> {
    FullName::try_from(name).map_err(|e| Error::InvalidRefName {
        name: name.to_owned(),
        reason: e.to_string(),
    })
}

/// How a transaction ended, when it did not fail outright.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Every edit landed.
    Done,
    /// A ref did not hold its expected value: nothing changed.
    Moved,
    /// A git lock file was in the way (these, where still there): nothing
    /// changed.
    Locked(Vec<PathBuf>),
}

/// The value of `name`, `None` when it does not exist.
///
/// # Errors
/// [`Error::CorruptObject`] for a ref that cannot be read.
pub(crate) fn read(repo: &gix::Repository, name: &str) -> Result<Option<Value>> {
    match format(repo)? {
        Format::Files => {
            let found = repo
                .try_find_reference(name)
                .map_err(|e| corrupt(format!("ref {name:?}"), e))?;
            Ok(found.map(|r| value_of(r.target())))
        }
        Format::Reftable => Ok(git_list(repo, name)?
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)),
    }
}

/// The commit `name` points at, `None` when it does not exist.
///
/// # Errors
/// [`Error::CorruptObject`] for a symbolic or unreadable ref.
pub(crate) fn read_tip(repo: &gix::Repository, name: &str) -> Result<Option<ObjectId>> {
    match read(repo, name)? {
        None => Ok(None),
        Some(Value::Object(id)) => Ok(Some(id)),
        Some(Value::Symbolic(_)) => Err(corrupt(
            format!("ref {name:?}"),
            "is symbolic, not a commit",
        )),
    }
}

/// Every ref whose name starts with `prefix` (which ends in `/`), with its
/// value, sorted by name.
///
/// # Errors
/// [`Error::CorruptObject`] when the ref store cannot be read.
pub(crate) fn list(repo: &gix::Repository, prefix: &str) -> Result<Vec<(String, Value)>> {
    let mut out = match format(repo)? {
        Format::Files => {
            let platform = repo.references().map_err(|e| corrupt("the ref store", e))?;
            let iter = platform
                .prefixed(prefix)
                .map_err(|e| corrupt("the ref store", e))?;
            let mut out = Vec::new();
            for r in iter {
                let r = r.map_err(|e| corrupt(format!("a ref under {prefix:?}"), e))?;
                out.push((r.name().as_bstr().to_string(), value_of(r.target())));
            }
            out
        }
        Format::Reftable => git_list(repo, prefix)?
            .into_iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .collect(),
    };
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// `HEAD` of the worktree `repo` was opened in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Head {
    /// The commit it points at (`None`: unborn).
    pub id: Option<ObjectId>,
    /// The branch it names (`None`: detached).
    pub branch: Option<String>,
}

/// Reads `HEAD`.
///
/// # Errors
/// An I/O error when `HEAD` cannot be read.
pub(crate) fn head(repo: &gix::Repository) -> Result<Head> {
    match format(repo)? {
        Format::Files => {
            let head = repo.head().map_err(|e| git_error("reading HEAD", e))?;
            Ok(Head {
                id: head.id().map(gix::Id::detach),
                branch: head.referent_name().map(|n| n.as_bstr().to_string()),
            })
        }
        Format::Reftable => {
            let git = git_for(repo)?;
            let out = git.run(&["symbolic-ref", "-q", "HEAD"], None)?;
            let branch = out
                .status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
                .filter(|b| !b.is_empty());
            let out = git.run(&["rev-parse", "-q", "--verify", "HEAD"], None)?;
            let id = if out.status.success() {
                Some(parse_id(
                    repo,
                    &String::from_utf8_lossy(&out.stdout),
                    "HEAD",
                )?)
            } else {
                None
            };
            Ok(Head { id, branch })
        }
    }
}

/// The tree of the commit at `HEAD`, `None` when `HEAD` is unborn.
///
/// # Errors
/// As [`head`]; [`Error::CorruptObject`] when that commit cannot be read.
pub(crate) fn head_tree(repo: &gix::Repository) -> Result<Option<ObjectId>> {
    match head(repo)?.id {
        Some(id) => crate::objects::commit_tree(repo, &id, "HEAD").map(Some),
        None => Ok(None),
    }
}

/// Applies `edits` in one transaction, all or nothing, as `who`.
///
/// # Errors
/// An I/O error when the ref store fails otherwise (nothing changed).
pub(crate) fn apply(
    repo: &gix::Repository,
    edits: &[Edit],
    who: &gix::actor::Signature,
) -> Result<Outcome> {
    if edits.is_empty() {
        return Ok(Outcome::Done);
    }
    let deletes = edits.iter().any(|e| e.new.is_none());
    let packed_lock = packed_refs_lock(repo);
    match format(repo)? {
        Format::Reftable => git_apply(repo, edits, who),
        // A delete needs `packed-refs`: the caller's loop retries while a
        // live git holds it (for milliseconds), then reports it.
        Format::Files if packed_lock.is_file() && deletes => Ok(Outcome::Locked(vec![packed_lock])),
        Format::Files if packed_lock.is_file() => git_apply(repo, edits, who),
        Format::Files => gix_apply(repo, edits, who),
    }
}

fn packed_refs_lock(repo: &gix::Repository) -> PathBuf {
    repo.common_dir().join("packed-refs.lock")
}

fn gix_apply(
    repo: &gix::Repository,
    edits: &[Edit],
    who: &gix::actor::Signature,
) -> Result<Outcome> {
    let mut gix_edits = Vec::with_capacity(edits.len());
    for e in edits {
        let previous = || match e.expected {
            Expected::Absent => PreviousValue::MustNotExist,
            Expected::Is(old) => PreviousValue::MustExistAndMatch(Target::Object(old)),
            Expected::Any => PreviousValue::Any,
        };
        let change = match e.new {
            Some(new) => Change::Update {
                log: LogChange {
                    mode: RefLog::AndReference,
                    force_create_reflog: false,
                    message: e.log.as_str().into(),
                },
                expected: previous(),
                new: Target::Object(new),
            },
            None => Change::Delete {
                expected: previous(),
                log: RefLog::AndReference,
            },
        };
        gix_edits.push(RefEdit {
            change,
            name: check_name(&e.name)?,
            deref: false,
        });
    }
    let mut time_buf = gix::date::parse::TimeBuf::default();
    match repo.edit_references_as(gix_edits, Some(who.to_ref(&mut time_buf))) {
        Ok(_) => Ok(Outcome::Done),
        Err(e) => {
            use gix::error::Class;
            match e.dominant_class() {
                Some(Class::Conflict | Class::NotFound) => Ok(Outcome::Moved),
                Some(Class::Retryable) => {
                    let common = repo.common_dir();
                    let mut held: Vec<PathBuf> = edits
                        .iter()
                        .map(|e| common.join(format!("{}.lock", e.name)))
                        .collect();
                    held.push(packed_refs_lock(repo));
                    held.retain(|p| p.is_file());
                    Ok(Outcome::Locked(held))
                }
                _ => Err(git_error(format!("updating {:?}", edits[0].name), e)),
            }
        }
    }
}

/// `git update-ref --stdin`: one transaction of `edits`.
fn git_apply(
    repo: &gix::Repository,
    edits: &[Edit],
    who: &gix::actor::Signature,
) -> Result<Outcome> {
    let git = git_for(repo)?;
    let null = ObjectId::null(repo.object_hash()).to_string();
    let mut script = String::from("start\n");
    for e in edits {
        let line = match (e.new, e.expected) {
            (Some(new), Expected::Absent) => format!("create {} {new}\n", e.name),
            (Some(new), Expected::Is(old)) => format!("update {} {new} {old}\n", e.name),
            (Some(new), Expected::Any) => format!("update {} {new}\n", e.name),
            (None, Expected::Is(old)) => format!("delete {} {old}\n", e.name),
            (None, Expected::Any) => format!("delete {}\n", e.name),
            (None, Expected::Absent) => format!("verify {} {null}\n", e.name),
        };
        script.push_str(&line);
    }
    script.push_str("prepare\ncommit\n");
    let name = who.name.to_string();
    let email = who.email.to_string();
    let env = [
        ("GIT_COMMITTER_NAME", name.as_str()),
        ("GIT_COMMITTER_EMAIL", email.as_str()),
    ];
    let args = ["update-ref", "-m", edits[0].log.as_str(), "--stdin"];
    let out = git.run_env(&args, Some(script.as_bytes()), &env)?;
    if out.status.success() {
        return Ok(Outcome::Done);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(path) = unable_to_create(&stderr) {
        let held: Vec<PathBuf> = Some(path).into_iter().filter(|p| p.is_file()).collect();
        return Ok(Outcome::Locked(held));
    }
    if stderr.contains("cannot lock references") {
        let tables = repo.common_dir().join("reftable").join("tables.list.lock");
        let held: Vec<PathBuf> = Some(tables).into_iter().filter(|p| p.is_file()).collect();
        return Ok(Outcome::Locked(held));
    }
    const MOVED: &[&str] = &[
        "but expected",
        "reference already exists",
        "unable to resolve reference",
        "reference is missing",
    ];
    if MOVED.iter().any(|s| stderr.contains(s)) {
        return Ok(Outcome::Moved);
    }
    Err(git_error(
        format!("git update-ref of {:?}", edits[0].name),
        one_line_reason(&stderr),
    ))
}

/// The lock file in git's "Unable to create '<path>': File exists".
fn unable_to_create(stderr: &str) -> Option<PathBuf> {
    let rest = stderr.split("Unable to create '").nth(1)?;
    let (path, _) = rest.split_once('\'')?;
    Some(PathBuf::from(path))
}

/// The error of a write a git lock file kept from landing, naming it.
pub(crate) fn lock_held(path: &Path) -> Error {
    Error::Io {
        path: Some(path.display().to_string()),
        error: std::io::Error::new(
            std::io::ErrorKind::ResourceBusy,
            "a git lock file is in the way: another git process is working in this \
             repository, or one was killed holding it (remove the file once no git \
             process runs)",
        ),
    }
}

/// The `git` program for `repo`, checked to read reftable.
pub(crate) fn git_for(repo: &gix::Repository) -> Result<GitProgram> {
    git_version::require(MIN_GIT_REFTABLE, "reftable repositories")?;
    Ok(GitProgram::new(repo.git_dir(), repo.workdir()))
}

/// `git for-each-ref` of the refs under `pattern` (a ref name or a prefix
/// ending in `/`).
fn git_list(repo: &gix::Repository, pattern: &str) -> Result<Vec<(String, Value)>> {
    let git = git_for(repo)?;
    let out = git.run(
        &[
            "for-each-ref",
            "--format=%(objectname) %(refname) %(symref)",
            "--",
            pattern,
        ],
        None,
    )?;
    if !out.status.success() {
        return Err(corrupt(
            "the ref store",
            one_line_reason(&String::from_utf8_lossy(&out.stderr)),
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut refs = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let mut parts = line.splitn(3, ' ');
        let (Some(id), Some(name)) = (parts.next(), parts.next()) else {
            return Err(corrupt("the ref store", format!("git listed {line:?}")));
        };
        let symref = parts.next().unwrap_or("").trim();
        let value = if symref.is_empty() {
            Value::Object(parse_id(repo, id, name)?)
        } else {
            Value::Symbolic(symref.to_owned())
        };
        refs.push((name.to_owned(), value));
    }
    Ok(refs)
}

/// An object id git printed, in the repository's hash.
fn parse_id(repo: &gix::Repository, hex: &str, what: &str) -> Result<ObjectId> {
    let hex = hex.trim();
    let id = ObjectId::from_hex(hex.as_bytes())
        .map_err(|e| corrupt(format!("ref {what:?}"), format!("{hex:?}: {e}")))?;
    if id.kind() != repo.object_hash() {
        return Err(corrupt(
            format!("ref {what:?}"),
            format!("{hex:?} is not a {} id", repo.object_hash()),
        ));
    }
    Ok(id)
}

fn value_of(target: gix::refs::TargetRef<'_>) -> Value {
    match target {
        gix::refs::TargetRef::Object(id) => Value::Object(id.to_owned()),
        gix::refs::TargetRef::Symbolic(name) => Value::Symbolic(name.as_bstr().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_names_the_lock_in_its_way() {
        let stderr = "fatal: prepare: Unable to create '/r/.git/packed-refs.lock': File exists.\n\nAnother git process seems to be running";
        assert_eq!(
            unable_to_create(stderr),
            Some(PathBuf::from("/r/.git/packed-refs.lock"))
        );
        assert_eq!(unable_to_create("fatal: cannot lock references"), None);
    }
}
