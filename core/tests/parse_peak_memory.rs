//! A malformed entry is refused holding one decoded copy of it at most.
//!
//! Parsing decodes each file's base64 and hashes it step by step; a step
//! that fails sends the entry to a whole decode, for the same error as a
//! plain decode gives. The bytes already decoded must be freed first: a
//! large entry with one bad character at its very end used to peak at two
//! decoded copies (the steps' and the whole decode's), twice what parsing
//! a valid entry of the same size costs. One test in its own binary: it
//! reads the process's peak RSS (`VmHWM`), which other tests would move.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

use agent_checkpoint::{ErrorCode, ParseOptions, Snapshot};

const MIB: u64 = 1 << 20;

/// The peak resident set of this process so far, in bytes (`None` where
/// `/proc` does not say).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[test]
fn a_malformed_large_entry_is_refused_with_one_decoded_copy_at_most() {
    if peak_rss().is_none() {
        eprintln!("parse_peak_memory: no /proc/self/status here, not measured");
        return;
    }
    // 64 MiB of base64 (48 MiB decoded), written in place so that the
    // text itself is the peak so far; its last character is not base64.
    let chars: usize = 64 << 20;
    let mut text = String::with_capacity(chars + 64);
    text.push_str(r#"{"version":1,"entries":{"big":""#);
    let block = "A".repeat(1 << 16);
    for _ in 0..chars >> 16 {
        text.push_str(&block);
    }
    text.pop();
    text.push('!');
    text.push_str(r#""}}"#);
    let decoded = chars as u64 / 4 * 3;
    let before = peak_rss().unwrap();
    let refused = Snapshot::parse(&text, &ParseOptions::default()).unwrap_err();
    let grew = peak_rss().unwrap().saturating_sub(before);
    assert_eq!(refused.code(), ErrorCode::MalformedSnapshot);
    println!(
        "parse_peak_memory: a {} MiB entry with a bad last character: peak +{} MiB ({} MiB decoded)",
        chars as u64 / MIB,
        grew / MIB,
        decoded / MIB
    );
    // One decoded copy, and room for the rest (not two copies: 96 MiB).
    assert!(
        grew < decoded + decoded / 3,
        "refusing it took {} MiB more, {} MiB decoded",
        grew / MIB,
        decoded / MIB
    );
}
