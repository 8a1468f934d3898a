//! The one error type of the project and its vocabulary of codes.
//!
//! Every crate of the project (the core, the naming layer, the git store)
//! reports failures as [`Error`]; every binding shows them by their
//! [`ErrorCode`] (a stable snake_case name) and map the code's
//! [`ErrorCategory`] to the host's own error classes, so a new code is one
//! variant here and one line in each binding's list of names.

use std::fmt;
use std::io;

/// Result alias used throughout the project.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The stable error codes, the same in every binding.
///
/// [`ErrorCode::as_str`] gives the snake_case spelling used by Rust, Python
/// and JavaScript; [`ErrorCode::as_kebab`] the kebab-case spelling of WIT.
/// New codes may be added in minor releases (the enum is non-exhaustive);
/// [`ErrorCode::category`] tells how to treat one a caller does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A checkpoint ID is neither a legacy 12-hex ID nor a canonical ULID.
    InvalidCheckpointId,
    /// A git ref name is not one this project builds or accepts.
    InvalidRefName,
    /// A path is malformed: empty, non-canonical, non-UTF-8, a `.git`
    /// component that was not allowed, or a symlink chain that loops.
    InvalidPath,
    /// A path leaves the root (`..`, an absolute path elsewhere, a symlink
    /// pointing out).
    PathEscapesRoot,
    /// A directory, FIFO, socket or device sits where a file was expected.
    NotAFile,
    /// A file sits where a directory was expected (a path below a regular file).
    NotADirectory,
    /// A snapshot is not the JSON document this project writes.
    MalformedSnapshot,
    /// A snapshot declares a version, or needs an extension, this build does not read.
    UnsupportedVersion,
    /// An input exceeds a configured or built-in size limit.
    TooLarge,
    /// An argument has the right type but an unusable value.
    InvalidArgument,
    /// A caller-supplied pattern (a redaction rule) is not a valid regular expression.
    InvalidPattern,
    /// A snapshot's MAC is missing or wrong for the given key, or the key is unusable.
    Unauthenticated,
    /// A snapshot taken under one root was to be rolled back under another
    /// (`strict_root`).
    RootMismatch,
    /// A file, directory, checkpoint or ref the operation needs does not exist.
    NotFound,
    /// A checkpoint session has no transcript where one was asked for.
    NoTranscript,
    /// The path is not inside a git repository.
    NotARepository,
    /// A git object that exists cannot be read or does not have the expected shape.
    CorruptObject,
    /// A ref kept moving under concurrent writers: compare-and-swap gave up.
    RefBusy,
    /// The same thing was written differently on two sides (a session id on
    /// a local and a remote checkpoint).
    Conflict,
    /// A git remote could not be reached (network, no such remote, server gone).
    RemoteUnreachable,
    /// A git remote refused the credentials.
    AuthFailed,
    /// A git remote rejected a ref update (not a fast-forward, a hook).
    Rejected,
    /// The operating system refused access.
    PermissionDenied,
    /// Any other I/O failure.
    Io,
}

/// What kind of failure a code is: each binding maps a category to its
/// host's error classes (Python `ValueError`, `FileNotFoundError`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorCategory {
    /// The caller's input is unusable (an ID, a path, a snapshot, an option).
    InvalidInput,
    /// Something the operation needs does not exist.
    NotFound,
    /// The operating system refused access.
    PermissionDenied,
    /// The operation met a state it must not overwrite (a concurrent writer,
    /// a diverged remote, a different root).
    Conflict,
    /// A key or credential was refused.
    Unauthenticated,
    /// The system, the disk or the network failed.
    Io,
}

impl ErrorCategory {
    /// The stable snake_case name (`invalid_input`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCategory::InvalidInput => "invalid_input",
            ErrorCategory::NotFound => "not_found",
            ErrorCategory::PermissionDenied => "permission_denied",
            ErrorCategory::Conflict => "conflict",
            ErrorCategory::Unauthenticated => "unauthenticated",
            ErrorCategory::Io => "io",
        }
    }
}

