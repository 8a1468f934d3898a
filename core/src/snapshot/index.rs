//! Range queries over a snapshot's paths: "does it capture anything below
//! this directory?" in `O(log n)`, so validation and rollback stay
//! `O(n log n)` however the paths nest.

use std::collections::BTreeSet;
use std::ops::Bound;

use super::Snapshot;
use crate::relpath::RelPath;

/// The captured paths of a snapshot, sorted, for prefix queries.
pub(crate) struct Index<'a> {
    /// Files with content, and links: what occupies a path after rollback.
    occupied: BTreeSet<&'a str>,
    /// Paths that did not exist (`null` entries).
    new_paths: BTreeSet<&'a str>,
}

impl<'a> Index<'a> {
    /// Indexes `snapshot`.
    pub(crate) fn new(snapshot: &'a Snapshot) -> Index<'a> {
        let mut occupied = BTreeSet::new();
        let mut new_paths = BTreeSet::new();
        for (path, content) in &snapshot.entries {
            if content.is_some() {
                occupied.insert(path.as_str());
            } else {
                new_paths.insert(path.as_str());
            }
        }
        occupied.extend(snapshot.links.keys().map(RelPath::as_str));
        Index {
            occupied,
            new_paths,
        }
    }

    /// Whether `path` is a file with content or a link.
    pub(crate) fn is_occupied(&self, path: &str) -> bool {
        self.occupied.contains(path)
    }

    /// A file or link captured below `dir`, if any.
    pub(crate) fn content_below(&self, dir: &str) -> Option<&'a str> {
        first_below(&self.occupied, dir)
    }

    /// Whether the snapshot holds a file or link below `dir`.
    pub(crate) fn holds_content(&self, dir: &RelPath) -> bool {
        self.content_below(dir.as_str()).is_some()
    }

    /// Whether a path that did not exist lies below `dir`.
    pub(crate) fn has_new_below(&self, dir: &str) -> bool {
        first_below(&self.new_paths, dir).is_some()
    }
}

/// The first member of `set` strictly below the directory `dir`.
pub(crate) fn first_below<'a>(set: &BTreeSet<&'a str>, dir: &str) -> Option<&'a str> {
    let prefix = format!("{dir}/");
    set.range::<str, _>((Bound::Included(prefix.as_str()), Bound::Unbounded))
        .next()
        .copied()
        .filter(|p| p.starts_with(&prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_means_strictly_inside_the_directory() {
        let set: BTreeSet<&str> = ["a", "a.txt", "a/b", "ab/c", "b/c/d"].into();
        assert_eq!(first_below(&set, "a"), Some("a/b"));
        assert_eq!(first_below(&set, "b"), Some("b/c/d"));
        assert_eq!(first_below(&set, "b/c"), Some("b/c/d"));
        assert_eq!(first_below(&set, "ab/c"), None);
        assert_eq!(first_below(&set, "c"), None);
        let set: BTreeSet<&str> = ["a-b", "a.b", "a0"].into();
        assert_eq!(first_below(&set, "a"), None);
    }
}
