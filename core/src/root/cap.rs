//! [`CapRoot`]: a real directory, opened once, reached only through cap-std.
//!
//! Each operation walks the parents of its path one component at a time with
//! `O_NOFOLLOW` (`open_dir_nofollow`), so a symlink anywhere in the parents is
//! refused rather than followed, even if it was swapped in a moment ago; the
//! last component is then acted on inside that parent handle.

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

/// Where the parent walk ended.
enum Parent {
    /// The parent directory, opened.
    Dir(Dir),
    /// A parent is missing or is not a directory: nothing can be at the path.
    Absent,
}

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
    fn parent(&self, path: &RelPath) -> Result<Parent> {
        let mut current: Option<Dir> = None;
        for name in path
            .components()
            .rev()
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            let base = current.as_ref().unwrap_or(&self.dir);
            match base.open_dir_nofollow(name) {
                Ok(next) => current = Some(next),
                Err(e) => {
                    return match base.symlink_metadata(name) {
                        Ok(m) if m.is_symlink() => Err(Error::io(
                            path.as_str(),
                            io::Error::new(
                                io::ErrorKind::NotADirectory,
                                format!("parent {name:?} is a symlink (not followed)"),
                            ),
                        )),
                        Ok(m) if !m.is_dir() => Ok(Parent::Absent),
                        Err(e2) if e2.kind() == io::ErrorKind::NotFound => Ok(Parent::Absent),
                        _ => Err(Error::io(path.as_str(), e)),
                    };
                }
            }
        }
        match current {
            Some(dir) => Ok(Parent::Dir(dir)),
            None => self
                .dir
                .try_clone()
                .map(Parent::Dir)
                .map_err(|e| Error::io(path.as_str(), e)),
        }
    }

    /// The parent of `path`, which must exist.
    fn existing_parent(&self, path: &RelPath) -> Result<Dir> {
        match self.parent(path)? {
            Parent::Dir(d) => Ok(d),
            Parent::Absent => Err(Error::io(
                path.as_str(),
                io::Error::new(io::ErrorKind::NotFound, "a parent directory does not exist"),
            )),
        }
    }

    /// Writes a temp file next to `name` and renames it over `name`.
    fn replace_with<F>(&self, path: &RelPath, fill: F) -> Result<()>
    where
        F: FnOnce(&Dir, &str) -> io::Result<()>,
    {
        let parent = self.existing_parent(path)?;
        let temp = temp_name()?;
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

/// A fresh temp file name: hidden, recognisable, unlikely to clash.
fn temp_name() -> Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::io("(temp name)", io::Error::other(e.to_string())))?;
    Ok(format!(".ckpt-{}.tmp", hex::encode(bytes)))
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
        let Parent::Dir(parent) = self.parent(path)? else {
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
        let parent = self.existing_parent(path)?;
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        let mut file = match parent.open_with(path.file_name(), &options) {
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
        let meta = file.metadata().map_err(|e| Error::io(path.as_str(), e))?;
        if !meta.is_file() {
            return Err(not_a_file(path, kind_of(&meta)));
        }
        if let Some(limit) = max_bytes.filter(|l| meta.len() > *l) {
            return Err(Error::TooLarge {
                what: format!("file {path}"),
                size: meta.len(),
                limit,
            });
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
            return Err(Error::TooLarge {
                what: format!("file {path}"),
                size: bytes.len() as u64,
                limit,
            });
        }
        Ok(bytes)
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
}
