//! Which paths changed, as git sees them, and git's own ignore rules.
//!
//! - [`changed_paths`]: what `git status` shows for the whole working tree
//!   (a session's first step): tracked files changed, added, deleted,
//!   type-changed or renamed against `HEAD` and the index, and untracked
//!   files that no ignore rule matches, one by one. Submodules and nested
//!   repositories are left out; so is everything under `.entire/`. With a
//!   [`Scope`], only its directory is walked (a pathspec) and only paths
//!   inside it are kept.
//! - [`Ignores`]: the ignore check of a named path (later steps and
//!   rewinds): `.gitignore` in every directory on the way, `.git/info/exclude`
//!   and `core.excludesFile`, an ignored directory ignoring all below it.
//!
//! Both fail as a whole when git's rules cannot be read: the caller then
//! takes no file at all (fail closed).

use std::collections::BTreeSet;

use gix::bstr::ByteSlice;

use super::paths::{is_reserved, Scope};
use crate::objects::git_error;
use crate::ref_store::{self, Format};
use crate::remote::git_program::one_line_reason;
use agent_checkpoint::{Error, Result};

/// Every path `git status` would show for the working tree of `repo`
/// against `head_tree` (the tree of `HEAD`, read by the caller in the
/// repository's ref format), with
/// untracked files listed one by one (never an ignored one), renames as
/// their two paths, `.entire/` and `.git` paths left out, only the paths
/// inside `scope`, sorted.
///
/// # Errors
/// An I/O error when the index, `HEAD`, the working tree or an ignore file
/// cannot be read.
pub(crate) fn changed_paths(
    repo: &gix::Repository,
    head_tree: gix::ObjectId,
    scope: &Scope,
) -> Result<BTreeSet<String>> {
    match ref_store::format(repo)? {
        Format::Files => gix_changed_paths(repo, head_tree, scope),
        // gitoxide's status reads `HEAD` itself (for `.gitmodules`), which
        // it cannot in a reftable repository.
        Format::Reftable => git_changed_paths(repo, scope),
    }
}

/// `git status` of the working tree (of `scope` only): the same paths,
/// asked of git.
fn git_changed_paths(repo: &gix::Repository, scope: &Scope) -> Result<BTreeSet<String>> {
    // git only warns about an ignore file it cannot read: fail closed here.
    Ignores::new(repo)?;
    let git = ref_store::git_for(repo)?;
    let mut args = vec![
        "--no-optional-locks".to_owned(),
        "status".to_owned(),
        "--porcelain=v1".to_owned(),
        "-z".to_owned(),
        "--untracked-files=all".to_owned(),
        "--no-renames".to_owned(),
        "--ignore-submodules=all".to_owned(),
    ];
    if let Some(prefix) = scope.prefix() {
        // `top`: from the working tree's root; `literal`: the name is no glob.
        args.push("--".to_owned());
        args.push(format!(":(top,literal){prefix}"));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = git.run(&args, None)?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || stderr.contains("unable to access") {
        return Err(git_error(
            "reading the status of the working tree (fail closed)",
            one_line_reason(&stderr),
        ));
    }
    let mut paths = BTreeSet::new();
    for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let Some(path) = record.get(3..).filter(|_| record.get(2) == Some(&b' ')) else {
            return Err(git_error(
                "reading the status of the working tree",
                format!("git printed {:?}", String::from_utf8_lossy(record)),
            ));
        };
        // A directory git did not descend into: a nested repository.
        if record.starts_with(b"!!") || path.ends_with(b"/") {
            continue;
        }
        insert(&mut paths, path)?;
    }
    // The pathspec narrows the walk; this is what confines the result.
    paths.retain(|p| scope.contains(p));
    Ok(paths)
}

