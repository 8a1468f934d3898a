//! The `redo` snapshot: the captured paths as they are just before rollback,
//! built from what the decision already read (no path is read twice, and
//! the bytes read are moved into it, not copied). Its text is made only
//! when asked for ([`Redo`]).

use super::{NotInRedo, Redo};
use crate::capture::created_dirs;
use crate::error::{Error, ErrorCode};
use crate::observe::Now;
use crate::plan::decide::{Decided, Step};
use crate::root::Root;
use crate::seal::{SealKey, Sealer};
use crate::snapshot::validate::check_link_target;
use crate::snapshot::{Index, Snapshot};

/// Builds the redo snapshot, and says which paths it cannot carry and why.
pub(super) fn build<R: Root + ?Sized>(
    root: &R,
    original: &Snapshot,
    decided: &mut Decided<'_>,
    key: Option<&SealKey>,
) -> (Option<Redo>, Vec<NotInRedo>) {
    let mut redo = Snapshot::default();
    let mut left_out = Vec::new();
    let mut leave_out = |path: &str, code: ErrorCode, reason: String| {
        left_out.push(NotInRedo {
            path: path.to_owned(),
            code,
            reason,
        })
    };
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for d in decided.decisions.iter_mut().filter(|d| d.captured) {
        let path = &d.path;
        match &mut d.now {
            Some(Now::Absent) => {
                redo.entries.insert(path.clone(), None);
            }
            Some(Now::File {
                meta,
                bytes: bytes @ Some(_),
                ..
            }) => {
                // The decision is done with them: moved, not copied.
                redo.modes.insert(path.clone(), meta.mode);
                files.push((path.clone(), bytes.take().unwrap_or_default()));
            }
            Some(Now::File {
                readable: false, ..
            }) => leave_out(
                path.as_str(),
                ErrorCode::PermissionDenied,
                "a file this process may not read".into(),
            ),
            Some(Now::File { meta, .. }) => leave_out(
                path.as_str(),
                ErrorCode::TooLarge,
                format!(
                    "a file of {} bytes, over the limit of what is read into memory (max_file_bytes)",
                    meta.len
                ),
            ),
            Some(Now::Symlink { target: None, .. }) => leave_out(
                path.as_str(),
                ErrorCode::PathEscapesRoot,
                "a symlink whose target the host will not reveal (an absolute target)".into(),
            ),
            Some(Now::Symlink {
                target: Some(target),
                ..
            }) => match check_link_target(path, target, true) {
                Ok(()) => {
                    redo.links.insert(path.clone(), target.clone());
                }
                Err(e) => leave_out(
                    path.as_str(),
                    e.code(),
                    format!("a symlink to {target:?}, which a snapshot cannot hold: {e}"),
                ),
            },
            Some(Now::Dir(_)) => dirs.push(path.clone()),
            Some(Now::Other(_)) => leave_out(
                path.as_str(),
                ErrorCode::NotAFile,
                "a special file (fifo, socket or device)".into(),
            ),
            None => match &d.step {
                Step::Refuse(e) => leave_out(
                    path.as_str(),
                    e.code(),
                    format!("it cannot be looked at: {e}"),
                ),
                _ => leave_out(
                    path.as_str(),
                    ErrorCode::NotADirectory,
                    "it cannot be looked at (a parent is not a directory)".into(),
                ),
            },
        }
    }
    // Digests are left to the encoding, when the text is asked for.
    for (path, bytes) in files {
        redo.entries.insert(path, Some(bytes));
    }
    // A directory at a captured path (a type flip) is "no file here": a
    // `null` entry, kept as a directory because it holds captured files.
    // One that holds nothing the redo captures cannot be expressed.
    for dir in dirs {
        if Index::new(&redo).holds_content(&dir) {
            redo.entries.insert(dir, None);
        } else {
            leave_out(
                dir.as_str(),
                ErrorCode::NotAFile,
                "a directory, which a snapshot can only hold as the parent of captured files"
                    .into(),
            );
        }
    }
    let missing: Vec<_> = redo
        .entries
        .iter()
        .filter(|(_, c)| c.is_none())
        .map(|(p, _)| p.clone())
        .collect();
    match created_dirs(root, missing.iter(), None) {
        Ok(dirs) => redo.created_dirs = dirs,
        Err(e) => return (None, everything(original, &e)),
    }
    // A directory the batch removed may hold captured files again after a
    // type flip; the format cannot express both, so such a dir is not pruned.
    let index = Index::new(&redo);
    let occupied: Vec<_> = redo
        .created_dirs
        .iter()
        .filter(|d| index.holds_content(d))
        .cloned()
        .collect();
    for dir in occupied {
        redo.created_dirs.remove(&dir);
    }
    redo.root = root.canonical_path();
    if let Err(e) = crate::snapshot::validate::validate(&redo, true) {
        return (None, everything(original, &e));
    }
    let sealer = match key.map(Sealer::new).transpose() {
        Ok(sealer) => sealer,
        Err(e) => return (None, everything(original, &e)),
    };
    (Some(Redo::new(redo, sealer)), left_out)
}

/// Every path left out, when no redo could be made at all.
fn everything(original: &Snapshot, error: &Error) -> Vec<NotInRedo> {
    original
        .paths()
        .into_iter()
        .map(|path| NotInRedo {
            path,
            code: error.code(),
            reason: format!("no redo could be made: {error}"),
        })
        .collect()
}
