//! Cross-field rules of a snapshot, checked before rollback touches anything.
//!
//! - No key has a `.git` component unless allowed.
//! - A file with content, or a link, has nothing captured below it.
//! - A created dir is neither a link nor above content or a link, and is an
//!   ancestor of at least one `null` entry (only those dirs may be pruned).
//! - `modes` name files with content; modes fit in `0o7777`.
//! - `digests` name files with content; `applied` names captured paths.
//! - `links` are not also entries; their targets are relative, non-empty,
//!   free of control characters and stay inside the root when resolved
//!   lexically from the link's directory.

use std::collections::BTreeSet;

use super::Snapshot;
use crate::error::{Error, Result};
use crate::relpath::{is_git_name, RelPath};

pub(super) fn validate(snapshot: &Snapshot, allow_git_dir: bool) -> Result<()> {
    if !allow_git_dir {
        check_no_git(snapshot)?;
    }
    let occupied: BTreeSet<&RelPath> = snapshot
        .entries
        .iter()
        .filter(|(_, content)| content.is_some())
        .map(|(path, _)| path)
        .chain(snapshot.links.keys())
        .collect();
    for path in snapshot.entries.keys().chain(snapshot.links.keys()) {
        for ancestor in path.ancestors() {
            if occupied.contains(&ancestor) && !is_flip(snapshot, &ancestor, path) {
                return Err(Error::malformed(format!(
                    "{path:?} is captured below {ancestor:?}, which is a file or link"
                )));
            }
        }
    }
    for dir in &snapshot.created_dirs {
        check_created_dir(snapshot, &occupied, dir)?;
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
    for (path, target) in &snapshot.links {
        if snapshot.entries.contains_key(path) {
            return Err(Error::malformed(format!(
                "{path:?} is both an entry and a link"
            )));
        }
        check_link_target(path, target, allow_git_dir)?;
    }
    Ok(())
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
        .chain(snapshot.applied.keys());
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

fn check_created_dir(
    snapshot: &Snapshot,
    occupied: &BTreeSet<&RelPath>,
    dir: &RelPath,
) -> Result<()> {
    if snapshot.links.contains_key(dir) {
        return Err(Error::malformed(format!(
            "created_dirs: {dir:?} is also a link"
        )));
    }
    if let Some(inner) = occupied.iter().find(|p| dir.is_ancestor_of(p)) {
        return Err(Error::malformed(format!(
            "created_dirs: {dir:?} holds {inner:?}, which existed before the batch"
        )));
    }
    let covers_new_path = snapshot
        .entries
        .iter()
        .any(|(path, content)| content.is_none() && dir.is_ancestor_of(path));
    if !covers_new_path {
        return Err(Error::malformed(format!(
            "created_dirs: {dir:?} is not the parent of any path that did not exist"
        )));
    }
    Ok(())
}

/// Checks a link target without touching the filesystem.
pub(crate) fn check_link_target(path: &RelPath, target: &str, allow_git_dir: bool) -> Result<()> {
    if target.is_empty() || target.chars().any(char::is_control) {
        return Err(Error::malformed(format!(
            "links: target of {path:?} is empty or has control characters"
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
