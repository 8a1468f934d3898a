//! The parts of [`super::CapRoot`] that use Linux's own calls: `/proc`
//! names of descriptors, `openat` with `O_NONBLOCK | O_NOCTTY`, `fchown`,
//! one `getdents64` listing, `ELOOP`, and whether `openat2` is in use.
//! `portable.rs` holds the same functions for every other system.

use std::io;

use cap_std::fs::Dir;

use super::is_temp_for;
use crate::relpath::RelPath;

/// The canonical path of the opened directory, as the kernel names its
/// descriptor (one `readlink` of `/proc/self/fd/N`, where `canonicalize`
/// makes one per component of the path); `None` without `/proc`, or when
/// the kernel's name is not a plain absolute path (a deleted or
/// unreachable directory).
pub(super) fn canonical_of(dir: &Dir) -> Option<std::path::PathBuf> {
    use std::os::fd::{AsFd as _, AsRawFd as _};
    let named = std::fs::read_link(format!("/proc/self/fd/{}", dir.as_fd().as_raw_fd())).ok()?;
    let plain = named.is_absolute()
        && !named
            .to_str()
            .is_some_and(|s| s.ends_with(" (deleted)") || s.starts_with("(unreachable)"));
    plain.then_some(named)
}

/// Opens `path`'s last component inside its opened parent for reading:
/// never through a symlink, never blocking on a FIFO swapped in since it
/// was looked at, never making a terminal the controlling one.
pub(super) fn open_in(parent: &Dir, path: &RelPath) -> io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    // One component (no `/`, never `..`: a RelPath's), relative to the
    // parent handle: it cannot leave that directory.
    let fd = rustix::fs::openat(parent, path.file_name(), flags, Mode::empty())?;
    Ok(std::fs::File::from(fd))
}

/// Gives the new file the owner and group of the regular file it replaces,
/// where the process may (as root, or when they are its own already); a
/// refusal changes nothing. Set-id bits are cleared by a chown, so the mode
/// is set again afterwards.
pub(super) fn keep_owner(file: &std::fs::File, found: Option<&cap_std::fs::Metadata>) {
    let Some(old) = found.filter(|m| m.is_file()) else {
        return;
    };
    let Ok(new) = file.metadata() else { return };
    use cap_std::fs::MetadataExt as _;
    use std::os::unix::fs::MetadataExt as _;
    use std::os::unix::fs::PermissionsExt as _;
    if (new.uid(), new.gid()) == (old.uid(), old.gid()) {
        return;
    }
    let owner = rustix::fs::Uid::from_raw(old.uid());
    let group = rustix::fs::Gid::from_raw(old.gid());
    if rustix::fs::fchown(file, Some(owner), Some(group)).is_ok() {
        let _ = file.set_permissions(std::fs::Permissions::from_mode(new.mode() & 0o7777));
    }
}

/// The names in `dir` that are temp files of ours for one of `names`.
/// On Linux one `getdents64` reads a directory of a few hundred entries
/// (the generic listing makes four calls, an `fcntl` and a second `openat`
/// for a directory of a hundred).
pub(super) fn temps_in(dir: &Dir, names: &[&str]) -> io::Result<Vec<String>> {
    use rustix::fs::{Mode, OFlags};
    use std::mem::MaybeUninit;
    // A readable descriptor of our own (the one held may be `O_PATH`, or
    // the root's, whose position listing would move).
    let fd = rustix::fs::openat(
        dir,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut buf = vec![MaybeUninit::<u8>::uninit(); 32 * 1024];
    let mut listing = rustix::fs::RawDir::new(&fd, &mut buf);
    let mut temps = Vec::new();
    while let Some(entry) = listing.next() {
        let entry = entry?;
        if let Ok(name) = entry.file_name().to_str() {
            if is_temp_for(name, names) {
                temps.push(name.to_owned());
            }
        }
    }
    Ok(temps)
}

/// Opens for reading the very inode an `O_PATH` handle refers to (through
/// its `/proc/self/fd` entry), never blocking, never taking a terminal.
pub(super) fn reopen_for_reading(handle: &std::fs::File) -> io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    use std::os::fd::AsRawFd as _;
    let flags = OFlags::RDONLY | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let proc_path = format!("/proc/self/fd/{}", handle.as_raw_fd());
    let fd = rustix::fs::open(proc_path.as_str(), flags, Mode::empty())?;
    Ok(std::fs::File::from(fd))
}

/// Whether an error is ELOOP (a symlink met where none may be followed).
pub(super) fn is_loop(e: &io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

/// Whether paths are resolved with `openat2` (Linux with a kernel that has
/// it), rather than by the portable walk of one `O_NOFOLLOW` open per
/// component. Set `AGENT_CHECKPOINT_PORTABLE_WALK=1` to force the walk.
pub fn resolves_with_openat2() -> bool {
    super::beneath::in_use()
}
