//! The stdio framing in front of the SDK: newline-delimited messages, each
//! at most [`DEFAULT_MAX_MESSAGE_BYTES`] (or the configured limit), screened
//! and parsed before `rmcp` sees them (the transport is
//! [`crate::transport`]).
//!
//! The SDK's own stdio transport silently ignores a line that is not JSON,
//! drops an oversized one, and answers a request it cannot read without its
//! `id`; JSON-RPC 2.0 asks for an answer that names the request. So every
//! line is screened first:
//! - not JSON: a `-32700` parse error, `id` null (none can be read);
//! - longer than the limit: dropped unread (memory stays bounded) and
//!   answered with a `-32600` invalid request, `id` null;
//! - JSON that is not an object (a batch, a scalar): `-32600`, `id` null;
//! - an object nested deeper than [`MAX_DEPTH`] (the SDK's parser would
//!   refuse it and drop it without a word): `-32600`, with its `id` when it
//!   has a readable one (the top-level members are read without a depth
//!   limit);
//! - an object without `"jsonrpc": "2.0"`: `-32600`, with its `id` when it
//!   has a readable one; a response (no `method`, a `result` or `error`)
//!   is dropped, since JSON-RPC never answers a response;
//! - a request the SDK's types cannot hold (an `id` beyond what its id
//!   type holds, such as `18446744073709551615` or `1e30`, a `params` of
//!   the wrong shape): `-32600` with its `id`; such a notification or
//!   response is dropped (neither is ever answered);
//! - blank lines are skipped; everything else goes to `rmcp`, parsed.
//!
//! An `id` is given back exactly as the client wrote it (its JSON text),
//! when it is a string or a number; any other `id` is answered as null.
//! Every answer is one whole line on the one output the SDK writes to, so
//! stdout carries nothing but whole protocol messages. A bad line never
//! ends the session; only the end of the input (or a broken pipe) does.

use rmcp::model::ErrorData;
use rmcp::service::{RoleServer, RxJsonRpcMessage};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;

use crate::transport::{Screened, ScreenedTransport};

/// The largest message the server reads: 16 MiB (the SDK's own default for
/// one stdio line). Longer lines are dropped and answered with an error.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The deepest nesting of arrays and objects a message may have: the
/// SDK's parser (serde_json) refuses anything deeper, so the screen
/// answers it instead.
pub const MAX_DEPTH: usize = 127;

/// How many screened lines may wait for the SDK (the screen reads ahead
/// at most this many messages, each within the size limit).
const AHEAD: usize = 2;

/// Starts screening `input` (on its own task) and returns the transport
/// the SDK serves on; the answers and the SDK's messages go to `output`.
pub(crate) fn screened<R, W>(input: R, output: W, max_message_bytes: usize) -> ScreenedTransport<W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_sdk, screened) = mpsc::channel(AHEAD);
    tokio::spawn(screen(input, to_sdk, max_message_bytes.max(1)));
    ScreenedTransport::new(screened, output)
}

/// One line read with a bound.
enum Line {
    /// A whole line (with its newline) is in the buffer.
    Complete,
    /// The line was longer than the limit; it was dropped.
    Oversized,
    /// The input ended (a trailing line without a newline is not a message).
    End,
}

/// Reads `input` line by line and passes each verdict on.
async fn screen<R: AsyncRead + Unpin>(input: R, to_sdk: mpsc::Sender<Screened>, max: usize) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        let next = match read_line(&mut input, &mut line, max).await {
            Line::End => break,
            Line::Oversized => {
                eprintln!("agent-checkpoint mcp: dropped a message of more than {max} bytes");
                let error = ErrorData::invalid_request(
                    format!(
                        "message larger than the server's limit of {max} bytes: dropped unread"
                    ),
                    Some(serde_json::json!({ "max_message_bytes": max })),
                );
                Some(Screened::Answer(answer(&error, None)))
            }
            Line::Complete => match verdict(&line) {
                Verdict::Forward(message) => Some(Screened::Message(message)),
                Verdict::Skip => None,
                Verdict::Refuse(error, id) => {
                    eprintln!("agent-checkpoint mcp: refused a message: {}", error.message);
                    Some(Screened::Answer(answer(&error, id.as_deref())))
                }
            },
        };
        line.clear();
        if let Some(next) = next {
            if to_sdk.send(next).await.is_err() {
                break;
            }
        }
    }
    // Dropping `to_sdk` ends the SDK's input: the session closes.
}

