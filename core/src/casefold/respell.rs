//! Rollback: a restored path gets its captured name back.
//!
//! Never remove-then-write: the captured content is written as every
//! restored file is (a temp file in the same directory, renamed onto the
//! captured spelling). A folding directory takes that rename as a
//! replacement of the entry it holds under the other spelling; whether the
//! entry then bears the captured spelling or keeps the old one depends on
//! the filesystem, so the listing is asked afterwards ([`give_names_back`]).

use super::probe::Folding;
use crate::error::Error;
use crate::observe::Now;
use crate::plan::decide::{Decision, Step};
use crate::relpath::RelPath;
use crate::root::{temp::temp_name, Expect, Root};
use crate::snapshot::Snapshot;

/// A decision whose path a folding directory holds under another spelling.
pub(crate) struct Respelled {
    /// The decision's index.
    pub(crate) index: usize,
    /// The spelling the directory holds it under.
    pub(crate) held_as: RelPath,
}

/// Before the writes of a rollback: every captured file or link that ends
/// up present, that is there now, and whose directory folds names but
/// holds it under another spelling (the batch renamed `a.txt` to `A.txt`)
/// is written anew under the captured spelling, with the decision's guard
/// (which a folding directory checks against the entry it holds). A path
/// the plan kept as it is becomes a write of the same bytes, mode or
/// target. Nothing is removed here.
///
/// Costs one probe (two lookups) per directory of such paths; nothing
/// more where directories do not fold.
pub(crate) fn respell<'s, R: Root + ?Sized>(
    root: &R,
    snapshot: &'s Snapshot,
    decisions: &mut [Decision<'s>],
) -> Vec<Respelled> {
    let mut folding = Folding::new(root);
    let mut respelled = Vec::new();
    for (index, d) in decisions.iter_mut().enumerate() {
        let mode = match (&d.now, &d.step) {
            (
                Some(Now::File { meta, .. } | Now::Symlink { meta, .. }),
                Step::Keep | Step::WriteFile { .. } | Step::WriteLink { .. },
            ) if d.captured => meta.mode,
            _ => continue,
        };
        let dir = d.path.parent();
        let folds = match folding.folds_at(&d.path) {
            Some(folds) => folds,
            None => folding.folds_in(dir.as_ref()),
        };
        if !folds {
            continue;
        }
        let name = d.path.file_name();
        let Some(disk) = folding.on_disk(dir.as_ref(), name).filter(|n| n != name) else {
            continue;
        };
        let Ok(held_as) = sibling(&d.path, &disk) else {
            continue;
        };
        if matches!(d.step, Step::Keep) {
            d.step = match (snapshot.links.get(&d.path), snapshot.entries.get(&d.path)) {
                (Some(target), _) => Step::WriteLink {
                    target,
                    replace_dir: false,
                },
                (None, Some(Some(bytes))) => Step::WriteFile {
                    bytes,
                    mode,
                    replace_dir: false,
                },
                _ => continue,
            };
        }
        respelled.push(Respelled { index, held_as });
    }
    respelled
}

/// After the writes: each respelled path that was written and that its
/// directory still lists under the old spelling (the filesystem kept the
/// replaced entry's name, as ext4's `casefold` does; APFS and NTFS take
/// the new one) is renamed to a temp name for the captured name, then to
/// the captured name: two renames, the restored content never removed.
/// Between them the directory holds it under the temp name only; a crash
/// there leaves the captured path missing and the content in that temp
/// file, which the next rollback of the snapshot sweeps away (it carries
/// the temp check of the captured name) before writing the path anew.
/// Returns the decisions (by index) whose renames failed; the first
/// failure leaves the restored content under the old spelling, a failure
/// of the second rename is undone when it can be.
pub(crate) fn give_names_back<R: Root + ?Sized>(
    root: &R,
    decisions: &[Decision<'_>],
    respelled: &[Respelled],
    written: impl Fn(&RelPath) -> bool,
) -> Vec<(usize, Error)> {
    let mut failed = Vec::new();
    for r in respelled {
        let Some(d) = decisions.get(r.index) else {
            continue;
        };
        if !written(&d.path) {
            continue;
        }
        if let Err(e) = give_name_back(root, &d.path, &r.held_as) {
            failed.push((r.index, e));
        }
    }
    failed
}

/// [`give_names_back`] for one path.
fn give_name_back<R: Root + ?Sized>(
    root: &R,
    captured: &RelPath,
    held_as: &RelPath,
) -> crate::Result<()> {
    let listed = root.read_dir(captured.parent().as_ref())?;
    if listed.iter().any(|n| n == captured.file_name())
        || !listed.iter().any(|n| n == held_as.file_name())
    {
        return Ok(());
    }
    let now = root.metadata(held_as)?;
    let expect = now.map_or(Expect::Absent, Expect::Same);
    let temp = sibling(captured, &temp_name(captured.file_name())?)?;
    root.rename_file(held_as, &temp, expect)?;
    if let Err(e) = root.rename_file(&temp, captured, Expect::Any) {
        let _ = root.rename_file(&temp, held_as, Expect::Any);
        return Err(e);
    }
    Ok(())
}

/// `name` in the directory of `path`.
fn sibling(path: &RelPath, name: &str) -> crate::Result<RelPath> {
    match path.parent() {
        Some(dir) => dir.join(name),
        None => RelPath::try_from(name.to_owned()),
    }
}
