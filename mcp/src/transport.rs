//! The SDK's transport over the screen (see [`crate::framing`]): the
//! messages the screen let through, already parsed, come in over a bounded
//! channel, in order with the screen's own answers; everything goes out,
//! one whole line at a time, through one writer.
//!
//! The server writes its own lines (rather than through the SDK's stdio
//! transport) so that an answer can carry a request's `id` exactly as the
//! client wrote it, a number beyond what the SDK's id type holds
//! (`18446744073709551615`, `1e30`) included.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, Mutex};

/// What the screen hands on, in input order.
pub(crate) enum Screened {
    /// A message for the SDK.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// The screen's own answer: one whole line (with its newline).
    Answer(Vec<u8>),
}

/// The output, shared by the SDK's messages and the screen's answers;
/// `None` once closed.
type Output<W> = Arc<Mutex<Option<W>>>;

/// The transport the SDK serves on.
pub(crate) struct ScreenedTransport<W: AsyncWrite> {
    screened: mpsc::Receiver<Screened>,
    output: Output<W>,
    /// An answer being written. Kept here, not in a local, so that a
    /// receive the SDK cancels (it polls receive in a `select!`) resumes
    /// the same write instead of losing or repeating it.
    sending: Option<Sending>,
}

type Sending = Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>;

impl<W: AsyncWrite + Unpin + Send + 'static> ScreenedTransport<W> {
    /// The transport of the screen's output `screened`, writing to `output`.
    pub(crate) fn new(screened: mpsc::Receiver<Screened>, output: W) -> ScreenedTransport<W> {
        ScreenedTransport {
            screened,
            output: Arc::new(Mutex::new(Some(output))),
            sending: None,
        }
    }

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

/// Writes one whole line to `output` (and flushes it), never between the
/// bytes of another.
async fn write_line<W: AsyncWrite + Unpin>(output: &Output<W>, line: &[u8]) -> std::io::Result<()> {
    let mut guard = output.lock().await;
    let Some(writer) = guard.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    writer.write_all(line).await?;
    writer.flush().await
}

impl<W> Transport<RoleServer> for ScreenedTransport<W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let output = self.output.clone();
        // serde_json writes no raw newline: the message is one line.
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        async move {
            let line = line.map_err(std::io::Error::other)?;
            write_line(&output, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.flush_answer().await;
            // (A cancelled `recv` loses nothing.)
            match self.screened.recv().await? {
                Screened::Message(message) => return Some(*message),
                Screened::Answer(line) => {
                    let output = self.output.clone();
                    self.sending = Some(Box::pin(async move { write_line(&output, &line).await }));
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.flush_answer().await;
        if let Some(mut writer) = self.output.lock().await.take() {
            // Dropping it ends the output; a peer gone already is no error.
            let _ = writer.shutdown().await;
        }
        Ok(())
    }
}
