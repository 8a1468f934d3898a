//! The keeper's root records: `<git-common-dir>/entire-mcp-roots/<checkpoint id>`
//! holds the working tree's resolved path, a newline and the root's path
//! relative to it (see [`crate::keeper`]).
//!
//! The common dir is opened once as a capability and everything below it
//! is reached through it without following a symlink: a symlink (or
//! anything but a directory) at `entire-mcp-roots` is refused, a record is
//! written to a new temp file (`O_EXCL`, never through a symlink, `0600`
//! whatever the umask) renamed over its name, so a symlink planted there
//! is replaced, never written through; a record is read only when it is a
//! regular file (opened without blocking: a FIFO planted there is nobody's).

use std::io::{Read as _, Write as _};
use std::path::Path;

use agent_checkpoint::root::temp::temp_name;
use agent_checkpoint::{Error, Result};
use agent_checkpoint_store::Store;
use cap_fs_ext::{DirExt as _, FollowSymlinks, OpenOptionsFollowExt as _};
use cap_std::fs::{Dir, OpenOptions};

/// The directory (in the git common dir) of the keeper's root records.
pub(crate) const ROOTS_DIR: &str = "entire-mcp-roots";

/// The largest record read (a path and a relative path).
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// Where the record of checkpoint `id` is (for messages and tests).
pub(crate) fn record_path(store: &Store, id: &str) -> std::path::PathBuf {
    store.common_dir().join(ROOTS_DIR).join(id)
}

/// What a root record holds for the root `rel` of `store`'s working tree:
/// the working tree's resolved path, a newline, `rel`.
pub(crate) fn record_text(store: &Store, rel: &str) -> Option<Vec<u8>> {
    let work_dir = std::fs::canonicalize(store.work_dir()?).ok()?;
    let mut text = work_dir.to_str()?.as_bytes().to_vec();
    text.push(b'\n');
    text.extend_from_slice(rel.as_bytes());
    Some(text)
}

/// Records that checkpoint `id` (a valid checkpoint ID) was captured under
/// the root `rel`.
///
/// # Errors
/// An I/O error (with the record's path) when the common dir cannot be
/// opened, `entire-mcp-roots` is a symlink or not a directory, or the
/// record cannot be written.
pub(crate) fn record_root(store: &Store, id: &str, rel: &str) -> Result<()> {
    let path = record_path(store, id);
    let io = |e: std::io::Error| Error::io(path.display().to_string(), e);
    let text = record_text(store, rel).ok_or_else(|| {
        io(std::io::Error::other(
            "the working tree's path cannot be resolved",
        ))
    })?;
    let roots = roots_dir(store.common_dir(), true).map_err(io)?;
    let temp = temp_name(id)?;
    let written = write_new(&roots, &temp, &text).and_then(|()| roots.rename(&temp, &roots, id));
    if written.is_err() {
        // Ours (created new): it must not linger.
        let _ = roots.remove_file(&temp);
    }
    written.map_err(io)
}

/// The record of checkpoint `id`, when there is one that is a regular file
/// reached without following a symlink.
pub(crate) fn read_record(store: &Store, id: &str) -> Option<Vec<u8>> {
    let roots = roots_dir(store.common_dir(), false).ok()?;
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    // A FIFO at the name must not block the open (every listing reads the
    // records), nor a terminal become the controlling one.
    #[cfg(unix)]
    cap_std::fs::OpenOptionsExt::custom_flags(
        &mut options,
        (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32,
    );
    let file = roots.open_with(id, &options).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// `entire-mcp-roots` in `common_dir`, opened without following a symlink
/// (created, owner-only, when `create` and it is missing).
fn roots_dir(common_dir: &Path, create: bool) -> std::io::Result<Dir> {
    let common = Dir::open_ambient_dir(common_dir, cap_std::ambient_authority())?;
    if create {
        #[cfg_attr(not(unix), allow(unused_mut))]
        let mut builder = cap_std::fs::DirBuilder::new();
        #[cfg(unix)]
        cap_std::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match common.create_dir_with(ROOTS_DIR, &builder) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
    }
    common
        .open_dir_nofollow(ROOTS_DIR)
        .map_err(|e| match common.symlink_metadata(ROOTS_DIR) {
            Ok(m) if !m.is_dir() => std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{ROOTS_DIR} is a symlink or not a directory (never followed)"),
            ),
            _ => e,
        })
}

/// Writes the new file `name` (never an existing one, never through a
/// symlink) in `dir` with `bytes`, mode `0600` whatever the umask.
fn write_new(dir: &Dir, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .follow(FollowSymlinks::No);
    #[cfg(unix)]
    cap_std::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = dir.open_with(name, &options)?;
    #[cfg(unix)]
    {
        use cap_std::fs::PermissionsExt as _;
        file.set_permissions(cap_std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.sync_all()
}
