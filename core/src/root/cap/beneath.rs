//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: the kernel resolves a
//! whole relative path below the root in one call, refusing every symlink
//! (the last component included) and any escape, atomically.
//!
//! Where the call is not there, or a seccomp profile refuses it (older
//! Docker and containerd profiles answer `EPERM`, some sandboxes `ENOSYS`
//! or `E2BIG`), every root falls back to the portable walk of one
//! `O_NOFOLLOW` open per component for the rest of the process, as cap-std
//! does; `EAGAIN` (a rename somewhere on the host while the kernel
//! resolved) is retried a few times, then the walk answers that one call.
//! None of these answers is ever an error of the operation.

use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use cap_std::fs::Dir;
use rustix::fs::{Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// Set once the kernel (or a seccomp profile) says there is no `openat2`,
/// or when the environment asks for the portable walk; the walk is used then.
static UNSUPPORTED: AtomicBool = AtomicBool::new(false);
static READ_ENVIRONMENT: Once = Once::new();

/// How many times one call is tried while the kernel answers `EAGAIN`
/// (cap-std's number: there is no bound on how often a host renames).
const AGAIN_TRIES: usize = 4;

/// The environment variable that, set to `1`, makes every root use the
/// portable walk of one `O_NOFOLLOW` open per component (the path macOS
/// and older kernels take), so the test suites can run through it here.
pub(crate) const PORTABLE_WALK_ENV: &str = "AGENT_CHECKPOINT_PORTABLE_WALK";

/// Whether `openat2` is (still) tried.
pub(crate) fn in_use() -> bool {
    READ_ENVIRONMENT.call_once(|| {
        if std::env::var_os(PORTABLE_WALK_ENV).is_some_and(|v| v == "1") {
            UNSUPPORTED.store(true, Ordering::Relaxed);
        }
    });
    !UNSUPPORTED.load(Ordering::Relaxed)
}

/// Opens `rel` below `dir`; `None` when `openat2` is not available (or
/// could not answer this once): the caller walks instead.
pub(super) fn open(dir: &Dir, rel: &str, flags: OFlags) -> Option<io::Result<OwnedFd>> {
    if !in_use() {
        return None;
    }
    let mut flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    if !flags.contains(OFlags::PATH) {
        // Opening a FIFO swapped in for a file must not hang. (O_PATH
        // accepts no other flags.)
        flags |= OFlags::NONBLOCK;
    }
    for _ in 0..AGAIN_TRIES {
        match rustix::fs::openat2(dir, rel, flags, Mode::empty(), resolve()) {
            Ok(fd) => return Some(Ok(fd)),
            Err(Errno::AGAIN) => continue,
            Err(Errno::NOSYS | Errno::TOOBIG) => {
                UNSUPPORTED.store(true, Ordering::Relaxed);
                return None;
            }
            Err(Errno::PERM) => {
                // A seccomp profile's "not here", or a real refusal of this
                // one file (a fanotify or LSM denial): the walk answers this
                // call either way, and the root itself tells which.
                if refused_outright(dir) {
                    UNSUPPORTED.store(true, Ordering::Relaxed);
                }
                return None;
            }
            Err(e) => return Some(Err(e.into())),
        }
    }
    None
}

/// Whether `openat2` is refused even for the directory itself (`.` as an
/// `O_PATH` handle, which no permission can deny): a seccomp filter.
fn refused_outright(dir: &Dir) -> bool {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    matches!(
        rustix::fs::openat2(dir, ".", flags, Mode::empty(), resolve()),
        Err(Errno::PERM | Errno::NOSYS | Errno::TOOBIG)
    )
}

fn resolve() -> ResolveFlags {
    ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS
}

/// Opens the directory `rel` below `dir` (an `O_PATH` handle).
pub(super) fn open_dir(dir: &Dir, rel: &str) -> Option<io::Result<Dir>> {
    open(dir, rel, OFlags::PATH | OFlags::DIRECTORY)
        .map(|r| r.map(|fd| Dir::from_std_file(std::fs::File::from(fd))))
}
