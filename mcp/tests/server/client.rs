//! A raw JSON-RPC client over an in-process server (the same `serve` the
//! binary runs on stdin / stdout), line by line, so tests can send
//! anything, including bytes no SDK would send.

use std::path::Path;
use std::time::Duration;

use agent_checkpoint_mcp::{serve, CheckpointServer, ServerOptions};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::task::JoinHandle;

/// Longest wait for one message before the test fails (a hang guard, not
/// a timing assertion).
const HANG: Duration = Duration::from_secs(120);

pub struct Client {
    input: Option<WriteHalf<DuplexStream>>,
    output: BufReader<ReadHalf<DuplexStream>>,
    server: JoinHandle<agent_checkpoint::Result<()>>,
    next_id: i64,
}

impl Client {
    /// Starts a server on `root` with `options`.
    pub fn start(root: &Path, options: &ServerOptions) -> Client {
        let server = CheckpointServer::open(root, options).expect("open the root");
        let (ours, theirs) = tokio::io::duplex(1 << 20);
        let (their_in, their_out) = tokio::io::split(theirs);
        let (our_in, our_out) = tokio::io::split(ours);
        let max = options.max_message_bytes;
        let server = tokio::spawn(serve(server, their_in, their_out, max));
        Client {
            input: Some(our_out),
            output: BufReader::new(our_in),
            server,
            next_id: 100,
        }
    }

    /// Sends raw bytes.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().expect("input open");
        input.write_all(bytes).await.expect("write to the server");
        input.flush().await.expect("flush");
    }

    /// Sends one message (a line).
    pub async fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).expect("encode");
        line.push(b'\n');
        self.send_raw(&line).await;
    }

    /// The next message from the server, as the line it sent.
    pub async fn recv_line(&mut self) -> String {
        let mut line = String::new();
        let n = tokio::time::timeout(HANG, self.output.read_line(&mut line))
            .await
            .expect("the server answered in time")
            .expect("read from the server");
        assert!(n > 0, "the server closed its output");
        line
    }

    /// The next message from the server.
    pub async fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = tokio::time::timeout(HANG, self.output.read_line(&mut line))
            .await
            .expect("the server answered in time")
            .expect("read from the server");
        assert!(n > 0, "the server closed its output");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not JSON from the server ({e}): {line}"))
    }

    /// Sends a request and returns its response (the whole message).
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let response = self.recv().await;
        assert_eq!(
            response["id"],
            json!(id),
            "a response to {method}: {response}"
        );
        response
    }

    /// `initialize` and `notifications/initialized`.
    pub async fn initialize(&mut self) -> Value {
        let response = self
            .request(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "rust-test", "version": "0"}}),
            )
            .await;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    /// Calls a tool; returns the call's `result`.
    pub async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        response["result"].clone()
    }

    /// Ends the input, as a client closing the server's stdin does.
    pub async fn close_input(&mut self) {
        if let Some(mut input) = self.input.take() {
            input.shutdown().await.expect("close the input");
        }
    }

    /// Closes the input and waits for the server to end.
    pub async fn finish(mut self) {
        self.close_input().await;
        let ended = tokio::time::timeout(HANG, &mut self.server)
            .await
            .expect("the server ended in time")
            .expect("the server task did not panic");
        ended.expect("the server ended without an error");
    }
}

/// The error code of a tool error result.
pub fn tool_error_code(result: &Value) -> &str {
    assert_eq!(result["isError"], json!(true), "a tool error: {result}");
    result["structuredContent"]["error"]["code"]
        .as_str()
        .expect("a code")
}
