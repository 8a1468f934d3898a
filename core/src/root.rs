//! The one filesystem seam: a directory capability every operation goes through.
//!
//! Every [`Root`] method takes a [`RelPath`] and acts relative to the root,
//! never outside it. Implementations must not follow a symlink in any
//! component they act on: intermediate components must be real directories
//! (a symlink there is an error), and the last component is acted on itself
//! (`metadata` is `lstat`, `remove_file` unlinks a link, not its target).
//!
//! - [`CapRoot`] (feature `cap-std`, native targets): a real directory
//!   opened once through cap-std.
//! - [`MemRoot`]: an in-memory tree for tests and the wasm-bindgen package.
//! - [`FoldingRoot`]: a case-insensitive, normalising view of another root
//!   (as APFS), for tests.
//!
//! What every root shares lives here too: [`check_expect`] (the guarded
//! write's last look), [`walk_parents`] (the "no symlink in a parent" walk
//! for roots that can only `lstat` whole paths) and the temp-file names of
//! [`temp`].

#[cfg(all(feature = "cap-std", any(unix, windows)))]
pub(crate) mod cap;
mod folding;
mod mem;
pub mod temp;

#[cfg(all(feature = "cap-std", any(unix, windows)))]
pub use cap::{ambient_authority, AmbientAuthority, CapRoot};
pub use folding::FoldingRoot;
pub use mem::{MemNode, MemRoot};

use crate::error::{Error, Result};
use crate::relpath::RelPath;

/// What kind of thing sits at a path (never following a final symlink).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (not followed).
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

impl EntryKind {
    /// A lowercase word for messages (`file`, `directory`, ...).
    pub fn describe(self) -> &'static str {
        match self {
            EntryKind::File => "file",
            EntryKind::Dir => "directory",
            EntryKind::Symlink => "symlink",
            EntryKind::Other => "special file (fifo, socket or device)",
        }
    }
}

/// The metadata of one path, as `lstat` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Metadata {
    /// What it is.
    pub kind: EntryKind,
    /// Size in bytes (of the link text for a symlink).
    pub len: u64,
    /// Permission bits (`mode & 0o7777`).
    pub mode: u32,
    /// A value that changes whenever the entry changes (content, mode, or
    /// the entry being replaced): a hash of inode and change times on a
    /// real filesystem, a version counter in memory. `0` where the root
    /// cannot tell (then kind, size and mode are all a comparison sees).
    pub stamp: u64,
}

impl Metadata {
    /// Metadata with no change stamp.
    pub fn new(kind: EntryKind, len: u64, mode: u32) -> Metadata {
        Metadata {
            kind,
            len,
            mode,
            stamp: 0,
        }
    }

    /// The same metadata with `stamp` as its change stamp.
    pub fn with_stamp(self, stamp: u64) -> Metadata {
        Metadata { stamp, ..self }
    }
}

/// What must be at a path right before a write or a removal replaces it:
/// the last look of a guarded rollback. A root checks it immediately before
/// its rename or unlink and fails with [`Error::Conflict`] when the path
/// changed; what remains is the few instructions between that check and the
/// rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Expect {
    /// Whatever is there (an unguarded rollback).
    #[default]
    Any,
    /// Nothing may be there.
    Absent,
    /// Exactly this entry, unchanged (kind, size, mode and stamp).
    Same(Metadata),
}

/// How [`Root::write_file`] and [`Root::write_link`] replace a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteOptions {
    /// Permission bits of a written file (`mode & 0o7777`; links ignore it).
    pub mode: u32,
    /// fsync the written file before it is renamed into place.
    pub durable: bool,
    /// What must be at the path right before the rename.
    pub expect: Expect,
    /// An empty directory at the path is removed right before the rename
    /// (a type flip back to a file: the gap is that one rename).
    pub replace_empty_dir: bool,
}

impl WriteOptions {
    /// A plain write of a file with `mode`: durable, no expectation.
    pub fn new(mode: u32) -> WriteOptions {
        WriteOptions {
            mode,
            durable: true,
            expect: Expect::Any,
            replace_empty_dir: false,
        }
    }

