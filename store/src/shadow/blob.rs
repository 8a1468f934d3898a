//! A working-tree file as a blob, in bounded memory whatever its size: a
//! file up to [`WHOLE_FILE_BYTES`] is read whole (its blob written only
//! when missing); a larger one streams from the file through gix's loose
//! object writer (hashed and deflated in pieces into a temp file, renamed
//! into place, as git does), or only through a hasher.
//!
//! The size is the one `fstat` of the opened file says (a loose object's
//! header names it first): exactly that many bytes are taken. A file that
//! shrinks meanwhile is opened again (a few times, then the step fails
//! with an I/O error); one that grows is taken as it was at the open,
//! unless it grew past the caller's limit, when it is too large (never
//! read further).

use std::io::Read;

use gix::objs::Write as _;
use gix::ObjectId;

use crate::objects::{self, git_error};
use agent_checkpoint::root::{Metadata, OpenedFile, Root};
use agent_checkpoint::{Error, RelPath, Result};

/// The largest file read whole (8 MiB); larger ones stream.
pub(crate) const WHOLE_FILE_BYTES: u64 = 8 << 20;

/// How often a file that keeps shrinking while it is read is opened.
const OPENS: usize = 3;

/// What to do with a file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Blob {
    /// Write them as a blob.
    Write,
    /// Only compute the blob's ID.
    Hash,
}

/// A file as a blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileBlob {
    /// Its blob's ID, and the opened file's metadata (its mode).
    Taken {
        /// The blob.
        id: ObjectId,
        /// What `fstat` said of the file read.
        metadata: Metadata,
    },
    /// More than the limit: not taken; its size (at least).
    TooLarge(u64),
}

/// The blob of the regular file `path` of `root`, `how`, holding at most
/// `limit` bytes (`None`: any size).
///
/// # Errors
/// What opening the file fails with (`not_a_file`, an I/O error, ...); an
/// I/O error when it kept shrinking while it was read, or the object
/// database cannot be written.
pub(crate) fn file_blob(
    repo: &gix::Repository,
    root: &dyn Root,
    path: &RelPath,
    limit: Option<u64>,
    how: Blob,
) -> Result<FileBlob> {
    for _ in 0..OPENS {
        let opened = match root.open_file(path, limit) {
            Ok(opened) => opened,
            Err(Error::TooLarge { size, .. }) => return Ok(FileBlob::TooLarge(size)),
            Err(e) => return Err(e),
        };
        match from_opened(repo, opened, limit, how)? {
            Outcome::Taken(blob) => return Ok(blob),
            Outcome::Grown(at_least) => {
                // As big as it is now, when that can be seen.
                let now = root.metadata(path).ok().flatten().map_or(0, |m| m.len);
                return Ok(FileBlob::TooLarge(now.max(at_least)));
            }
            Outcome::Shrunk => {}
        }
    }
    Err(Error::io(
        path.as_str(),
        std::io::Error::other(format!(
            "it kept shrinking while it was read ({OPENS} tries): taken when it holds still"
        )),
    ))
}

/// How one read of an opened file ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Taken.
    Taken(FileBlob),
    /// It grew past the limit after the open: it holds at least this many bytes.
    Grown(u64),
    /// It ended before the size it was opened with.
    Shrunk,
}

/// The blob of an opened file (see the module docs): exactly
/// `opened.metadata.len` bytes, then, when a `limit` is given, whether the
/// file now holds more than it (read up to one byte past it, and dropped).
///
/// # Errors
/// An I/O error reading the file or writing the object database.
pub(crate) fn from_opened(
    repo: &gix::Repository,
    mut opened: OpenedFile<'_>,
    limit: Option<u64>,
    how: Blob,
) -> Result<Outcome> {
    let metadata = opened.metadata;
    let len = metadata.len;
    let mut exact = Exact {
        inner: &mut opened.reader,
        left: len,
        shrunk: false,
    };
    let id = if len <= WHOLE_FILE_BYTES {
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        let read = exact.read_to_end(&mut bytes);
        if exact.shrunk {
            return Ok(Outcome::Shrunk);
        }
        read.map_err(|e| Error::io("<a file of the working tree>", e))?;
        match how {
            Blob::Write => objects::write_blob(repo, &bytes)?,
            Blob::Hash => {
                gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, &bytes)
                    .map_err(|e| git_error("hashing a file", e))?
            }
        }
    } else {
        let written = match how {
            Blob::Write => repo
                .objects
                .write_stream(gix::objs::Kind::Blob, len, &mut exact)
                .map_err(|e| git_error("writing a blob", e)),
            Blob::Hash => hash_stream(repo.object_hash(), len, &mut exact),
        };
        if exact.shrunk {
            // (A loose object's temp file is removed when its write fails.)
            return Ok(Outcome::Shrunk);
        }
        written?
    };
    if let Some(limit) = limit {
        // Grown since the open: past the limit? (Read up to one byte past
        // it, in small pieces, and dropped.)
        let mut rest = (&mut opened.reader).take(limit.saturating_sub(len).saturating_add(1));
        let extra = std::io::copy(&mut rest, &mut std::io::sink())
            .map_err(|e| Error::io("<a file of the working tree>", e))?;
        if len.saturating_add(extra) > limit {
            return Ok(Outcome::Grown(len.saturating_add(extra)));
        }
    }
    Ok(Outcome::Taken(FileBlob::Taken { id, metadata }))
}

