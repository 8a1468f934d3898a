//! Core errors as the WIT `checkpoint-error` record.

use agent_checkpoint::ErrorCode as Core;

use crate::bindings::{CheckpointError, ErrorCode};

/// The WIT code of a core code: the variant of the same name. Every core
/// code has an arm (`core/tests/code_lists.rs` checks this file against
/// `ErrorCode::ALL`); the catch-all only satisfies the core enum being
/// non-exhaustive and is never reached by a code of this build.
pub fn wit_code(code: Core) -> ErrorCode {
    match code {
        Core::InvalidCheckpointId => ErrorCode::InvalidCheckpointId,
        Core::InvalidRefName => ErrorCode::InvalidRefName,
        Core::InvalidPath => ErrorCode::InvalidPath,
        Core::PathEscapesRoot => ErrorCode::PathEscapesRoot,
        Core::NotAFile => ErrorCode::NotAFile,
        Core::NotADirectory => ErrorCode::NotADirectory,
        Core::MalformedSnapshot => ErrorCode::MalformedSnapshot,
        Core::UnsupportedVersion => ErrorCode::UnsupportedVersion,
        Core::TooLarge => ErrorCode::TooLarge,
        Core::InvalidArgument => ErrorCode::InvalidArgument,
        Core::InvalidPattern => ErrorCode::InvalidPattern,
        Core::Unauthenticated => ErrorCode::Unauthenticated,
        Core::RootMismatch => ErrorCode::RootMismatch,
        Core::NotFound => ErrorCode::NotFound,
        Core::NoTranscript => ErrorCode::NoTranscript,
        Core::NotARepository => ErrorCode::NotARepository,
        Core::CorruptObject => ErrorCode::CorruptObject,
        Core::RefBusy => ErrorCode::RefBusy,
        Core::Conflict => ErrorCode::Conflict,
        Core::RemoteUnreachable => ErrorCode::RemoteUnreachable,
        Core::AuthFailed => ErrorCode::AuthFailed,
        Core::Rejected => ErrorCode::Rejected,
        Core::PermissionDenied => ErrorCode::PermissionDenied,
        Core::Io => ErrorCode::Io,
        _ => ErrorCode::Io,
    }
}

/// The WIT error of a core error: code, message and path.
pub fn to_wit(error: &agent_checkpoint::Error) -> CheckpointError {
    CheckpointError {
        code: wit_code(error.code()),
        message: error.to_string(),
        path: error.path().map(str::to_owned),
    }
}

/// Maps a core result into a WIT one.
pub fn core_result<T>(result: agent_checkpoint::Result<T>) -> Result<T, CheckpointError> {
    result.map_err(|e| to_wit(&e))
}
