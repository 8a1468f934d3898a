//! [`CapRoot`]: a real directory, opened once, reached only through cap-std.
//!
//! Each operation first opens the parent of its path without following any
//! symlink, so a symlink anywhere in the parents is refused rather than
//! followed, even if it was swapped in a moment ago; the last component is
//! then acted on inside that parent handle. On Linux that is one `openat2`
//! call with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` (the kernel checks every
//! component atomically); elsewhere, or on kernels without `openat2`, a walk
//! of one `O_NOFOLLOW` open per component.

use std::io::{self, Read, Write};
use std::path::Path;

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, MetadataExt, OpenOptions, OpenOptionsExt, Permissions, PermissionsExt};

use super::mem::not_a_file;
use super::{EntryKind, Metadata, Root};
use crate::error::{Error, Result};
use crate::relpath::RelPath;

pub use cap_std::{ambient_authority, AmbientAuthority};

/// A directory on the real filesystem, used as a capability.
#[derive(Debug)]
pub struct CapRoot {
    dir: Dir,
    prefixes: Vec<String>,
}

/// An opened parent directory: the root itself, or a directory below it.
enum Held<'a> {
    Root(&'a Dir),
    Own(Dir),
}

impl std::ops::Deref for Held<'_> {
    type Target = Dir;
    fn deref(&self) -> &Dir {
        match self {
            Held::Root(d) => d,
            Held::Own(d) => d,
        }
    }
}

/// Where the parent walk ended: `None` when a parent is missing or is not a
/// directory (nothing can be at the path).
type Parent<'a> = Option<Held<'a>>;

impl CapRoot {
    /// Opens the directory at `path` (the one place ambient authority is
    /// used; callers pass `ambient_authority()` to show they mean it).
    pub fn open(path: impl AsRef<Path>, authority: AmbientAuthority) -> Result<CapRoot> {
        let path = path.as_ref();
        let shown = path.to_string_lossy().into_owned();
        let dir =
            Dir::open_ambient_dir(path, authority).map_err(|e| Error::io(shown.clone(), e))?;
        let mut prefixes = Vec::new();
        for form in [
            std::path::absolute(path).ok(),
            std::fs::canonicalize(path).ok(),
        ]
        .into_iter()
        .flatten()
        {
            if let Some(s) = form.to_str() {
                let s = s.trim_end_matches('/').to_owned();
                if !prefixes.contains(&s) {
                    prefixes.push(s);
                }
            }
        }
        Ok(CapRoot { dir, prefixes })
    }

    /// Wraps an already opened directory (absolute input paths then escape).
    pub fn from_dir(dir: Dir) -> CapRoot {
        CapRoot {
            dir,
            prefixes: Vec::new(),
        }
    }

