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
#[cfg(unix)]
use cap_std::fs::OpenOptionsExt as _;
use cap_std::fs::{Dir, OpenOptions};

use super::mem::not_a_file;
use super::temp::{is_temp_for, temp_name};
use super::{
    check_expect, check_same_dir, EntryKind, Expect, Looked, Metadata, OpenedFile, Root,
    WriteOptions,
};
use crate::error::{Error, Result};
use crate::relpath::RelPath;
use os::{create_link, link_text, metadata_of, plain_path, retry_busy, set_mode, temp_options};

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
            Dir::open_ambient_dir(path, authority).map_err(|e| root_error(path, &shown, e))?;
        let mut prefixes = Vec::new();
        for form in [
            std::path::absolute(path).ok(),
            canonical_of(&dir).or_else(|| std::fs::canonicalize(path).ok()),
        ]
        .into_iter()
        .flatten()
        {
            if let Some(s) = form.to_str() {
                let s = plain_path(s);
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

    /// Opens the directory `dir` below the root (`None`: the root itself,
    /// returned as `None`) without following any symlink.
    fn open_dir(&self, dir: Option<&RelPath>) -> Result<Option<Dir>> {
        let Some(d) = dir else { return Ok(None) };
        let shown = d.as_str();
        match self.parent(d)? {
            Some(parent) => parent
                .open_dir_nofollow(d.file_name())
                .map(Some)
                .map_err(|e| Error::io(shown, e)),
            None => Err(Error::io(
                shown,
                io::Error::new(io::ErrorKind::NotFound, "no such directory"),
            )),
        }
    }

    /// Opens the regular file at `path` for reading, never through a
    /// symlink and never blocking on a FIFO; returns it with its metadata
    /// (from the one `fstat` that checks it is a regular file).
    fn open_regular(&self, path: &RelPath) -> Result<(std::fs::File, std::fs::Metadata)> {
        #[cfg(target_os = "linux")]
        if let Some(Ok(fd)) = beneath::open(&self.dir, path.as_str(), rustix::fs::OFlags::RDONLY) {
            let file = std::fs::File::from(fd);
            let meta = file.metadata().map_err(|e| Error::io(path.as_str(), e))?;
            if !meta.is_file() {
                let kind = if meta.is_dir() {
                    EntryKind::Dir
                } else {
                    EntryKind::Other
                };
                return Err(not_a_file(path, kind));
            }
            return Ok((file, meta));
        }
        let parent = self.existing_parent(path)?;
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        // A FIFO swapped in for the file must not block the open (nor a
        // terminal become the controlling one).
        #[cfg(unix)]
        options.custom_flags(
            (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32,
        );
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
        let file = file.into_std();
        let meta = file.metadata().map_err(|e| Error::io(path.as_str(), e))?;
        if !meta.is_file() {
            return Err(not_a_file(path, EntryKind::Other));
        }
        Ok((file, meta))
    }

    /// Writes a temp file next to `path` with `fill`, checks `options`'
    /// expectation, then renames it over `path`. The temp file is removed
    /// whatever goes wrong. A temp file swept away by a concurrent run in
    /// the instant before it was locked is written once more.
    fn replace_with<F>(&self, path: &RelPath, options: &WriteOptions, fill: F) -> Result<()>
    where
        F: Fn(&Dir, &str) -> io::Result<Option<std::fs::File>>,
    {
        let parent = self.existing_parent(path)?;
        let name = path.file_name();
        let mut attempts = 0;
        loop {
            attempts += 1;
            let temp = temp_name(name)?;
            let result = fill(&parent, &temp).map_err(|e| Error::io(path.as_str(), e));
            let result = result.and_then(|held| {
                let raw = lstat_raw(&parent, path)?;
                let found = raw.as_ref().map(metadata_of);
                check_expect(path, found.as_ref(), options.expect)?;
                if let Some(file) = &held {
                    keep_owner(file, raw.as_ref());
                }
                if options.replace_empty_dir && found.is_some_and(|m| m.kind == EntryKind::Dir) {
                    if let Err(e) = parent.remove_dir(name) {
                        // Gone, or no longer a directory: replaced a moment
                        // ago (a concurrent rollback of the same snapshot).
                        // What is there now must still be as expected; then
                        // the rename replaces it.
                        let now = lstat_in(&parent, path)?;
                        if now.as_ref().is_some_and(|m| m.kind == EntryKind::Dir) {
                            return Err(Error::io(path.as_str(), e));
                        }
                        check_expect(path, now.as_ref(), options.expect)?;
                    }
                }
                retry_busy(|| parent.rename(&temp, &parent, name))
                    .map_err(|e| Error::io(path.as_str(), e))?;
                // The lock (if any) goes with `held`, after the rename.
                drop(held);
                Ok(())
            });
            match result {
                Ok(()) => return Ok(()),
                Err(e) => {
                    // Best effort: the temp file is ours and must not linger.
                    let _ = parent.remove_file(&temp);
                    let swept = e.io_error().is_some_and(|io| {
                        io.kind() == io::ErrorKind::NotFound
                            && parent.symlink_metadata(&temp).is_err()
                    });
                    if swept && attempts < 3 {
                        continue;
                    }
                    return Err(e);
                }
            }
        }
    }
}

/// The error of a root that cannot be opened: `not_a_directory` when the
/// root (or a directory on the way to it) is a file or special file, an
/// I/O error otherwise.
fn root_error(path: &Path, shown: &str, error: io::Error) -> Error {
    if error.kind() == io::ErrorKind::NotADirectory {
        // The nearest of the root and its ancestors that is there and is not
        // a directory (the root itself, usually).
        let blocker = path.ancestors().find_map(|p| match std::fs::metadata(p) {
            Ok(m) if !m.is_dir() => Some((p, m)),
            _ => None,
        });
        if let Some((blocker, meta)) = blocker {
            let kind = if meta.is_file() {
                "file"
            } else {
                crate::root::EntryKind::Other.describe()
            };
            return Error::NotADirectory {
                path: shown.to_owned(),
                parent: blocker.to_string_lossy().into_owned(),
                kind: kind.to_owned(),
            };
        }
    }
    Error::io(shown.to_owned(), error)
}

/// `lstat` of `path`'s last component inside its opened parent.
fn lstat_in(parent: &Dir, path: &RelPath) -> Result<Option<Metadata>> {
    Ok(lstat_raw(parent, path)?.as_ref().map(metadata_of))
}

/// `lstat` of `path`'s last component inside its opened parent, as the
/// platform's metadata (owner included).
fn lstat_raw(parent: &Dir, path: &RelPath) -> Result<Option<cap_std::fs::Metadata>> {
    match parent.symlink_metadata(path.file_name()) {
        Ok(m) => Ok(Some(m)),
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
        lstat_in(&parent, path)
    }

    fn look_and_read(
        &self,
        path: &RelPath,
        limit: &dyn Fn(&Metadata) -> Option<u64>,
    ) -> Result<Looked> {
        // Linux: one `openat2` of the whole path (never through a symlink,
        // never blocking on a FIFO, never taking a terminal as the
        // controlling one), then `fstat` says what was opened.
        #[cfg(target_os = "linux")]
        {
            // An `O_PATH` handle first: what is there is never opened for
            // reading (a FIFO's open wakes a writer waiting for a reader, a
            // device's open has side effects) unless `fstat` says it is a
            // regular file; that same inode is then reopened for reading.
            let flags = rustix::fs::OFlags::PATH;
            if let Some(Ok(fd)) = beneath::open(&self.dir, path.as_str(), flags) {
                let handle = std::fs::File::from(fd);
                if let Ok(m) = handle.metadata() {
                    let meta = metadata_of(&cap_std::fs::Metadata::from_just_metadata(m));
                    let looked = Looked::new(Some(meta));
                    let wanted = Some(meta)
                        .filter(|m| m.kind == EntryKind::File)
                        .and_then(|m| limit(&m));
                    match wanted {
                        None => return Ok(looked),
                        Some(max) => {
                            if let Ok(file) = reopen_for_reading(&handle) {
                                let bytes = read_opened(path, file, meta.len, Some(max));
                                return Ok(looked.with_bytes(bytes));
                            }
                            // No /proc: the walk below opens it by name.
                        }
                    }
                }
            }
            // A symlink on the way or at the end, nothing there, a file this
            // process may not open: the walk below says which.
        }
        // The parent is resolved once; the file is looked at, and opened,
        // inside that handle.
        let Some(parent) = self.parent(path)? else {
            return Ok(Looked::new(None));
        };
        let Some(raw) = lstat_raw(&parent, path)? else {
            return Ok(Looked::new(None));
        };
        let seen = metadata_of(&raw);
        let Some(max) = Some(seen)
            .filter(|m| m.kind == EntryKind::File)
            .and_then(|m| limit(&m))
        else {
            return Ok(Looked::new(Some(seen)));
        };
        let file = match open_in(&parent, path) {
            Ok(file) => file,
            Err(e) => {
                // Gone or replaced by a link, a directory or a FIFO a moment
                // ago: say what is there now, as `metadata` would.
                return match lstat_raw(&parent, path)? {
                    Some(now) if !now.is_file() => {
                        let now = metadata_of(&now);
                        Ok(Looked::new(Some(now)))
                    }
                    None => Ok(Looked::new(None)),
                    Some(_) => {
                        let e = Error::io(path.as_str(), e);
                        Ok(Looked::new(Some(seen)).with_bytes(Err(e)))
                    }
                };
            }
        };
        let opened = match file.metadata() {
            Ok(m) => cap_std::fs::Metadata::from_just_metadata(m),
            Err(e) => {
                let e = Error::io(path.as_str(), e);
                return Ok(Looked::new(Some(seen)).with_bytes(Err(e)));
            }
        };
        if !opened.is_file() {
            // Swapped since the lstat: refused as `read_file` refuses it.
            let e = not_a_file(path, kind_of(&opened));
            return Ok(Looked::new(Some(seen)).with_bytes(Err(e)));
        }
        // The metadata reported is the opened file's (the fields `lstat`
        // gives), so that it and the bytes describe one file: the one
        // looked at, or the regular file that replaced it since.
        let meta = metadata_of(&opened);
        let bytes = read_opened(path, file, meta.len, Some(max));
        Ok(Looked::new(Some(meta)).with_bytes(bytes))
    }

    fn as_sync(&self) -> Option<&(dyn Root + Sync)> {
        Some(self)
    }

    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        let shown = dir.map_or(".", RelPath::as_str).to_owned();
        let opened = self.open_dir(dir)?;
        let handle = opened.as_ref().unwrap_or(&self.dir);
        let mut names = Vec::new();
        for entry in handle.entries().map_err(|e| Error::io(shown.clone(), e))? {
            let entry = entry.map_err(|e| Error::io(shown.clone(), e))?;
            match entry.file_name().into_string() {
                Ok(name) => names.push(name),
                Err(raw) => {
                    return Err(Error::invalid_path(
                        format!("{shown}/{}", raw.to_string_lossy()),
                        "a name that is not UTF-8",
                    ))
                }
            }
        }
        Ok(names)
    }

    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        let (file, meta) = self.open_regular(path)?;
        read_opened(path, file, meta.len(), max_bytes)
    }

    fn open_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<OpenedFile<'_>> {
        let (file, meta) = self.open_regular(path)?;
        let metadata = metadata_of(&cap_std::fs::Metadata::from_just_metadata(meta));
        let reader: Box<dyn Read> = match max_bytes {
            Some(limit) if metadata.len > limit => {
                return Err(Error::file_too_large(path.as_str(), metadata.len, limit))
            }
            // Grown past the limit since the open: one byte more says so.
            Some(limit) => Box::new(file.take(limit.saturating_add(1))),
            None => Box::new(file),
        };
        Ok(OpenedFile::new(metadata, reader))
    }

    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        let (mut file, _) = self.open_regular(path)?;
        let mut chunk = vec![0u8; 1 << 20];
        loop {
            let n = file
                .read(&mut chunk)
                .map_err(|e| Error::io(path.as_str(), e))?;
            if n == 0 {
                return Ok(());
            }
            visit(&chunk[..n]);
        }
    }

    fn read_link(&self, path: &RelPath) -> Result<String> {
        let parent = self.existing_parent(path)?;
        let target = parent
            .read_link_contents(path.file_name())
            .map_err(|e| Error::io(path.as_str(), e))?;
        link_text(target)
            .ok_or_else(|| Error::invalid_path(path.as_str(), "symlink target is not UTF-8"))
    }

    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        self.replace_with(path, options, |parent, temp| {
            let mut file = parent.open_with(temp, &temp_options())?.into_std();
            // Held until the rename: a concurrent sweep leaves a locked temp alone.
            lock_temp(&file)?;
            file.write_all(bytes)?;
            set_mode(&file, options.mode)?;
            if options.durable {
                durable::sync(&file)?;
            }
            Ok(Some(file))
        })
    }

    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        self.replace_with(path, options, |parent, temp| {
            create_link(parent, target, temp)?;
            Ok(None)
        })
    }

    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        let parent = self.existing_parent(path)?;
        if expect != Expect::Any {
            check_expect(path, lstat_in(&parent, path)?.as_ref(), expect)?;
        }
        retry_busy(|| parent.remove_file(path.file_name())).map_err(|e| Error::io(path.as_str(), e))
    }

    fn rename_file(&self, from: &RelPath, to: &RelPath, expect: Expect) -> Result<()> {
        check_same_dir(from, to)?;
        let parent = self.existing_parent(from)?;
        check_expect(from, lstat_in(&parent, from)?.as_ref(), expect)?;
        check_expect(to, lstat_in(&parent, to)?.as_ref(), Expect::Absent)?;
        retry_busy(|| parent.rename(from.file_name(), &parent, to.file_name()))
            .map_err(|e| Error::io(from.as_str(), e))
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
        durable::sync_dir(&dir).map_err(|e| Error::io(shown, e))
    }

    fn absolute_prefixes(&self) -> Vec<String> {
        self.prefixes.clone()
    }

    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        let shown = dir.map_or(".", RelPath::as_str).to_owned();
        let opened = match self.open_dir(dir) {
            Ok(d) => d,
            Err(e) if e.code() == crate::ErrorCode::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let handle = opened.as_ref().unwrap_or(&self.dir);
        let temps = temps_in(handle, names).map_err(|e| Error::io(shown.clone(), e))?;
        let mut removed = 0;
        for name in &temps {
            let name = name.as_str();
            // Only a regular file can be ours: a FIFO named like a temp
            // must not block the sweep (looked at first; on Linux the open
            // does not block either, should one be swapped in meanwhile).
            if !handle.symlink_metadata(name).is_ok_and(|m| m.is_file()) {
                continue;
            }
            let mut open = OpenOptions::new();
            open.read(true).follow(FollowSymlinks::No);
            #[cfg(target_os = "linux")]
            open.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
            let Ok(file) = handle.open_with(name, &open) else {
                continue;
            };
            let file = file.into_std();
            // A live writer holds its temp locked: not abandoned.
            if !file.metadata().is_ok_and(|m| m.is_file()) || file.try_lock().is_err() {
                continue;
            }
            handle
                .remove_file(name)
                .map_err(|e| Error::io(shown.clone(), e))?;
            removed += 1;
        }
        Ok(removed)
    }
}

