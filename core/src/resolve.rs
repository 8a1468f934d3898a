//! Turning a caller's path into one canonical key inside the root.
//!
//! Like `realpath`, but confined: `.` and empty components are dropped, `..`
//! pops a component (and is an escape at the top), absolute paths must start
//! with one of the root's absolute spellings, and symlinks are followed
//! inside the root only (one pointing out is an escape; more than
//! [`MAX_SYMLINK_HOPS`] is a loop). The last component is resolved too: a
//! symlink there is reported in [`Resolved::links`] and its target becomes
//! the key.

use std::collections::VecDeque;

use crate::error::{Error, Result};
use crate::relpath::{check_component, truncate_for_message, RelPath};
use crate::root::{EntryKind, Metadata, Root};

/// Most symlinks followed while resolving one path (Linux `MAXSYMLINKS`).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// A caller's path, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The canonical key: no symlink in any component.
    pub key: RelPath,
    /// What is at the key now (`None`: nothing).
    pub metadata: Option<Metadata>,
    /// The symlinks met as the last component, in order, with their target text.
    pub links: Vec<(RelPath, String)>,
}

/// A resolved path and, when the look that found it read it, its bytes
/// (or why they could not be read).
pub(crate) type ResolvedRead = (Resolved, Option<Result<Vec<u8>>>);

/// Resolves `input` against `root`. See the module docs.
pub fn resolve<R: Root + ?Sized>(root: &R, input: &str) -> Result<Resolved> {
    resolve_reading(root, input, &|_| None).map(|(resolved, _)| resolved)
}

/// [`resolve`], reading the file at the key on the way when `limit` gives
/// a size for it (see [`Root::look_and_read`]): for a plain path, the one
/// look that finds the key reads it too, and the metadata is then that of
/// the bytes read. `None` when not read (not a file, not asked, or a path
/// through a symlink: the caller reads it itself).
pub(crate) fn resolve_reading<R: Root + ?Sized>(
    root: &R,
    input: &str,
    limit: &dyn Fn(&Metadata) -> Option<u64>,
) -> Result<ResolvedRead> {
    let shown = truncate_for_message(input);
    if input.is_empty() {
        return Err(Error::invalid_path("", "empty path"));
    }
    if input.contains('\\') {
        return Err(Error::invalid_path(shown, "backslash in path (use `/`)"));
    }
    if input.chars().any(char::is_control) {
        return Err(Error::invalid_path(
            shown,
            "NUL or control character in path",
        ));
    }
    if input.ends_with('/') {
        return Err(Error::invalid_path(
            shown,
            "trailing `/`: a file path names no directory",
        ));
    }
    let relative = strip_root_prefix(root, input)
        .ok_or_else(|| Error::escapes(shown.clone(), "absolute path outside the root"))?;
    if let Some(found) = resolve_plain(root, relative, &shown, limit)? {
        return Ok(found);
    }
    let mut pending: VecDeque<String> = relative.split('/').map(str::to_owned).collect();
    let mut stack: Vec<String> = Vec::new();
    // Depth at which the path stopped existing; nothing below it is looked up.
    let mut absent_from: Option<usize> = None;
    let mut metadata: Option<Metadata> = None;
    let mut links = Vec::new();
    let mut hops = 0;
    while let Some(part) = pending.pop_front() {
        match part.as_str() {
            "" | "." => continue,
            ".." => {
                if stack.pop().is_none() {
                    return Err(Error::escapes(shown, "`..` leads out of the root"));
                }
                if absent_from.is_some_and(|d| stack.len() < d) {
                    absent_from = None;
                }
                // Back in an existing directory (or the root).
                metadata = None;
                continue;
            }
            name => check_component(name)
                .map_err(|reason| Error::invalid_path(shown.clone(), reason))?,
        }
        stack.push(part);
        let is_last = pending.iter().all(|p| p.is_empty() || p == ".");
        if absent_from.is_some() {
            metadata = None;
            continue;
        }
        let here = RelPath::from_components(&stack)?;
        metadata = root.metadata(&here)?;
        match metadata.map(|m| m.kind) {
            None => absent_from = Some(stack.len()),
            Some(EntryKind::Dir) => {}
            Some(EntryKind::File | EntryKind::Other) if !is_last => absent_from = Some(stack.len()),
            Some(EntryKind::File | EntryKind::Other) => {}
            Some(EntryKind::Symlink) => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(Error::invalid_path(
                        shown,
                        "too many levels of symlinks (a loop?)",
                    ));
                }
                let target = root.read_link(&here)?;
                let rest = strip_root_prefix(root, &target).ok_or_else(|| {
                    Error::escapes(
                        shown.clone(),
                        format!("symlink to {target:?} points outside the root"),
                    )
                })?;
                if target.starts_with('/') {
                    if is_last {
                        return Err(Error::invalid_path(
                            here.as_str(),
                            format!(
                                "absolute symlink target {target:?} is not supported; use a relative one"
                            ),
                        ));
                    }
                    stack.clear();
                } else if is_last {
                    links.push((here, target.clone()));
                }
                stack.pop();
                for piece in rest.split('/').rev() {
                    pending.push_front(piece.to_owned());
                }
            }
        }
    }
    if stack.is_empty() {
        return Err(Error::invalid_path(
            shown,
            "names the root directory itself, not a file",
        ));
    }
    let key = RelPath::from_components(&stack)?;
    if absent_from.is_none() && metadata.is_none() {
        // Ended on `..`: look the directory up.
        metadata = root.metadata(&key)?;
    }
    let resolved = Resolved {
        key,
        metadata,
        links,
    };
    Ok((resolved, None))
}

/// The fast path for the common case, a path with no `..`: one `lstat`
/// of the lexically normalised path, which the root answers without
/// following any symlink. `None` (use the full walk) when there is a `..`,
/// a symlink at the end, or a symlink in a parent.
fn resolve_plain<R: Root + ?Sized>(
    root: &R,
    relative: &str,
    shown: &str,
    limit: &dyn Fn(&Metadata) -> Option<u64>,
) -> Result<Option<ResolvedRead>> {
    let parts: Vec<&str> = relative
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.is_empty() || parts.contains(&"..") {
        return Ok(None);
    }
    for part in &parts {
        check_component(part).map_err(|reason| Error::invalid_path(shown, reason))?;
    }
    let key = RelPath::from_components(&parts)?;
    match root.look_and_read(&key, limit) {
        Ok(looked)
            if looked
                .metadata
                .is_some_and(|m| m.kind == EntryKind::Symlink) =>
        {
            Ok(None)
        }
        Ok(looked) => {
            let resolved = Resolved {
                key,
                metadata: looked.metadata,
                links: Vec::new(),
            };
            Ok(Some((resolved, looked.bytes)))
        }
        Err(_) => Ok(None),
    }
}

/// The path relative to the root: `input` itself if relative, the rest after
/// one of the root's absolute spellings if absolute, `None` if outside.
fn strip_root_prefix<'a, R: Root + ?Sized>(root: &R, input: &'a str) -> Option<&'a str> {
    if !input.starts_with('/') {
        return Some(input);
    }
    root.absolute_prefixes().iter().find_map(|prefix| {
        let rest = input.strip_prefix(prefix.as_str())?;
        if rest.is_empty() {
            Some(rest)
        } else {
            rest.strip_prefix('/').map(|_| &input[prefix.len()..])
        }
    })
}