    /// Sets [`WriteOptions::durable`].
    pub fn with_durable(mut self, durable: bool) -> WriteOptions {
        self.durable = durable;
        self
    }

    /// Sets [`WriteOptions::expect`].
    pub fn with_expect(mut self, expect: Expect) -> WriteOptions {
        self.expect = expect;
        self
    }

    /// Sets [`WriteOptions::replace_empty_dir`].
    pub fn with_replace_empty_dir(mut self, replace: bool) -> WriteOptions {
        self.replace_empty_dir = replace;
        self
    }
}

/// What [`Root::look_and_read`] found at one path.
#[derive(Debug)]
#[non_exhaustive]
pub struct Looked {
    /// What is there, as [`Root::metadata`] says (`None`: nothing).
    pub metadata: Option<Metadata>,
    /// The bytes of the regular file there, when they were asked for, or
    /// why they could not be read (the error [`Root::read_file`] gives).
    pub bytes: Option<Result<Vec<u8>>>,
}

impl Looked {
    /// What is there, without its bytes.
    pub fn new(metadata: Option<Metadata>) -> Looked {
        Looked {
            metadata,
            bytes: None,
        }
    }

    /// The same, with the bytes read (or the error reading them).
    pub fn with_bytes(self, bytes: Result<Vec<u8>>) -> Looked {
        Looked {
            bytes: Some(bytes),
            ..self
        }
    }
}

/// A regular file opened for reading in pieces: [`Root::open_file`].
#[non_exhaustive]
pub struct OpenedFile<'a> {
    /// What the opened file is, as `fstat` saw it at the open (its size
    /// then, its mode); the kind is always [`EntryKind::File`].
    pub metadata: Metadata,
    /// Its bytes from the start, as they are read (a file that grows or
    /// shrinks after the open gives more or fewer than
    /// `metadata.len`); with a `max_bytes`, never more than one byte past
    /// it, so that a caller can tell the file grew beyond the limit.
    pub reader: Box<dyn std::io::Read + 'a>,
}

impl<'a> OpenedFile<'a> {
    /// An opened file described by `metadata`, read through `reader`.
    pub fn new(metadata: Metadata, reader: Box<dyn std::io::Read + 'a>) -> OpenedFile<'a> {
        OpenedFile { metadata, reader }
    }
}

impl std::fmt::Debug for OpenedFile<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedFile")
            .field("metadata", &self.metadata)
            .finish_non_exhaustive()
    }
}

/// A directory capability: everything this crate reads or writes goes through it.
///
/// Implementations act only below the root and never follow symlinks in the
/// components they walk (see the module docs). Errors carry the path.
pub trait Root {
    /// `lstat` of `path`; `Ok(None)` if nothing is there (including when a
    /// parent is missing or is not a directory).
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>>;

    /// The names of the entries of the directory `dir` (`None` is the
    /// root), in no particular order, without `.` and `..`.
    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>>;

    /// The bytes of the regular file at `path`. Fails with `too_large`
    /// (before reading or allocating) when it holds more than `max_bytes`,
    /// and `not_a_file` when it is not a file.
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>>;

