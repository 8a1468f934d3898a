//! Bad input at the protocol level: answered (or dropped) per JSON-RPC,
//! and the server keeps serving.

use agent_checkpoint_mcp::{ServerOptions, DEFAULT_MAX_MESSAGE_BYTES};
use serde_json::{json, Value};

use crate::client::Client;

fn assert_error(message: &Value, code: i64, id: Option<i64>) {
    assert_eq!(message["jsonrpc"], json!("2.0"), "{message}");
    assert_eq!(message["error"]["code"], json!(code), "{message}");
    match id {
        Some(id) => assert_eq!(message["id"], json!(id), "{message}"),
        None => assert!(message.get("id").is_none_or(Value::is_null), "{message}"),
    }
}

#[tokio::test]
async fn malformed_messages_get_errors_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path(), &ServerOptions::default());

    // Before initialize, then after it: the same answers.
    for round in 0..2 {
        client
            .send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \n")
            .await;
        assert_error(&client.recv().await, -32700, None);
        client.send_raw(b"not json at all\n").await;
        assert_error(&client.recv().await, -32700, None);
        // No "jsonrpc": an invalid request, answered with its id.
        client
            .send_raw(b"{\"id\": 7, \"method\": \"ping\"}\n")
            .await;
        assert_error(&client.recv().await, -32600, Some(7));
        client
            .send_raw(b"{\"jsonrpc\": \"1.0\", \"id\": \"x\", \"method\": \"ping\"}\n")
            .await;
        let answer = client.recv().await;
        assert_eq!(answer["error"]["code"], json!(-32600), "{answer}");
        assert_eq!(answer["id"], json!("x"));
        // A batch, a scalar: one JSON object per message only.
        client
            .send_raw(b"[{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]\n")
            .await;
        assert_error(&client.recv().await, -32600, None);
        client.send_raw(b"42\n").await;
        assert_error(&client.recv().await, -32600, None);
        // Blank lines are nothing.
        client.send_raw(b"\n\r\n   \n").await;
        if round == 0 {
            let init = client.initialize().await;
            assert_eq!(
                init["result"]["serverInfo"]["name"],
                json!("agent-checkpoint")
            );
        }
        let pong = client.request("ping", json!({})).await;
        assert_eq!(pong["result"], json!({}), "{pong}");
    }
    // A response without "jsonrpc" is dropped silently: the next answer is the ping's.
    client.send_raw(b"{\"id\": 9, \"result\": {}}\n").await;
    let pong = client.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    // An unknown method is the SDK's method-not-found.
    let unknown = client.request("checkpoints/frobnicate", json!({})).await;
    assert_error(&unknown, -32601, unknown["id"].as_i64());
    client.finish().await;
}

#[tokio::test]
async fn a_message_over_the_limit_is_dropped_unread_and_answered() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path(), &ServerOptions::default());
    client.initialize().await;

    // One byte over the documented default limit, as a valid request: it
    // must not be read, let alone run.
    let prefix = b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"redact_text\",\"arguments\":{\"text\":\"";
    let suffix = b"\"}}}";
    let mut big = prefix.to_vec();
    big.resize(DEFAULT_MAX_MESSAGE_BYTES + 1 - suffix.len(), b'a');
    big.extend_from_slice(suffix);
    assert_eq!(big.len(), DEFAULT_MAX_MESSAGE_BYTES + 1);
    big.push(b'\n');
    client.send_raw(&big).await;
    let answer = client.recv().await;
    assert_error(&answer, -32600, None);
    assert_eq!(
        answer["error"]["data"]["max_message_bytes"],
        json!(DEFAULT_MAX_MESSAGE_BYTES)
    );
    // Exactly at the limit is read and served (a cheap call: an argument
    // of the wrong type, answered with a tool error).
    let prefix = b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"list_checkpoints\",\"arguments\":{\"limit\":\"";
    let mut fits = prefix.to_vec();
    fits.resize(DEFAULT_MAX_MESSAGE_BYTES - suffix.len(), b'b');
    fits.extend_from_slice(suffix);
    fits.push(b'\n');
    client.send_raw(&fits).await;
    let answer = client.recv().await;
    assert_eq!(
        answer["id"],
        json!(5),
        "the message at the limit was served"
    );
    assert_eq!(
        answer["result"]["structuredContent"]["error"]["code"],
        json!("invalid_argument")
    );
    // And the session goes on.
    let pong = client.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    client.finish().await;
}

#[tokio::test]
async fn a_configured_limit_is_the_one_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let options = ServerOptions::default().with_max_message_bytes(300);
    let mut client = Client::start(dir.path(), &options);
    client.initialize().await;
    let text = "x".repeat(400);
    client
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "redact_text", "arguments": {"text": text}}}))
        .await;
    let answer = client.recv().await;
    assert_error(&answer, -32600, None);
    assert_eq!(answer["error"]["data"]["max_message_bytes"], json!(300));
    let ok = client.call("redact_text", json!({"text": "short"})).await;
    assert_eq!(ok["structuredContent"]["text"], json!("short"));
    client.finish().await;
}

