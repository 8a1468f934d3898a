//! Whether a directory folds names, asked once per directory, and its
//! on-disk spellings, listed once per directory.

use std::collections::BTreeMap;

use super::{fold, other_spelling};
use crate::relpath::RelPath;
use crate::root::Root;

/// What one capture or rollback learned about the directories it touched.
pub(crate) struct Folding<'r, R: Root + ?Sized> {
    root: &'r R,
    /// Directory (`None`: the root) -> whether it folds names.
    folds: BTreeMap<Option<RelPath>, bool>,
    /// Directory -> its entries' names (only for directories that fold).
    listings: BTreeMap<Option<RelPath>, Vec<String>>,
}

impl<'r, R: Root + ?Sized> Folding<'r, R> {
    /// Nothing learned yet.
    pub(crate) fn new(root: &'r R) -> Folding<'r, R> {
        Folding {
            root,
            folds: BTreeMap::new(),
            listings: BTreeMap::new(),
        }
    }

    /// Whether the directory holding the existing entry `path` folds names:
    /// the other spelling of `path` is looked up and must be the very same
    /// entry (a root without change stamps cannot tell: no). `None` when
    /// `path`'s name has no other spelling and the directory is not known
    /// yet. A lookup that fails counts as "does not fold".
    pub(crate) fn folds_at(&mut self, path: &RelPath) -> Option<bool> {
        let dir = path.parent();
        if let Some(known) = self.folds.get(&dir) {
            return Some(*known);
        }
        let other = other_spelling(path.file_name())?;
        let other = match &dir {
            Some(d) => d.join(&other),
            None => RelPath::try_from(other),
        };
        let folds = match (other, self.root.metadata(path)) {
            (Ok(other), Ok(Some(here))) => {
                here.stamp != 0
                    && self
                        .root
                        .metadata(&other)
                        .is_ok_and(|there| there == Some(here))
            }
            _ => false,
        };
        self.folds.insert(dir, folds);
        Some(folds)
    }

    /// Whether the directory `dir` (existing; `None`: the root) folds names,
    /// judged by the first of its entries that has another spelling, or
    /// else by `dir`'s own name in its parent. `false` when nothing tells.
    pub(crate) fn folds_in(&mut self, dir: Option<&RelPath>) -> bool {
        let key = dir.cloned();
        if let Some(known) = self.folds.get(&key) {
            return *known;
        }
        let names = self.root.read_dir(dir).unwrap_or_default();
        for name in names {
            if other_spelling(&name).is_none() {
                continue;
            }
            let entry = match dir {
                Some(d) => d.join(&name),
                None => RelPath::try_from(name),
            };
            if let Ok(entry) = entry {
                if let Some(folds) = self.folds_at(&entry) {
                    return folds;
                }
            }
        }
        let folds = match dir {
            Some(d) => match self.folds_at(d) {
                Some(folds) => folds,
                None => self.folds_in(d.parent().as_ref()),
            },
            None => false,
        };
        self.folds.insert(key, folds);
        folds
    }

    /// The name the directory `dir` holds the entry `name` under: `name`
    /// itself when listed so, else the first listed name that folds to the
    /// same key. `None` when none does (or the listing fails).
    pub(crate) fn on_disk(&mut self, dir: Option<&RelPath>, name: &str) -> Option<String> {
        let key = dir.cloned();
        if !self.listings.contains_key(&key) {
            let names = self.root.read_dir(dir).unwrap_or_default();
            self.listings.insert(key.clone(), names);
        }
        let names = self.listings.get(&key)?;
        if names.iter().any(|n| n == name) {
            return Some(name.to_owned());
        }
        let wanted = fold(name);
        names.iter().find(|n| fold(n) == wanted).cloned()
    }

    /// `path` with every existing component in a directory that folds
    /// names spelled as that directory holds it; the components from the
    /// first missing one on are kept as given.
    pub(crate) fn canonical(&mut self, path: &RelPath) -> RelPath {
        let mut spelled: Option<RelPath> = None;
        let mut exists = true;
        for part in path.components() {
            let given = match &spelled {
                Some(d) => d.join(part),
                None => RelPath::try_from(part),
            };
            let Ok(given) = given else {
                return path.clone();
            };
            let mut next = given.clone();
            if exists {
                exists = self.root.metadata(&given).is_ok_and(|m| m.is_some());
                if exists && self.folds_at(&given) == Some(true) {
                    let disk = self.on_disk(spelled.as_ref(), part);
                    if let Some(disk) = disk.filter(|d| d != part) {
                        let respelled = match &spelled {
                            Some(d) => d.join(&disk),
                            None => RelPath::try_from(disk),
                        };
                        if let Ok(respelled) = respelled {
                            next = respelled;
                        }
                    }
                }
            }
            spelled = Some(next);
        }
        spelled.unwrap_or_else(|| path.clone())
    }
}
