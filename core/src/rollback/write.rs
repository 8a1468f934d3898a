//! The write of one restored file or link, its missing parents made when
//! the write says one is missing: free of the run's bookkeeping, so that
//! writes can be carried out on more than one thread and their outcomes
//! settled in order on the calling one.

use crate::error::{Error, Result};
use crate::plan::decide::{Decision, Step};
use crate::relpath::RelPath;
use crate::root::{EntryKind, Root, WriteOptions};

/// What writing one path did.
pub(super) struct Written {
    /// The write's result.
    pub(super) result: Result<()>,
    /// Directories made for it, parents first.
    pub(super) made: Vec<RelPath>,
}

/// Writes `d` (a `WriteFile` or `WriteLink` step). The parents are looked
/// at only when the write says one is missing or not a directory: they are
/// there for almost every path, and the write itself is what finds out.
pub(super) fn write<R: Root + ?Sized>(root: &R, d: &Decision<'_>, durable: bool) -> Written {
    let mut made = Vec::new();
    let result = match write_once(root, d, durable) {
        // A missing parent, or one that is not a directory (a file, or a
        // symlink, which is never followed).
        Err(e) if e.is_missing_or_not_a_dir() => {
            ensure_parents(root, &d.path, &mut made).and_then(|()| write_once(root, d, durable))
        }
        result => result,
    };
    Written { result, made }
}

/// One attempt at the write of `d`, its parents as they are.
fn write_once<R: Root + ?Sized>(root: &R, d: &Decision<'_>, durable: bool) -> Result<()> {
    match &d.step {
        Step::WriteFile {
            bytes,
            mode,
            replace_dir,
        } => {
            let options = WriteOptions::new(*mode)
                .with_durable(durable)
                .with_expect(d.expect)
                .with_replace_empty_dir(*replace_dir);
            root.write_file(&d.path, bytes, &options)
        }
        Step::WriteLink {
            target,
            replace_dir,
        } => {
            let options = WriteOptions::new(0o777)
                .with_durable(durable)
                .with_expect(d.expect)
                .with_replace_empty_dir(*replace_dir);
            root.write_link(&d.path, target, &options)
        }
        _ => Ok(()),
    }
}

/// Makes the missing parents of `path`, recording each in `made`.
fn ensure_parents<R: Root + ?Sized>(
    root: &R,
    path: &RelPath,
    made: &mut Vec<RelPath>,
) -> Result<()> {
    for dir in path.ancestors() {
        match root.metadata(&dir)?.map(|m| m.kind) {
            Some(EntryKind::Dir) => {}
            None => match root.create_dir(&dir) {
                Ok(()) => made.push(dir),
                Err(e) => match root.metadata(&dir).ok().flatten().map(|m| m.kind) {
                    // Made a moment ago by a concurrent run (or by the write
                    // of a sibling on another thread): fine.
                    Some(EntryKind::Dir) => {}
                    // Something else put there a moment ago: not a
                    // directory, as a look a moment later says (the other
                    // thread, or a second run, reports just that).
                    Some(kind) => {
                        return Err(Error::NotADirectory {
                            path: path.to_string(),
                            parent: dir.to_string(),
                            kind: kind.describe().to_owned(),
                        })
                    }
                    None => return Err(e),
                },
            },
            Some(kind) => {
                return Err(Error::NotADirectory {
                    path: path.to_string(),
                    parent: dir.to_string(),
                    kind: kind.describe().to_owned(),
                })
            }
        }
    }
    Ok(())
}