    /// Feeds the bytes of the regular file at `path` to `visit`, in order,
    /// without holding the whole file where the root can stream (used for
    /// digests of files of any size). The default reads the file whole.
    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        visit(&self.read_file(path, None)?);
        Ok(())
    }

    /// Opens the regular file at `path` for reading in pieces, so that a
    /// caller holds a bounded part of it at a time whatever its size (a
    /// blob streamed into an object database). Confined as
    /// [`Root::read_file`] is: never through a symlink, never blocking on a
    /// FIFO, `not_a_file` for anything but a regular file (judged on the
    /// opened file); `too_large` when the opened file holds more than
    /// `max_bytes`. The default reads the file whole with
    /// [`Root::read_file`] and hands out those bytes.
    fn open_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<OpenedFile<'_>> {
        let bytes = self.read_file(path, max_bytes)?;
        let mode = self.metadata(path)?.map_or(DEFAULT_FILE_MODE, |m| m.mode);
        let metadata = Metadata::new(EntryKind::File, bytes.len() as u64, mode);
        Ok(OpenedFile::new(
            metadata,
            Box::new(std::io::Cursor::new(bytes)),
        ))
    }

    /// Looks at `path` (as [`Root::metadata`]) and, when it is a regular
    /// file for which `limit` gives a size, reads it (as [`Root::read_file`]
    /// with that limit); an error reading it is returned in
    /// [`Looked::bytes`], not as the call's error. Roots that can resolve
    /// the path once for both (and then report the metadata of the file
    /// they read) override it; the default calls the two methods.
    fn look_and_read(
        &self,
        path: &RelPath,
        limit: &dyn Fn(&Metadata) -> Option<u64>,
    ) -> Result<Looked> {
        let metadata = self.metadata(path)?;
        let wanted = metadata
            .filter(|m| m.kind == EntryKind::File)
            .and_then(|m| limit(&m));
        let looked = Looked::new(metadata);
        Ok(match wanted {
            Some(max) => looked.with_bytes(self.read_file(path, Some(max))),
            None => looked,
        })
    }

    /// This root as one that several threads may use at once, when it is
    /// (then many small files are read on more than one thread). The
    /// default, `None`, keeps every call on the calling thread.
    fn as_sync(&self) -> Option<&(dyn Root + Sync)> {
        None
    }

    /// The target text of the symlink at `path` (must be UTF-8).
    fn read_link(&self, path: &RelPath) -> Result<String>;

    /// Atomically replaces whatever file or link is at `path` with a regular
    /// file holding `bytes`: a temp file in the same directory, written,
    /// chmod-ed, fsync-ed when asked, [`WriteOptions::expect`] checked, then
    /// renamed over `path`. The parent must exist. Never writes in place.
    /// A replaced file's owner and group are kept where the process may
    /// set them.
    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()>;

    /// Atomically replaces whatever file or link is at `path` with a symlink
    /// whose target text is `target` (same expectations as `write_file`).
    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()>;

    /// Removes the file or symlink at `path` (never a directory), after
    /// checking `expect` right before the unlink.
    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()>;

    /// Renames the file or symlink at `from` to `to`, a name in the same
    /// directory at which nothing is found, after checking `expect` at
    /// `from` and the absence at `to` right before the rename (one rename:
    /// never a copy). Used to give a restored entry back its captured
    /// spelling on a directory that folds names (docs/FORMAT.md,
    /// "Case-insensitive and normalising filesystems"). The default, for
    /// roots that cannot rename, fails with an `Unsupported` I/O error.
    fn rename_file(&self, from: &RelPath, to: &RelPath, expect: Expect) -> Result<()> {
        let _ = (to, expect);
        Err(Error::io(
            from.as_str(),
            std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this root cannot rename entries",
            ),
        ))
    }

    /// Creates one directory (its parent must exist).
    fn create_dir(&self, path: &RelPath) -> Result<()>;

    /// Removes one empty directory.
    fn remove_dir(&self, path: &RelPath) -> Result<()>;

    /// Flushes a directory's entries to stable storage (`None` is the root).
    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()>;

    /// Removes temp files this crate left in `dir` (`None` is the root)
    /// while replacing any of `names` and never renamed (a crash or a kill
    /// mid-write); returns how many. Only files it can prove are its own
    /// and abandoned are removed: the name must carry [`temp`]'s check, and
    /// no live writer may hold it. Roots whose writes cannot leave a temp
    /// file behind keep the default, which does nothing.
    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        let _ = (dir, names);
        Ok(0)
    }

    /// The absolute spellings of the root that absolute input paths may
    /// start with (for example the path as given and its canonical form).
    /// Empty (the default) when the root has no absolute path.
    fn absolute_prefixes(&self) -> Vec<String> {
        Vec::new()
    }

    /// The canonical absolute path of the root, recorded in snapshots as
    /// where they were taken; the default is the last of
    /// [`Root::absolute_prefixes`].
    fn canonical_path(&self) -> Option<String> {
        self.absolute_prefixes().pop()
    }
}

