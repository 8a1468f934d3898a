//! The parts of [`super::CapRoot`] that Linux does with its own calls
//! (`linux.rs`), done here with cap-std alone for every other system.

use std::io;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};

use super::is_temp_for;
use crate::relpath::RelPath;

/// The canonical path of the opened directory: not known without `/proc`.
pub(super) fn canonical_of(_dir: &Dir) -> Option<std::path::PathBuf> {
    None
}

/// Opens `path`'s last component inside its opened parent for reading:
/// never through a symlink, never blocking on a FIFO swapped in since it
/// was looked at, never making a terminal the controlling one.
pub(super) fn open_in(parent: &Dir, path: &RelPath) -> io::Result<std::fs::File> {
    // As `open_regular` does here: the name was just seen to be a file.
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    Ok(parent.open_with(path.file_name(), &options)?.into_std())
}

/// Keeps the replaced file's owner: left to the platform here (no `fchown`).
pub(super) fn keep_owner(_file: &std::fs::File, _found: Option<&cap_std::fs::Metadata>) {}

/// The names in `dir` that are temp files of ours for one of `names`.
pub(super) fn temps_in(dir: &Dir, names: &[&str]) -> io::Result<Vec<String>> {
    let mut temps = Vec::new();
    for entry in dir.entries()? {
        let name = entry?.file_name();
        if let Some(name) = name.to_str().filter(|n| is_temp_for(n, names)) {
            temps.push(name.to_owned());
        }
    }
    Ok(temps)
}

/// Whether an error is ELOOP: never told apart here.
pub(super) fn is_loop(_e: &io::Error) -> bool {
    false
}

/// Whether paths are resolved with `openat2` (Linux with a kernel that has
/// it), rather than by the portable walk of one `O_NOFOLLOW` open per
/// component. Set `AGENT_CHECKPOINT_PORTABLE_WALK=1` to force the walk.
pub fn resolves_with_openat2() -> bool {
    false
}
