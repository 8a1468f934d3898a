//! Carrying out a decided plan: removals, pruning, writes, directory syncs.

use std::collections::{BTreeMap, BTreeSet};

use super::write::{self, Written};
use super::Unrestored;
use crate::error::{Error, ErrorCode};
use crate::observe::Now;
use crate::parallel;
use crate::plan::decide::{Decided, Decision, Step};
use crate::progress::{Counter, OnProgress, ProgressStage};
use crate::relpath::RelPath;
use crate::root::{EntryKind, Expect, Root};
use crate::snapshot::Snapshot;

/// Writes below this many go on the calling thread only.
const MIN_PARALLEL_WRITES: usize = 32;

/// What carrying out the plan gave.
pub(super) struct Outcome {
    pub(super) restored: Vec<String>,
    pub(super) unrestored: Vec<Unrestored>,
    pub(super) conflicts: Vec<String>,
}

struct Run<'r, R: Root + ?Sized> {
    root: &'r R,
    durable: bool,
    failures: BTreeMap<RelPath, (ErrorCode, String)>,
    conflicts: BTreeSet<RelPath>,
    /// Directories rollback could not remove, and why: settled at the end.
    unpruned: BTreeMap<RelPath, String>,
    /// Directory (`None` = root) -> captured paths whose durability depends on it.
    dirty_dirs: BTreeMap<Option<RelPath>, BTreeSet<RelPath>>,
}

/// Carries out `decided` (see the module docs of [`crate::rollback`]).
pub(super) fn execute<'s, R: Root + ?Sized>(
    root: &R,
    snapshot: &'s Snapshot,
    mut decided: Decided<'s>,
    durable: bool,
    progress: Option<&OnProgress>,
) -> Outcome {
    let mut run = Run {
        root,
        durable,
        failures: BTreeMap::new(),
        conflicts: BTreeSet::new(),
        unpruned: BTreeMap::new(),
        dirty_dirs: BTreeMap::new(),
    };
    // A case-insensitive directory holding a path under another spelling.
    let respelled = crate::casefold::respell::respell(root, snapshot, &mut decided.decisions);
    let mut by_depth: Vec<&Decision<'_>> = decided.decisions.iter().collect();
    by_depth.sort_by(|a, b| {
        b.path
            .depth()
            .cmp(&a.path.depth())
            .then(a.path.cmp(&b.path))
    });
    for d in &decided.decisions {
        match &d.step {
            Step::Refuse(e) => run.fail(&d.path, e),
            Step::Conflict => {
                run.conflicts.insert(d.path.clone());
            }
            Step::Unlooked(e) => {
                run.unpruned.insert(d.path.clone(), e.to_string());
            }
            _ => {}
        }
    }
    run.remove_stray_temps(&decided.decisions);
    let changes = decided
        .decisions
        .iter()
        .filter(|d| {
            matches!(
                d.step,
                Step::RemoveFile
                    | Step::RemoveDir
                    | Step::WriteFile { .. }
                    | Step::WriteLink { .. }
            )
        })
        .count();
    let mut progress = Counter::start_deferring_panics(progress, ProgressStage::Restore, changes);
    for d in by_depth
        .iter()
        .filter(|d| matches!(d.step, Step::RemoveFile))
    {
        run.remove_file(d);
        progress.step();
    }
    for d in by_depth
        .iter()
        .filter(|d| matches!(d.step, Step::RemoveDir))
    {
        run.remove_dir(d);
        progress.step();
    }
    let writes: Vec<&Decision<'_>> = decided
        .decisions
        .iter()
        .filter(|d| matches!(d.step, Step::WriteFile { .. } | Step::WriteLink { .. }))
        .collect();
    // Many writes go on two threads where the root allows it: each is one
    // file's temp + rename, independent of the others (a parent two of
    // them need is made by whichever comes first). Outcomes are settled in
    // order here, as on one thread.
    match root.as_sync() {
        Some(shared) if writes.len() >= MIN_PARALLEL_WRITES => {
            let done: std::result::Result<(), std::convert::Infallible> =
                parallel::for_each_in_order(
                    &writes,
                    MIN_PARALLEL_WRITES,
                    |d| (*d, write::write(shared, d, durable)),
                    |(d, written)| {
                        run.settle_write(d, written);
                        progress.step();
                        Ok(())
                    },
                );
            let Ok(()) = done;
        }
        _ => {
            for d in &writes {
                let written = write::write(root, d, durable);
                run.settle_write(d, written);
                progress.step();
            }
        }
    }
    let misnamed =
        crate::casefold::respell::give_names_back(root, &decided.decisions, &respelled, |p| {
            !run.failures.contains_key(p) && !run.conflicts.contains(p)
        });
    for (i, e) in &misnamed {
        if let Some(d) = decided.decisions.get(*i) {
            run.failed(d, e);
        }
    }
    run.settle_unpruned(snapshot);
    run.sync_dirs();
    progress.finish();
    let failures = std::mem::take(&mut run.failures);
    let restored = decided
        .decisions
        .iter()
        .filter(|d| d.captured)
        .map(|d| &d.path)
        .filter(|p| !failures.contains_key(*p) && !run.conflicts.contains(*p))
        .map(|p| p.to_string())
        .collect();
    Outcome {
        restored,
        unrestored: failures
            .into_iter()
            .map(|(path, (code, reason))| Unrestored {
                path: path.to_string(),
                code,
                reason,
            })
            .collect(),
        conflicts: run.conflicts.iter().map(|p| p.to_string()).collect(),
    }
}

