//! JSON-aware mode: a whole-document JSON value walked as one, otherwise
//! JSONL line by line (blank lines kept, non-JSON lines redacted as text).
//!
//! Only string leaves are redacted, and only by editing the original text:
//! each leaf is decoded, redacted as text, and the replaced spans are mapped
//! back to the leaf's raw bytes (whole escape sequences), so the formatting,
//! the key order and every untouched byte stay as they were, and the result
//! is valid JSON whenever the input was.
//!
//! Keys are redacted like values. Skipped: the string value (or the strings
//! of an array value) of a key named `signature`, `filepath`, `file_path`,
//! `cwd`, `root`, `directory`, `dir`, `path` (any case) or that is an
//! identifier (`id`, `*_id`, `*-id`, `*Id`, `*ID` and their plurals: see
//! [`is_identifier_key`]), and every string of an object whose `type`
//! starts with `image` or is `base64`; containers under such keys are
//! walked as usual. A skipped string is still searched for the secrets found
//! elsewhere in the document: every occurrence of those is redacted.
//! Replaced whole: the string value of a credential-named key
//! (`DB_PASSWORD`, `"DB Password"`), and of `password` beside a host and a
//! user key.

use memchr::memchr;

use crate::assign::{is_credential_name, is_secret_name, is_secretish};
use crate::layers::{
    apply, covered, known_spans, map_back, merge, Engine, Hit, Known, RuleRef, Span, MAX_ROUNDS,
};

/// Keys shorter than this are not scanned by the built-in layers: none of
/// them finds anything in fewer bytes (the shortest is a credential
/// assignment such as `DBPWD=x`), and a secret propagated to every
/// occurrence has 8 bytes at least.
const MIN_KEY_SCANNED: usize = 7;
use crate::placeholders::{is_placeholder, is_reference, REDACTED};

/// How a string leaf is redacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafKind {
    /// Every layer runs on it.
    Scan,
    /// A key: every layer runs on it (keys of fewer than 7 bytes only when
    /// the redactor has caller rules or personal data: no built-in layer
    /// finds anything that short).
    Key,
    /// A credential's value: replaced whole.
    Replace,
    /// The value of a secret's name (`"api_key"`, `"token"`): replaced
    /// whole when it has a secret's shape, otherwise scanned.
    ReplaceSecretish,
    /// A skipped value (an identifier, a path, a signature, image data):
    /// only the secrets found elsewhere in the document are redacted in it.
    Known,
}

/// A string leaf to redact.
#[derive(Debug, Clone, Copy)]
pub struct Leaf {
    /// First byte of the string's content (after the opening quote).
    pub start: usize,
    /// The closing quote.
    pub end: usize,
    /// The content holds escapes.
    pub escaped: bool,
    /// How it is redacted.
    pub kind: LeafKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    Skipped,
    Credential,
    Type,
    Password,
    SecretNamed,
}

struct Frame {
    object: bool,
    /// An array under a skipped key: its strings are skipped.
    skip_strings: bool,
    leaves_start: usize,
    type_skip: bool,
    password_leaf: Option<usize>,
    has_host: bool,
    has_user: bool,
}

/// A key that names an identifier: `id`, or a name ending in the word `id`
/// — after `_`, `-`, `.` or a space in any case (`session_id`, `USER-ID`),
/// or camelCase `Id`/`ID` after a lower-case letter or a digit
/// (`sessionId`, `checkpointID`) — or the plural of one (`ids`,
/// `tool_use_ids`, `userIds`, `userIDs`). `android`, `paid`, `valid`,
/// `grid`, `uuid`, `PID` are not identifiers.
pub fn is_identifier_key(key: &str) -> bool {
    let b = key.as_bytes();
    let stem = match b {
        [rest @ .., b'I' | b'i', b'D' | b'd', b's' | b'S'] => &b[..rest.len() + 2],
        _ => b,
    };
    if stem.eq_ignore_ascii_case(b"id") {
        return true;
    }
    match stem {
        [.., b'_' | b'-' | b'.' | b' ', i, d] => {
            i.eq_ignore_ascii_case(&b'i') && d.eq_ignore_ascii_case(&b'd')
        }
        [.., before, b'I', b'd' | b'D'] => before.is_ascii_lowercase() || before.is_ascii_digit(),
        _ => false,
    }
}

