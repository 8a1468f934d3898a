//! JSON-aware mode: a whole-document JSON value walked as one, otherwise
//! JSONL line by line (blank lines kept, non-JSON lines redacted as text).
//!
//! Only string leaves are redacted, and only by editing the original text:
//! each leaf is decoded, redacted as text, and the replaced spans are mapped
//! back to the leaf's raw bytes (whole escape sequences), so the formatting,
//! the key order and every untouched byte stay as they were, and the result
//! is valid JSON whenever the input was.
//!
//! Skipped: values of keys named `signature`, ending in `id`/`ids`, or
//! `filepath`, `file_path`, `cwd`, `root`, `directory`, `dir`, `path`
//! (case-insensitive), and objects whose `type` starts with `image` or is
//! `base64`. Replaced whole: the string value of a credential-named key
//! (`DB_PASSWORD`, `"DB Password"`), and of `password` beside a host and a
//! user key.

use memchr::memchr;

use crate::assign::is_credential_name;
use crate::layers::{
    apply, covered, map_back, merge, Engine, Hit, Known, RuleRef, Span, MAX_ROUNDS,
};
use crate::placeholders::{is_placeholder, is_reference, REDACTED};

/// A string leaf to redact.
#[derive(Debug, Clone, Copy)]
pub struct Leaf {
    /// First byte of the string's content (after the opening quote).
    pub start: usize,
    /// The closing quote.
    pub end: usize,
    /// The content holds escapes.
    pub escaped: bool,
    /// A credential's value: replaced whole.
    pub replace: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    Skipped,
    Credential,
    Type,
    Password,
}

struct Frame {
    object: bool,
    skipped: bool,
    leaves_start: usize,
    type_skip: bool,
    password_leaf: Option<usize>,
    has_host: bool,
    has_user: bool,
}

