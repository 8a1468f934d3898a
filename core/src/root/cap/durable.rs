//! Flushing a file (or a directory) to stable storage for a durable write.
//!
//! On Apple systems `fsync` only hands the data to the drive, whose cache
//! may lose or reorder it on power loss; `fcntl(F_FULLFSYNC)` asks the
//! drive to write it to the medium. Filesystems that do not support it
//! (some network and FUSE mounts) refuse it: plain `fsync` is what they
//! offer, and it is used then. Elsewhere `fsync`.
//!
//! A directory's entries: `fsync` of the directory on POSIX. Windows has no
//! such call (a directory cannot be opened for writing, which
//! `FlushFileBuffers` needs) and NTFS journals its metadata: nothing to do.

use std::fs::File;
use std::io;

/// Flushes `file`'s data and metadata to stable storage.
pub(super) fn sync(file: &File) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    {
        use rustix::io::Errno;
        match rustix::fs::fcntl_fullfsync(file) {
            Ok(()) => Ok(()),
            Err(Errno::NOTSUP | Errno::OPNOTSUPP | Errno::NOTTY | Errno::INVAL) => {
                rustix::fs::fsync(file).map_err(io::Error::from)
            }
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(not(target_vendor = "apple"))]
    {
        file.sync_all()
    }
}

/// Flushes the entries of the directory `dir` to stable storage.
pub(super) fn sync_dir(dir: &cap_std::fs::Dir) -> io::Result<()> {
    #[cfg(unix)]
    {
        // Directory handles may be O_PATH, which cannot fsync: open it for reading.
        sync(&dir.open(".")?.into_std())
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}
