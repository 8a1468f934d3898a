//! The MCP server's JSON-RPC screen (issue 29.11): no line panics it; a
//! line it passes on to the SDK is one JSON object the SDK's parser reads
//! (never a depth it refuses without a word); a line it refuses gets one
//! JSON-RPC error message, `-32700` or `-32600`, with an `id` only when the
//! line is JSON and its `id` a number (of any size) or a string.
#![no_main]

use agent_checkpoint_mcp::{screen_forwards, screen_line};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut line = data.to_vec();
    line.push(b'\n');
    let answer = screen_line(&line);
    if screen_forwards(&line) {
        assert!(answer.is_none());
        // The screen reads past a UTF-8 byte-order mark and hands the SDK
        // the message it parsed, so the line without one is what parses.
        let text = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&line);
        let parsed: Value = serde_json::from_slice(text).expect("a forwarded line parses");
        assert!(parsed.is_object());
        return;
    }
    let Some(answer) = answer else {
        return;
    };
    assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
    let code = answer["error"]["code"].as_i64();
    assert!(matches!(code, Some(-32700 | -32600)), "{answer}");
    if let Some(id) = answer.get("id").filter(|id| !id.is_null()) {
        assert!(id.is_string() || id.is_number(), "{answer}");
        // Only a line that is JSON has an id to give back.
        assert_eq!(code, Some(-32600), "{answer}");
    }
});
