//! Core errors as the WIT `checkpoint-error` record.

use agent_checkpoint::ErrorCode as Core;

use crate::bindings::{CheckpointError, ErrorCode};

/// The WIT code of a core code. Spelled out (no catch-all) so that a new
/// core code is a compile error here until the WIT enum has it too.
pub fn wit_code(code: Core) -> ErrorCode {
    match code {
        Core::InvalidCheckpointId => ErrorCode::InvalidCheckpointId,
        Core::InvalidRefName => ErrorCode::InvalidRefName,
        Core::InvalidPath => ErrorCode::InvalidPath,
        Core::PathEscapesRoot => ErrorCode::PathEscapesRoot,
        Core::NotAFile => ErrorCode::NotAFile,
        Core::MalformedSnapshot => ErrorCode::MalformedSnapshot,
        Core::UnsupportedVersion => ErrorCode::UnsupportedVersion,
        Core::TooLarge => ErrorCode::TooLarge,
        Core::Unauthenticated => ErrorCode::Unauthenticated,
        Core::NotFound => ErrorCode::NotFound,
        Core::PermissionDenied => ErrorCode::PermissionDenied,
        Core::Io => ErrorCode::Io,
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
