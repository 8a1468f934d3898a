//! Core errors as JS `Error` objects carrying a stable `.code`.

use agent_checkpoint::{Error, ErrorCode};
use wasm_bindgen::prelude::*;

/// The `.code` a JS caller sees for `code`: the core's snake_case name.
pub fn js_code(code: ErrorCode) -> &'static str {
    code.as_str()
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

/// A JS `RangeError` with `code: 'invalid_argument'` for an argument whose
/// value is unusable (an unknown `onConflict`, an empty key), as in the
/// Node package.
pub fn invalid_value(name: &str, reason: &str) -> JsValue {
    let js = js_sys::RangeError::new(&format!("invalid {name}: {reason}"));
    let _ = js_sys::Reflect::set(
        &js,
        &"code".into(),
        &ErrorCode::InvalidArgument.as_str().into(),
    );
    js.into()
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
        for &code in ErrorCode::ALL {
            assert_eq!(js_code(code), code.as_str());
        }
    }
}
