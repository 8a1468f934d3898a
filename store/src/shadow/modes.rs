//! **\[ours\]** The full permission modes of the files a session's steps
//! took. A git tree says only "executable or not" (`100644` / `100755`),
//! so a file taken at `0600` or `0700` would come back from a rewind with
//! a guessed mode. Each step therefore keeps, in its session's metadata
//! directory, `.entire/metadata/<session>/modes.json`: every file the
//! session's steps took so far, path -> permission bits (`{"a.py": 384}`),
//! updated by each step (a file taken again gets its new mode, a file gone
//! or no longer a regular file leaves the map). A rewind restores the mode
//! the chosen step recorded; a file it holds no mode for (taken before this
//! file existed, or never taken by the session) keeps its current mode with
//! the executable bits the tree says.

use std::collections::BTreeMap;

use gix::ObjectId;

use super::diff::{entry_at, Leaf};
use super::metadata_dir;
use crate::objects::{self, git_error};
use agent_checkpoint::Result;

/// The file's name in a session's metadata directory.
pub(crate) const MODES_FILE: &str = "modes.json";

/// Path -> permission bits (`mode & 0o7777`).
pub(crate) type Modes = BTreeMap<String, u32>;

/// What a step found at each path it took: `Some(mode)` for a regular
/// file, `None` for anything else (absent, a directory, a link, a special
/// file).
pub(crate) type Taken = BTreeMap<String, Option<u32>>;

/// The in-tree path of session `session_id`'s modes file.
pub(crate) fn modes_path(session_id: &str) -> String {
    format!("{}/{MODES_FILE}", metadata_dir(session_id))
}

/// The modes session `session_id` recorded in `tree`; `None` when the tree
/// has no modes file for it (or one this build cannot read: a rewind then
/// keeps current modes, as before there was such a file).
pub(crate) fn read(
    repo: &gix::Repository,
    tree: Option<ObjectId>,
    session_id: &str,
) -> Result<Option<Modes>> {
    let Some(tree) = tree else {
        return Ok(None);
    };
    let path = modes_path(session_id);
    let Some(Leaf::Blob { oid, .. }) = entry_at(repo, tree, &path)? else {
        return Ok(None);
    };
    let bytes = objects::read_blob(repo, &oid, &path)?;
    Ok(serde_json::from_slice::<Modes>(&bytes)
        .ok()
        .map(|mut modes| {
            modes.retain(|_, mode| *mode <= 0o7777);
            modes
        }))
}

/// `previous` updated with what a step took: a file's new mode, and no
/// entry for a path (or anything below it) that is no longer a file.
pub(crate) fn update(previous: Option<Modes>, taken: &Taken) -> Modes {
    let mut modes = previous.unwrap_or_default();
    for (path, mode) in taken {
        match mode {
            Some(mode) => {
                modes.insert(path.clone(), mode & 0o7777);
            }
            None => {
                modes.remove(path);
                let below = format!("{path}/");
                modes.retain(|p, _| !p.starts_with(&below));
            }
        }
    }
    modes
}

/// Writes `modes` as a blob (compact JSON, sorted by path).
pub(crate) fn write(repo: &gix::Repository, modes: &Modes) -> Result<ObjectId> {
    let text = serde_json::to_vec(modes).map_err(|e| git_error("encoding a step's modes", e))?;
    objects::write_blob(repo, &text)
}

/// The paths whose recorded mode differs between `old` and `new` (a mode
/// change alone changes no tree entry git can see).
pub(crate) fn changed(old: Option<&Modes>, new: Option<&Modes>) -> Vec<String> {
    let empty = Modes::new();
    let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    let mut paths: Vec<String> = new
        .iter()
        .filter(|(path, mode)| old.get(*path).is_some_and(|m| m != *mode))
        .map(|(path, _)| path.clone())
        .collect();
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_replaces_and_removes() {
        let mut previous = Modes::new();
        previous.insert("a".into(), 0o600);
        previous.insert("d/x".into(), 0o640);
        previous.insert("dx".into(), 0o644);
        let mut taken = Taken::new();
        taken.insert("a".into(), Some(0o100_700));
        taken.insert("d".into(), None);
        let modes = update(Some(previous), &taken);
        assert_eq!(modes.get("a"), Some(&0o700));
        assert_eq!(modes.get("d/x"), None);
        assert_eq!(modes.get("dx"), Some(&0o644));
    }

    #[test]
    fn changed_lists_mode_changes_only() {
        let old: Modes = [("a".to_owned(), 0o600), ("b".to_owned(), 0o644)].into();
        let new: Modes = [
            ("a".to_owned(), 0o640),
            ("b".to_owned(), 0o644),
            ("c".to_owned(), 0o600),
        ]
        .into();
        assert_eq!(changed(Some(&old), Some(&new)), ["a"]);
    }
}
