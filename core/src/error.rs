//! The one error type of the crate and its closed vocabulary of codes.
//!
//! Every binding maps [`ErrorCode`] with an exhaustive `match`, so adding a
//! code is a breaking change on purpose: each host must decide how to show it.

use std::fmt;
use std::io;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The closed set of error codes, stable across every binding.
///
/// [`ErrorCode::as_str`] gives the snake_case spelling used by Python and
/// JavaScript; [`ErrorCode::as_kebab`] the kebab-case spelling used by WIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorCode {
    /// A checkpoint ID is neither a legacy 12-hex ID nor a canonical ULID.
    InvalidCheckpointId,
    /// A git ref name is not one this crate builds or accepts.
    InvalidRefName,
    /// A path is malformed: empty, non-canonical, non-UTF-8, a `.git`
    /// component that was not allowed, or a symlink chain that loops.
    InvalidPath,
    /// A path leaves the root (`..`, an absolute path elsewhere, a symlink
    /// pointing out).
    PathEscapesRoot,
    /// A directory, FIFO, socket or device sits where a file was expected.
    NotAFile,
    /// A snapshot is not the JSON document this crate writes.
    MalformedSnapshot,
    /// A snapshot declares a version this crate does not read.
    UnsupportedVersion,
    /// An input exceeds a configured or built-in size limit.
    TooLarge,
    /// A snapshot's MAC is missing or wrong for the given key.
    Unauthenticated,
    /// A file or directory the operation needs does not exist.
    NotFound,
    /// The operating system refused access.
    PermissionDenied,
    /// Any other I/O failure.
    Io,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [ErrorCode; 12] = [
        ErrorCode::InvalidCheckpointId,
        ErrorCode::InvalidRefName,
        ErrorCode::InvalidPath,
        ErrorCode::PathEscapesRoot,
        ErrorCode::NotAFile,
        ErrorCode::MalformedSnapshot,
        ErrorCode::UnsupportedVersion,
        ErrorCode::TooLarge,
        ErrorCode::Unauthenticated,
        ErrorCode::NotFound,
        ErrorCode::PermissionDenied,
        ErrorCode::Io,
    ];

    /// The stable snake_case name (`path_escapes_root`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidCheckpointId => "invalid_checkpoint_id",
            ErrorCode::InvalidRefName => "invalid_ref_name",
            ErrorCode::InvalidPath => "invalid_path",
            ErrorCode::PathEscapesRoot => "path_escapes_root",
            ErrorCode::NotAFile => "not_a_file",
            ErrorCode::MalformedSnapshot => "malformed_snapshot",
            ErrorCode::UnsupportedVersion => "unsupported_version",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::Unauthenticated => "unauthenticated",
            ErrorCode::NotFound => "not_found",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::Io => "io",
        }
    }

    /// The kebab-case name used by the WIT interface (`path-escapes-root`).
    pub fn as_kebab(self) -> String {
        self.as_str().replace('_', "-")
    }

    /// Looks a code up by its snake_case name.
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL
            .into_iter()
            .find(|code| code.as_str() == name)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything that can go wrong in this crate.
