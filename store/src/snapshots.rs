//! **\[ours\]** Undo snapshots: the core's capture snapshot of a batch, kept
//! byte for byte and named by a commit under the local-only ref
//! `refs/entire/snapshots/<shard>/<id>`.
//!
//! The snapshot holds the files as they were before the batch (possibly
//! secrets: a git-ignored `0600` `.env`), so its bytes never enter git's
//! object database, whose loose objects and packs are `0444` under `0755`
//! directories (and `git gc` repacks whatever is there). They are kept in
//! the file `<git-common-dir>/entire-snapshots/<sha256>.json` (directory
//! `0700`, file `0600`, written to a temp file of the same mode, fsynced
//! and renamed; in a repository with `core.sharedRepository` the shared
//! modes of `sharing`). The snapshot commit's tree holds only
//! `snapshot.sha256`, the lowercase hex SHA-256 of the bytes, which the
//! read checks. A snapshot commit written before this layout (a
//! `snapshot.json` blob in its tree) still reads.
//!
//! The snapshot never enters a checkpoint tree and its ref is outside every
//! refspec the store pushes or fetches. A later write with a snapshot
//! chains a new commit on the old one. The session metadata that came with
//! it names its SHA-256 (`snapshot_sha256`).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use gix::ObjectId;
use sha2::{Digest, Sha256};

use crate::nofollow::{Create, Dir};
use crate::objects::{self, blob_entry, corrupt, FileMode};
use crate::sharing::Sharing;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_naming::id::{shard_for, CheckpointId};

/// Namespace of the undo-snapshot refs.
pub const SNAPSHOT_REF_PREFIX: &str = "refs/entire/snapshots/";

/// The file that held the snapshot in a snapshot commit's tree before
/// the bytes moved out of the object database (still read).
pub const SNAPSHOT_FILE: &str = "snapshot.json";

/// The file naming the snapshot's bytes (their SHA-256) in a snapshot
/// commit's tree.
pub const SNAPSHOT_POINTER: &str = "snapshot.sha256";

/// The directory (in the git common dir) holding the snapshots' bytes.
pub const SNAPSHOT_DIR: &str = "entire-snapshots";

/// Where the bytes of the snapshot with SHA-256 `sha` are kept.
pub fn snapshot_path(common_dir: &Path, sha: &str) -> PathBuf {
    common_dir.join(SNAPSHOT_DIR).join(format!("{sha}.json"))
}

/// The snapshot ref of a checkpoint: `refs/entire/snapshots/<shard>/<id>`.
pub fn snapshot_ref(id: &CheckpointId) -> String {
    format!(
        "{SNAPSHOT_REF_PREFIX}{}/{}",
        shard_for(id.as_str()),
        id.as_str()
    )
}

/// Lowercase hex SHA-256 of the snapshot text.
pub fn snapshot_sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Keeps `text` in its private file and writes the tree
/// `{snapshot.sha256}` naming it (once per write).
pub(crate) fn write_tree(
    repo: &gix::Repository,
    common_dir: &Path,
    text: &str,
) -> Result<ObjectId> {
    let sha = snapshot_sha256(text);
    keep_bytes(common_dir, crate::sharing::of(repo), &sha, text.as_bytes())?;
    let blob = objects::write_blob(repo, format!("{sha}\n").as_bytes())?;
    objects::write_tree(
        repo,
        vec![blob_entry(SNAPSHOT_POINTER, FileMode::Regular, blob)],
    )
}

// The file is named by its content, so one that exists and reads back
// with that hash is already right. The directory and its files are never
// used through a symlink, nor a FIFO (crate::nofollow): nothing is written
// outside the repository whatever another member of a shared repository
// plants there.
fn keep_bytes(common_dir: &Path, sharing: Sharing, sha: &str, bytes: &[u8]) -> Result<()> {
    let path = snapshot_path(common_dir, sha);
    let dir = path.parent().unwrap_or(common_dir);
    let io = |p: &Path, e: std::io::Error| Error::io(p.display().to_string(), e);
    let dir_fd = match Dir::open(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            sharing.create_dir(dir).map_err(|e| io(dir, e))?;
            Dir::open(dir)
        }
        other => other,
    }
    .map_err(|e| io(dir, e))?;
    let name = format!("{sha}.json");
    if read_in(&dir_fd, &name).is_ok_and(|b| snapshot_sha256_bytes(&b) == sha) {
        return Ok(());
    }
    let temp = format!(".{sha}.{}.tmp", random_hex()?);
    let written = (|| {
        let mut file = dir_fd.open_file(&temp, true, Create::New, sharing)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        dir_fd.rename(&temp, &name)?;
        dir_fd.sync()
    })();
    if let Err(e) = written {
        let _ = dir_fd.remove(&temp);
        return Err(io(&path, e));
    }
    Ok(())
}

fn read_in(dir: &Dir, name: &str) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    dir.open_file(name, false, Create::No, Sharing::Private)?
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

// A regular file, never through a symlink, never a FIFO.
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Err(std::io::ErrorKind::InvalidInput.into());
    };
    read_in(&Dir::open(dir)?, name)
}

fn snapshot_sha256_bytes(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn random_hex() -> Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| Error::Io {
        path: None,
        error: std::io::Error::other(format!("system random source failed: {e}")),
    })?;
    Ok(hex::encode(bytes))
}

/// The snapshot text stored under `ref_name`, if the ref exists.
///
/// # Errors
/// [`agent_checkpoint::Error::CorruptObject`] when the ref's commit or tree
/// cannot be read, the bytes it names are missing or do not have its
/// SHA-256, or they are not UTF-8.
pub(crate) fn read(
    repo: &gix::Repository,
    common_dir: &Path,
    ref_name: &str,
) -> Result<Option<String>> {
    let Some(tip) = crate::ref_update::read_tip(repo, ref_name)? else {
        return Ok(None);
    };
    let what = format!("undo snapshot {ref_name:?}");
    let tree = objects::commit_tree(repo, &tip, &what)?;
    let entries = objects::read_tree(repo, &tree, &what)?;
    let bytes = if let Some(pointer) = objects::find(&entries, SNAPSHOT_POINTER) {
        let named = objects::read_blob(repo, &pointer.oid, &what)?;
        let sha = String::from_utf8_lossy(&named).trim().to_owned();
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(corrupt(&what, "snapshot.sha256 is not a SHA-256"));
        }
        let path = snapshot_path(common_dir, &sha);
        let bytes = read_file(&path).map_err(|e| {
            corrupt(
                &what,
                format!("its bytes ({}) cannot be read: {e}", path.display()),
            )
        })?;
        if snapshot_sha256_bytes(&bytes) != sha {
            return Err(corrupt(
                &what,
                format!("{} does not have its SHA-256", path.display()),
            ));
        }
        bytes
    } else {
        let entry = objects::find(&entries, SNAPSHOT_FILE)
            .ok_or_else(|| corrupt(&what, "its tree has no snapshot.sha256"))?;
        objects::read_blob(repo, &entry.oid, &what)?
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| corrupt(&what, "the snapshot is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let id = agent_checkpoint_naming::id::validate_checkpoint_id("a1b2c3d4e5f6").unwrap();
        assert_eq!(snapshot_ref(&id), "refs/entire/snapshots/f6/a1b2c3d4e5f6");
        assert_eq!(snapshot_sha256("").len(), 64);
    }
}
