//! The Windows side of [`CapRoot`](super::CapRoot), where the POSIX model
//! does not map one to one:
//!
//! - modes: a file's only permission is the read-only attribute; it reads
//!   as `0o444` (read-only) or `0o644`, a directory as `0o755`, a link as
//!   `0o777`. A written file is read-only when `mode` has no write bit;
//!   other bits (executable, set-id) recorded by a POSIX capture stay in
//!   the snapshot and are not applied;
//! - change stamp: size, attributes, creation and last-write times;
//! - links: created as file symlinks (directory symlinks when the target
//!   is a directory now), with `\` for `/`, where the process may (developer
//!   mode or the privilege); their text is read back with `/`;
//! - a file another process holds open without delete sharing cannot be
//!   replaced or removed: the rename is retried with a bounded backoff
//!   ([`retry_busy`]).

use std::io;
use std::path::PathBuf;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, MetadataExt, OpenOptions};

use super::kind_of;
use crate::root::{EntryKind, Metadata};

/// A hash of what changes whenever an entry does, as far as Windows says:
/// size, attributes, creation and last-write times (100 ns units).
fn stamp_of(m: &cap_std::fs::Metadata) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        m.len(),
        m.file_attributes(),
        m.creation_time(),
        m.last_write_time(),
    )
        .hash(&mut h);
    h.finish()
}

/// The root's view of a platform's metadata (modes as the module says).
pub(super) fn metadata_of(m: &cap_std::fs::Metadata) -> Metadata {
    let kind = kind_of(m);
    let mode = match kind {
        EntryKind::Dir => 0o755,
        EntryKind::Symlink => 0o777,
        _ if m.permissions().readonly() => 0o444,
        _ => 0o644,
    };
    Metadata::new(kind, m.len(), mode).with_stamp(stamp_of(m))
}

/// Makes a written file read-only when `mode` has no write bit.
pub(super) fn set_mode(file: &std::fs::File, mode: u32) -> io::Result<()> {
    let readonly = mode & 0o222 == 0;
    let mut permissions = file.metadata()?.permissions();
    if permissions.readonly() != readonly {
        permissions.set_readonly(readonly);
        file.set_permissions(permissions)?;
    }
    Ok(())
}

/// How a temp file is created: new, never through a link.
pub(super) fn temp_options() -> OpenOptions {
    let mut open = OpenOptions::new();
    open.write(true).create_new(true).follow(FollowSymlinks::No);
    open
}

/// Creates the symlink `name` in `parent` pointing at `target` (`/`
/// written as `\`), then looks: a platform that reports the link made
/// without making it (Wine 8's `CreateSymbolicLinkW`) is an `Unsupported`
/// error, never a link reported restored that is not there.
pub(super) fn create_link(parent: &Dir, target: &str, name: &str) -> io::Result<()> {
    let native = target.replace('/', "\\");
    if parent.metadata(&native).is_ok_and(|m| m.is_dir()) {
        parent.symlink_dir(&native, name)?;
    } else {
        parent.symlink_file(&native, name)?;
    }
    match parent.symlink_metadata(name) {
        Ok(m) if m.file_type().is_symlink() => Ok(()),
        _ => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the system reported the symlink created but none is there",
        )),
    }
}

/// A link's text as the snapshot keeps it (`\` read as `/`).
pub(super) fn link_text(target: PathBuf) -> Option<String> {
    target
        .into_os_string()
        .into_string()
        .ok()
        .map(|t| t.replace('\\', "/"))
}

/// How many times a rename or removal another process blocks is tried, and
/// the first pause (doubled each time: 10 + 20 + ... + 640 ms, about 1.3 s).
const BUSY_TRIES: u32 = 8;
const BUSY_FIRST_PAUSE_MS: u64 = 10;

/// Whether `e` says another process holds the file (a sharing or lock
/// violation: an editor, an indexer, an antivirus scanner).
fn is_busy(e: &io::Error) -> bool {
    // ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION.
    matches!(e.raw_os_error(), Some(32 | 33))
}

/// Runs `op` until it is not refused as busy, at most [`BUSY_TRIES`] times.
pub(super) fn retry_busy<T>(mut op: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let mut pause = BUSY_FIRST_PAUSE_MS;
    for _ in 1..BUSY_TRIES {
        match op() {
            Err(e) if is_busy(&e) => {
                std::thread::sleep(std::time::Duration::from_millis(pause));
                pause *= 2;
            }
            other => return other,
        }
    }
    op()
}

/// An absolute path as a root's prefix and a snapshot's `root`: the
/// verbatim prefix `canonicalize` gives dropped (`\\?\C:\p` is `C:\p`,
/// `\\?\UNC\server\share` is `\\server\share`), no trailing separator.
pub(super) fn plain_path(path: &str) -> String {
    let plain = if let Some(unc) = path.strip_prefix(r"\\?\UNC\") {
        format!(r"\\{unc}")
    } else {
        path.strip_prefix(r"\\?\").unwrap_or(path).to_owned()
    };
    let trimmed = plain.trim_end_matches(['\\', '/']);
    // A drive's root keeps its separator (`C:\`).
    if trimmed.len() == 2 && trimmed.ends_with(':') {
        format!("{trimmed}\\")
    } else {
        trimmed.to_owned()
    }
}
