//! Files the store keeps in the git common dir (lock files, undo-snapshot
//! files), opened without following a symlink and without blocking on a
//! FIFO: in a shared repository (`core.sharedRepository=group`) the lock
//! and snapshot directories are group-writable, so another member may
//! plant a symlink there (to make a writer, perhaps root, write outside the
//! repository) or a FIFO (to make it wait forever). Each directory is
//! opened once with `O_NOFOLLOW | O_DIRECTORY` and its files through that
//! descriptor (`openat`), so neither the directory nor the file may be a
//! symlink, and only regular files are used.

use std::fs::File;
use std::io;
use std::path::Path;

use crate::sharing::Sharing;

/// A directory opened without following a symlink at its last component.
pub(crate) struct Dir {
    #[cfg(unix)]
    fd: rustix::fd::OwnedFd,
    #[cfg(not(unix))]
    path: std::path::PathBuf,
}

fn refused(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} {what} (never followed or used)", path.display()),
    )
}

#[cfg(unix)]
fn from_errno(e: rustix::io::Errno) -> io::Error {
    io::Error::from_raw_os_error(e.raw_os_error())
}

impl Dir {
    /// Opens the directory `path`; a symlink or anything but a directory is
    /// refused (`invalid_input`), a missing one is `NotFound`.
    #[cfg(unix)]
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::open(path, flags, Mode::empty()) {
            Ok(fd) => Ok(Dir { fd }),
            Err(e) if e == rustix::io::Errno::LOOP || e == rustix::io::Errno::NOTDIR => {
                Err(refused(path, "is a symlink or not a directory"))
            }
            Err(e) => Err(from_errno(e)),
        }
    }

    /// Opens the directory `path`.
    #[cfg(not(unix))]
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        if !std::fs::symlink_metadata(path)?.is_dir() {
            return Err(refused(path, "is a symlink or not a directory"));
        }
        Ok(Dir {
            path: path.to_path_buf(),
        })
    }

    /// Opens the regular file `name` for reading (and writing when
    /// `write`), creating it in `sharing`'s mode when `create` and it is
    /// missing; `create_new` fails when it exists.
    #[cfg(unix)]
    pub(crate) fn open_file(
        &self,
        name: &str,
        write: bool,
        create: Create,
        sharing: Sharing,
    ) -> io::Result<File> {
        use rustix::fs::{Mode, OFlags};
        let base = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let access = if write { OFlags::RDWR } else { OFlags::RDONLY };
        let open = |extra: OFlags| {
            rustix::fs::openat(
                &self.fd,
                name,
                base | access | extra,
                Mode::from_raw_mode(0o600),
            )
        };
        let (fd, created) = match create {
            Create::No => (open(OFlags::empty()), false),
            Create::New => (open(OFlags::CREATE | OFlags::EXCL), true),
            Create::IfMissing => match open(OFlags::CREATE | OFlags::EXCL) {
                Err(e) if e == rustix::io::Errno::EXIST => (open(OFlags::empty()), false),
                other => (other, true),
            },
        };
        let fd = fd.map_err(|e| {
            if e == rustix::io::Errno::LOOP {
                refused(Path::new(name), "is a symlink")
            } else {
                from_errno(e)
            }
        })?;
        let file = File::from(fd);
        if !file.metadata()?.is_file() {
            return Err(refused(Path::new(name), "is not a regular file"));
        }
        if created {
            sharing.set_file_mode(&file)?;
        }
        Ok(file)
    }

    /// Opens the regular file `name`.
    #[cfg(not(unix))]
    pub(crate) fn open_file(
        &self,
        name: &str,
        write: bool,
        create: Create,
        sharing: Sharing,
    ) -> io::Result<File> {
        let path = self.path.join(name);
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(write);
        let file = match create {
            Create::No => options.open(&path)?,
            Create::New => options.create_new(true).open(&path)?,
            Create::IfMissing => options.create(true).open(&path)?,
        };
        if !file.metadata()?.is_file() {
            return Err(refused(&path, "is not a regular file"));
        }
        let _ = sharing;
        Ok(file)
    }

    /// Renames `from` to `to`, both in this directory.
    #[cfg(unix)]
    pub(crate) fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        rustix::fs::renameat(&self.fd, from, &self.fd, to).map_err(from_errno)
    }

    /// Renames `from` to `to`, both in this directory.
    #[cfg(not(unix))]
    pub(crate) fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        std::fs::rename(self.path.join(from), self.path.join(to))
    }

    /// Removes the file `name` (best effort for cleanup).
    #[cfg(unix)]
    pub(crate) fn remove(&self, name: &str) -> io::Result<()> {
        rustix::fs::unlinkat(&self.fd, name, rustix::fs::AtFlags::empty()).map_err(from_errno)
    }

    /// Removes the file `name`.
    #[cfg(not(unix))]
    pub(crate) fn remove(&self, name: &str) -> io::Result<()> {
        std::fs::remove_file(self.path.join(name))
    }

    /// Makes the directory owner-only, `0700` (`fchmod`: this directory,
    /// whatever its path became).
    #[cfg(unix)]
    pub(crate) fn set_private_mode(&self) -> io::Result<()> {
        rustix::fs::fchmod(&self.fd, rustix::fs::Mode::from_raw_mode(0o700)).map_err(from_errno)
    }

    /// Makes the directory owner-only (nothing to set here).
    #[cfg(not(unix))]
    pub(crate) fn set_private_mode(&self) -> io::Result<()> {
        Ok(())
    }

    /// Creates the directory `name` in this one, owner-only (`0700`,
    /// whatever the umask: the mode is set on the opened directory), and
    /// opens it; one already there (a symlink included) is `AlreadyExists`.
    #[cfg(unix)]
    pub(crate) fn create_private_dir(&self, name: &str) -> io::Result<Dir> {
        use rustix::fs::{Mode, OFlags};
        rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700)).map_err(from_errno)?;
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(|e| {
            if e == rustix::io::Errno::LOOP || e == rustix::io::Errno::NOTDIR {
                refused(Path::new(name), "is a symlink or not a directory")
            } else {
                from_errno(e)
            }
        })?;
        let dir = Dir { fd };
        dir.set_private_mode()?;
        Ok(dir)
    }

    /// Creates the directory `name` in this one and opens it.
    #[cfg(not(unix))]
    pub(crate) fn create_private_dir(&self, name: &str) -> io::Result<Dir> {
        let path = self.path.join(name);
        std::fs::create_dir(&path)?;
        Dir::open(&path)
    }

    /// Flushes the directory's entries to disk.
    #[cfg(unix)]
    pub(crate) fn sync(&self) -> io::Result<()> {
        rustix::fs::fsync(&self.fd).map_err(from_errno)
    }

    /// Flushes the directory's entries to disk.
    #[cfg(not(unix))]
    pub(crate) fn sync(&self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether [`Dir::open_file`] creates the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Create {
    /// Only an existing file.
    No,
    /// Only a new file.
    New,
    /// A new file, or the existing one.
    IfMissing,
}