///
/// Each variant carries what a user needs to fix the input; [`Error::code`]
/// gives its stable [`ErrorCode`] and [`Error::path`] the path involved, if any.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// See [`ErrorCode::InvalidCheckpointId`].
    #[error("invalid checkpoint id {id:?}: {reason}")]
    InvalidCheckpointId {
        /// The rejected input.
        id: String,
        /// Why it was rejected.
        reason: String,
    },
    /// See [`ErrorCode::InvalidRefName`].
    #[error("invalid ref name {name:?}: {reason}")]
    InvalidRefName {
        /// The rejected input.
        name: String,
        /// Why it was rejected.
        reason: String,
    },
    /// See [`ErrorCode::InvalidPath`].
    #[error("invalid path {path:?}: {reason}")]
    InvalidPath {
        /// The rejected path, as given (lossy only for display).
        path: String,
        /// Why it was rejected.
        reason: String,
    },
    /// See [`ErrorCode::PathEscapesRoot`].
    #[error("path {path:?} escapes the root: {reason}")]
    PathEscapesRoot {
        /// The rejected path, as given.
        path: String,
        /// How it escapes.
        reason: String,
    },
    /// See [`ErrorCode::NotAFile`].
    #[error("{path:?} is a {kind}, not a regular file")]
    NotAFile {
        /// The canonical path that is not a file.
        path: String,
        /// What it is instead (`directory`, `fifo`, ...).
        kind: String,
    },
    /// See [`ErrorCode::MalformedSnapshot`].
    #[error("malformed snapshot: {reason}")]
    MalformedSnapshot {
        /// What is wrong with it.
        reason: String,
    },
    /// See [`ErrorCode::UnsupportedVersion`].
    #[error("unsupported snapshot version {version} (this build reads version 1)")]
    UnsupportedVersion {
        /// The version the snapshot declares.
        version: String,
    },
    /// See [`ErrorCode::TooLarge`].
    #[error("{what} is too large: {size} exceeds the limit of {limit}")]
    TooLarge {
        /// What exceeded the limit.
        what: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// See [`ErrorCode::Unauthenticated`].
    #[error("unauthenticated snapshot: {reason}")]
    Unauthenticated {
        /// Why authentication failed.
        reason: String,
    },
    /// An I/O failure; its code is `not_found`, `permission_denied` or `io`
    /// depending on the underlying [`io::ErrorKind`].
    #[error("{}{source}", path_prefix(.path))]
    Io {
        /// The path involved, relative to the root where known.
        path: Option<String>,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
}

fn path_prefix(path: &Option<String>) -> String {
    match path {
        Some(p) => format!("{p}: "),
        None => String::new(),
    }
}

impl Error {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::InvalidCheckpointId { .. } => ErrorCode::InvalidCheckpointId,
            Error::InvalidRefName { .. } => ErrorCode::InvalidRefName,
            Error::InvalidPath { .. } => ErrorCode::InvalidPath,
            Error::PathEscapesRoot { .. } => ErrorCode::PathEscapesRoot,
            Error::NotAFile { .. } => ErrorCode::NotAFile,
            Error::MalformedSnapshot { .. } => ErrorCode::MalformedSnapshot,
            Error::UnsupportedVersion { .. } => ErrorCode::UnsupportedVersion,
            Error::TooLarge { .. } => ErrorCode::TooLarge,
            Error::Unauthenticated { .. } => ErrorCode::Unauthenticated,
            Error::Io { source, .. } => match source.kind() {
                io::ErrorKind::NotFound => ErrorCode::NotFound,
                io::ErrorKind::PermissionDenied => ErrorCode::PermissionDenied,
                _ => ErrorCode::Io,
            },
        }
    }

    /// The path this error is about, if it is about one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::InvalidPath { path, .. }
            | Error::PathEscapesRoot { path, .. }
            | Error::NotAFile { path, .. } => Some(path),
            Error::Io { path, .. } => path.as_deref(),
            _ => None,
        }
    }

    /// The operating system's error number, for I/O errors that carry one.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            Error::Io { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }

    /// Builds an [`Error::Io`] about `path`.
    pub fn io(path: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            path: Some(path.into()),
            source,
        }
    }

    /// Builds an [`Error::InvalidPath`].
    pub fn invalid_path(path: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::InvalidPath {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// Builds an [`Error::PathEscapesRoot`].
    pub fn escapes(path: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::PathEscapesRoot {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// Builds an [`Error::MalformedSnapshot`].
    pub fn malformed(reason: impl Into<String>) -> Error {
        Error::MalformedSnapshot {
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_name(code.as_str()), Some(code));
            assert!(seen.insert(code.as_str()));
            assert!(!code.as_kebab().contains('_'));
        }
        assert_eq!(ErrorCode::from_name("nope"), None);
    }

    #[test]
    fn io_errors_map_by_kind() {
        let e = Error::io("a", io::Error::from(io::ErrorKind::NotFound));
        assert_eq!(e.code(), ErrorCode::NotFound);
        assert_eq!(e.path(), Some("a"));
        let e = Error::io("a", io::Error::from(io::ErrorKind::PermissionDenied));
        assert_eq!(e.code(), ErrorCode::PermissionDenied);
        let e = Error::io("a", io::Error::other("boom"));
        assert_eq!(e.code(), ErrorCode::Io);
        assert_eq!(e.to_string(), "a: boom");
    }
}