fn classify_key(key: &str) -> (Role, bool, bool) {
    let b = key.as_bytes();
    let ends_ci = |suffix: &[u8]| {
        b.len() >= suffix.len() && b[b.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    if ends_ci(b"id") || ends_ci(b"ids") {
        return (Role::Skipped, false, false);
    }
    // Keys are short: lower-case them into a stack buffer and match.
    let mut buf = [0u8; 32];
    let n = b.len().min(buf.len());
    for (d, s) in buf.iter_mut().zip(b) {
        *d = s.to_ascii_lowercase();
    }
    let lower: &[u8] = if b.len() <= buf.len() { &buf[..n] } else { b"" };
    let (host, user) = match lower {
        b"host" | b"hostname" | b"host_name" | b"server" => (true, false),
        b"user" | b"username" | b"user_name" | b"login" | b"usr" => (false, true),
        _ => (false, false),
    };
    let role = match lower {
        b"signature" | b"filepath" | b"file_path" | b"cwd" | b"root" | b"directory" | b"dir"
        | b"path" => Role::Skipped,
        b"type" => Role::Type,
        b"password" | b"passwd" | b"pwd" | b"pass" => Role::Password,
        _ if credential_hint(if lower.is_empty() { b } else { lower })
            && is_credential_name(key) =>
        {
            Role::Credential
        }
        _ => Role::Plain,
    };
    (role, host, user)
}

/// A key that may be a credential name: it holds `pass` or `pwd` (any case).
fn credential_hint(key: &[u8]) -> bool {
    key.windows(3)
        .any(|w| w.eq_ignore_ascii_case(b"pwd") || w.eq_ignore_ascii_case(b"pas"))
}

fn ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// Validates a string starting at its opening quote `at`. Returns the index
/// of the closing quote and whether the content holds escapes.
fn string_end(b: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut i = at + 1;
    let mut escaped = false;
    loop {
        // Most strings are short: a plain loop over the first bytes; then a
        // fast skip to the next quote or backslash (SIMD), checking that no
        // control byte was skipped (a loop the compiler vectorizes).
        let short_end = (i + 8).min(b.len());
        while i < short_end && b[i] != b'"' && b[i] != b'\\' && b[i] >= 0x20 {
            i += 1;
        }
        if i < short_end {
            if b[i] < 0x20 {
                return None;
            }
        } else {
            let next =
                memchr::memchr2(b'"', b'\\', &b[i.min(b.len())..]).map_or(b.len(), |k| i + k);
            let skipped = &b[i.min(next)..next];
            if skipped.iter().fold(0u8, |m, &c| m | u8::from(c < 0x20)) != 0 {
                return None;
            }
            i = next;
        }
        match b.get(i)? {
            b'"' => return Some((i, escaped)),
            b'\\' => {
                escaped = true;
                match b.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' => {
                        let hex = b.get(i + 2..i + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        i += 6;
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
}

fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !b.get(i)?.is_ascii_digit() {
            return None;
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !b.get(i)?.is_ascii_digit() {
            return None;
        }
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    Some(i)
}

/// Scans `text` as exactly one JSON value (RFC 8259, whitespace around
/// allowed) and pushes the string leaves to redact. False when `text` is not
/// JSON (the leaves pushed are then meaningless).
pub fn scan(text: &str, leaves: &mut Vec<Leaf>) -> bool {
    scan_inner(text, leaves).is_some()
}

fn scan_inner(text: &str, leaves: &mut Vec<Leaf>) -> Option<()> {
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = ws(b, 0);
    // The role of the value about to be parsed.
    let mut role = Role::Plain;
    'value: loop {
        let skipped = role == Role::Skipped || stack.last().is_some_and(|f| f.skipped);
        match *b.get(i)? {
            open @ (b'{' | b'[') => {
                stack.push(Frame {
                    object: open == b'{',
                    skipped,
                    leaves_start: leaves.len(),
                    type_skip: false,
                    password_leaf: None,
                    has_host: false,
                    has_user: false,
                });
                i = ws(b, i + 1);
                let close = if open == b'{' { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    // Empty container: handled below as a closing bracket.
                } else if open == b'{' {
                    i = key(text, i, &mut stack, &mut role)?;
                    continue 'value;
                } else {
                    role = Role::Plain;
                    continue 'value;
                }
            }
            b'"' => {
                let (end, escaped) = string_end(b, i)?;
                if !skipped {
                    match role {
                        Role::Type => {
                            let value = decode_lossy(&text[i + 1..end], escaped);
                            if value.starts_with("image") || value == "base64" {
                                if let Some(f) = stack.last_mut() {
                                    f.type_skip = true;
                                }
                            }
                            leaves.push(Leaf {
                                start: i + 1,
                                end,
                                escaped,
                                replace: false,
                            });
                        }
                        Role::Credential => {
                            leaves.push(Leaf {
                                start: i + 1,
                                end,
                                escaped,
                                replace: true,
                            });
                        }
                        Role::Password => {
                            if let Some(f) = stack.last_mut() {
                                f.password_leaf = Some(leaves.len());
                            }
                            leaves.push(Leaf {
                                start: i + 1,
                                end,
                                escaped,
                                replace: false,
                            });
                        }
                        Role::Plain | Role::Skipped => {
                            leaves.push(Leaf {
                                start: i + 1,
                                end,
                                escaped,
                                replace: false,
                            });
                        }
                    }
                }
                i = end + 1;
            }
            b't' if b[i..].starts_with(b"true") => i += 4,
            b'f' if b[i..].starts_with(b"false") => i += 5,
            b'n' if b[i..].starts_with(b"null") => i += 4,
            b'-' | b'0'..=b'9' => i = number_end(b, i)?,
            _ => return None,
        }
        // After a value: a comma, closing brackets, or the end.
        loop {
            i = ws(b, i);
            let Some(frame) = stack.last() else {
                return (i == b.len()).then_some(());
            };
            let close = if frame.object { b'}' } else { b']' };
            match *b.get(i)? {
                b',' => {
                    i = ws(b, i + 1);
                    if frame.object {
                        i = key(text, i, &mut stack, &mut role)?;
                    } else {
                        role = Role::Plain;
                    }
                    continue 'value;
                }
                c if c == close => {
                    let frame = stack.pop()?;
                    if frame.object {
                        if frame.type_skip {
                            leaves.truncate(frame.leaves_start);
                        } else if let (Some(p), true, true) =
                            (frame.password_leaf, frame.has_host, frame.has_user)
                        {
                            if let Some(leaf) = leaves.get_mut(p) {
                                leaf.replace = true;
                            }
                        }
                    }
                    i += 1;
                }
                _ => return None,
            }
        }
    }
}

/// Parses `"key" :` at `i` in the object on top of `stack`; sets the role
/// of the value that follows and returns where it starts.
fn key(text: &str, i: usize, stack: &mut [Frame], role: &mut Role) -> Option<usize> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let (end, escaped) = string_end(b, i)?;
    let name = decode_lossy(&text[i + 1..end], escaped);
    let (r, host, user) = classify_key(&name);
    if let Some(f) = stack.last_mut() {
        f.has_host |= host;
        f.has_user |= user;
    }
    *role = r;
    let j = ws(b, end + 1);
    if b.get(j) != Some(&b':') {
        return None;
    }
    Some(ws(b, j + 1))
}

/// The decoded content of a validated string (lone surrogates become U+FFFD).
fn decode_lossy(raw: &str, escaped: bool) -> std::borrow::Cow<'_, str> {
    if !escaped {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut pieces = Vec::new();
    std::borrow::Cow::Owned(decode(raw, &mut pieces))
}

/// One piece of a decoded string: a run of literal bytes or one escape.
#[derive(Debug, Clone, Copy)]
pub struct Piece {
    dec: usize,
    raw: usize,
    raw_len: usize,
    dec_len: usize,
    literal: bool,
}

fn hex4(b: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(b.get(..4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// Decodes a validated string's raw content, recording the pieces that map
/// decoded positions back to raw ones.
pub fn decode(raw: &str, pieces: &mut Vec<Piece>) -> String {
    let b = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < b.len() {
        let lit_start = i;
        i = memchr(b'\\', &b[i..]).map_or(b.len(), |k| i + k);
        if i > lit_start {
            pieces.push(Piece {
                dec: out.len(),
                raw: lit_start,
                raw_len: i - lit_start,
                dec_len: i - lit_start,
                literal: true,
            });
            out.push_str(&raw[lit_start..i]);
        }
        if i >= b.len() {
            break;
        }
        let esc_start = i;
        let dec_start = out.len();
        let (ch, len) = match b.get(i + 1) {
            Some(b'"') => ('"', 2),
            Some(b'\\') => ('\\', 2),
            Some(b'/') => ('/', 2),
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'u') => {
                let hi = b.get(i + 2..).and_then(hex4).unwrap_or(0xFFFD);
                if (0xD800..0xDC00).contains(&hi)
                    && b.get(i + 6) == Some(&b'\\')
                    && b.get(i + 7) == Some(&b'u')
                {
                    match b.get(i + 8..).and_then(hex4) {
                        Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            (char::from_u32(c).unwrap_or('\u{FFFD}'), 12)
                        }
                        _ => ('\u{FFFD}', 6),
                    }
                } else {
                    (char::from_u32(hi).unwrap_or('\u{FFFD}'), 6)
                }
            }
            _ => ('\u{FFFD}', 1),
        };
        let len = len.min(b.len() - i);
        out.push(ch);
        pieces.push(Piece {
            dec: dec_start,
            raw: esc_start,
            raw_len: len,
            dec_len: out.len() - dec_start,
            literal: false,
        });
        i += len;
    }
    out
}

/// Maps a decoded start position to a raw one.
fn raw_start(pieces: &[Piece], d: usize) -> usize {
    let k = pieces.partition_point(|p| p.dec <= d).saturating_sub(1);
    match pieces.get(k) {
        Some(p) if p.literal && d >= p.dec => p.raw + (d - p.dec).min(p.raw_len),
        Some(p) if d >= p.dec + p.dec_len => p.raw + p.raw_len,
        Some(p) => p.raw,
        None => 0,
    }
}

/// Maps a decoded end position (exclusive) to a raw one.
fn raw_end(pieces: &[Piece], d: usize) -> usize {
    let k = pieces.partition_point(|p| p.dec < d).saturating_sub(1);
    match pieces.get(k) {
        Some(p) if p.literal && d >= p.dec => p.raw + (d - p.dec).min(p.raw_len),
        Some(p) if d <= p.dec => p.raw,
        Some(p) => p.raw + p.raw_len,
        None => 0,
    }
}

/// The edits of one unit (a JSON value, or a line that is not one), in the
/// unit's own coordinates, before any fixed point.
fn unit_edits(engine: &Engine, unit: &str, known: &[Known], secrets: &mut Vec<Known>) -> Vec<Span> {
    let mut leaves = Vec::new();
    if !scan(unit, &mut leaves) {
        return engine.redact_fragment(unit, known, secrets);
    }
    let mut edits = Vec::new();
    let mut pieces = Vec::new();
    for leaf in leaves {
        let raw = &unit[leaf.start..leaf.end];
        let decoded = if leaf.escaped {
            pieces.clear();
            std::borrow::Cow::Owned(decode(raw, &mut pieces))
        } else {
            std::borrow::Cow::Borrowed(raw)
        };
        if leaf.replace {
            if !is_placeholder(&decoded) && !is_reference(&decoded) {
                edits.push(Span {
                    start: leaf.start,
                    end: leaf.end,
                    rule: RuleRef::JsonCredentialField,
                    replacement: REDACTED,
                });
            }
            continue;
        }
        for s in engine.redact_fragment(&decoded, known, secrets) {
            let (rs, re) = if leaf.escaped {
                (raw_start(&pieces, s.start), raw_end(&pieces, s.end))
            } else {
                (s.start, s.end)
            };
            if rs < re {
                edits.push(Span {
                    start: leaf.start + rs,
                    end: leaf.start + re,
                    ..s
                });
            }
        }
    }
    edits
}

/// Redacts one unit at `base..base + unit.len()` of the input to a fixed
/// point, pushing its edits (in input coordinates). Redaction can change a
/// unit's mode (a line that was not JSON because of what got redacted may
/// be JSON afterwards), so the output is redacted again in its own mode
/// until nothing more is found.
fn redact_unit(
    engine: &Engine,
    unit: &str,
    base: usize,
    known: &[Known],
    secrets: &mut Vec<Known>,
    edits: &mut Vec<Span>,
) {
    let mut spans = unit_edits(engine, unit, known, secrets);
    if !spans.is_empty() {
        for _ in 0..MAX_ROUNDS {
            let out = apply(unit, &spans);
            let again = unit_edits(engine, &out, known, &mut Vec::new());
            if again.is_empty() {
                break;
            }
            let mut hits: Vec<Hit> = spans.iter().map(Span::hit).collect();
            hits.extend(again.iter().map(|s| map_back(&spans, &s.hit())));
            let next = merge(&mut hits);
            if covered(&next) <= covered(&spans) {
                break;
            }
            spans = next;
        }
    }
    edits.extend(spans.into_iter().map(|s| Span {
        start: base + s.start,
        end: base + s.end,
        ..s
    }));
}

/// Redacts the lines of `text[from..to]` (each a unit), pushing their edits
/// and the known-format secrets found.
fn redact_lines(
    engine: &Engine,
    text: &str,
    from: usize,
    to: usize,
    edits: &mut Vec<Span>,
    secrets: &mut Vec<Known>,
) {
    let b = text.as_bytes();
    let mut start = from;
    while start < to {
        let end = memchr(b'\n', &b[start..to]).map_or(to, |i| start + i);
        if end > start {
            redact_unit(engine, &text[start..end], start, &[], secrets, edits);
        }
        start = end + 1;
    }
}

/// JSONL this large is redacted on two threads (where threads exist), one
/// half of the lines each: lines are independent until the every-occurrence
/// pass, which runs after both.
#[cfg(not(target_family = "wasm"))]
const PARALLEL_MIN: usize = 4 << 20;

/// Redacts every line of JSONL `text`.
fn redact_all_lines(engine: &Engine, text: &str, edits: &mut Vec<Span>, secrets: &mut Vec<Known>) {
    #[cfg(not(target_family = "wasm"))]
    if text.len() >= PARALLEL_MIN
        && std::thread::available_parallelism().is_ok_and(|n| n.get() >= 2)
    {
        let mid = memchr(b'\n', &text.as_bytes()[text.len() / 2..])
            .map_or(text.len(), |i| text.len() / 2 + i);
        let second = std::thread::scope(|scope| {
            let handle = scope.spawn(|| {
                let (mut e, mut k) = (Vec::new(), Vec::new());
                redact_lines(engine, text, mid, text.len(), &mut e, &mut k);
                (e, k)
            });
            redact_lines(engine, text, 0, mid, edits, secrets);
            handle.join()
        });
        match second {
            Ok((e, k)) => {
                edits.extend(e);
                secrets.extend(k);
            }
            // The second half's thread panicked (it cannot: no input
            // panics); redact that half here instead.
            Err(_) => {
                let from = edits.partition_point(|x| x.start < mid);
                edits.truncate(from);
                redact_lines(engine, text, mid, text.len(), edits, secrets);
            }
        }
        return;
    }
    redact_lines(engine, text, 0, text.len(), edits, secrets);
}

/// JSON-aware redaction of a whole input: the edits, sorted and disjoint.
pub fn redact(engine: &Engine, text: &str) -> Vec<Span> {
    let mut edits = Vec::new();
    let mut secrets: Vec<Known> = Vec::new();
    let whole = scan(text, &mut Vec::new());
    if whole {
        redact_unit(engine, text, 0, &[], &mut secrets, &mut edits);
    } else {
        redact_all_lines(engine, text, &mut edits, &mut secrets);
    }
    // Every occurrence of a secret found by a known format, across lines.
    secrets.retain(|(s, _)| s.len() >= 8);
    secrets.sort();
    secrets.dedup();
    if !secrets.is_empty() {
        let dirty = dirty_units(text, &secrets, &edits, whole);
        for (s, e) in dirty.into_iter().rev() {
            let lo = edits.partition_point(|x| x.end <= s);
            let hi = edits.partition_point(|x| x.start < e);
            let mut unit_edits = Vec::new();
            let mut ignored = Vec::new();
            redact_unit(
                engine,
                &text[s..e],
                s,
                &secrets,
                &mut ignored,
                &mut unit_edits,
            );
            edits.splice(lo..hi, unit_edits);
        }
    }
    edits
}

/// Units holding an occurrence of a known secret outside every edit.
fn dirty_units(text: &str, secrets: &[Known], edits: &[Span], whole: bool) -> Vec<(usize, usize)> {
    let mut patterns: Vec<String> = Vec::new();
    for (s, _) in secrets {
        patterns.push(s.to_string());
        let escaped = escape_json(s);
        if escaped != **s {
            patterns.push(escaped);
        }
    }
    let Ok(ac) = aho_corasick::AhoCorasick::new(&patterns) else {
        return Vec::new();
    };
    let b = text.as_bytes();
    let mut units: Vec<(usize, usize)> = Vec::new();
    for m in ac.find_iter(text) {
        let k = edits.partition_point(|x| x.start <= m.start());
        let covered = k > 0 && edits[k - 1].end >= m.end();
        if covered {
            continue;
        }
        let unit = if whole {
            (0, text.len())
        } else {
            let s = memchr::memrchr(b'\n', &b[..m.start()]).map_or(0, |i| i + 1);
            let e = memchr(b'\n', &b[m.start()..]).map_or(b.len(), |i| m.start() + i);
            (s, e)
        };
        if units.last() != Some(&unit) {
            units.push(unit);
        }
    }
    units
}

/// The JSON string escaping of `s` (as serializers write it).
fn escape_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(text: &str) -> Option<Vec<(String, bool)>> {
        let mut v = Vec::new();
        scan(text, &mut v).then(|| {
            v.iter()
                .map(|l| (text[l.start..l.end].to_owned(), l.replace))
                .collect()
        })
    }

    #[test]
    fn validates_like_rfc_8259() {
        for ok in [
            "{}",
            "[]",
            " 1 ",
            "-0.5e+3",
            "\"a\\u00e9\\n\"",
            "{\"a\":[1,true,null,{\"b\":\"c\"}]}",
            "[[[]]]",
        ] {
            assert!(leaves(ok).is_some(), "{ok}");
        }
        for bad in [
            "",
            " ",
            "{",
            "[1,]",
            "{\"a\"}",
            "01",
            "1.",
            "\"\\x\"",
            "\"a\nb\"",
            "[1] [2]",
            "tru",
            "{\"a\":1,}",
            "'a'",
        ] {
            assert!(leaves(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn skipped_keys_and_objects() {
        let v = leaves(
            r#"{"session_id":"s","ids":["a"],"filePath":"/x","text":"t","msg":{"type":"image","data":"d"},"src":{"type":"base64","data":"e"}}"#,
        );
        assert_eq!(v, Some(vec![("t".to_owned(), false)]));
    }

    #[test]
    fn credential_keys() {
        let v = leaves(
            r#"{"DB_PASSWORD":"a","DB Password":"b","db":{"password":"c","host":"h","user":"u"},"x":{"password":"d"}}"#,
        );
        assert_eq!(
            v,
            Some(vec![
                ("a".to_owned(), true),
                ("b".to_owned(), true),
                ("c".to_owned(), true),
                ("h".to_owned(), false),
                ("u".to_owned(), false),
                ("d".to_owned(), false),
            ])
        );
    }

    #[test]
    fn decode_maps_positions() {
        let raw = r"ab\ncd\u00e9\ud83d\ude00z";
        let mut pieces = Vec::new();
        let dec = decode(raw, &mut pieces);
        assert_eq!(dec, "ab\ncdé😀z");
        // "cd" is at decoded 3..5, raw 4..6.
        assert_eq!((raw_start(&pieces, 3), raw_end(&pieces, 5)), (4, 6));
        // The newline: decoded 2..3, raw 2..4.
        assert_eq!((raw_start(&pieces, 2), raw_end(&pieces, 3)), (2, 4));
        // The emoji: decoded 7..11, raw 12..24.
        assert_eq!((raw_start(&pieces, 7), raw_end(&pieces, 11)), (12, 24));
        // The end.
        assert_eq!(raw_end(&pieces, dec.len()), raw.len());
    }
}