/// The error answer to a request with the `id` text `id` (null without
/// one), as one line.
fn answer(error: &ErrorData, id: Option<&str>) -> Vec<u8> {
    let error = serde_json::to_string(error)
        .unwrap_or_else(|_| format!(r#"{{"code":{},"message":"invalid request"}}"#, error.code.0));
    let mut line = format!(
        r#"{{"jsonrpc":"2.0","id":{},"error":{error}}}"#,
        id.unwrap_or("null")
    )
    .into_bytes();
    line.push(b'\n');
    line
}

/// Reads one `\n`-terminated line into `line` without ever holding more
/// than `max` bytes of it (the newline not counted).
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Vec<u8>,
    max: usize,
) -> Line {
    let mut oversized = false;
    loop {
        let (used, done) = {
            let available = match input.fill_buf().await {
                Ok(bytes) => bytes,
                Err(e) => {
                    eprintln!("agent-checkpoint mcp: cannot read the input: {e}");
                    return Line::End;
                }
            };
            if available.is_empty() {
                return Line::End;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let body = newline.map_or(take, |i| i);
            if !oversized && line.len() + body > max {
                oversized = true;
                line.clear();
            }
            if !oversized {
                line.extend_from_slice(&available[..take]);
            }
            (take, newline.is_some())
        };
        input.consume(used);
        if done {
            return if oversized {
                Line::Oversized
            } else {
                Line::Complete
            };
        }
    }
}

/// What to do with one line.
enum Verdict {
    /// Pass it on, parsed.
    Forward(Box<RxJsonRpcMessage<RoleServer>>),
    /// Drop it without a word.
    Skip,
    /// Answer it with this error and this `id` (its JSON text).
    Refuse(ErrorData, Option<String>),
}

/// The members of a message the screen looks at.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default)]
    jsonrpc: Option<serde_json::Value>,
    /// The `id` member's text (`null` included: `None` only without one).
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<IgnoredAny>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

/// A member that is there, whatever its value (`null` too).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

fn verdict(line: &[u8]) -> Verdict {
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    // JSON text is UTF-8 (RFC 8259 §8.1); serde skips the strings it
    // ignores without checking them, so a line with an invalid byte would
    // pass the screen and then fail in the SDK without an answer.
    if let Err(e) = std::str::from_utf8(text) {
        return Verdict::Refuse(
            ErrorData::parse_error(format!("Parse error: not UTF-8 ({e})"), None),
            None,
        );
    }
    if let Err(e) = serde_json::from_slice::<IgnoredAny>(text) {
        return Verdict::Refuse(
            ErrorData::parse_error(format!("Parse error: {e}"), None),
            None,
        );
    }
    // Serde reads a struct from an array too (its members by position):
    // `["2.0", 5, "ping"]` would pass as a request, a batch would be told
    // it lacks `jsonrpc`. Only an object is a message.
    let is_object = text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let envelope = serde_json::from_slice::<Envelope>(text)
        .ok()
        .filter(|_| is_object);
    let Some(envelope) = envelope else {
        return Verdict::Refuse(
            ErrorData::invalid_request(
                "Invalid Request: a message must be one JSON object (batches are not supported)",
                None,
            ),
            None,
        );
    };
    let is_response =
        envelope.method.is_none() && (envelope.result.is_some() || envelope.error.is_some());
    // A string or a number, as written; anything else cannot be given back.
    let id = envelope
        .id
        .map(RawValue::get)
        .filter(|raw| raw.starts_with(|c: char| c == '"' || c == '-' || c.is_ascii_digit()))
        .map(str::to_owned);
    let depth = nesting_depth(text);
    if depth > MAX_DEPTH {
        if is_response {
            eprintln!("agent-checkpoint mcp: dropped a response nested {depth} levels deep");
            return Verdict::Skip;
        }
        return Verdict::Refuse(
            ErrorData::invalid_request(
                format!(
                    "Invalid Request: nested {depth} levels deep, more than the {MAX_DEPTH} the server reads"
                ),
                Some(serde_json::json!({ "max_depth": MAX_DEPTH })),
            ),
            id,
        );
    }
    if envelope.jsonrpc.as_ref().and_then(|v| v.as_str()) == Some("2.0") {
        return match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
            Ok(message) => Verdict::Forward(Box::new(message)),
            // Neither a response nor a notification is ever answered.
            Err(e) if is_response || envelope.id.is_none() => {
                eprintln!("agent-checkpoint mcp: dropped a message the server cannot read: {e}");
                Verdict::Skip
            }
            Err(e) => Verdict::Refuse(
                ErrorData::invalid_request(format!("Invalid Request: {e}"), None),
                id,
            ),
        };
    }
    if is_response {
        eprintln!("agent-checkpoint mcp: dropped a response without \"jsonrpc\": \"2.0\"");
        return Verdict::Skip;
    }
    Verdict::Refuse(
        ErrorData::invalid_request(
            "Invalid Request: the message lacks \"jsonrpc\": \"2.0\"",
            None,
        ),
        id,
    )
}

/// The deepest nesting of arrays and objects in `json` (valid JSON: a
/// bracket inside a string is text), counted without recursion.
fn nesting_depth(json: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// The screen's answer to one line, as JSON: the error message it sends
/// back, or `None` when the line goes on to the SDK (or is dropped
/// silently). For fuzzing the framing; not part of the stable API.
#[doc(hidden)]
pub fn screen_line(line: &[u8]) -> Option<serde_json::Value> {
    match verdict(line) {
        Verdict::Forward(_) | Verdict::Skip => None,
        Verdict::Refuse(error, id) => serde_json::from_slice(&answer(&error, id.as_deref())).ok(),
    }
}

/// Whether the screen passes `line` on to the SDK. For fuzzing the
/// framing; not part of the stable API.
#[doc(hidden)]
pub fn screen_forwards(line: &[u8]) -> bool {
    matches!(verdict(line), Verdict::Forward(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(v: &Verdict) -> Option<i32> {
        match v {
            Verdict::Refuse(e, _) => Some(e.code.0),
            _ => None,
        }
    }

    #[test]
    fn verdicts() {
        assert!(matches!(verdict(b"\n"), Verdict::Skip));
        assert!(matches!(
            verdict(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"),
            Verdict::Forward(_)
        ));
        assert_eq!(code(&verdict(b"{not json\n")), Some(-32700));
        // Found by the jsonrpc_framing fuzz target: an invalid byte in a string.
        assert_eq!(
            code(&verdict(
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pOn\xd7\"}\n"
            )),
            Some(-32700)
        );
        assert_eq!(code(&verdict(b"[1,2]\n")), Some(-32600));
        let v = verdict(b"{\"id\":7,\"method\":\"ping\"}\n");
        assert_eq!(code(&v), Some(-32600));
        assert!(matches!(v, Verdict::Refuse(_, Some(ref id)) if id == "7"));
        assert!(matches!(
            verdict(b"{\"id\":7,\"result\":{}}\n"),
            Verdict::Skip
        ));
    }

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(nesting_depth(b"1"), 0);
        assert_eq!(nesting_depth(br#"{"a":[[1],{}]}"#), 3);
        assert_eq!(nesting_depth(br#"{"a":"[[[{\"["}"#), 1);
        assert_eq!(nesting_depth(br#"["\\",[]]"#), 2);
    }

    #[tokio::test]
    async fn long_lines_are_dropped_and_the_next_one_read() {
        let input: &[u8] = b"0123456789\nabc\n";
        let mut reader = BufReader::with_capacity(4, input);
        let mut line = Vec::new();
        assert!(matches!(
            read_line(&mut reader, &mut line, 5).await,
            Line::Oversized
        ));
        line.clear();
        assert!(matches!(
            read_line(&mut reader, &mut line, 5).await,
            Line::Complete
        ));
        assert_eq!(line, b"abc\n");
        line.clear();
        assert!(matches!(
            read_line(&mut reader, &mut line, 5).await,
            Line::End
        ));
    }
}
