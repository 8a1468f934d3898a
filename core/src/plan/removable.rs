//! Whether a directory rollback wants gone holds nothing to lose.

use super::decide::{Engine, Step};
use crate::error::Result;
use crate::relpath::RelPath;
use crate::root::{EntryKind, Root};

/// How many of the things a directory holds a refusal names.
const NAMED: usize = 5;

/// The answer of [`removable`].
pub(super) enum Removable {
    /// Nothing to lose: once the paths decided below it are gone, only
    /// these empty directories (deepest first) stand between it and empty.
    Yes(Vec<RelPath>),
    /// It holds these (the first few) that the snapshot does not cover, or
    /// that rollback leaves.
    No(Vec<String>),
}

/// Whether `dir` (a directory now) will be empty once every path decided
/// below it that goes has gone, counting directories that hold nothing but
/// empty directories as empty. Paths below `dir` are decided first (the
/// decision runs deepest first), so their steps are known.
pub(super) fn removable<R: Root + ?Sized>(
    engine: &mut Engine<'_, '_, R>,
    dir: &RelPath,
) -> Result<Removable> {
    let mut nested = Vec::new();
    let mut held = Vec::new();
    walk(engine, dir, &mut nested, &mut held)?;
    Ok(if held.is_empty() {
        Removable::Yes(nested)
    } else {
        Removable::No(held)
    })
}

fn walk<R: Root + ?Sized>(
    engine: &mut Engine<'_, '_, R>,
    dir: &RelPath,
    nested: &mut Vec<RelPath>,
    held: &mut Vec<String>,
) -> Result<()> {
    let mut names = engine.root.read_dir(Some(dir))?;
    names.sort();
    for name in names {
        if held.len() >= NAMED {
            return Ok(());
        }
        let Ok(child) = dir.join(&name) else {
            // A name no snapshot can hold is something to lose. Spelled
            // out: it may hold control characters a terminal would obey.
            held.push(format!("{}/{}", dir.as_str(), name.escape_debug()));
            continue;
        };
        if let Some(decision) = engine.decisions.get(&child) {
            if !matches!(decision.step, Step::RemoveFile | Step::RemoveDir) {
                held.push(child.to_string());
            }
            continue;
        }
        match engine.lstat(&child)?.map(|m| m.kind) {
            None => {}
            Some(EntryKind::Dir) => {
                let before = held.len();
                walk(engine, &child, nested, held)?;
                if held.len() == before {
                    nested.push(child);
                }
            }
            Some(_) => held.push(child.to_string()),
        }
    }
    Ok(())
}
