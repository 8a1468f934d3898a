//! [`WasiRoot`]: the core [`Root`] over a directory the WASI host preopened.
//!
//! std on wasm32-wasip2 maps a path onto the preopen it names (absolute
//! paths onto the preopen with that prefix), and the host refuses anything
//! that would leave a preopen. Inside it, this root keeps the `Root`
//! contract: it `lstat`s every parent component and refuses a symlink there
//! (never following it), never follows a final symlink, and replaces files
//! and links atomically (temp file in the same directory, then rename).
//!
//! WASI preview 2 has no permission bits: files read as mode 0o644 and the
//! mode argument of `write_file` is not applied.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use agent_checkpoint::root::{EntryKind, Metadata, Root, DEFAULT_FILE_MODE};
use agent_checkpoint::{Error, RelPath, Result};

/// A directory reached through the host's preopens.
#[derive(Debug)]
pub struct WasiRoot {
    base: PathBuf,
    prefixes: Vec<String>,
}

/// Where the parent walk ended.
enum Parent {
    /// Every parent is a real directory.
    Dirs,
    /// A parent is missing or is not a directory: nothing can be at the path.
    Absent,
}

impl WasiRoot {
    /// Opens `root`, which must name a directory inside a preopen.
    pub fn open(root: &str) -> Result<WasiRoot> {
        let meta = fs::metadata(root).map_err(|e| Error::io(root, categorize(e)))?;
        if !meta.is_dir() {
            return Err(Error::io(
                root,
                io::Error::new(io::ErrorKind::NotADirectory, "the root is not a directory"),
            ));
        }
        let prefixes = if root.starts_with('/') {
            vec![root.trim_end_matches('/').to_owned()]
        } else {
            Vec::new()
        };
        Ok(WasiRoot {
            base: PathBuf::from(root),
            prefixes,
        })
    }

    fn full(&self, path: &RelPath) -> PathBuf {
        self.base.join(path.as_str())
    }

    /// `lstat`s each parent of `path`, outermost first; a symlink is refused.
    fn parent(&self, path: &RelPath) -> Result<Parent> {
        for dir in path.ancestors() {
            match fs::symlink_metadata(self.full(&dir)).map_err(categorize) {
                Ok(m) if m.is_dir() => {}
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(Error::io(
                        path.as_str(),
                        io::Error::new(
                            io::ErrorKind::NotADirectory,
                            format!("parent {:?} is a symlink (not followed)", dir.as_str()),
                        ),
                    ))
                }
                Ok(_) => return Ok(Parent::Absent),
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                    ) =>
                {
                    return Ok(Parent::Absent)
                }
                Err(e) => return Err(Error::io(path.as_str(), e)),
            }
        }
        Ok(Parent::Dirs)
    }

    fn existing_parent(&self, path: &RelPath) -> Result<()> {
        match self.parent(path)? {
            Parent::Dirs => Ok(()),
            Parent::Absent => Err(Error::io(
                path.as_str(),
                io::Error::new(io::ErrorKind::NotFound, "a parent directory does not exist"),
            )),
        }
    }

    fn lstat(&self, path: &RelPath) -> Result<Option<Metadata>> {
        match fs::symlink_metadata(self.full(path)).map_err(categorize) {
            Ok(m) => Ok(Some(metadata_of(&m))),
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

    /// Creates a temp entry next to `path` with `fill`, then renames it over `path`.
    fn replace_with<F>(&self, path: &RelPath, fill: F) -> Result<()>
    where
        F: FnOnce(&Path) -> io::Result<()>,
    {
        self.existing_parent(path)?;
        let full = self.full(path);
        if fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir()) {
            return Err(Error::io(
                path.as_str(),
                io::Error::new(io::ErrorKind::IsADirectory, "is a directory"),
            ));
        }
        let temp = full.with_file_name(temp_name()?);
        if let Err(e) = fill(&temp)
            .and_then(|()| fs::rename(&temp, &full))
            .map_err(categorize)
        {
            // Best effort: the temp entry is ours and must not linger.
            let _ = fs::remove_file(&temp);
            return Err(Error::io(path.as_str(), e));
        }
        Ok(())
    }
}

/// `e` with the kind its errno means. std on wasm32-wasip2 leaves some
/// errnos uncategorized (`ENOTEMPTY` among them), and the core decides by
/// kind (a non-empty directory is not a failure to prune).
fn categorize(e: io::Error) -> io::Error {
    let kind = match e.raw_os_error() {
        Some(libc::ENOTEMPTY) => io::ErrorKind::DirectoryNotEmpty,
        Some(libc::ENOTDIR) => io::ErrorKind::NotADirectory,
        Some(libc::EISDIR) => io::ErrorKind::IsADirectory,
        Some(libc::EEXIST) => io::ErrorKind::AlreadyExists,
        Some(libc::ENOENT) => io::ErrorKind::NotFound,
        Some(libc::EACCES | libc::EPERM) => io::ErrorKind::PermissionDenied,
        _ => return e,
    };
    if e.kind() == kind {
        e
    } else {
        io::Error::new(kind, e)
    }
}

