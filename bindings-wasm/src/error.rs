//! Core errors as JS `Error` objects carrying a stable `.code`.

use agent_checkpoint::{Error, ErrorCode};
use wasm_bindgen::prelude::*;

/// The `.code` a JS caller sees for `code`.
///
/// Spelled out (no catch-all) so that a new core code is a compile error
/// here until this host decides how to show it.
pub fn js_code(code: ErrorCode) -> &'static str {
    match code {
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

/// A JS `Error` with `message`, `code` and (when known) `path`.
pub fn to_js(error: &Error) -> JsValue {
    with_code(&error.to_string(), js_code(error.code()), error.path())
}

/// A JS `Error` with the given message, `code` and optional `path`.
pub fn with_code(message: &str, code: &str, path: Option<&str>) -> JsValue {
    let js = js_sys::Error::new(message);
    // Setting a property on a fresh Error cannot fail; ignore the Result.
    let _ = js_sys::Reflect::set(&js, &"code".into(), &code.into());
    if let Some(path) = path {
        let _ = js_sys::Reflect::set(&js, &"path".into(), &path.into());
    }
    js.into()
}

/// The `.code` of an argument whose value is unusable (an unknown
/// `onConflict`), spelled as the Node package (napi-rs) spells it.
pub const INVALID_ARG: &str = "InvalidArg";

/// A JS `Error` with `code: 'InvalidArg'` for an unusable argument value.
pub fn invalid_arg(message: &str) -> JsValue {
    with_code(message, INVALID_ARG, None)
}

/// A JS `TypeError` for an argument of the wrong shape (not a core error).
pub fn type_error(message: &str) -> JsValue {
    js_sys::TypeError::new(message).into()
}

/// Maps a core result into a JS one.
pub fn js_result<T>(result: agent_checkpoint::Result<T>) -> Result<T, JsValue> {
    result.map_err(|e| to_js(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_core_spelling() {
        for code in ErrorCode::ALL {
            assert_eq!(js_code(code), code.as_str());
        }
    }
}
