//! What is at a path right now: the one place current files are read.
//!
//! A current file is read into memory only within a size limit; where only
//! a digest is needed it is streamed, so no file in the tree can make an
//! operation run out of memory.

use sha2::{Digest as _, Sha256};

use crate::digest::{sha256, PathState, Sha256Digest};
use crate::error::{Error, ErrorCode, Result};
use crate::relpath::RelPath;
use crate::root::{EntryKind, Metadata, Root};

/// What to learn about a current file.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Want {
    /// Keep its bytes when it holds at most this many.
    pub(crate) bytes_up_to: Option<u64>,
    /// Keep its bytes when it holds exactly this many (to compare them
    /// with captured bytes of that length, already in memory).
    pub(crate) bytes_if_len: Option<u64>,
    /// Compute its SHA-256 (streamed when the bytes are not kept).
    pub(crate) digest: bool,
}

/// What is at a path now.
#[derive(Debug, Clone)]
pub(crate) enum Now {
    /// Nothing.
    Absent,
    /// A regular file.
    File {
        /// Its metadata.
        meta: Metadata,
        /// Its bytes, when asked for and within the limit.
        bytes: Option<Vec<u8>>,
        /// Its SHA-256, when asked for (and readable).
        digest: Option<Sha256Digest>,
        /// Whether this process may read it: a file restored with mode 000
        /// by a non-root process is not, yet it can still be replaced.
        readable: bool,
    },
    /// A symlink and its target text.
    Symlink {
        /// Its metadata.
        meta: Metadata,
        /// The target text; `None` when the root will not reveal it (a WASI
        /// host refuses to read an absolute target). Such a link can still
        /// be replaced or removed, since neither follows it.
        target: Option<String>,
    },
    /// A directory.
    Dir(Metadata),
    /// A FIFO, socket or device.
    Other(Metadata),
}

impl Now {
    /// The metadata, when something is there.
    pub(crate) fn meta(&self) -> Option<&Metadata> {
        match self {
            Now::Absent => None,
            Now::File { meta, .. }
            | Now::Symlink { meta, .. }
            | Now::Dir(meta)
            | Now::Other(meta) => Some(meta),
        }
    }

    /// The state by content; `None` for a file whose digest was not
    /// computed (or that may not be read) and for a symlink whose target
    /// could not be read.
    pub(crate) fn state(&self) -> Option<PathState> {
        Some(match self {
            Now::Absent => PathState::Absent,
            Now::File { digest, .. } => PathState::File((*digest)?),
            Now::Symlink { target, .. } => PathState::Symlink(target.clone()?),
            Now::Dir(_) => PathState::Dir,
            Now::Other(_) => PathState::Other,
        })
    }
}

/// Looks at `path` without following a final symlink.
pub(crate) fn observe<R: Root + ?Sized>(root: &R, path: &RelPath, want: Want) -> Result<Now> {
    let Some(meta) = root.metadata(path)? else {
        return Ok(Now::Absent);
    };
    Ok(match meta.kind {
        EntryKind::File => {
            let read = read_limit(&want, &meta).map(|max| root.read_file(path, Some(max)));
            return file_now(root, path, meta, read, want);
        }
        EntryKind::Symlink => Now::Symlink {
            meta,
            target: match root.read_link(path) {
                Ok(target) => Some(target),
                Err(e)
                    if matches!(
                        e.code(),
                        ErrorCode::PathEscapesRoot | ErrorCode::PermissionDenied
                    ) =>
                {
                    None
                }
                Err(e) => return Err(e),
            },
        },
        EntryKind::Dir => Now::Dir(meta),
        _ => Now::Other(meta),
    })
}

/// The size limit to read a current file with, when `want` keeps its
/// bytes; `None` when they are not kept.
pub(crate) fn read_limit(want: &Want, meta: &Metadata) -> Option<u64> {
    let keep =
        want.bytes_up_to.is_some_and(|max| meta.len <= max) || want.bytes_if_len == Some(meta.len);
    keep.then(|| meta.len.max(want.bytes_up_to.unwrap_or(0)))
}

/// What is known of the regular file at `path` (`meta`), given what
/// reading it gave (`read`: `None` when its bytes were not wanted): the
/// bytes kept, the digest (streamed when the bytes were not kept), and
/// whether this process may read it.
pub(crate) fn file_now<R: Root + ?Sized>(
    root: &R,
    path: &RelPath,
    meta: Metadata,
    read: Option<Result<Vec<u8>>>,
    want: Want,
) -> Result<Now> {
    let mut readable = true;
    let bytes = match read {
        None => None,
        Some(Ok(bytes)) => Some(bytes),
        // It grew since it was looked at: too large to keep.
        Some(Err(Error::TooLarge { .. })) => None,
        Some(Err(e)) if e.code() == ErrorCode::PermissionDenied => {
            readable = false;
            None
        }
        Some(Err(e)) => return Err(e),
    };
    let digest = match (&bytes, want.digest && readable) {
        (_, false) => None,
        (Some(b), true) => Some(sha256(b)),
        (None, true) => match stream_digest(root, path) {
            Ok(digest) => Some(digest),
            Err(e) if e.code() == ErrorCode::PermissionDenied => {
                readable = false;
                None
            }
            Err(e) => return Err(e),
        },
    };
    Ok(Now::File {
        meta,
        bytes,
        digest,
        readable,
    })
}

/// The SHA-256 of the file at `path`, read in chunks.
pub(crate) fn stream_digest<R: Root + ?Sized>(root: &R, path: &RelPath) -> Result<Sha256Digest> {
    let mut hasher = Sha256::new();
    root.visit_file(path, &mut |chunk| hasher.update(chunk))?;
    Ok(hasher.finalize().into())
}