/// The blob ID of the `len` bytes of `from`, read in pieces.
fn hash_stream(kind: gix::hash::Kind, len: u64, from: &mut dyn std::io::Read) -> Result<ObjectId> {
    let mut hasher = gix::hash::hasher(kind);
    hasher.update(&gix::objs::encode::loose_header(gix::objs::Kind::Blob, len));
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = from
            .read(&mut chunk)
            .map_err(|e| Error::io("<a file of the working tree>", e))?;
        if n == 0 {
            break;
        }
        hasher.update(&chunk[..n]);
    }
    hasher
        .try_finalize()
        .map_err(|e| git_error("hashing a file", e))
}

/// Exactly `left` bytes of `inner`: then the end; fails (and says
/// `shrunk`) when `inner` ends first.
struct Exact<'r> {
    inner: &'r mut dyn std::io::Read,
    left: u64,
    shrunk: bool,
}

impl std::io::Read for Exact<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = usize::try_from(self.left).map_or(buf.len(), |left| left.min(buf.len()));
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            self.shrunk = true;
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file shrank while it was read",
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::io::Write as _;

    use agent_checkpoint::root::ambient_authority;
    use agent_checkpoint::CapRoot;

    use super::*;

    /// A git repository (by `git init`) and a capability root on its work tree.
    fn repo() -> (tempfile::TempDir, gix::Repository, CapRoot) {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        let repo = gix::open(dir.path()).unwrap();
        let root = CapRoot::open(dir.path(), ambient_authority()).unwrap();
        (dir, repo, root)
    }

    fn rel(s: &str) -> RelPath {
        RelPath::try_from(s).unwrap()
    }

    fn git_hash(dir: &std::path::Path, name: &str) -> String {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["hash-object", name])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    fn append(path: &std::path::Path, bytes: &[u8]) {
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        file.write_all(bytes).unwrap();
    }

    /// Whole (small) and streamed (large) files: the blob git names them by,
    /// written or only hashed, and readable back.
    #[test]
    fn blobs_are_what_git_makes_of_the_file() {
        let (dir, repo, root) = repo();
        std::fs::write(dir.path().join("small.txt"), "small\n").unwrap();
        let big: Vec<u8> = (0..WHOLE_FILE_BYTES + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(dir.path().join("big.bin"), &big).unwrap();
        for name in ["small.txt", "big.bin"] {
            let want = git_hash(dir.path(), name);
            let hashed = file_blob(&repo, &root, &rel(name), None, Blob::Hash).unwrap();
            let FileBlob::Taken { id, .. } = hashed else {
                panic!("{name}: {hashed:?}");
            };
            assert_eq!(id.to_string(), want, "{name}");
            assert!(!repo.has_object(id), "{name}: only hashed");
            let written = file_blob(&repo, &root, &rel(name), Some(u64::MAX), Blob::Write).unwrap();
            assert_eq!(written, hashed, "{name}");
            let read = repo.find_object(id).unwrap();
            assert_eq!(
                read.data.len() as u64,
                std::fs::metadata(dir.path().join(name)).unwrap().len()
            );
        }
    }

    /// A file that grows after the open (the size check) past the limit is
    /// too large and never read past it; one that grows within the limit is
    /// taken as it was at the open; one that shrinks is read again.
    #[test]
    fn a_file_changing_after_the_size_check_is_never_read_past_the_limit() {
        let (dir, repo, root) = repo();
        let path = dir.path().join("grows.bin");
        for (start, limit) in [
            (100u64, 150u64),
            (WHOLE_FILE_BYTES + 100, WHOLE_FILE_BYTES + 150),
        ] {
            std::fs::write(&path, vec![b'a'; start as usize]).unwrap();
            // Grows by 1000 bytes right after the open: past the limit.
            let opened = root.open_file(&rel("grows.bin"), Some(limit)).unwrap();
            append(&path, &[b'b'; 1000]);
            let outcome = from_opened(&repo, opened, Some(limit), Blob::Write).unwrap();
            assert!(
                matches!(outcome, Outcome::Grown(n) if n == limit + 1),
                "{outcome:?}"
            );

            // Grows within the limit: the bytes it had at the open.
            std::fs::write(&path, vec![b'a'; start as usize]).unwrap();
            let want = git_hash(dir.path(), "grows.bin");
            let opened = root.open_file(&rel("grows.bin"), Some(limit)).unwrap();
            append(&path, &[b'b'; 10]);
            let outcome = from_opened(&repo, opened, Some(limit), Blob::Write).unwrap();
            let Outcome::Taken(FileBlob::Taken { id, metadata }) = outcome else {
                panic!("{outcome:?}");
            };
            assert_eq!((id.to_string(), metadata.len), (want, start));

            // Shrinks after the open: not taken from this open.
            std::fs::write(&path, vec![b'a'; start as usize]).unwrap();
            let opened = root.open_file(&rel("grows.bin"), Some(limit)).unwrap();
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(start / 2)
                .unwrap();
            let outcome = from_opened(&repo, opened, Some(limit), Blob::Write).unwrap();
            assert!(matches!(outcome, Outcome::Shrunk), "{outcome:?}");
            // Opened again, it is taken as it is now.
            let blob = file_blob(&repo, &root, &rel("grows.bin"), Some(limit), Blob::Hash).unwrap();
            assert!(
                matches!(blob, FileBlob::Taken { metadata, .. } if metadata.len == start / 2),
                "{blob:?}"
            );
        }
        // Over the limit at the open: too large, with its size, nothing read.
        std::fs::write(&path, vec![b'a'; 200]).unwrap();
        let blob = file_blob(&repo, &root, &rel("grows.bin"), Some(150), Blob::Write).unwrap();
        assert_eq!(blob, FileBlob::TooLarge(200));
    }

    /// Every file below `.git/objects` that is not a pack's or git's own
    /// (`info/`): the loose objects and whatever temp file a write left.
    fn loose_files(dir: &std::path::Path) -> Vec<String> {
        fn walk(dir: &std::path::Path, prefix: &str, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let entry = entry.unwrap();
                let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
                if entry.file_type().unwrap().is_dir() {
                    if name != "info" && name != "pack" {
                        walk(&entry.path(), &format!("{name}/"), out);
                    }
                } else {
                    out.push(name);
                }
            }
        }
        let mut out = Vec::new();
        walk(&dir.join(".git/objects"), "", &mut out);
        out.sort();
        out
    }

    /// A reader of an opened file that, once it gave `after` bytes, runs
    /// `change` on the file (by its path) once: a writer racing the stream.
    struct Racing<'a> {
        inner: Box<dyn std::io::Read + 'a>,
        given: u64,
        after: u64,
        change: Option<Box<dyn FnOnce() + 'a>>,
    }

    impl std::io::Read for Racing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.given >= self.after {
                if let Some(change) = self.change.take() {
                    change();
                }
            }
            let n = self.inner.read(buf)?;
            self.given += n as u64;
            Ok(n)
        }
    }

    fn racing<'a>(
        opened: OpenedFile<'a>,
        after: u64,
        change: impl FnOnce() + 'a,
    ) -> OpenedFile<'a> {
        let metadata = opened.metadata;
        let reader = Racing {
            inner: opened.reader,
            given: 0,
            after,
            change: Some(Box::new(change)),
        };
        OpenedFile::new(metadata, Box::new(reader))
    }

    fn git_out(dir: &std::path::Path, args: &[&str]) -> Vec<u8> {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
        out.stdout
    }

    /// A streamed file rewritten in place while it is read (same size,
    /// other bytes): the object written is named by the bytes it holds
    /// (git inflates it and hashes it to that name, `fsck` is clean, its
    /// size is the file's), never a name of one content over another's
    /// bytes; and the write leaves no temp file in `.git/objects`. A file
    /// cut short while it streams leaves nothing there at all.
    #[test]
    fn a_file_changing_while_it_streams_never_gives_a_misnamed_or_stray_object() {
        let (dir, repo, root) = repo();
        let path = dir.path().join("big.bin");
        let len = WHOLE_FILE_BYTES + (3 << 20);
        std::fs::write(&path, vec![b'a'; len as usize]).unwrap();
        let before = loose_files(dir.path());
        let opened = root.open_file(&rel("big.bin"), None).unwrap();
        let rewrite = || std::fs::write(&path, vec![b'b'; len as usize]).unwrap();
        let opened = racing(opened, 1 << 20, rewrite);
        let outcome = from_opened(&repo, opened, None, Blob::Write).unwrap();
        let Outcome::Taken(FileBlob::Taken { id, metadata }) = outcome else {
            panic!("{outcome:?}");
        };
        assert_eq!(metadata.len, len);
        let hex = id.to_string();
        let size = git_out(dir.path(), &["cat-file", "-s", &hex]);
        assert_eq!(String::from_utf8_lossy(&size).trim(), len.to_string());
        let bytes = git_out(dir.path(), &["cat-file", "blob", &hex]);
        assert_eq!(bytes.len() as u64, len);
        let rehashed =
            gix::objs::compute_hash(repo.object_hash(), gix::objs::Kind::Blob, &bytes).unwrap();
        assert_eq!(rehashed, id, "the object's bytes hash to its name");
        assert!(bytes.starts_with(b"a"), "the bytes read before the rewrite");
        assert!(bytes.ends_with(b"b"), "the bytes read after it");
        git_out(dir.path(), &["fsck", "--full", "--no-dangling"]);
        let mut after = loose_files(dir.path());
        after.retain(|name| !before.contains(name));
        assert_eq!(after, vec![format!("{}/{}", &hex[..2], &hex[2..])]);

        // Cut short mid-stream: not taken, and nothing left behind.
        std::fs::write(&path, vec![b'c'; len as usize]).unwrap();
        let before = loose_files(dir.path());
        let opened = root.open_file(&rel("big.bin"), None).unwrap();
        let cut = || {
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(2 << 20)
                .unwrap();
        };
        let opened = racing(opened, 1 << 20, cut);
        let outcome = from_opened(&repo, opened, None, Blob::Write).unwrap();
        assert!(matches!(outcome, Outcome::Shrunk), "{outcome:?}");
        assert_eq!(
            loose_files(dir.path()),
            before,
            "a temp file or object left"
        );
    }

    /// A root that cuts the file short right after each open: the file
    /// shrinks whenever it is read.
    struct Shrinking<'a> {
        inner: &'a CapRoot,
        file: std::path::PathBuf,
        opens: std::cell::Cell<usize>,
    }

    impl Root for Shrinking<'_> {
        fn metadata(&self, path: &RelPath) -> Result<Option<Metadata>> {
            self.inner.metadata(path)
        }
        fn read_dir(&self, dir: Option<&RelPath>) -> Result<Vec<String>> {
            self.inner.read_dir(dir)
        }
        fn read_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<Vec<u8>> {
            self.inner.read_file(path, max_bytes)
        }
        fn open_file(&self, path: &RelPath, max_bytes: Option<u64>) -> Result<OpenedFile<'_>> {
            let opened = self.inner.open_file(path, max_bytes)?;
            self.opens.set(self.opens.get() + 1);
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&self.file)
                .unwrap();
            file.set_len(opened.metadata.len / 2).unwrap();
            Ok(opened)
        }
        fn read_link(&self, path: &RelPath) -> Result<String> {
            self.inner.read_link(path)
        }
        fn write_file(
            &self,
            path: &RelPath,
            bytes: &[u8],
            options: &agent_checkpoint::root::WriteOptions,
        ) -> Result<()> {
            self.inner.write_file(path, bytes, options)
        }
        fn write_link(
            &self,
            path: &RelPath,
            target: &str,
            options: &agent_checkpoint::root::WriteOptions,
        ) -> Result<()> {
            self.inner.write_link(path, target, options)
        }
        fn remove_file(
            &self,
            path: &RelPath,
            expect: agent_checkpoint::root::Expect,
        ) -> Result<()> {
            self.inner.remove_file(path, expect)
        }
        fn create_dir(&self, path: &RelPath) -> Result<()> {
            self.inner.create_dir(path)
        }
        fn remove_dir(&self, path: &RelPath) -> Result<()> {
            self.inner.remove_dir(path)
        }
        fn sync_dir(&self, path: Option<&RelPath>) -> Result<()> {
            self.inner.sync_dir(path)
        }
    }

    /// A file that shrinks every time it is read is opened a bounded number
    /// of times ([`OPENS`]), then the read fails with an I/O error; no temp
    /// file or object is left, streamed or whole.
    #[test]
    fn a_file_that_keeps_shrinking_is_opened_a_bounded_number_of_times() {
        let (dir, repo, root) = repo();
        let path = dir.path().join("shrinks.bin");
        for start in [1u64 << 20, WHOLE_FILE_BYTES + (1 << 20)] {
            // Big enough to stay over the whole-file size for three halvings.
            let start = if start > WHOLE_FILE_BYTES {
                start << 2
            } else {
                start
            };
            std::fs::write(&path, vec![b'a'; start as usize]).unwrap();
            let before = loose_files(dir.path());
            let shrinking = Shrinking {
                inner: &root,
                file: path.clone(),
                opens: std::cell::Cell::new(0),
            };
            let err =
                file_blob(&repo, &shrinking, &rel("shrinks.bin"), None, Blob::Write).unwrap_err();
            assert_eq!(err.code(), agent_checkpoint::ErrorCode::Io, "{err}");
            assert!(err.to_string().contains("kept shrinking"), "{err}");
            assert_eq!(shrinking.opens.get(), OPENS, "{start}");
            assert_eq!(loose_files(dir.path()), before, "{start}: left behind");
        }
    }
}
