//! Rollback: restore exactly the captured paths, atomically per file.
//!
//! Order (so that type flips work): remove paths that did not exist before,
//! prune the listed created dirs deepest first (only when empty, never the
//! root), then restore files and links, creating missing parents. Every path
//! is attempted even after a failure; each failure is reported with its
//! reason. Directories touched are fsync-ed once each at the end (when
//! `durable`).

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, ErrorCode, Result};
use crate::relpath::RelPath;
use crate::root::{EntryKind, Root, DEFAULT_FILE_MODE};
use crate::snapshot::{ParseOptions, Snapshot};

/// Options of [`rollback`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RollbackOptions {
    /// fsync each restored file and each touched directory (default `true`).
    pub durable: bool,
    /// Accept snapshot keys with a `.git` component (refused by default).
    pub allow_git_dir: bool,
}

impl Default for RollbackOptions {
    fn default() -> RollbackOptions {
        RollbackOptions {
            durable: true,
            allow_git_dir: false,
        }
    }
}

/// One path rollback could not restore, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrestored {
    /// The canonical path.
    pub path: String,
    /// What went wrong.
    pub reason: String,
}

/// What a rollback did.
#[derive(Debug, Default)]
pub struct RollbackReport {
    /// Paths now as captured, sorted.
    pub restored: Vec<String>,
    /// Paths that could not be restored, sorted, each with a reason.
    pub unrestored: Vec<Unrestored>,
    /// Why the snapshot was refused; `None` when it was valid.
    pub error: Option<Error>,
}

impl RollbackReport {
    /// Whether the snapshot was well-formed (and so was applied).
    pub fn valid(&self) -> bool {
        self.error.is_none()
    }

    /// Valid, and every path restored.
    pub fn ok(&self) -> bool {
        self.valid() && self.unrestored.is_empty()
    }

    /// The code of the refusal, if the snapshot was refused.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.error.as_ref().map(Error::code)
    }

    /// Unrestored paths and their reasons, as a map.
    pub fn failures(&self) -> BTreeMap<String, String> {
        self.unrestored
            .iter()
            .map(|u| (u.path.clone(), u.reason.clone()))
            .collect()
    }

    fn refused(error: Error) -> RollbackReport {
        RollbackReport {
            error: Some(error),
            ..RollbackReport::default()
        }
    }
}

/// Parses `json` (refusing it whole, with nothing touched, if malformed) and
/// restores every captured path under `root`.
pub fn rollback<R: Root + ?Sized>(
    root: &R,
    json: &str,
    options: &RollbackOptions,
) -> RollbackReport {
    match Snapshot::parse(json, &ParseOptions::allowing_git_dir(options.allow_git_dir)) {
        Ok(snapshot) => rollback_snapshot(root, &snapshot, options),
        Err(e) => RollbackReport::refused(e),
    }
}

/// Restores every path of an already parsed snapshot (validated again here).
pub fn rollback_snapshot<R: Root + ?Sized>(
    root: &R,
    snapshot: &Snapshot,
    options: &RollbackOptions,
) -> RollbackReport {
    if let Err(e) = snapshot.validate(options.allow_git_dir) {
        return RollbackReport::refused(e);
    }
    let mut run = Run {
        root,
        durable: options.durable,
        failures: BTreeMap::new(),
        dirty_dirs: BTreeMap::new(),
    };
    run.remove_new_paths(snapshot);
    run.prune_created_dirs(snapshot);
    run.restore_files(snapshot);
    run.restore_links(snapshot);
    run.sync_dirs();
    let failures = run.failures;
    let restored = snapshot
        .paths()
        .into_iter()
        .filter(|p| !failures.contains_key(p))
        .collect();
    let unrestored = failures
        .into_iter()
        .map(|(path, reason)| Unrestored { path, reason })
        .collect();
    RollbackReport {
        restored,
        unrestored,
        error: None,
    }
}

/// The state of one rollback in progress.
struct Run<'r, R: Root + ?Sized> {
    root: &'r R,
    durable: bool,
    failures: BTreeMap<String, String>,
    /// Directory (`None` = root) -> captured paths whose durability depends on it.
    dirty_dirs: BTreeMap<Option<RelPath>, BTreeSet<String>>,
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

    fn remove_new_paths(&mut self, snapshot: &Snapshot) {
        let mut new_paths: Vec<&RelPath> = snapshot
            .entries
            .iter()
            .filter(|(_, content)| content.is_none())
            .map(|(path, _)| path)
            .collect();
        new_paths.sort_by_key(|p| std::cmp::Reverse(p.depth()));
        for path in new_paths {
            if let Err(e) = self.remove_path(path) {
                self.fail(path, &e);
            }
        }
    }

    fn remove_path(&mut self, path: &RelPath) -> Result<()> {
        match self.root.metadata(path)?.map(|m| m.kind) {
            None => return Ok(()),
            Some(EntryKind::Dir) => self.root.remove_dir(path)?,
            Some(_) => self.root.remove_file(path)?,
        }
        self.touched(path.parent(), path);
        Ok(())
    }

    fn prune_created_dirs(&mut self, snapshot: &Snapshot) {
        let mut dirs: Vec<&RelPath> = snapshot.created_dirs.iter().collect();
        dirs.sort_by_key(|p| std::cmp::Reverse(p.depth()));
        for dir in dirs {
            // A dir that is not empty holds something the snapshot did not
            // capture: it stays, and so does what is in it.
            let is_dir = matches!(self.root.metadata(dir), Ok(Some(m)) if m.kind == EntryKind::Dir);
            if is_dir && self.root.remove_dir(dir).is_ok() {
                self.touched(dir.parent(), dir);
            }
        }
    }

    fn restore_files(&mut self, snapshot: &Snapshot) {
        for (path, content) in &snapshot.entries {
            let Some(bytes) = content else { continue };
            let result = self.ensure_parents(path).and_then(|()| {
                let mode = match snapshot.modes.get(path) {
                    Some(mode) => *mode,
                    None => self.current_file_mode(path),
                };
                self.root.write_file(path, bytes, mode, self.durable)
            });
            match result {
                Ok(()) => self.touched(path.parent(), path),
                Err(e) => self.fail(path, &e),
            }
        }
    }

    fn restore_links(&mut self, snapshot: &Snapshot) {
        for (path, target) in &snapshot.links {
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
                            format!("parent {dir:?} is a {}, not a directory", kind.describe()),
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    fn sync_dirs(&mut self) {
        if !self.durable {
            return;
        }
        let dirty = std::mem::take(&mut self.dirty_dirs);
        for (dir, paths) in dirty {
            // A directory pruned (or flipped to a file) after it was touched
            // is gone; the sync of its parent covers that.
            if let Some(d) = &dir {
                if !matches!(self.root.metadata(d), Ok(Some(m)) if m.kind == EntryKind::Dir) {
                    continue;
                }
            }
            if let Err(e) = self.root.sync_dir(dir.as_ref()) {
                for p in paths {
                    self.failures
                        .entry(p)
                        .or_insert_with(|| format!("could not fsync its directory: {e}"));
                }
            }
        }
    }
}