impl<R: Root + ?Sized> Root for &R {
    fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
        (**self).metadata(path)
    }
    fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
        (**self).read_dir(dir)
    }
    fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
        (**self).read_file(path, max_bytes)
    }
    fn visit_file(&self, path: &RelPath, visit: &mut dyn FnMut(&[u8])) -> Result<()> {
        (**self).visit_file(path, visit)
    }
    fn open_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<OpenedFile<'_>> {
        (**self).open_file(path, max_bytes)
    }
    fn look_and_read(
        &self,
        path: &RelPath,
        limit: &dyn Fn(&Metadata) -> Option<u64>,
    ) -> Result<Looked> {
        (**self).look_and_read(path, limit)
    }
    fn as_sync(&self) -> Option<&(dyn Root + Sync)> {
        (**self).as_sync()
    }
    fn read_link(&self, path: &RelPath) -> Result<String> {
        (**self).read_link(path)
    }
    fn write_file(&self, path: &RelPath, bytes: &[u8], options: &WriteOptions) -> Result<()> {
        (**self).write_file(path, bytes, options)
    }
    fn write_link(&self, path: &RelPath, target: &str, options: &WriteOptions) -> Result<()> {
        (**self).write_link(path, target, options)
    }
    fn remove_file(&self, path: &RelPath, expect: Expect) -> Result<()> {
        (**self).remove_file(path, expect)
    }
    fn rename_file(&self, from: &RelPath, to: &RelPath, expect: Expect) -> Result<()> {
        (**self).rename_file(from, to, expect)
    }
    fn create_dir(&self, path: &RelPath) -> Result<()> {
        (**self).create_dir(path)
    }
    fn remove_dir(&self, path: &RelPath) -> Result<()> {
        (**self).remove_dir(path)
    }
    fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
        (**self).sync_dir(path)
    }
    fn remove_stray_temps(&self, dir: Option<&RelPath>, names: &[&str]) -> Result<usize> {
        (**self).remove_stray_temps(dir, names)
    }
    fn absolute_prefixes(&self) -> Vec<String> {
        (**self).absolute_prefixes()
    }
    fn canonical_path(&self) -> Option<String> {
        (**self).canonical_path()
    }
}

/// Refuses a [`Root::rename_file`] whose names are not in one directory.
pub fn check_same_dir(from: &RelPath, to: &RelPath) -> Result<()> {
    if from.parent() == to.parent() {
        return Ok(());
    }
    Err(Error::invalid_path(
        to.as_str(),
        "a rename stays in its directory",
    ))
}

/// Default permission bits for a restored file whose mode was not recorded.
pub const DEFAULT_FILE_MODE: u32 = 0o644;

/// Checks what is at `path` right now (`found`) against `expect`; the
/// error, when it does not match, is [`Error::Conflict`] (code `conflict`).
pub fn check_expect(path: &RelPath, found: Option<&Metadata>, expect: Expect) -> Result<()> {
    let matches = match expect {
        Expect::Any => true,
        Expect::Absent => found.is_none(),
        Expect::Same(want) => found == Some(&want),
    };
    if matches {
        Ok(())
    } else {
        Err(Error::Conflict {
            what: format!("{path:?}"),
            reason: "it changed while the rollback ran; left as it is".into(),
        })
    }
}

/// Where [`walk_parents`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Parents {
    /// Every ancestor is a directory.
    Dirs,
    /// An ancestor is missing or is not a directory: nothing can be at the path.
    Absent,
}

/// The "no symlink in a parent" walk, for roots that can only `lstat`
/// whole paths (a JS filesystem, WASI): `lstat` each ancestor of `path`,
/// outermost first. A symlink is an error (never followed); a missing
/// ancestor or one that is not a directory means nothing is at the path.
pub fn walk_parents(
    path: &RelPath,
    mut lstat: impl FnMut(&RelPath) -> Result<Option<Metadata>>,
) -> Result<Parents> {
    for dir in path.ancestors() {
        match lstat(&dir)?.map(|m| m.kind) {
            Some(EntryKind::Dir) => {}
            Some(EntryKind::Symlink) => return Err(parent_is_symlink(path)),
            _ => return Ok(Parents::Absent),
        }
    }
    Ok(Parents::Dirs)
}

/// The error for a path whose parent is a symlink: never followed.
pub fn parent_is_symlink(path: &RelPath) -> Error {
    Error::io(
        path.as_str(),
        std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "a parent is a symlink (not followed)",
        ),
    )
}