impl fmt::Display for ErrorCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::InvalidCheckpointId,
        ErrorCode::InvalidRefName,
        ErrorCode::InvalidPath,
        ErrorCode::PathEscapesRoot,
        ErrorCode::NotAFile,
        ErrorCode::NotADirectory,
        ErrorCode::MalformedSnapshot,
        ErrorCode::UnsupportedVersion,
        ErrorCode::TooLarge,
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidPattern,
        ErrorCode::Unauthenticated,
        ErrorCode::RootMismatch,
        ErrorCode::NotFound,
        ErrorCode::NoTranscript,
        ErrorCode::NotARepository,
        ErrorCode::CorruptObject,
        ErrorCode::RefBusy,
        ErrorCode::Conflict,
        ErrorCode::RemoteUnreachable,
        ErrorCode::AuthFailed,
        ErrorCode::Rejected,
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
            ErrorCode::NotADirectory => "not_a_directory",
            ErrorCode::MalformedSnapshot => "malformed_snapshot",
            ErrorCode::UnsupportedVersion => "unsupported_version",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::InvalidPattern => "invalid_pattern",
            ErrorCode::Unauthenticated => "unauthenticated",
            ErrorCode::RootMismatch => "root_mismatch",
            ErrorCode::NotFound => "not_found",
            ErrorCode::NoTranscript => "no_transcript",
            ErrorCode::NotARepository => "not_a_repository",
            ErrorCode::CorruptObject => "corrupt_object",
            ErrorCode::RefBusy => "ref_busy",
            ErrorCode::Conflict => "conflict",
            ErrorCode::RemoteUnreachable => "remote_unreachable",
            ErrorCode::AuthFailed => "auth_failed",
            ErrorCode::Rejected => "rejected",
            ErrorCode::PermissionDenied => "permission_denied",
            ErrorCode::Io => "io",
        }
    }

    /// What kind of failure this code is.
    pub const fn category(self) -> ErrorCategory {
        match self {
            ErrorCode::InvalidCheckpointId
            | ErrorCode::InvalidRefName
            | ErrorCode::InvalidPath
            | ErrorCode::PathEscapesRoot
            | ErrorCode::NotAFile
            | ErrorCode::NotADirectory
            | ErrorCode::MalformedSnapshot
            | ErrorCode::UnsupportedVersion
            | ErrorCode::TooLarge
            | ErrorCode::InvalidArgument
            | ErrorCode::InvalidPattern
            | ErrorCode::NotARepository => ErrorCategory::InvalidInput,
            ErrorCode::NotFound | ErrorCode::NoTranscript => ErrorCategory::NotFound,
            ErrorCode::PermissionDenied => ErrorCategory::PermissionDenied,
            ErrorCode::RootMismatch
            | ErrorCode::RefBusy
            | ErrorCode::Conflict
            | ErrorCode::Rejected => ErrorCategory::Conflict,
            ErrorCode::Unauthenticated | ErrorCode::AuthFailed => ErrorCategory::Unauthenticated,
            ErrorCode::CorruptObject | ErrorCode::RemoteUnreachable | ErrorCode::Io => {
                ErrorCategory::Io
            }
        }
    }

    /// The kebab-case name used by the WIT interface (`path-escapes-root`).
    pub fn as_kebab(self) -> String {
        self.as_str().replace('_', "-")
    }

    /// The class-style name bindings derive their exception or type names
    /// from (`path_escapes_root` -> `PathEscapesRoot`).
    pub fn as_pascal(self) -> String {
        self.as_str()
            .split('_')
            .map(|word| {
                let mut chars = word.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            })
            .collect()
    }

    /// Looks a code up by its snake_case name.
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|code| code.as_str() == name)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything that can go wrong, in every crate of the project.
///
/// Each variant carries what a user needs to fix the input; [`Error::code`]
/// gives its stable [`ErrorCode`] and [`Error::path`] the path involved, if
/// any. Messages name paths and values as quoted text, never as Rust debug
/// forms, and never contain key material.
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
    /// See [`ErrorCode::NotADirectory`].
    #[error("{}", not_a_directory(path, parent, kind))]
    NotADirectory {
        /// The path that was asked for.
        path: String,
        /// The ancestor that is not a directory.
        parent: String,
        /// What that ancestor is (`file`, `special file ...`).
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
    /// A snapshot names, in `critical`, an extension this build does not
    /// understand (code `unsupported_version`).
    #[error("the snapshot needs the extension {name:?}, which this build does not read")]
    UnsupportedExtension {
        /// The extension's name.
        name: String,
    },
    /// See [`ErrorCode::TooLarge`].
    #[error("{what} is too large: {size} exceeds the limit of {limit}")]
    TooLarge {
        /// What exceeded the limit (`file "src/a.py"`, `snapshot`).
        what: String,
        /// The path involved, when it is a file under the root.
        path: Option<String>,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// See [`ErrorCode::InvalidArgument`].
    #[error("invalid {name}: {reason}")]
    InvalidArgument {
        /// The argument or option (`on_conflict`).
        name: String,
        /// Why its value cannot be used.
        reason: String,
    },
    /// See [`ErrorCode::InvalidPattern`].
    #[error("invalid pattern {pattern:?}: {reason}")]
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// The regex engine's complaint.
        reason: String,
    },
    /// See [`ErrorCode::Unauthenticated`].
    #[error("unauthenticated: {reason}")]
    Unauthenticated {
        /// Why authentication failed.
        reason: String,
    },
    /// See [`ErrorCode::RootMismatch`].
    #[error("the snapshot was taken under {captured:?}, not under {given:?}")]
    RootMismatch {
        /// The root the snapshot records.
        captured: String,
        /// The root it was to be rolled back under.
        given: String,
    },
    /// See [`ErrorCode::NotFound`] (for things other than files, such as
    /// checkpoints; a missing file is an [`Error::Io`]).
    #[error("{what} not found")]
    NotFound {
        /// What is missing (`checkpoint "01J..."`).
        what: String,
    },
    /// See [`ErrorCode::NoTranscript`].
    #[error("{what} has no transcript")]
    NoTranscript {
        /// The session without one.
        what: String,
    },
    /// See [`ErrorCode::NotARepository`].
    #[error("not a git repository: {path:?}: {reason}")]
    NotARepository {
        /// The path that was searched from.
        path: String,
        /// Why it is not one.
        reason: String,
    },
    /// See [`ErrorCode::CorruptObject`].
    #[error("corrupt git object {what}: {reason}")]
    CorruptObject {
        /// The object or ref that cannot be read.
        what: String,
        /// What is wrong with it.
        reason: String,
    },
    /// See [`ErrorCode::RefBusy`].
    #[error("ref {name:?} kept moving: gave up after {attempts} attempts")]
    RefBusy {
        /// The ref.
        name: String,
        /// How many compare-and-swap attempts were made.
        attempts: u32,
    },
    /// A lock file another process kept holding for longer than the wait
    /// allows (code `ref_busy`).
    #[error("{path}: lock held by another process: gave up after waiting {waited_ms} ms")]
    LockBusy {
        /// The lock file.
        path: String,
        /// How long it was waited for.
        waited_ms: u64,
    },
    /// See [`ErrorCode::Conflict`].
    #[error("conflict on {what}: {reason}")]
    Conflict {
        /// What conflicts (`session "s1" of checkpoint "01J..."`).
        what: String,
        /// How the two sides differ.
        reason: String,
    },
    /// See [`ErrorCode::RemoteUnreachable`].
    #[error("remote {remote:?} is unreachable: {reason}")]
    RemoteUnreachable {
        /// The remote's name or URL.
        remote: String,
        /// The remote's or the transport's one-line reason.
        reason: String,
    },
    /// See [`ErrorCode::AuthFailed`].
    #[error("remote {remote:?} refused the credentials: {reason}")]
    AuthFailed {
        /// The remote's name or URL.
        remote: String,
        /// The remote's one-line reason.
        reason: String,
    },
    /// See [`ErrorCode::Rejected`].
    #[error("remote {remote:?} rejected the update: {reason}")]
    Rejected {
        /// The remote's name or URL.
        remote: String,
        /// The remote's one-line reason.
        reason: String,
    },
    /// The `git` program the store runs is older than a feature needs
    /// (code `io`: the system must change, not the input).
    #[error("git {found} is too old for {what}: it needs git {needed} or newer")]
    GitTooOld {
        /// The version `git --version` printed.
        found: String,
        /// The oldest version that works.
        needed: String,
        /// What needs it (`reftable repositories`).
        what: String,
    },
    /// An I/O failure; its code is `not_found`, `permission_denied` or `io`
    /// depending on the underlying [`io::ErrorKind`]. The operating system's
    /// message is part of this error's own message (so it is not also
    /// returned by `source()`, which would print it twice in error chains);
    /// [`Error::io_error`] gives the original.
    #[error("{}{error}", path_prefix(.path))]
    Io {
        /// The path involved, relative to the root where known.
        path: Option<String>,
        /// The operating system's error.
        error: io::Error,
    },
}