/// Creates a symlink at `link` whose target text is `target` (wasi-libc's
/// `symlink`, which resolves `link` against the preopens like std does).
#[allow(unsafe_code, reason = "one libc call with two valid C strings")]
fn symlink(target: &str, link: &Path) -> io::Result<()> {
    let invalid = |_| io::Error::new(io::ErrorKind::InvalidInput, "NUL byte in a symlink path");
    let target = std::ffi::CString::new(target).map_err(invalid)?;
    let link = link
        .to_str()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "non-UTF-8 path"))?;
    let link = std::ffi::CString::new(link).map_err(invalid)?;
    // SAFETY: both arguments are NUL-terminated strings that outlive the call;
    // `symlink` only reads them.
    let rc = unsafe { libc::symlink(target.as_ptr(), link.as_ptr()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// A fresh temp name: hidden, recognisable, random (from `wasi:random`).
fn temp_name() -> Result<String> {
    let random = agent_checkpoint::id::new_checkpoint_id()?;
    Ok(format!(".ckpt-{random}.tmp"))
}

fn metadata_of(m: &fs::Metadata) -> Metadata {
    let t = m.file_type();
    let (kind, mode) = if t.is_symlink() {
        (EntryKind::Symlink, 0o777)
    } else if t.is_dir() {
        (EntryKind::Dir, 0o755)
    } else if t.is_file() {
        (EntryKind::File, DEFAULT_FILE_MODE)
    } else {
        (EntryKind::Other, DEFAULT_FILE_MODE)
    };
    Metadata {
        kind,
        len: m.len(),
        mode,
    }
}

fn too_large(path: &RelPath, size: u64, limit: u64) -> Error {
    Error::TooLarge {
        what: format!("file {path}"),
        size,
        limit,
    }
}

impl Root for WasiRoot {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        match self.parent(path)? {
            Parent::Dirs => self.lstat(path),
            Parent::Absent => Ok(None),
        }
    }

    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        self.existing_parent(path)?;
        // lstat first: never follow a final symlink, never block opening a FIFO.
        let Some(meta) = self.lstat(path)? else {
            return Err(Error::io(
                path.as_str(),
                io::Error::new(io::ErrorKind::NotFound, "no such file"),
            ));
        };
        if meta.kind != EntryKind::File {
            return Err(Error::NotAFile {
                path: path.to_string(),
                kind: meta.kind.describe().to_owned(),
            });
        }
        if let Some(limit) = max_bytes.filter(|l| meta.len > *l) {
            return Err(too_large(path, meta.len, limit));
        }
        let file =
            fs::File::open(self.full(path)).map_err(|e| Error::io(path.as_str(), categorize(e)))?;
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len).unwrap_or(0));
        // The file may grow between lstat and read: never read past the limit.
        file.take(max_bytes.map_or(u64::MAX, |l| l.saturating_add(1)))
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(path.as_str(), categorize(e)))?;
        match max_bytes.filter(|l| bytes.len() as u64 > *l) {
            Some(limit) => Err(too_large(path, bytes.len() as u64, limit)),
            None => Ok(bytes),
        }
    }

    fn read_link(&self, path: &RelPath) -> Result<String> {
        self.existing_parent(path)?;
        let target = fs::read_link(self.full(path))
            .map_err(categorize)
            .map_err(|e| {
                if e.kind() == io::ErrorKind::PermissionDenied {
                    // Hosts refuse to read a link whose target is absolute: no
                    // guest path can name it, so it points outside the root.
                    Error::escapes(
                        path.as_str(),
                        format!("the WASI host refuses to read this symlink ({e})"),
                    )
                } else {
                    Error::io(path.as_str(), e)
                }
            })?;
        target
            .into_os_string()
            .into_string()
            .map_err(|_| Error::invalid_path(path.as_str(), "symlink target is not UTF-8"))
    }

    fn write_file(&self, path: &RelPath, bytes: &[u8], _mode: u32, durable: bool) -> Result<()> {
        self.replace_with(path, |temp| {
            let mut file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(temp)?;
            file.write_all(bytes)?;
            if durable {
                file.sync_all()?;
            }
            Ok(())
        })
    }

    fn write_link(&self, path: &RelPath, target: &str) -> Result<()> {
        self.replace_with(path, |temp| symlink(target, temp))
    }

    fn remove_file(&self, path: &RelPath) -> Result<()> {
        self.existing_parent(path)?;
        fs::remove_file(self.full(path)).map_err(|e| Error::io(path.as_str(), categorize(e)))
    }

    fn create_dir(&self, path: &RelPath) -> Result<()> {
        self.existing_parent(path)?;
        fs::create_dir(self.full(path)).map_err(|e| Error::io(path.as_str(), categorize(e)))
    }

    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        self.existing_parent(path)?;
        fs::remove_dir(self.full(path)).map_err(|e| Error::io(path.as_str(), categorize(e)))
    }

    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        let (shown, full) = match path {
            Some(p) => {
                self.existing_parent(p)?;
                (p.as_str(), self.full(p))
            }
            None => (".", self.base.clone()),
        };
        let dir = fs::File::open(&full).map_err(|e| Error::io(shown, categorize(e)))?;
        dir.sync_all().map_err(|e| Error::io(shown, categorize(e)))
    }

    fn absolute_prefixes(&self) -> Vec<String> {
        self.prefixes.clone()
    }
}
