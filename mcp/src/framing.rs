//! The stdio framing in front of the SDK: newline-delimited messages, each
//! at most [`DEFAULT_MAX_MESSAGE_BYTES`] (or the configured limit), screened
//! before `rmcp` sees them.
//!
//! `rmcp` silently ignores a line that is not JSON and drops an oversized
//! one; JSON-RPC 2.0 asks for an answer. So every line is screened first:
//! - not JSON: a `-32700` parse error, without an `id` (none can be read);
//! - longer than the limit: dropped unread (memory stays bounded) and
//!   answered with a `-32600` invalid request, without an `id`;
//! - JSON that is not an object (a batch, a scalar): `-32600`, no `id`;
//! - an object without `"jsonrpc": "2.0"`: `-32600`, with its `id` when it
//!   has a readable one; a response (no `method`, a `result` or `error`)
//!   is dropped, since JSON-RPC never answers a response;
//! - blank lines are skipped; everything else goes to `rmcp` unchanged.
//!
//! The answers go out through the SDK's own writer, so stdout carries
//! nothing but whole protocol messages. A bad line never ends the session;
//! only the end of the input (or a broken pipe) does.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::{ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use serde::de::IgnoredAny;
use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// The largest message the server reads: 16 MiB (the SDK's own default for
/// one stdio line). Longer lines are dropped and answered with an error.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How much the screen may run ahead of the SDK (the pipe between them).
const PIPE_BYTES: usize = 256 * 1024;

/// The SDK's transport, fed the screened lines, plus the answers to the
/// lines the screen refused.
pub(crate) struct ScreenedTransport<W: AsyncWrite> {
    inner: AsyncRwTransport<RoleServer, DuplexStream, W>,
    refusals: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    /// An answer being written. Kept here, not in a local, so that a
    /// receive the SDK cancels (it polls receive in a `select!`) resumes
    /// the same write instead of losing or repeating it.
    sending: Option<Sending>,
}

type Sending = Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>;

impl<W: AsyncWrite> ScreenedTransport<W> {
    /// Finishes the answer being written, if any.
    async fn flush_answer(&mut self) {
        if let Some(sending) = self.sending.as_mut() {
            if let Err(e) = sending.await {
                eprintln!("agent-checkpoint mcp: cannot write an error answer: {e}");
            }
            self.sending = None;
        }
    }
}

/// Starts screening `input` (on its own task) and returns the transport
/// the SDK serves on; the answers and the SDK's messages go to `output`.
pub(crate) fn screened<R, W>(input: R, output: W, max_message_bytes: usize) -> ScreenedTransport<W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_sdk, from_screen) = tokio::io::duplex(PIPE_BYTES);
    let (refuse, refusals) = mpsc::unbounded_channel();
    tokio::spawn(screen(input, to_sdk, refuse, max_message_bytes.max(1)));
    ScreenedTransport {
        // The screen enforces the limit; the SDK sees only lines it let through.
        inner: AsyncRwTransport::new_server(from_screen, output).with_max_line_length(usize::MAX),
        refusals,
        sending: None,
    }
}

impl<W> Transport<RoleServer> for ScreenedTransport<W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.flush_answer().await;
            tokio::select! {
                biased;
                Some(answer) = self.refusals.recv() => {
                    self.sending = Some(Box::pin(self.inner.send(answer)));
                }
                message = self.inner.receive() => return message,
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.flush_answer().await;
        self.inner.close().await
    }
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
async fn screen<R: AsyncRead + Unpin>(
    input: R,
    mut to_sdk: DuplexStream,
    refuse: mpsc::UnboundedSender<ServerJsonRpcMessage>,
    max: usize,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        match read_line(&mut input, &mut line, max).await {
            Line::End => break,
            Line::Oversized => {
                eprintln!("agent-checkpoint mcp: dropped a message of more than {max} bytes");
                let error = ErrorData::invalid_request(
                    format!(
                        "message larger than the server's limit of {max} bytes: dropped unread"
                    ),
                    Some(serde_json::json!({ "max_message_bytes": max })),
                );
                if refuse
                    .send(ServerJsonRpcMessage::error(error, None))
                    .is_err()
                {
                    break;
                }
            }
            Line::Complete => match verdict(&line) {
                Verdict::Forward => {
                    if to_sdk.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Verdict::Skip => {}
                Verdict::Refuse(error, id) => {
                    eprintln!("agent-checkpoint mcp: refused a message: {}", error.message);
                    if refuse.send(ServerJsonRpcMessage::error(error, id)).is_err() {
                        break;
                    }
                }
            },
        }
        line.clear();
    }
    // Dropping `to_sdk` ends the SDK's input: the session closes.
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
    Forward,
    Skip,
    Refuse(ErrorData, Option<RequestId>),
}

/// The members of a message the screen looks at.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    jsonrpc: Option<serde_json::Value>,
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    method: Option<IgnoredAny>,
    #[serde(default)]
    result: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

fn verdict(line: &[u8]) -> Verdict {
    let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    if let Err(e) = serde_json::from_slice::<IgnoredAny>(text) {
        return Verdict::Refuse(
            ErrorData::parse_error(format!("Parse error: {e}"), None),
            None,
        );
    }
    let Ok(envelope) = serde_json::from_slice::<Envelope>(text) else {
        return Verdict::Refuse(
            ErrorData::invalid_request(
                "Invalid Request: a message must be one JSON object (batches are not supported)",
                None,
            ),
            None,
        );
    };
    if envelope.jsonrpc.as_ref().and_then(|v| v.as_str()) == Some("2.0") {
        return Verdict::Forward;
    }
    if envelope.method.is_none() && (envelope.result.is_some() || envelope.error.is_some()) {
        eprintln!("agent-checkpoint mcp: dropped a response without \"jsonrpc\": \"2.0\"");
        return Verdict::Skip;
    }
    let id = match envelope.id {
        Some(serde_json::Value::Number(n)) => n.as_i64().map(RequestId::Number),
        Some(serde_json::Value::String(s)) => Some(RequestId::String(s.into())),
        _ => None,
    };
    Verdict::Refuse(
        ErrorData::invalid_request(
            "Invalid Request: the message lacks \"jsonrpc\": \"2.0\"",
            None,
        ),
        id,
    )
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
            Verdict::Forward
        ));
        assert_eq!(code(&verdict(b"{not json\n")), Some(-32700));
        assert_eq!(code(&verdict(b"[1,2]\n")), Some(-32600));
        let v = verdict(b"{\"id\":7,\"method\":\"ping\"}\n");
        assert_eq!(code(&v), Some(-32600));
        assert!(matches!(v, Verdict::Refuse(_, Some(RequestId::Number(7)))));
        assert!(matches!(
            verdict(b"{\"id\":7,\"result\":{}}\n"),
            Verdict::Skip
        ));
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