#[tokio::test]
async fn the_end_of_input_before_initialize_ends_the_server_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path(), &ServerOptions::default());
    // A bad line answered even though the input ends right after it; the
    // unterminated last line is not a message.
    client
        .send_raw(b"oops\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"")
        .await;
    client.close_input().await;
    assert_error(&client.recv().await, -32700, None);
    client.finish().await;
}

/// A request `depth` levels deep (the top-level object counted): a
/// `redact_text` call whose `_meta` holds the nesting.
fn nested_request(id: i64, depth: usize) -> Vec<u8> {
    // {"jsonrpc":..,"params":{"name":..,"arguments":{..},"_meta":{"x":[[...]]}}}
    let arrays = depth - 3;
    let mut line = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"redact_text\",\"arguments\":{{\"text\":\"hi\"}},\"_meta\":{{\"x\":"
    )
    .into_bytes();
    line.extend(std::iter::repeat_n(b'[', arrays));
    line.extend(std::iter::repeat_n(b']', arrays));
    line.extend_from_slice(b"}}}\n");
    line
}

#[tokio::test]
async fn a_deeply_nested_request_is_answered_with_its_id() {
    use agent_checkpoint_mcp::MAX_DEPTH;
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path(), &ServerOptions::default());
    client.initialize().await;
    // At the limit: served as usual.
    let line = nested_request(11, MAX_DEPTH);
    assert!(agent_checkpoint_mcp::screen_forwards(&line));
    client.send_raw(&line).await;
    let served = client.recv().await;
    assert_eq!(served["id"], json!(11), "{served}");
    assert_eq!(served["result"]["structuredContent"]["text"], json!("hi"));
    // One level deeper, and far deeper (well under the size limit): an
    // invalid request with the id read from the top-level object.
    for (id, depth) in [(12, MAX_DEPTH + 1), (13, 100_000)] {
        client.send_raw(&nested_request(id, depth)).await;
        let answer = client.recv().await;
        assert_error(&answer, -32600, Some(id));
        assert_eq!(answer["error"]["data"]["max_depth"], json!(MAX_DEPTH));
    }
    // Without an id that can be read: answered without one.
    let mut deep = b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":[".to_vec();
    deep.extend(std::iter::repeat_n(b'[', 200));
    deep.extend(std::iter::repeat_n(b']', 201));
    deep.extend_from_slice(b"}\n");
    client.send_raw(&deep).await;
    let answer = client.recv().await;
    assert_eq!(answer["error"]["code"], json!(-32600), "{answer}");
    // And the session goes on.
    let pong = client.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    client.finish().await;
}

/// A request id the SDK's id type cannot hold (beyond `i64`, a fraction,
/// `1e30`) is answered `-32600` with the id exactly as the client wrote
/// it; an id that is no string or number, with `id: null`; a notification
/// or a response the server cannot read is never answered.
#[tokio::test]
async fn an_id_is_given_back_exactly_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut client = Client::start(dir.path(), &ServerOptions::default());
    client.initialize().await;
    for id in [
        "18446744073709551615",
        "1e30",
        "-9223372036854775809",
        "1.5",
        "12345678901234567890123",
    ] {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        assert!(!agent_checkpoint_mcp::screen_forwards(line.as_bytes()));
        client.send_raw(line.as_bytes()).await;
        let answer = client.recv_line().await;
        assert!(
            answer.starts_with(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32600,"
            )),
            "{id}: {answer}"
        );
        // The screen's own refusals give it back the same way.
        let line = format!("{{\"id\":{id},\"method\":\"ping\"}}\n");
        client.send_raw(line.as_bytes()).await;
        let answer = client.recv_line().await;
        assert!(answer.contains(&format!("\"id\":{id},")), "{id}: {answer}");
    }
    // A string id, escapes and all.
    client
        .send_raw(
            b"{\"jsonrpc\":\"2.0\",\"id\":\"a\\u0062\\\"c\",\"method\":\"ping\",\"params\":7}\n",
        )
        .await;
    let answer = client.recv_line().await;
    assert!(answer.contains(r#""id":"a\u0062\"c","#), "{answer}");
    // Not a string or a number: answered with null.
    for id in ["true", "{\"a\":1}", "null"] {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        client.send_raw(line.as_bytes()).await;
        let answer = client.recv().await;
        assert_error(&answer, -32600, None);
        assert!(answer.get("id").is_some(), "{answer}");
    }
    // Neither a notification nor a response is answered: the next line is the ping's.
    client
        .send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":7}\n")
        .await;
    client
        .send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":18446744073709551615,\"result\":{}}\n")
        .await;
    let pong = client.request("ping", json!({})).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
    client.finish().await;
}