fn classify_key(key: &str) -> (Role, bool, bool) {
    let b = key.as_bytes();
    if is_identifier_key(key) {
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
        _ if is_secret_name(key) => Role::SecretNamed,
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
        match *b.get(i)? {
            open @ (b'{' | b'[') => {
                stack.push(Frame {
                    object: open == b'{',
                    skip_strings: role == Role::Skipped && open == b'[',
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
                    i = key(text, i, &mut stack, &mut role, leaves)?;
                    continue 'value;
                } else {
                    role = Role::Plain;
                    continue 'value;
                }
            }
            b'"' => {
                let (end, escaped) = string_end(b, i)?;
                let skipped = role == Role::Skipped || stack.last().is_some_and(|f| f.skip_strings);
                let kind = match role {
                    _ if skipped => LeafKind::Known,
                    Role::Type => {
                        let value = decode_lossy(&text[i + 1..end], escaped);
                        if value.starts_with("image") || value == "base64" {
                            if let Some(f) = stack.last_mut() {
                                f.type_skip = true;
                            }
                        }
                        LeafKind::Scan
                    }
                    Role::Credential => LeafKind::Replace,
                    Role::SecretNamed => LeafKind::ReplaceSecretish,
                    Role::Password => {
                        if let Some(f) = stack.last_mut() {
                            f.password_leaf = Some(leaves.len());
                        }
                        LeafKind::ReplaceSecretish
                    }
                    Role::Plain | Role::Skipped => LeafKind::Scan,
                };
                leaves.push(Leaf {
                    start: i + 1,
                    end,
                    escaped,
                    kind,
                });
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
                        i = key(text, i, &mut stack, &mut role, leaves)?;
                    } else {
                        role = Role::Plain;
                    }
                    continue 'value;
                }
                c if c == close => {
                    let frame = stack.pop()?;
                    if frame.object {
                        if frame.type_skip {
                            // Image data: only known secrets, keys included.
                            for leaf in &mut leaves[frame.leaves_start..] {
                                leaf.kind = LeafKind::Known;
                            }
                        } else if let (Some(p), true, true) =
                            (frame.password_leaf, frame.has_host, frame.has_user)
                        {
                            if let Some(leaf) = leaves.get_mut(p) {
                                leaf.kind = LeafKind::Replace;
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

/// Parses `"key" :` at `i` in the object on top of `stack`; pushes the key
/// as a leaf, sets the role of the value that follows and returns where it
/// starts.
fn key(
    text: &str,
    i: usize,
    stack: &mut [Frame],
    role: &mut Role,
    leaves: &mut Vec<Leaf>,
) -> Option<usize> {
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
    leaves.push(Leaf {
        start: i + 1,
        end,
        escaped,
        kind: LeafKind::Key,
    });
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
    let short_keys = engine.finds_short_secrets();
    // The known secrets are searched once per leaf in one pass, and a leaf
    // gets only those it holds: every secret of a document handed to every
    // leaf would make a document with a secret per object quadratic.
    let known_ac = if known.len() > 1 {
        aho_corasick::AhoCorasick::new(known.iter().map(|(s, _)| s.as_bytes())).ok()
    } else {
        None
    };
    let mut present: Vec<Known> = Vec::new();
    for leaf in leaves {
        let raw = &unit[leaf.start..leaf.end];
        match leaf.kind {
            LeafKind::Known if known.is_empty() => continue,
            LeafKind::Key if raw.len() < MIN_KEY_SCANNED && !short_keys => continue,
            _ => {}
        }
        let decoded = if leaf.escaped {
            pieces.clear();
            std::borrow::Cow::Owned(decode(raw, &mut pieces))
        } else {
            std::borrow::Cow::Borrowed(raw)
        };
        let known: &[Known] = match &known_ac {
            Some(ac) => {
                let mut ids: Vec<usize> = ac
                    .find_overlapping_iter(decoded.as_ref())
                    .map(|m| m.pattern().as_usize())
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                present.clear();
                present.extend(ids.into_iter().filter_map(|k| known.get(k).cloned()));
                &present
            }
            None => known,
        };
        let spans = match leaf.kind {
            LeafKind::Replace => {
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
            LeafKind::ReplaceSecretish if is_secretish(&decoded) => {
                edits.push(Span {
                    start: leaf.start,
                    end: leaf.end,
                    rule: RuleRef::JsonCredentialField,
                    replacement: REDACTED,
                });
                continue;
            }
            LeafKind::Known => known_spans(&decoded, known),
            LeafKind::Scan | LeafKind::Key | LeafKind::ReplaceSecretish => {
                engine.redact_fragment(&decoded, known, secrets)
            }
        };
        for s in spans {
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
        if dirty.is_empty() {
            return edits;
        }
        // The edits rebuilt in one forward pass, each dirty unit's own
        // replacing the old ones inside it (splicing the vector per unit
        // would be quadratic in a transcript with a secret per line).
        let old = std::mem::take(&mut edits);
        let mut next = 0;
        for ((s, e), present) in dirty {
            let lo = next + old[next..].partition_point(|x| x.end <= s);
            edits.extend_from_slice(&old[next..lo]);
            next = lo + old[lo..].partition_point(|x| x.start < e);
            // Only the secrets that occur in this unit: passing every
            // secret of the document to every unit would make a transcript
            // with a secret per line quadratic.
            let known: Vec<Known> = present.iter().map(|&k| secrets[k].clone()).collect();
            let mut ignored = Vec::new();
            redact_unit(engine, &text[s..e], s, &known, &mut ignored, &mut edits);
        }
        edits.extend_from_slice(&old[next..]);
    }
    edits
}

/// A unit (`start..end`) and the indices of the secrets that occur in it.
type DirtyUnit = ((usize, usize), Vec<usize>);

/// Units holding an occurrence of a known secret outside every edit, each
/// with the secrets it holds. An occurrence written with JSON escapes the
/// serializer did not need (`\u0041KIA…`, `https:\/\/…`) counts too: a
/// unit holding `\u` or `\/` is searched decoded.
fn dirty_units(text: &str, secrets: &[Known], edits: &[Span], whole: bool) -> Vec<DirtyUnit> {
    let mut patterns: Vec<String> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (k, (s, _)) in secrets.iter().enumerate() {
        patterns.push(s.to_string());
        owner.push(k);
        let escaped = escape_json(s);
        if escaped != **s {
            patterns.push(escaped);
            owner.push(k);
        }
    }
    let Ok(ac) = aho_corasick::AhoCorasick::new(&patterns) else {
        return Vec::new();
    };
    let b = text.as_bytes();
    let unit_of = |at: usize| {
        if whole {
            (0, text.len())
        } else {
            let s = memchr::memrchr(b'\n', &b[..at]).map_or(0, |i| i + 1);
            let e = memchr(b'\n', &b[at..]).map_or(b.len(), |i| at + i);
            (s, e)
        }
    };
    let mut units: Vec<DirtyUnit> = Vec::new();
    let add = |units: &mut Vec<DirtyUnit>, unit: (usize, usize), k: usize| match units
        .binary_search_by_key(&unit, |u| u.0)
    {
        Ok(i) => units[i].1.push(k),
        Err(i) => units.insert(i, (unit, vec![k])),
    };
    for m in ac.find_iter(text) {
        let k = edits.partition_point(|x| x.start <= m.start());
        let covered = k > 0 && edits[k - 1].end >= m.end();
        if covered {
            continue;
        }
        add(
            &mut units,
            unit_of(m.start()),
            owner[m.pattern().as_usize()],
        );
    }
    // Escapes no serializer needs: search those units decoded.
    let mut from = 0;
    let finder = memchr::memmem::Finder::new(b"\\");
    while let Some(at) = b
        .get(from..)
        .and_then(|rest| finder.find(rest))
        .map(|i| from + i)
    {
        let unit = unit_of(at);
        from = unit.1.max(at + 1);
        if !matches!(b.get(at + 1), Some(b'u' | b'/')) {
            // Another escape: look for the next backslash in this unit.
            from = at + 2;
            continue;
        }
        // Only a unit that is JSON has escapes (`decode` wants one).
        let raw = &text[unit.0..unit.1];
        if !scan(raw, &mut Vec::new()) {
            continue;
        }
        let mut pieces = Vec::new();
        let decoded = decode(raw, &mut pieces);
        for m in ac.find_iter(&decoded) {
            add(&mut units, unit, owner[m.pattern().as_usize()]);
        }
    }
    for (_, present) in &mut units {
        present.sort_unstable();
        present.dedup();
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

    /// The leaves of `text` that are scanned or replaced (keys left out).
    fn leaves(text: &str) -> Option<Vec<(String, bool)>> {
        all_leaves(text).map(|v| {
            v.into_iter()
                .filter(|(_, k)| {
                    matches!(
                        k,
                        LeafKind::Scan | LeafKind::Replace | LeafKind::ReplaceSecretish
                    )
                })
                .map(|(s, k)| (s, k == LeafKind::Replace))
                .collect()
        })
    }

    fn all_leaves(text: &str) -> Option<Vec<(String, LeafKind)>> {
        let mut v = Vec::new();
        scan(text, &mut v).then(|| {
            v.iter()
                .map(|l| (text[l.start..l.end].to_owned(), l.kind))
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
        // Skipped values are kept for the secrets found elsewhere; keys
        // are leaves too.
        let all = all_leaves(r#"{"session_id":"s","msg":{"type":"image","data":"d"}}"#);
        assert_eq!(
            all,
            Some(vec![
                ("session_id".to_owned(), LeafKind::Key),
                ("s".to_owned(), LeafKind::Known),
                ("msg".to_owned(), LeafKind::Key),
                ("type".to_owned(), LeafKind::Known),
                ("image".to_owned(), LeafKind::Known),
                ("data".to_owned(), LeafKind::Known),
                ("d".to_owned(), LeafKind::Known),
            ])
        );
    }

    #[test]
    fn only_the_string_value_of_a_skipped_key_is_skipped() {
        // Containers under an identifier key are walked; strings of an
        // array value are skipped, nested containers are not.
        let v = leaves(
            r#"{"id":{"note":"a"},"ids":["b",{"x":"c"},["d"]],"cwd":"e","android":"f","paid":"g","valid":"h","grid":"i","uuid":"j"}"#,
        );
        let values: Vec<String> = v.unwrap().into_iter().map(|(s, _)| s).collect();
        assert_eq!(values, ["a", "c", "d", "f", "g", "h", "i", "j"]);
    }

    #[test]
    fn identifier_keys() {
        for k in [
            "id",
            "ID",
            "Id",
            "ids",
            "IDs",
            "session_id",
            "SESSION_ID",
            "tool_use_ids",
            "sessionId",
            "checkpointID",
            "userIds",
            "userIDs",
            "user-id",
            "parent.id",
            "v2Id",
        ] {
            assert!(is_identifier_key(k), "{k}");
        }
        for k in [
            "android", "paid", "valid", "grid", "uuid", "PID", "Android", "squid", "idle", "_id_",
            "void", "braid", "",
        ] {
            assert!(!is_identifier_key(k), "{k}");
        }
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
