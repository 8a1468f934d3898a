//! Where a link will point: its target resolved the way the kernel will
//! resolve it once rollback has run.
//!
//! Checking a target as text is not enough: `t -> a/s/s/../../x` looks
//! harmless, but if `a/s` is itself a link to `.`, the kernel follows `a/s`
//! before applying each `..` and `t` ends up above the root. So a target is
//! walked component by component, and every component that will be a
//! symlink (one the snapshot creates, or one already in the tree that
//! rollback leaves) is replaced by its own target before the walk goes on.
//!
//! The policy, for capture and rollback alike: a snapshot's link may point
//! at a file or a directory inside the root, through other links, as long
//! as that resolution never leaves the root and follows at most
//! [`MAX_LINK_HOPS`] links. Capture records a symlink only as the last
//! component of a path it was given, and refuses one that resolves to a
//! directory (`not_a_file`): the batch edits files.

use std::collections::VecDeque;

use crate::error::{Error, Result};
use crate::relpath::RelPath;

/// Most links followed while resolving one target (Linux `MAXSYMLINKS`).
pub const MAX_LINK_HOPS: usize = 40;

/// Resolves `target`, the target text of the link at `link`.
/// `lookup(path)` gives the target text of the symlink `path` will be
/// after rollback, or `None` when it will not be one. `prefixes` are the
/// root's absolute spellings: an absolute target through one of them is
/// inside the root, any other absolute target escapes.
///
/// Returns the components of the path the link finally names (empty for
/// the root itself), or `path_escapes_root` / `invalid_path` (a loop).
pub(crate) fn resolve_target(
    link: &RelPath,
    target: &str,
    prefixes: &[String],
    lookup: &mut dyn FnMut(&str) -> Result<Option<String>>,
) -> Result<Vec<String>> {
    let escapes = |via: &str| {
        Error::escapes(
            link.as_str(),
            format!("symlink target {target:?} leads out of the root{via}"),
        )
    };
    let mut stack: Vec<String> = link
        .parent()
        .map(|p| p.components().map(str::to_owned).collect())
        .unwrap_or_default();
    let mut pending: VecDeque<String> = VecDeque::new();
    push_target(&mut stack, &mut pending, target, prefixes).ok_or_else(|| escapes(""))?;
    let mut hops = 0;
    // `here` is `stack` joined with `/`, kept up to date as it changes.
    let mut here = stack.join("/");
    while let Some(part) = pending.pop_front() {
        match part.as_str() {
            "" | "." => continue,
            ".." => {
                if stack.pop().is_none() {
                    return Err(escapes(""));
                }
                here.truncate(here.rfind('/').unwrap_or(0));
                continue;
            }
            _ => {
                if !here.is_empty() {
                    here.push('/');
                }
                here.push_str(&part);
                stack.push(part);
            }
        }
        if let Some(next) = lookup(&here)? {
            hops += 1;
            if hops > MAX_LINK_HOPS {
                return Err(Error::invalid_path(
                    link.as_str(),
                    format!("symlink target {target:?}: too many levels of symlinks (a loop?)"),
                ));
            }
            let via = format!(" (through {here:?} -> {next:?})");
            stack.pop();
            push_target(&mut stack, &mut pending, &next, prefixes).ok_or_else(|| escapes(&via))?;
            here = stack.join("/");
        }
    }
    Ok(stack)
}

/// Queues the components of `target` in front of what is pending; an
/// absolute target restarts from the root when it starts with one of
/// `prefixes`, and is an escape (`None`) otherwise.
fn push_target(
    stack: &mut Vec<String>,
    pending: &mut VecDeque<String>,
    target: &str,
    prefixes: &[String],
) -> Option<()> {
    let relative = if target.starts_with('/') {
        let rest = prefixes.iter().find_map(|p| {
            let rest = target.strip_prefix(p.as_str())?;
            (rest.is_empty() || rest.starts_with('/')).then_some(rest)
        })?;
        stack.clear();
        rest
    } else {
        target
    };
    for piece in relative.split('/').rev() {
        pending.push_front(piece.to_owned());
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn resolve(links: &[(&str, &str)], link: &str, prefixes: &[String]) -> Result<Vec<String>> {
        let map: BTreeMap<&str, &str> = links.iter().copied().collect();
        let target = map[link];
        let link = RelPath::try_from(link)?;
        resolve_target(&link, target, prefixes, &mut |p| {
            Ok(map.get(p).map(|t| (*t).to_owned()))
        })
    }

    #[test]
    fn a_link_to_its_own_directory_cannot_smuggle_dot_dots_out() {
        let links = [("a/s", "."), ("t", "a/s/s/s/../../../../etc/passwd")];
        let e = resolve(&links, "t", &[]).unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::PathEscapesRoot);
        // Text alone would have said: a/s/s/s/../../.. = root, then etc/passwd.
        assert_eq!(resolve(&links, "a/s", &[]).unwrap(), ["a"]);
    }

    #[test]
    fn in_root_chains_resolve_and_loops_are_refused() {
        let links = [("docs/current", "v2/index.md"), ("top", "docs/current")];
        assert_eq!(
            resolve(&links, "top", &[]).unwrap(),
            ["docs", "v2", "index.md"]
        );
        let loop_links = [("a", "b"), ("b", "a")];
        let e = resolve(&loop_links, "a", &[]).unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::InvalidPath);
    }

    #[test]
    fn absolute_targets_escape_unless_they_name_the_root() {
        let links = [("a", "x/y"), ("x", "/etc")];
        assert!(resolve(&links, "a", &[]).is_err());
        let inside = [("a", "x/y"), ("x", "/work/root/sub")];
        assert_eq!(
            resolve(&inside, "a", &["/work/root".to_owned()]).unwrap(),
            ["sub", "y"]
        );
        let sibling = [("a", "x/y"), ("x", "/work/rootother")];
        assert!(resolve(&sibling, "a", &["/work/root".to_owned()]).is_err());
    }
}
