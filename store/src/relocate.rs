//! One checkpoint's tree carried from one backend to the other.
//!
//! Both backends hold the same checkpoint directory (STORE.md §2); they
//! differ only in the absolute in-tree paths of the root summary's
//! `sessions` (`/0/metadata.json` under git-refs,
//! `/a1/b2c3d4e5f6/0/metadata.json` on the branch). Relocating rewrites
//! those paths and keeps every other byte: each other entry keeps its hash,
//! and the summary keeps every other field (a summary that does not
//! re-encode to its own bytes is refused rather than changed).

use std::collections::BTreeMap;

use gix::objs::tree::Entry;
use gix::ObjectId;

use crate::backend::Place;
use crate::checkpoint::utf8;
use crate::documents::{CheckpointSummary, Document};
use crate::layout::METADATA_FILE;
use crate::objects::{self, blob_entry, corrupt, find, read_blob, read_tree, upsert, FileMode};
use agent_checkpoint::{Error, Result};

/// The root summary `bytes` of a checkpoint at `from`, with its session
/// paths moved to `to`.
///
/// # Errors
/// [`Error::Conflict`] for a summary that does not re-encode to its own
/// bytes (written by another tool, or with fields this version does not
/// know): relocating it would change more than its paths;
/// [`Error::CorruptObject`] for one that is not a summary.
pub(crate) fn summary_bytes(bytes: &[u8], from: &Place, to: &Place) -> Result<String> {
    let what = format!("checkpoint {}: metadata.json", from.id);
    let text = utf8(bytes, &what)?;
    let mut summary = CheckpointSummary::from_json(text, &what)?;
    if summary.to_go_json()? != text {
        return Err(Error::Conflict {
            what: format!("checkpoint {} in {}", from.id, from.backend),
            reason: "its metadata.json is not in the encoding this version writes, so moving it would change more than its session paths".to_owned(),
        });
    }
    let old = format!("/{}", from.prefix());
    let new = format!("/{}", to.prefix());
    for paths in summary.sessions.iter_mut().flatten() {
        for path in [
            &mut paths.metadata,
            &mut paths.transcript,
            &mut paths.compact_transcript,
            &mut paths.content_hash,
            &mut paths.prompt,
        ] {
            if let Some(rest) = path.strip_prefix(&old) {
                *path = format!("{new}{rest}");
            }
        }
    }
    summary.to_go_json()
}

/// The checkpoint tree `tree` (at `from`) as it sits at `to`: the root
/// summary relocated, every other entry as it is. Writes the new summary
/// blob and root tree.
///
/// # Errors
/// As [`summary_bytes`]; [`Error::CorruptObject`] for an unreadable tree.
pub(crate) fn tree(
    repo: &gix::Repository,
    tree: ObjectId,
    from: &Place,
    to: &Place,
) -> Result<ObjectId> {
    let what = format!("checkpoint {} in {}", from.id, from.backend);
    let mut entries = read_tree(repo, &tree, &what)?;
    let summary = find(&entries, METADATA_FILE)
        .filter(|e| !e.mode.is_tree())
        .ok_or_else(|| corrupt(&what, "it has no metadata.json"))?;
    let moved = summary_bytes(&read_blob(repo, &summary.oid, &what)?, from, to)?;
    let blob = objects::write_blob(repo, moved.as_bytes())?;
    upsert(
        &mut entries,
        blob_entry(METADATA_FILE, FileMode::Regular, blob),
    );
    objects::write_tree(repo, entries)
}

/// Every file of the checkpoint tree `tree`, by path, with its mode bits
/// and object.
pub(crate) fn files(
    repo: &gix::Repository,
    tree: ObjectId,
    what: &str,
) -> Result<BTreeMap<String, (u32, ObjectId)>> {
    let mut out = BTreeMap::new();
    let mut pending: Vec<(String, ObjectId)> = vec![(String::new(), tree)];
    while let Some((dir, oid)) = pending.pop() {
        for Entry {
            mode,
            filename,
            oid,
        } in read_tree(repo, &oid, what)?
        {
            let path = format!("{dir}{filename}");
            if mode.is_tree() {
                pending.push((format!("{path}/"), oid));
            } else {
                out.insert(path, (u32::from(mode.value()), oid));
            }
        }
    }
    Ok(out)
}

/// Why the checkpoint tree `copy` (at `to`) does not hold the same
/// documents as `original` (at `from`), reading and comparing every file
/// byte for byte (the root summary against its relocated bytes); `None`
/// when it does.
///
/// # Errors
/// As [`summary_bytes`] for the original's summary; `corrupt_object` for
/// a tree or blob that cannot be read.
pub(crate) fn difference(
    repo: &gix::Repository,
    original: ObjectId,
    from: &Place,
    copy: ObjectId,
    to: &Place,
) -> Result<Option<String>> {
    let what_from = format!("checkpoint {} in {}", from.id, from.backend);
    let what_to = format!("checkpoint {} in {}", to.id, to.backend);
    let want = files(repo, original, &what_from)?;
    let have = files(repo, copy, &what_to)?;
    for path in have.keys() {
        if !want.contains_key(path) {
            return Ok(Some(format!("{path} is in {} only", to.backend)));
        }
    }
    for (path, (mode, oid)) in &want {
        let Some((copy_mode, copy_oid)) = have.get(path) else {
            return Ok(Some(format!("{path} is missing from {}", to.backend)));
        };
        if mode != copy_mode {
            return Ok(Some(format!("{path} has mode {copy_mode:o}, not {mode:o}")));
        }
        let mut expected = read_blob(repo, oid, &what_from)?;
        if path == METADATA_FILE {
            expected = summary_bytes(&expected, from, to)?.into_bytes();
        }
        if read_blob(repo, copy_oid, &what_to)? != expected {
            return Ok(Some(format!("{path} differs")));
        }
    }
    Ok(None)
}

/// A commit message of a checkpoint at `from` as it reads at `to`: the
/// `Entire-Metadata-Task:` trailer's path moved, every other byte kept.
pub(crate) fn message(message: &str, from: &Place, to: &Place) -> String {
    const TASK: &str = "Entire-Metadata-Task: ";
    let mut out = String::with_capacity(message.len() + to.prefix().len());
    for line in message.split_inclusive('\n') {
        match line
            .strip_prefix(TASK)
            .and_then(|path| path.strip_prefix(from.prefix()))
        {
            Some(rest) => {
                out.push_str(TASK);
                out.push_str(to.prefix());
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
    }
    out
}
