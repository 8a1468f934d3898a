//! Cross-field rules of a snapshot, checked before rollback touches anything.
//!
//! - No key has a `.git` component unless allowed.
//! - A file with content, or a link, has nothing captured below it (except
//!   `null` entries below a file: a type flip).
//! - A created dir is neither a link nor above content or a link, and is an
//!   ancestor of at least one `null` entry (only those dirs may be pruned).
//! - `modes` name files with content; modes fit in `0o7777`.
//! - `digests` name files with content; `applied` names captured paths.
//! - `links` are not also entries; their targets are relative, non-empty,
//!   free of control characters, and resolved the way the kernel will
//!   (through the snapshot's own links, see [`super::links`]) they stay
//!   inside the root.
//!
//! Every rule is a lookup in sorted sets: `O(n log n)` for `n` paths,
//! however they nest.

use std::collections::BTreeMap;

use super::index::Index;
use super::links::resolve_target;
use super::Snapshot;
use crate::error::{Error, Result};
use crate::relpath::{is_git_name, RelPath};

pub(crate) fn validate(snapshot: &Snapshot, allow_git_dir: bool) -> Result<()> {
    if !allow_git_dir {
        check_no_git(snapshot)?;
    }
    let index = Index::new(snapshot);
    for path in snapshot.entries.keys().chain(snapshot.links.keys()) {
        for ancestor in path.ancestors() {
            if index.is_occupied(ancestor.as_str()) && !is_flip(snapshot, &ancestor, path) {
                return Err(Error::malformed(format!(
                    "{path:?} is captured below {ancestor:?}, which is a file or link"
                )));
            }
        }
    }
    for dir in &snapshot.created_dirs {
        check_created_dir(snapshot, &index, dir)?;
    }
    for (path, mode) in &snapshot.modes {
        if !matches!(snapshot.entries.get(path), Some(Some(_))) {
            return Err(Error::malformed(format!(
                "modes: {path:?} is not a captured file"
            )));
        }
        if *mode > 0o7777 {
            return Err(Error::malformed(format!(
                "modes: {mode} for {path:?} is not a permission mode"
            )));
        }
    }
    for path in snapshot.digests.keys() {
        if !matches!(snapshot.entries.get(path), Some(Some(_))) {
            return Err(Error::malformed(format!(
                "digests: {path:?} is not a captured file"
            )));
        }
    }
    for path in snapshot.applied.keys() {
        if !snapshot.entries.contains_key(path) && !snapshot.links.contains_key(path) {
            return Err(Error::malformed(format!(
                "applied: {path:?} is not a captured path"
            )));
        }
    }
    for path in snapshot.skipped.keys() {
        if snapshot.entries.contains_key(path) || snapshot.links.contains_key(path) {
            return Err(Error::malformed(format!(
                "skipped: {path:?} is also a captured path"
            )));
        }
    }
    for (path, target) in &snapshot.links {
        if snapshot.entries.contains_key(path) {
            return Err(Error::malformed(format!(
                "{path:?} is both an entry and a link"
            )));
        }
        check_link_target(path, target, allow_git_dir)?;
    }
    check_links_stay_inside(snapshot)
}

/// A `null` entry below a captured file is a type flip: the batch replaces
/// the file with a directory holding new paths.
fn is_flip(snapshot: &Snapshot, ancestor: &RelPath, path: &RelPath) -> bool {
    matches!(snapshot.entries.get(path), Some(None))
        && matches!(snapshot.entries.get(ancestor), Some(Some(_)))
}

fn check_no_git(snapshot: &Snapshot) -> Result<()> {
    let keys = snapshot
        .entries
        .keys()
        .chain(&snapshot.created_dirs)
        .chain(snapshot.modes.keys())
        .chain(snapshot.links.keys())
        .chain(snapshot.digests.keys())
        .chain(snapshot.applied.keys())
        .chain(snapshot.skipped.keys());
    for path in keys {
        if path.has_git_component() {
            return Err(Error::invalid_path(
                path.as_str(),
                "a .git component (pass allow_git_dir to permit it)",
            ));
        }
    }
    Ok(())
}

fn check_created_dir(snapshot: &Snapshot, index: &Index<'_>, dir: &RelPath) -> Result<()> {
    if snapshot.links.contains_key(dir) {
        return Err(Error::malformed(format!(
            "created_dirs: {dir:?} is also a link"
        )));
    }
    if let Some(inner) = index.content_below(dir.as_str()) {
        return Err(Error::malformed(format!(
            "created_dirs: {dir:?} holds {inner:?}, which existed before the batch"
        )));
    }
    if !index.has_new_below(dir.as_str()) {
        return Err(Error::malformed(format!(
            "created_dirs: {dir:?} is not the parent of any path that did not exist"
        )));
    }
    Ok(())
}

/// Checks a link target as text, without touching the filesystem.
pub(crate) fn check_link_target(path: &RelPath, target: &str, allow_git_dir: bool) -> Result<()> {
    if target.is_empty() || target.chars().any(char::is_control) {
        return Err(Error::malformed(format!(
            "links: target of {path:?} is empty or has control characters"
        )));
    }
    if target.len() > crate::relpath::MAX_PATH_BYTES {
        return Err(Error::malformed(format!(
            "links: target of {path:?} is longer than {} bytes",
            crate::relpath::MAX_PATH_BYTES
        )));
    }
    if target.starts_with('/') || target.contains('\\') {
        return Err(Error::escapes(
            path.as_str(),
            format!("symlink target {target:?} is absolute or not a POSIX path"),
        ));
    }
    let parent = path.parent();
    let mut resolved: Vec<&str> = parent
        .as_ref()
        .map(|p| p.components().collect())
        .unwrap_or_default();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if resolved.pop().is_none() {
                    return Err(Error::escapes(
                        path.as_str(),
                        format!("symlink target {target:?} leads out of the root"),
                    ));
                }
            }
            name => {
                if !allow_git_dir && is_git_name(name) {
                    return Err(Error::invalid_path(
                        path.as_str(),
                        "symlink target has a .git component",
                    ));
                }
                resolved.push(name);
            }
        }
    }
    if resolved.is_empty() {
        return Err(Error::malformed(format!(
            "links: {path:?} points at the root directory"
        )));
    }
    Ok(())
}

/// Resolves every link through the snapshot's own links, as the kernel
/// will: none may leave the root. (Rollback checks again with the links
/// already in the tree.)
fn check_links_stay_inside(snapshot: &Snapshot) -> Result<()> {
    if snapshot.links.len() < 2 {
        // One link cannot go through another: the text check suffices.
        return Ok(());
    }
    let by_path: BTreeMap<&str, &str> = snapshot
        .links
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    for (path, target) in &snapshot.links {
        resolve_target(path, target, &[], &mut |p| {
            Ok(by_path.get(p).map(|t| (*t).to_owned()))
        })?;
    }
    Ok(())
}