    /// Opens the parent of `path` without following any symlink.
    fn parent(&self, path: &RelPath) -> Result<Parent<'_>> {
        let Some(parent) = path.parent() else {
            return Ok(Some(Held::Root(&self.dir)));
        };
        #[cfg(target_os = "linux")]
        if let Some(result) = beneath::open_dir(&self.dir, parent.as_str()) {
            return match result {
                Ok(dir) => Ok(Some(Held::Own(dir))),
                Err(e) => self.classify_parent_error(path, e),
            };
        }
        let mut current: Option<Dir> = None;
        for name in parent.components() {
            let base = current.as_ref().unwrap_or(&self.dir);
            match base.open_dir_nofollow(name) {
                Ok(next) => current = Some(next),
                Err(e) => return self.classify_parent_error(path, e),
            }
        }
        Ok(Some(current.map_or(Held::Root(&self.dir), Held::Own)))
    }

    /// A parent could not be opened: absent (missing, or a file), or refused
    /// (a symlink, which is never followed), or another error.
    fn classify_parent_error(&self, path: &RelPath, e: io::Error) -> Result<Parent<'_>> {
        let symlink = || {
            Error::io(
                path.as_str(),
                io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "a parent is a symlink (not followed)",
                ),
            )
        };
        if is_loop(&e) {
            return Err(symlink());
        }
        if !matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        ) {
            return Err(Error::io(path.as_str(), e));
        }
        // ENOTDIR is also what O_DIRECTORY|O_NOFOLLOW gives for a symlink on
        // some systems: look before calling it absent.
        for dir in path.ancestors() {
            match self.metadata_walk(&dir) {
                Some(EntryKind::Dir) => continue,
                Some(EntryKind::Symlink) => return Err(symlink()),
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// `lstat` by walking component by component (slow path, errors only).
    fn metadata_walk(&self, path: &RelPath) -> Option<EntryKind> {
        let mut current: Option<Dir> = None;
        let mut kind = None;
        for name in path.components() {
            let base = current.as_ref().unwrap_or(&self.dir);
            let m = base.symlink_metadata(name).ok()?;
            kind = Some(kind_of(&m));
            if kind != Some(EntryKind::Dir) {
                return kind.filter(|_| name == path.file_name());
            }
            current = Some(base.open_dir_nofollow(name).ok()?);
        }
        kind
    }

    /// The parent of `path`, which must exist.
    fn existing_parent(&self, path: &RelPath) -> Result<Held<'_>> {
        self.parent(path)?.ok_or_else(|| {
            Error::io(
                path.as_str(),
                io::Error::new(io::ErrorKind::NotFound, "a parent directory does not exist"),
            )
        })
    }

    /// Writes a temp file next to `name` and renames it over `name`.
    fn replace_with<F>(&self, path: &RelPath, fill: F) -> Result<()>
    where
        F: FnOnce(&Dir, &str) -> io::Result<()>,
    {
        let parent = self.existing_parent(path)?;
        let temp = temp_name(path.file_name())?;
        let result =
            fill(&parent, &temp).and_then(|()| parent.rename(&temp, &parent, path.file_name()));
        if let Err(e) = result {
            // Best effort: the temp file is ours and must not linger.
            let _ = parent.remove_file(&temp);
            return Err(Error::io(path.as_str(), e));
        }
        Ok(())
    }
}

/// The prefix of every temp file written for the target `name`:
/// `.ckpt-<8 hex of SHA-256(name)>-`, short whatever the name's length.
fn temp_prefix(name: &str) -> String {
    let digest = crate::digest::sha256(name.as_bytes());
    format!(".ckpt-{}-", hex::encode(&digest[..4]))
}

/// A fresh temp file name for the target `name`: hidden, recognisable as
/// ours and as belonging to that target, unlikely to clash.
fn temp_name(name: &str) -> Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::io("(temp name)", io::Error::other(e.to_string())))?;
    Ok(format!("{}{}.tmp", temp_prefix(name), hex::encode(bytes)))
}

fn kind_of(m: &cap_std::fs::Metadata) -> EntryKind {
    let t = m.file_type();
    if t.is_symlink() {
        EntryKind::Symlink
    } else if t.is_dir() {
        EntryKind::Dir
    } else if t.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    }
}