fn not_a_directory(path: &str, parent: &str, kind: &str) -> String {
    if path == parent {
        format!("{path:?} is a {kind}, not a directory")
    } else {
        format!("{path:?} is below {parent:?}, which is a {kind}, not a directory")
    }
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
            Error::NotADirectory { .. } => ErrorCode::NotADirectory,
            Error::MalformedSnapshot { .. } => ErrorCode::MalformedSnapshot,
            Error::UnsupportedVersion { .. } | Error::UnsupportedExtension { .. } => {
                ErrorCode::UnsupportedVersion
            }
            Error::TooLarge { .. } => ErrorCode::TooLarge,
            Error::InvalidArgument { .. } => ErrorCode::InvalidArgument,
            Error::InvalidPattern { .. } => ErrorCode::InvalidPattern,
            Error::Unauthenticated { .. } => ErrorCode::Unauthenticated,
            Error::RootMismatch { .. } => ErrorCode::RootMismatch,
            Error::NotFound { .. } => ErrorCode::NotFound,
            Error::NoTranscript { .. } => ErrorCode::NoTranscript,
            Error::NotARepository { .. } => ErrorCode::NotARepository,
            Error::CorruptObject { .. } => ErrorCode::CorruptObject,
            Error::RefBusy { .. } | Error::LockBusy { .. } => ErrorCode::RefBusy,
            Error::Conflict { .. } => ErrorCode::Conflict,
            Error::RemoteUnreachable { .. } => ErrorCode::RemoteUnreachable,
            Error::AuthFailed { .. } => ErrorCode::AuthFailed,
            Error::Rejected { .. } => ErrorCode::Rejected,
            Error::GitTooOld { .. } => ErrorCode::Io,
            Error::Io { error, .. } => match error.kind() {
                io::ErrorKind::NotFound => ErrorCode::NotFound,
                io::ErrorKind::PermissionDenied => ErrorCode::PermissionDenied,
                _ => ErrorCode::Io,
            },
        }
    }

    /// The category of this error's code.
    pub fn category(&self) -> ErrorCategory {
        self.code().category()
    }

    /// The path this error is about, if it is about one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Error::InvalidPath { path, .. }
            | Error::PathEscapesRoot { path, .. }
            | Error::NotAFile { path, .. }
            | Error::NotADirectory { path, .. } => Some(path),
            Error::TooLarge { path, .. } | Error::Io { path, .. } => path.as_deref(),
            Error::LockBusy { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The operating system's error, for I/O errors.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Error::Io { error, .. } => Some(error),
            _ => None,
        }
    }

    /// Whether the path (or a directory on the way to it) was missing or
    /// not a directory: what a path that changed a moment ago gives, and
    /// what a write whose parent is missing gives.
    pub(crate) fn is_missing_or_not_a_dir(&self) -> bool {
        self.code() == ErrorCode::NotFound
            || self
                .io_error()
                .is_some_and(|io| io.kind() == io::ErrorKind::NotADirectory)
    }

    /// The operating system's error number, for I/O errors that carry one.
    pub fn raw_os_error(&self) -> Option<i32> {
        self.io_error().and_then(io::Error::raw_os_error)
    }

    /// Builds an [`Error::Io`] about `path`.
    pub fn io(path: impl Into<String>, error: io::Error) -> Error {
        Error::Io {
            path: Some(path.into()),
            error,
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

    /// Builds an [`Error::InvalidArgument`].
    pub fn invalid_argument(name: impl Into<String>, reason: impl Into<String>) -> Error {
        Error::InvalidArgument {
            name: name.into(),
            reason: reason.into(),
        }
    }

    /// Builds an [`Error::TooLarge`] about the file at `path`.
    pub fn file_too_large(path: impl Into<String>, size: u64, limit: u64) -> Error {
        let path = path.into();
        Error::TooLarge {
            what: format!("file {path:?}"),
            path: Some(path),
            size,
            limit,
        }
    }

    /// Builds an [`Error::TooLarge`] about something that is not a file.
    pub fn too_large(what: impl Into<String>, size: u64, limit: u64) -> Error {
        Error::TooLarge {
            what: what.into(),
            path: None,
            size,
            limit,
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for ErrorCategory {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for &code in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_name(code.as_str()), Some(code));
            assert!(seen.insert(code.as_str()));
            assert!(!code.as_kebab().contains('_'));
            assert!(!code.as_pascal().contains('_'));
        }
        assert_eq!(ErrorCode::from_name("nope"), None);
        assert_eq!(ErrorCode::PathEscapesRoot.as_pascal(), "PathEscapesRoot");
        assert_eq!(ErrorCode::Io.as_pascal(), "Io");
        assert_eq!(ErrorCode::NotAFile.as_pascal(), "NotAFile");
    }

    #[test]
    fn categories_cover_what_the_bindings_map() {
        assert_eq!(ErrorCode::TooLarge.category(), ErrorCategory::InvalidInput);
        assert_eq!(ErrorCode::NoTranscript.category(), ErrorCategory::NotFound);
        assert_eq!(ErrorCode::RefBusy.category(), ErrorCategory::Conflict);
        assert_eq!(
            ErrorCode::AuthFailed.category(),
            ErrorCategory::Unauthenticated
        );
        assert_eq!(ErrorCode::RemoteUnreachable.category(), ErrorCategory::Io);
    }

    #[test]
    fn io_errors_map_by_kind_and_print_the_os_message_once() {
        let e = Error::io("a", io::Error::from(io::ErrorKind::NotFound));
        assert_eq!(e.code(), ErrorCode::NotFound);
        assert_eq!(e.path(), Some("a"));
        let e = Error::io("a", io::Error::from(io::ErrorKind::PermissionDenied));
        assert_eq!(e.code(), ErrorCode::PermissionDenied);
        let e = Error::io("a", io::Error::other("boom"));
        assert_eq!(e.code(), ErrorCode::Io);
        assert_eq!(e.to_string(), "a: boom");
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn too_large_names_its_path() {
        let e = Error::file_too_large("big.bin", 10, 5);
        assert_eq!(e.path(), Some("big.bin"));
        assert_eq!(
            e.to_string(),
            "file \"big.bin\" is too large: 10 exceeds the limit of 5"
        );
    }
}
