//! The POSIX side of [`CapRoot`](super::CapRoot): permission bits as they
//! are, a change stamp from inode and change times, links as their text.

use std::io;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, MetadataExt, OpenOptions, OpenOptionsExt};
use std::os::unix::fs::PermissionsExt as _;

use super::kind_of;
use crate::root::Metadata;

/// A hash of what changes whenever an entry does: device, inode, size,
/// mode, and modification and status-change times to the nanosecond.
fn stamp_of(m: &cap_std::fs::Metadata) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        m.dev(),
        m.ino(),
        m.len(),
        m.mode(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    )
        .hash(&mut h);
    h.finish()
}

/// The root's view of a platform's metadata.
pub(super) fn metadata_of(m: &cap_std::fs::Metadata) -> Metadata {
    Metadata::new(kind_of(m), m.len(), m.mode() & 0o7777).with_stamp(stamp_of(m))
}

/// Sets the permission bits of a written file (`mode & 0o7777`).
pub(super) fn set_mode(file: &std::fs::File, mode: u32) -> io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))
}

/// How a temp file is created: new, private until its mode is set, never
/// through a link.
pub(super) fn temp_options() -> OpenOptions {
    let mut open = OpenOptions::new();
    open.write(true)
        .create_new(true)
        .mode(0o600)
        .follow(FollowSymlinks::No);
    open
}

/// Creates the symlink `name` in `parent` holding `target` as its text.
pub(super) fn create_link(parent: &Dir, target: &str, name: &str) -> io::Result<()> {
    parent.symlink_contents(target, name)
}

/// A link's text as the snapshot keeps it (`None`: not UTF-8).
pub(super) fn link_text(target: std::path::PathBuf) -> Option<String> {
    target.into_os_string().into_string().ok()
}

/// Runs `op` once (nothing blocks a rename here).
pub(super) fn retry_busy<T>(op: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    op()
}

/// An absolute path as a root's prefix: without a trailing `/`.
pub(super) fn plain_path(path: &str) -> String {
    path.trim_end_matches('/').to_owned()
}
