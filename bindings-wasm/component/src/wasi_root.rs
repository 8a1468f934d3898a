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
//! mode of a write is not applied. Nor has it file locks: the stray-temp
//! sweep removes only temp files whose name carries the check of ours
//! (see `agent_checkpoint::root::temp`), without proof that their writer
//! is gone.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use agent_checkpoint::root::temp::{is_temp_for, temp_name};
use agent_checkpoint::root::{
    check_expect, walk_parents, EntryKind, Expect, Metadata, Parents, Root, WriteOptions,
    DEFAULT_FILE_MODE,
};
use agent_checkpoint::{Error, RelPath, Result};

/// A directory reached through the host's preopens.
#[derive(Debug)]
pub struct WasiRoot {
    base: PathBuf,
    prefixes: Vec<String>,
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
    fn parent(&self, path: &RelPath) -> Result<Parents> {
        walk_parents(path, |dir| self.lstat(dir))
    }

    fn existing_parent(&self, path: &RelPath) -> Result<()> {
        // Anything but "every ancestor is a directory" means nothing is there.
        if self.parent(path)? == Parents::Dirs {
            Ok(())
        } else {
            Err(Error::io(
                path.as_str(),
                io::Error::new(io::ErrorKind::NotFound, "a parent directory does not exist"),
            ))
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

    /// Creates a temp entry next to `path` with `fill`, checks the
    /// expectation, then renames it over `path`.
    fn replace_with<F>(&self, path: &RelPath, options: &WriteOptions, fill: F) -> Result<()>
    where
        F: FnOnce(&Path) -> io::Result<()>,
    {
        self.existing_parent(path)?;
        let full = self.full(path);
        let temp = full.with_file_name(temp_name(path.file_name())?);
        let result = fill(&temp)
            .map_err(|e| Error::io(path.as_str(), categorize(e)))
            .and_then(|()| {
                let found = self.lstat(path)?;
                check_expect(path, found.as_ref(), options.expect)?;
                if found.is_some_and(|m| m.kind == EntryKind::Dir) {
                    if !options.replace_empty_dir {
                        return Err(Error::io(
                            path.as_str(),
                            io::Error::new(io::ErrorKind::IsADirectory, "is a directory"),
                        ));
                    }
                    fs::remove_dir(&full).map_err(|e| Error::io(path.as_str(), categorize(e)))?;
                }
                fs::rename(&temp, &full).map_err(|e| Error::io(path.as_str(), categorize(e)))
            });
        if result.is_err() {
            // Best effort: the temp entry is ours and must not linger.
            let _ = fs::remove_file(&temp);
        }
        result
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
    // What changes when the entry does: size and modification time.
    let modified = m
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let stamp = (modified as u64) ^ m.len().rotate_left(32);
    Metadata::new(kind, m.len(), mode).with_stamp(stamp)
}

fn too_large(path: &RelPath, size: u64, limit: u64) -> Error {
    Error::file_too_large(path.as_str(), size, limit)
}

impl Root for WasiRoot {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        if self.parent(path)? == Parents::Dirs {
            self.lstat(path)
        } else {
            Ok(None)
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

    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        let (shown, full) = match dir {
            Some(d) => {
                self.existing_parent(d)?;
                (d.as_str(), self.full(d))
            }
            None => (".", self.base.clone()),
        };
        let mut names = Vec::new();
        for entry in fs::read_dir(&full).map_err(|e| Error::io(shown, categorize(e)))? {
            let entry = entry.map_err(|e| Error::io(shown, categorize(e)))?;
            let name = entry.file_name().into_string().map_err(|raw| {
                Error::invalid_path(
                    format!("{shown}/{}", raw.to_string_lossy()),
                    "a name that is not UTF-8",
                )
            })?;
            names.push(name);
        }
        Ok(names)
    }

    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        let durable = options.durable;
        self.replace_with(path, options, |temp| {
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

    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        self.replace_with(path, options, |temp| symlink(target, temp))
    }

    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        self.existing_parent(path)?;
        if expect != Expect::Any {
            check_expect(path, self.lstat(path)?.as_ref(), expect)?;
        }
        fs::remove_file(self.full(path)).map_err(|e| Error::io(path.as_str(), categorize(e)))
    }

    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        let mut removed = 0;
        for name in self.read_dir(dir)? {
            if !is_temp_for(&name, names) {
                continue;
            }
            let path = match dir {
                Some(d) => d.join(&name)?,
                None => RelPath::try_from(name.as_str())?,
            };
            if self
                .lstat(&path)?
                .is_some_and(|m| m.kind == EntryKind::File)
            {
                fs::remove_file(self.full(&path))
                    .map_err(|e| Error::io(path.as_str(), categorize(e)))?;
                removed += 1;
            }
        }
        Ok(removed)
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