fn gix_changed_paths(
    repo: &gix::Repository,
    head_tree: gix::ObjectId,
    scope: &Scope,
) -> Result<BTreeSet<String>> {
    use gix::status::{index_worktree, tree_index::TrackRenames, Item, UntrackedFiles};
    let fail = |e: gix::Error| git_error("reading the status of the working tree", e);
    let iter = repo
        .status(gix::progress::Discard)
        .map_err(fail)?
        .head_tree(head_tree)
        .untracked_files(UntrackedFiles::Files)
        .index_worktree_rewrites(None)
        .tree_index_track_renames(TrackRenames::Disabled)
        .index_worktree_submodules(gix::status::Submodule::Given {
            ignore: gix::submodule::config::Ignore::All,
            check_dirty: false,
        })
        // `top`: from the working tree's root, whatever the process's
        // directory; `literal`: the name is no glob.
        .into_iter(
            scope
                .prefix()
                .map(|p| gix::bstr::BString::from(format!(":(top,literal){p}"))),
        )
        .map_err(fail)?;
    let mut paths = BTreeSet::new();
    for item in iter {
        let item = item.map_err(fail)?;
        let path = match &item {
            Item::IndexWorktree(index_worktree::Item::Modification {
                entry, rela_path, ..
            }) => {
                if entry.mode.is_submodule() {
                    continue;
                }
                rela_path.clone()
            }
            Item::IndexWorktree(index_worktree::Item::DirectoryContents { entry, .. }) => {
                let untracked = matches!(entry.status, gix::dir::entry::Status::Untracked);
                let takeable = matches!(
                    entry.disk_kind,
                    Some(gix::dir::entry::Kind::File | gix::dir::entry::Kind::Symlink)
                );
                if !(untracked && takeable) {
                    continue;
                }
                entry.rela_path.clone()
            }
            Item::IndexWorktree(index_worktree::Item::Rewrite {
                source,
                dirwalk_entry,
                ..
            }) => {
                insert(&mut paths, source.rela_path().as_bytes())?;
                dirwalk_entry.rela_path.clone()
            }
            Item::TreeIndex(change) => {
                let (location, _, mode, _) = change.fields();
                if mode.is_submodule() {
                    continue;
                }
                location.to_owned()
            }
        };
        insert(&mut paths, path.as_bytes())?;
    }
    // The pathspec narrows the walk; this is what confines the result.
    paths.retain(|p| scope.contains(p));
    Ok(paths)
}

fn insert(paths: &mut BTreeSet<String>, path: &[u8]) -> Result<()> {
    let path = std::str::from_utf8(path).map_err(|_| {
        Error::invalid_path(
            String::from_utf8_lossy(path).into_owned(),
            "a path that is not UTF-8",
        )
    })?;
    if !is_reserved(path) {
        paths.insert(path.to_owned());
    }
    Ok(())
}

/// Git's ignore rules for the working tree of one repository.
pub(crate) struct Ignores<'repo> {
    stack: gix::AttributeStack<'repo>,
}

impl<'repo> Ignores<'repo> {
    /// Reads the global rules (`.git/info/exclude`, `core.excludesFile`);
    /// the `.gitignore` files are read from the working tree as paths are
    /// checked.
    ///
    /// # Errors
    /// An I/O error when a rules file exists but cannot be read.
    pub(crate) fn new(repo: &'repo gix::Repository) -> Result<Ignores<'repo>> {
        let index = gix::index::State::new(repo.object_hash());
        let stack = repo
            .excludes(
                &index,
                None,
                gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
            )
            .map_err(|e| git_error("reading the ignore rules (fail closed)", e))?;
        Ok(Ignores { stack })
    }

    /// Whether git ignores `path` (a directory when `is_dir`), an ignored
    /// parent directory included.
    ///
    /// # Errors
    /// An I/O error when a `.gitignore` on the way cannot be read.
    pub(crate) fn is_ignored(&mut self, path: &str, is_dir: bool) -> Result<bool> {
        let mode = if is_dir {
            gix::index::entry::Mode::DIR
        } else {
            gix::index::entry::Mode::FILE
        };
        let platform = self.stack.at_entry(path, Some(mode)).map_err(|e| {
            git_error(
                format!("checking whether {path:?} is ignored (fail closed)"),
                e,
            )
        })?;
        Ok(platform.is_excluded())
    }
}
