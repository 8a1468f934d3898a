//! Rollback: a restored path gets its captured name back.

use super::probe::Folding;
use crate::error::Error;
use crate::observe::Now;
use crate::plan::decide::{Decision, Step};
use crate::relpath::RelPath;
use crate::root::{Expect, Root};
use crate::snapshot::Snapshot;

/// Before the writes of a rollback: every captured file or link that ends
/// up present, that is there now, and whose directory folds names but
/// holds it under another spelling (the batch renamed `a.txt` to `A.txt`)
/// is removed under that spelling (with the decision's guard) and written
/// anew under the captured one. A path the plan kept as it is becomes a
/// write of the same bytes, mode or target. Returns the decisions (by
/// index) whose removal failed: they are left as they are and reported.
///
/// Costs one probe (two lookups) per directory of such paths; nothing
/// more where directories do not fold.
pub(crate) fn respell<'s, R: Root + ?Sized>(
    root: &R,
    snapshot: &'s Snapshot,
    decisions: &mut [Decision<'s>],
) -> Vec<(usize, Error)> {
    let mut folding = Folding::new(root);
    let mut failed = Vec::new();
    for (i, d) in decisions.iter_mut().enumerate() {
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
        let wrong = match &dir {
            Some(dir) => dir.join(&disk),
            None => RelPath::try_from(disk),
        };
        let Ok(wrong) = wrong else {
            continue;
        };
        let was_keep = matches!(d.step, Step::Keep);
        let write = match (
            &d.step,
            snapshot.links.get(&d.path),
            snapshot.entries.get(&d.path),
        ) {
            (Step::Keep, Some(target), _) => Step::WriteLink {
                target,
                replace_dir: false,
            },
            (Step::Keep, None, Some(Some(bytes))) => Step::WriteFile {
                bytes,
                mode,
                replace_dir: false,
            },
            (Step::Keep, _, _) => continue,
            _ => std::mem::replace(&mut d.step, Step::Keep),
        };
        if let Err(e) = root.remove_file(&wrong, d.expect) {
            // Left as it is (a write still restores the bytes, under the
            // spelling there), and reported.
            if !was_keep {
                d.step = write;
            }
            failed.push((i, e));
            continue;
        }
        d.step = write;
        folding.forget_listing(dir.as_ref());
        if d.expect != Expect::Any {
            d.expect = Expect::Absent;
        }
    }
    failed
}
