//! Small byte-level helpers shared by the layers.

/// True for `[A-Za-z0-9_]`.
pub fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// True for a byte that ends a URL or a bare value: whitespace, quotes,
/// backtick, angle brackets, backslash (a JSON escape in raw text) and
/// control bytes.
pub fn is_terminator(b: u8) -> bool {
    b <= b' ' || matches!(b, b'"' | b'\'' | b'`' | b'<' | b'>' | b'\\' | 0x7f)
}

/// Moves `start` back over bytes for which `keep` holds, at most `limit` bytes.
pub fn scan_back(bytes: &[u8], start: usize, limit: usize, keep: impl Fn(u8) -> bool) -> usize {
    let floor = start.saturating_sub(limit);
    let mut i = start;
    while i > floor && keep(bytes[i - 1]) {
        i -= 1;
    }
    i
}

/// `start` moved past a JSON escape letter: in raw JSON text `\nfoo` the
/// `n` belongs to the escape, not to the word that follows.
pub fn skip_escape_letter(bytes: &[u8], start: usize, end: usize) -> usize {
    if start > 0
        && start < end
        && bytes[start - 1] == b'\\'
        && matches!(bytes[start], b'n' | b't' | b'r' | b'b' | b'f' | b'u')
    {
        start + 1
    } else {
        start
    }
}

/// True when a match at `start` does not continue a word: no `[A-Za-z0-9_]`
/// right before it, unless that byte is the letter of a JSON escape (`\n`).
pub fn at_word_start(bytes: &[u8], start: usize) -> bool {
    if start == 0 {
        return true;
    }
    let prev = bytes[start - 1];
    if !is_word(prev) {
        return true;
    }
    start >= 2
        && bytes[start - 2] == b'\\'
        && matches!(prev, b'n' | b't' | b'r' | b'b' | b'f' | b'u')
}