impl<R: Root + ?Sized> Run<'_, R> {
    fn fail(&mut self, path: &RelPath, error: &Error) {
        self.failures
            .entry(path.clone())
            .or_insert_with(|| (error.code(), error.to_string()));
    }

    /// A failed step of a captured path: a conflict when a guarded step
    /// found the path changed at the last moment, a failure otherwise.
    fn failed(&mut self, d: &Decision<'_>, error: &Error) {
        if d.expect != Expect::Any && error.code() == ErrorCode::Conflict {
            self.conflicts.insert(d.path.clone());
        } else if d.captured {
            self.fail(&d.path, error);
        } else {
            self.unpruned
                .entry(d.path.clone())
                .or_insert_with(|| error.to_string());
        }
    }

    /// Records that `dir` changed for `path` (a captured path, whose
    /// durability then depends on the directory's sync), or for a
    /// directory rollback pruned (`None`: synced all the same).
    fn touched(&mut self, dir: Option<RelPath>, path: Option<&RelPath>) {
        let paths = self.dirty_dirs.entry(dir).or_default();
        if let Some(path) = path {
            paths.insert(path.clone());
        }
    }

    /// Clears temp files an interrupted earlier run left next to the files
    /// and links this snapshot restores (written now or already as
    /// captured): one directory listing per directory, best effort.
    fn remove_stray_temps(&mut self, decisions: &[Decision<'_>]) {
        let mut by_dir: BTreeMap<Option<RelPath>, Vec<&str>> = BTreeMap::new();
        for d in decisions {
            let restores = matches!(d.step, Step::WriteFile { .. } | Step::WriteLink { .. })
                || (matches!(d.step, Step::Keep)
                    && matches!(d.now, Some(Now::File { .. } | Now::Symlink { .. })));
            if restores {
                by_dir
                    .entry(d.path.parent())
                    .or_default()
                    .push(d.path.file_name());
            }
        }
        for (dir, names) in by_dir {
            let _ = self.root.remove_stray_temps(dir.as_ref(), &names);
        }
    }

    fn remove_file(&mut self, d: &Decision<'_>) {
        match self.root.remove_file(&d.path, d.expect) {
            Ok(()) => self.touched(d.path.parent(), Some(&d.path)),
            // Gone already (a concurrent rollback of the same snapshot).
            Err(e) if e.code() == ErrorCode::NotFound => {}
            Err(e) => self.failed(d, &e),
        }
    }

    fn remove_dir(&mut self, d: &Decision<'_>) {
        match self.root.remove_dir(&d.path) {
            Ok(()) => self.touched(d.path.parent(), d.captured.then_some(&d.path)),
            Err(e) if e.code() == ErrorCode::NotFound => {}
            Err(e) => self.failed(d, &e),
        }
    }

    /// Settles the outcome of writing `d`: the directories made and the
    /// path itself touched, or its failure (or conflict) recorded.
    fn settle_write(&mut self, d: &Decision<'_>, written: Written) {
        for dir in written.made {
            self.touched(dir.parent(), Some(&d.path));
        }
        match written.result {
            Ok(()) => self.touched(d.path.parent(), Some(&d.path)),
            Err(e) => self.failed(d, &e),
        }
    }

    /// A directory the batch created that could not be pruned leaves the
    /// new paths below it not back to "did not exist": they are reported,
    /// if it is still a directory now that every step has run.
    fn settle_unpruned(&mut self, snapshot: &Snapshot) {
        for (dir, reason) in std::mem::take(&mut self.unpruned) {
            let still = match self.root.metadata(&dir) {
                Ok(Some(m)) => m.kind == EntryKind::Dir,
                Ok(None) => false,
                Err(_) => true,
            };
            if !still {
                continue;
            }
            let error = Error::io(
                dir.as_str(),
                std::io::Error::other(format!(
                    "could not remove the directory {dir:?} the batch created: {reason}"
                )),
            );
            let below: Vec<RelPath> = snapshot
                .entries
                .iter()
                .filter(|(p, c)| c.is_none() && dir.is_ancestor_of(p))
                .map(|(p, _)| p.clone())
                .filter(|p| !self.conflicts.contains(p))
                .collect();
            for path in below {
                self.fail(&path, &error);
            }
        }
    }

    fn sync_dirs(&mut self) {
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
                let error = Error::io(
                    dir.as_ref().map_or(".", RelPath::as_str),
                    std::io::Error::other(format!("could not fsync its directory: {e}")),
                );
                for p in &paths {
                    self.fail(p, &error);
                }
            }
        }
    }
}