impl Root for CapRoot {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        let Some(parent) = self.parent(path)? else {
            return Ok(None);
        };
        match parent.symlink_metadata(path.file_name()) {
            Ok(m) => Ok(Some(Metadata {
                kind: kind_of(&m),
                len: m.len(),
                mode: m.mode() & 0o7777,
            })),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(Error::io(path.as_str(), e)),
        }
    }

    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        #[cfg(target_os = "linux")]
        if let Some(Ok(fd)) = beneath::open(&self.dir, path.as_str(), rustix::fs::OFlags::RDONLY) {
            return read_opened(path, std::fs::File::from(fd), max_bytes);
        }
        let parent = self.existing_parent(path)?;
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        let file = match parent.open_with(path.file_name(), &options) {
            Ok(f) => f,
            Err(e) => {
                // O_NOFOLLOW on a link, or a FIFO we must not block on: say what it is.
                if let Ok(m) = parent.symlink_metadata(path.file_name()) {
                    if !m.is_file() {
                        return Err(not_a_file(path, kind_of(&m)));
                    }
                }
                return Err(Error::io(path.as_str(), e));
            }
        };
        read_opened(path, file.into_std(), max_bytes)
    }

    fn file_equals(&self, path: &RelPath, expected: &[u8]) -> Result<bool> {
        #[cfg(target_os = "linux")]
        if let Some(Ok(fd)) = beneath::open(&self.dir, path.as_str(), rustix::fs::OFlags::RDONLY) {
            return equals_opened(path, std::fs::File::from(fd), expected);
        }
        Ok(self.read_file(path, Some(expected.len() as u64))? == expected)
    }

    fn read_link(&self, path: &RelPath) -> Result<String> {
        let parent = self.existing_parent(path)?;
        let target = parent
            .read_link_contents(path.file_name())
            .map_err(|e| Error::io(path.as_str(), e))?;
        target
            .into_os_string()
            .into_string()
            .map_err(|_| Error::invalid_path(path.as_str(), "symlink target is not UTF-8"))
    }

    fn write_file(&self, path: &RelPath, bytes: &[u8], mode: u32, durable: bool) -> Result<()> {
        self.replace_with(path, |parent, temp| {
            let mut options = OpenOptions::new();
            options
                .write(true)
                .create_new(true)
                .mode(0o600)
                .follow(FollowSymlinks::No);
            let mut file = parent.open_with(temp, &options)?;
            file.write_all(bytes)?;
            file.set_permissions(Permissions::from_mode(mode & 0o7777))?;
            if durable {
                file.sync_all()?;
            }
            Ok(())
        })
    }

    fn write_link(&self, path: &RelPath, target: &str) -> Result<()> {
        self.replace_with(path, |parent, temp| parent.symlink_contents(target, temp))
    }

    fn remove_file(&self, path: &RelPath) -> Result<()> {
        let parent = self.existing_parent(path)?;
        parent
            .remove_file(path.file_name())
            .map_err(|e| Error::io(path.as_str(), e))
    }

    fn create_dir(&self, path: &RelPath) -> Result<()> {
        let parent = self.existing_parent(path)?;
        parent
            .create_dir(path.file_name())
            .map_err(|e| Error::io(path.as_str(), e))
    }

    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        let parent = self.existing_parent(path)?;
        parent
            .remove_dir(path.file_name())
            .map_err(|e| Error::io(path.as_str(), e))
    }

    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        let shown = path.map_or(".", RelPath::as_str).to_owned();
        let dir = match path {
            None => self
                .dir
                .try_clone()
                .map_err(|e| Error::io(shown.clone(), e))?,
            Some(p) => self
                .existing_parent(p)?
                .open_dir_nofollow(p.file_name())
                .map_err(|e| Error::io(shown.clone(), e))?,
        };
        // Directory handles may be O_PATH, which cannot fsync: open it for reading.
        let readable = dir.open(".").map_err(|e| Error::io(shown.clone(), e))?;
        readable.sync_all().map_err(|e| Error::io(shown, e))
    }

    fn absolute_prefixes(&self) -> Vec<String> {
        self.prefixes.clone()
    }

    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        let shown = dir.map_or(".", RelPath::as_str).to_owned();
        let opened = match dir {
            None => None,
            Some(d) => match self.parent(d)? {
                Some(parent) => Some(
                    parent
                        .open_dir_nofollow(d.file_name())
                        .map_err(|e| Error::io(shown.clone(), e))?,
                ),
                None => return Ok(0),
            },
        };
        let dir_handle = opened.as_ref().unwrap_or(&self.dir);
        let prefixes: Vec<String> = names.iter().map(|n| temp_prefix(n)).collect();
        let mut removed = 0;
        for entry in dir_handle
            .entries()
            .map_err(|e| Error::io(shown.clone(), e))?
        {
            let entry = entry.map_err(|e| Error::io(shown.clone(), e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.ends_with(".tmp") && prefixes.iter().any(|p| name.starts_with(p.as_str())) {
                dir_handle
                    .remove_file(name)
                    .map_err(|e| Error::io(shown.clone(), e))?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

/// Reads an opened file: it must be a regular file no larger than `max_bytes`.
fn read_opened(path: &RelPath, mut file: std::fs::File, max_bytes: Option<u64>) -> Result<Vec<u8>> {
    let meta = file.metadata().map_err(|e| Error::io(path.as_str(), e))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::Other
        };
        return Err(not_a_file(path, kind));
    }
    let too_large = |size: u64, limit: u64| Error::TooLarge {
        what: format!("file {path}"),
        size,
        limit,
    };
    if let Some(limit) = max_bytes.filter(|l| meta.len() > *l) {
        return Err(too_large(meta.len(), limit));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    match max_bytes {
        // The file may grow between fstat and read: never read past the limit.
        Some(limit) => (&mut file)
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes),
        None => file.read_to_end(&mut bytes),
    }
    .map_err(|e| Error::io(path.as_str(), e))?;
    if let Some(limit) = max_bytes.filter(|l| bytes.len() as u64 > *l) {
        return Err(too_large(bytes.len() as u64, limit));
    }
    Ok(bytes)
}

/// Compares an opened file with `expected` in chunks, without holding a copy.
#[cfg(target_os = "linux")]
fn equals_opened(path: &RelPath, mut file: std::fs::File, expected: &[u8]) -> Result<bool> {
    let meta = file.metadata().map_err(|e| Error::io(path.as_str(), e))?;
    if !meta.is_file() || meta.len() != expected.len() as u64 {
        return Ok(false);
    }
    let mut chunk = vec![0u8; (1 << 20).min(expected.len().max(1))];
    let mut rest = expected;
    loop {
        let n = file
            .read(&mut chunk)
            .map_err(|e| Error::io(path.as_str(), e))?;
        if n == 0 {
            return Ok(rest.is_empty());
        }
        if n > rest.len() || chunk[..n] != rest[..n] {
            return Ok(false);
        }
        rest = &rest[n..];
    }
}

/// Whether an error is ELOOP (a symlink met where none may be followed).
fn is_loop(e: &io::Error) -> bool {
    #[cfg(target_os = "linux")]
    {
        e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = e;
        false
    }
}

/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: the kernel resolves a
/// whole relative path below the root in one call, refusing every symlink
/// (the last component included) and any escape, atomically.
#[cfg(target_os = "linux")]
mod beneath {
    use std::io;
    use std::os::fd::OwnedFd;
    use std::sync::atomic::{AtomicBool, Ordering};

    use cap_std::fs::Dir;
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    use rustix::io::Errno;

    /// Set once the kernel says it has no `openat2`; the walk is used then.
    static UNSUPPORTED: AtomicBool = AtomicBool::new(false);

    /// Opens `rel` below `dir`; `None` when `openat2` is not available.
    pub(super) fn open(dir: &Dir, rel: &str, flags: OFlags) -> Option<io::Result<OwnedFd>> {
        if UNSUPPORTED.load(Ordering::Relaxed) {
            return None;
        }
        let mut flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        if !flags.contains(OFlags::PATH) {
            // Opening a FIFO swapped in for a file must not hang. (O_PATH
            // accepts no other flags.)
            flags |= OFlags::NONBLOCK;
        }
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(dir, rel, flags, Mode::empty(), resolve) {
            Ok(fd) => Some(Ok(fd)),
            Err(Errno::NOSYS | Errno::TOOBIG) => {
                UNSUPPORTED.store(true, Ordering::Relaxed);
                None
            }
            Err(e) => Some(Err(e.into())),
        }
    }

    /// Opens the directory `rel` below `dir` (an `O_PATH` handle).
    pub(super) fn open_dir(dir: &Dir, rel: &str) -> Option<io::Result<Dir>> {
        open(dir, rel, OFlags::PATH | OFlags::DIRECTORY)
            .map(|r| r.map(|fd| Dir::from_std_file(std::fs::File::from(fd))))
    }
}
