//! Applying a validated snapshot: the four phases and the directory syncs.

use std::collections::{BTreeMap, BTreeSet};

use crate::digest::sha256;
use crate::error::{Error, Result};
use crate::parallel;
use crate::relpath::RelPath;
use crate::root::{EntryKind, Root, DEFAULT_FILE_MODE};
use crate::snapshot::Snapshot;

/// The state of one rollback in progress.
pub(super) struct Run<'r, R: Root + ?Sized> {
    pub(super) root: &'r R,
    pub(super) durable: bool,
    /// Paths left alone (human-edit conflicts).
    pub(super) skip: BTreeSet<RelPath>,
    pub(super) failures: BTreeMap<String, String>,
    /// `null` entries that could not be removed when their turn came, and
    /// why: settled by `recheck_new_paths` once every phase has run.
    pub(super) unremoved: BTreeMap<RelPath, String>,
    /// Created dirs that could not be pruned (for a reason other than
    /// holding something uncaptured), and why: settled at the end too.
    pub(super) unpruned: BTreeMap<RelPath, String>,
    /// Directory (`None` = root) -> captured paths whose durability depends on it.
    pub(super) dirty_dirs: BTreeMap<Option<RelPath>, BTreeSet<String>>,
}

impl<R: Root + ?Sized> Run<'_, R> {
    fn fail(&mut self, path: &RelPath, error: &Error) {
        self.failures
            .entry(path.to_string())
            .or_insert_with(|| error.to_string());
    }

    fn touched(&mut self, dir: Option<RelPath>, path: &RelPath) {
        self.dirty_dirs
            .entry(dir)
            .or_default()
            .insert(path.to_string());
    }

    /// Clears temp files an interrupted earlier run left next to the paths
    /// this run writes: one directory listing per directory, best effort
    /// (a directory that cannot be listed fails nothing here).
    pub(super) fn remove_stray_temps(&mut self, snapshot: &Snapshot) {
        let mut by_dir: BTreeMap<Option<RelPath>, Vec<&str>> = BTreeMap::new();
        let written = snapshot
            .entries
            .iter()
            .filter(|(_, c)| c.is_some())
            .map(|(p, _)| p)
            .chain(snapshot.links.keys())
            .filter(|p| !self.skip.contains(*p));
        for path in written {
            by_dir
                .entry(path.parent())
                .or_default()
                .push(path.file_name());
        }
        for (dir, names) in by_dir {
            let _ = self.root.remove_stray_temps(dir.as_ref(), &names);
        }
    }

    pub(super) fn remove_new_paths(&mut self, snapshot: &Snapshot) {
        let mut new_paths: Vec<&RelPath> = snapshot
            .entries
            .iter()
            .filter(|(path, content)| content.is_none() && !self.skip.contains(*path))
            .map(|(path, _)| path)
            .collect();
        new_paths.sort_by_key(|p| std::cmp::Reverse(p.depth()));
        for path in new_paths {
            if holds_captured_content(snapshot, path) {
                // A directory here is what the snapshot wants (a type flip):
                // it holds captured files. Only a file or link is removed.
                if let Err(e) = self.remove_unless_dir(path) {
                    self.fail(path, &e);
                }
                continue;
            }
            if let Err(e) = self.remove_path(path) {
                self.unremoved
                    .entry(path.clone())
                    .or_insert_with(|| e.to_string());
            }
        }
    }

    fn remove_unless_dir(&mut self, path: &RelPath) -> Result<()> {
        match self.root.metadata(path)?.map(|m| m.kind) {
            None | Some(EntryKind::Dir) => Ok(()),
            Some(_) => {
                self.root.remove_file(path)?;
                self.touched(path.parent(), path);
                Ok(())
            }
        }
    }

    fn remove_path(&mut self, path: &RelPath) -> Result<()> {
        match self.root.metadata(path)?.map(|m| m.kind) {
            None => return Ok(()),
            // A directory goes with the created dirs, deepest first: the
            // batch's dirs below it must be pruned before it can be removed.
            Some(EntryKind::Dir) => return Ok(()),
            Some(_) => self.root.remove_file(path)?,
        }
        self.touched(path.parent(), path);
        Ok(())
    }

    /// Removes, deepest first, the created dirs (only when empty) and the
    /// `null` entries that are directories now (they must go: a failure,
    /// "not empty" included, is reported against them).
    pub(super) fn prune_created_dirs(&mut self, snapshot: &Snapshot) {
        let mut dirs: Vec<(&RelPath, bool)> = snapshot
            .entries
            .iter()
            .filter(|(path, content)| {
                content.is_none()
                    && !self.skip.contains(*path)
                    && !holds_captured_content(snapshot, path)
            })
            .map(|(path, _)| (path, true))
            .collect();
        dirs.extend(
            snapshot
                .created_dirs
                .iter()
                .filter(|d| !dirs.iter().any(|(p, _)| p == d))
                .map(|d| (d, false))
                .collect::<Vec<_>>(),
        );
        dirs.sort_by_key(|(p, _)| std::cmp::Reverse(p.depth()));
        for (dir, required) in dirs {
            // A created dir that is not empty (or not a dir) holds something
            // the snapshot did not capture: it stays, and so does what is in
            // it. Any other failure leaves the batch's dir behind: the new
            // paths below it are not back to "did not exist", so they are
            // reported.
            let result = match self.root.metadata(dir) {
                Ok(Some(m)) if m.kind == EntryKind::Dir => match self.root.remove_dir(dir) {
                    Ok(()) => {
                        self.touched(dir.parent(), dir);
                        Ok(())
                    }
                    Err(e) if is_not_empty(&e) && !required => Ok(()),
                    Err(e) => Err(e),
                },
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            };
            if let (Err(e), true) = (&result, required) {
                self.unremoved
                    .entry(dir.clone())
                    .or_insert_with(|| e.to_string());
                continue;
            }
            if let Err(e) = result {
                self.unpruned
                    .entry(dir.clone())
                    .or_insert_with(|| e.to_string());
            }
        }
    }

    /// A path that did not exist is restored when nothing is there at the
    /// end: one that could not be looked at or removed in its turn (its
    /// parent was a link, or a dir of the batch's) may be gone by now,
    /// because a later phase replaced or removed that parent. Likewise a
    /// created dir that could not be pruned fails the new paths below it
    /// only if it is still a directory (or cannot be looked at) at the end.
    pub(super) fn recheck_new_paths(&mut self, snapshot: &Snapshot) {
        for (path, reason) in std::mem::take(&mut self.unremoved) {
            if !matches!(self.root.metadata(&path), Ok(None)) {
                self.failures.entry(path.to_string()).or_insert(reason);
            }
        }
        for (dir, reason) in std::mem::take(&mut self.unpruned) {
            let gone = match self.root.metadata(&dir) {
                Ok(Some(m)) => m.kind != EntryKind::Dir,
                Ok(None) => true,
                Err(_) => false,
            };
            if gone {
                continue;
            }
            let below = snapshot
                .entries
                .iter()
                .filter(|(p, c)| c.is_none() && dir.is_ancestor_of(p) && !self.skip.contains(*p));
            for (path, _) in below {
                self.failures.entry(path.to_string()).or_insert_with(|| {
                    format!("could not remove the directory {dir} the batch created: {reason}")
                });
            }
        }
    }

    pub(super) fn restore_files(&mut self, snapshot: &Snapshot) {
        let files: Vec<(&RelPath, &[u8])> = snapshot
            .entries
            .iter()
            .filter(|(path, _)| !self.skip.contains(*path))
            .filter_map(|(path, content)| content.as_deref().map(|bytes| (path, bytes)))
            .collect();
        // Every digest is checked before anything is written (in parallel
        // for large snapshots): corrupted bytes are never written.
        let intact = parallel::map(
            &files,
            |(_, bytes)| bytes.len(),
            |(path, bytes)| {
                snapshot
                    .digests
                    .get(*path)
                    .is_none_or(|d| *d == sha256(bytes))
            },
        );
        for ((path, bytes), intact) in files.into_iter().zip(intact) {
            let result = if intact {
                self.restore_file(path, bytes, snapshot.modes.get(path).copied())
            } else {
                Err(integrity(
                    path,
                    "the captured bytes do not match their digest (corrupted or forged snapshot)",
                ))
            };
            match result {
                Ok(()) => self.touched(path.parent(), path),
                Err(e) => self.fail(path, &e),
            }
        }
    }

    /// Writes the bytes atomically, then reads the file back to check that
    /// what is there is byte for byte what was captured.
    fn restore_file(&mut self, path: &RelPath, bytes: &[u8], mode: Option<u32>) -> Result<()> {
        self.ensure_parents(path)?;
        let mode = mode.unwrap_or_else(|| self.current_file_mode(path));
        self.root.write_file(path, bytes, mode, self.durable)?;
        if !self.root.file_equals(path, bytes)? {
            return Err(integrity(
                path,
                "the restored file reads back different from the captured bytes",
            ));
        }
        Ok(())
    }

    pub(super) fn restore_links(&mut self, snapshot: &Snapshot) {
        for (path, target) in &snapshot.links {
            if self.skip.contains(path) {
                continue;
            }
            let result = self.ensure_parents(path).and_then(|()| {
                let same = match self.root.metadata(path)? {
                    Some(m) if m.kind == EntryKind::Symlink => {
                        self.root.read_link(path)? == *target
                    }
                    _ => false,
                };
                if !same {
                    self.root.write_link(path, target)?;
                }
                Ok(())
            });
            match result {
                Ok(()) => self.touched(path.parent(), path),
                Err(e) => self.fail(path, &e),
            }
        }
    }

    /// The mode to give a file whose mode the snapshot does not record (a
    /// seed snapshot): keep the current file's, else the default.
    fn current_file_mode(&self, path: &RelPath) -> u32 {
        match self.root.metadata(path) {
            Ok(Some(m)) if m.kind == EntryKind::File => m.mode,
            _ => DEFAULT_FILE_MODE,
        }
    }

    fn ensure_parents(&mut self, path: &RelPath) -> Result<()> {
        for dir in path.ancestors() {
            match self.root.metadata(&dir)?.map(|m| m.kind) {
                Some(EntryKind::Dir) => {}
                None => {
                    self.root.create_dir(&dir)?;
                    self.touched(dir.parent(), path);
                }
                Some(kind) => {
                    return Err(Error::io(
                        path.as_str(),
                        std::io::Error::new(
                            std::io::ErrorKind::NotADirectory,
                            format!(
                                "parent {:?} is a {}, not a directory",
                                dir.as_str(),
                                kind.describe()
                            ),
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    pub(super) fn sync_dirs(&mut self) {
        if !self.durable {
            return;
        }
        let dirty = std::mem::take(&mut self.dirty_dirs);
        for (dir, paths) in dirty {
            // A directory pruned (or flipped to a file) after it was touched
            // is gone; the sync of its parent covers that.
            let result = match &dir {
                Some(d) => match self.root.metadata(d) {
                    Ok(Some(m)) if m.kind == EntryKind::Dir => self.root.sync_dir(Some(d)),
                    Ok(_) => continue,
                    Err(e) => Err(e),
                },
                None => self.root.sync_dir(None),
            };
            if let Err(e) = result {
                for p in paths {
                    self.failures
                        .entry(p)
                        .or_insert_with(|| format!("could not fsync its directory: {e}"));
                }
            }
        }
    }
}

/// Whether a `remove_dir` failed only because the directory is not empty.
fn is_not_empty(e: &Error) -> bool {
    matches!(e, Error::Io { source, .. } if matches!(
        source.kind(),
        std::io::ErrorKind::DirectoryNotEmpty | std::io::ErrorKind::AlreadyExists
    ))
}

fn integrity(path: &RelPath, what: &str) -> Error {
    Error::io(
        path.as_str(),
        std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned()),
    )
}

/// Whether the snapshot holds a file or link below `path`.
pub(crate) fn holds_captured_content(snapshot: &Snapshot, path: &RelPath) -> bool {
    snapshot
        .entries
        .iter()
        .filter(|(_, c)| c.is_some())
        .map(|(p, _)| p)
        .chain(snapshot.links.keys())
        .any(|p| path.is_ancestor_of(p))
}
