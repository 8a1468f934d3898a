//! What a tool call returns: a structured result and a short text, or a
//! tool error carrying the library error's stable code.
//!
//! Success: `structuredContent` is the result object; `content` holds a
//! one-line summary, then the same object as JSON text (for clients that
//! only read `content`). Failure: `isError: true`, `structuredContent` is
//! `{"error": {"code", "category", "message", "path"?}}` and the text is
//! `error[<code>]: <message>`. A failure is never a JSON-RPC error: the
//! model reads it and can correct its call.

use agent_checkpoint::Error;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A tool's result: a serialisable object with a one-line summary.
pub(crate) trait ToolOutput: Serialize {
    /// One line for people and models: what happened.
    fn summary(&self) -> String;
}

/// The structured content of a tool error.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ToolError {
    /// What went wrong.
    pub error: ErrorBody,
}

/// The error inside a tool error.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ErrorBody {
    /// The stable error code (`path_escapes_root`, `invalid_argument`,
    /// `not_found`, ...), the same in every binding of the library.
    pub code: String,
    /// The code's category (`invalid_input`, `not_found`, `conflict`, ...).
    pub category: String,
    /// What went wrong, in words.
    pub message: String,
    /// The path the error is about, when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl ToolError {
    fn from_error(e: &Error) -> ToolError {
        ToolError {
            error: ErrorBody {
                code: e.code().as_str().to_owned(),
                category: e.category().as_str().to_owned(),
                message: e.to_string(),
                path: e.path().map(str::to_owned),
            },
        }
    }
}

/// The tool result for `outcome`.
pub(crate) fn tool_result<T: ToolOutput>(outcome: Result<T, Error>) -> CallToolResult {
    match outcome {
        Ok(value) => match serde_json::to_value(&value) {
            Ok(json) => {
                let mut result = CallToolResult::structured(json);
                result
                    .content
                    .insert(0, ContentBlock::text(value.summary()));
                result
            }
            Err(e) => failure(&Error::io(
                "<result>",
                std::io::Error::other(format!("cannot encode the result: {e}")),
            )),
        },
        Err(e) => failure(&e),
    }
}

/// The tool error for `e`.
pub(crate) fn failure(e: &Error) -> CallToolResult {
    let body = ToolError::from_error(e);
    let json = serde_json::to_value(&body).unwrap_or_else(|_| serde_json::json!({}));
    let mut result = CallToolResult::structured_error(json);
    result.content = vec![ContentBlock::text(format!("error[{}]: {e}", e.code()))];
    result
}

/// Reads a tool's arguments into `T`: a missing, unknown or mistyped
/// argument is `invalid_argument`, naming the argument (its path, such as
/// `paths[1]`) when the error is about one.
pub(crate) fn parse_args<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, Error> {
    serde_path_to_error::deserialize(serde_json::Value::Object(arguments)).map_err(|e| {
        let path = e.path().to_string();
        let name = if path == "." {
            "arguments".to_owned()
        } else {
            format!("argument {path}")
        };
        Error::invalid_argument(name, e.into_inner().to_string())
    })
}

/// Runs `work` on the blocking pool (it reads and writes files or git).
pub(crate) async fn blocking<T, F>(work: F) -> Result<T, Error>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, Error> + Send + 'static,
{
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(Error::io(
            "<tool>",
            std::io::Error::other(format!("the tool's task failed: {e}")),
        ))
    })
}
