//! Capture: the spelling each captured path is recorded under.

use std::collections::BTreeMap;

use super::fold;
use super::probe::Folding;
use crate::relpath::RelPath;
use crate::root::Root;

/// For the keys of a capture, in the order the batch first named them
/// (with whether something is there now), the keys to record under
/// another spelling: `from -> to`.
///
/// - An existing path in a directory that folds names is recorded under
///   its on-disk spelling (every existing component), so that two
///   spellings of one file are one entry and a rollback knows the name to
///   give back. Costs one probe (two lookups) per directory; nothing more
///   where directories do not fold.
/// - Missing paths that fold to one key are one entry, under the spelling
///   named first (its existing parents spelled as on disk), when the
///   deepest existing directory above them folds names. Asked only when
///   two such keys meet.
pub(crate) fn spellings<R: Root + ?Sized>(
    root: &R,
    keys: &[(RelPath, bool)],
) -> BTreeMap<RelPath, RelPath> {
    let mut folding = Folding::new(root);
    let mut renames = BTreeMap::new();
    for (key, exists) in keys {
        if !*exists {
            continue;
        }
        let folds = match folding.folds_at(key) {
            Some(folds) => folds,
            None => folding.folds_in(key.parent().as_ref()),
        };
        if folds {
            let canonical = folding.canonical(key);
            if &canonical != key {
                renames.insert(key.clone(), canonical);
            }
        }
    }
    // Missing keys that fold together, by the folded text of the key.
    let mut groups: BTreeMap<String, Vec<&RelPath>> = BTreeMap::new();
    for (key, exists) in keys {
        if !*exists {
            groups.entry(fold(key.as_str())).or_default().push(key);
        }
    }
    for members in groups.values().filter(|m| m.len() > 1) {
        let first = members[0];
        let Some(dir) = deepest_existing_dir(root, first) else {
            continue;
        };
        if !folding.folds_in(dir.as_ref()) {
            continue;
        }
        let canonical = folding.canonical(first);
        for member in members {
            if **member != canonical {
                renames.insert((*member).clone(), canonical.clone());
            }
        }
    }
    renames
}

/// The deepest ancestor of the missing `path` that is a directory
/// (`Some(None)`: the root); `None` when a lookup fails.
fn deepest_existing_dir<R: Root + ?Sized>(root: &R, path: &RelPath) -> Option<Option<RelPath>> {
    let mut found = None;
    for dir in path.ancestors() {
        match root.metadata(&dir) {
            Ok(Some(m)) if m.kind == crate::root::EntryKind::Dir => found = Some(dir),
            Ok(_) => break,
            Err(_) => return None,
        }
    }
    Some(found)
}