/// Takes the exclusive lock a writer holds on its temp file.
fn lock_temp(file: &std::fs::File) -> io::Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        // Nobody else can have a file that was created a moment ago with
        // O_EXCL locked; a filesystem without locks is not an error.
        Err(std::fs::TryLockError::WouldBlock) => Ok(()),
        Err(std::fs::TryLockError::Error(e)) if e.kind() == io::ErrorKind::Unsupported => Ok(()),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Reads an opened regular file of `len` bytes (its `fstat` when opened),
/// no larger than `max_bytes`.
fn read_opened(
    path: &RelPath,
    mut file: std::fs::File,
    len: u64,
    max_bytes: Option<u64>,
) -> Result<Vec<u8>> {
    let too_large = |size: u64, limit: u64| Error::file_too_large(path.as_str(), size, limit);
    if let Some(limit) = max_bytes.filter(|l| len > *l) {
        return Err(too_large(len, limit));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
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

#[cfg(target_os = "linux")]
mod beneath;
mod durable;
/// What the POSIX and the Windows filesystems do differently: modes,
/// change stamps, links, temp files.
#[cfg_attr(unix, path = "cap/unix.rs")]
#[cfg_attr(windows, path = "cap/windows.rs")]
mod os;
/// What Linux does with its own calls, and the portable fallbacks elsewhere.
#[cfg_attr(target_os = "linux", path = "cap/linux.rs")]
#[cfg_attr(not(target_os = "linux"), path = "cap/portable.rs")]
mod platform;

#[cfg(target_os = "linux")]
use platform::reopen_for_reading;
pub use platform::resolves_with_openat2;
use platform::{canonical_of, is_loop, keep_owner, open_in, temps_in};
