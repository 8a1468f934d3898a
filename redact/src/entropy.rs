//! Layer 1: high-entropy runs.
//!
//! A run is a maximal stretch of `[A-Za-z0-9+_=-]` (no `/`, so paths survive).
//! A run that starts right after `\` first drops a leading `n t r b f u`
//! (`\n`, `\t`, `\u00e9` are JSON escapes, not secrets). A run of 10 or more
//! bytes whose Shannon entropy over bytes is above 4.5 bits is a finding.
//!
//! Three shapes of high-entropy run are known not to be secrets and are
//! skipped (measured by `tests/false_positives.rs` on this repository):
//! - subresource-integrity values (`sha512-…`, `sha384-…`, `sha256-…`,
//!   `sha1-…`, as in `package-lock.json`), digests of public packages, whole
//!   (their base64 may hold `/`);
//! - alphabets and sequences (`0123456789ABCDEFGHJKMNPQRSTVWXYZ`): three
//!   quarters or more of the neighbouring bytes ascend;
//! - identifiers: a ULID (26 Crockford base32 characters, as checkpoint IDs
//!   are), or segments split at `-`, `_`, `.` that are each one plain word or
//!   number (`[a-z]+`, `[A-Z]+`, `[A-Z][a-z]+`, `[0-9]+`, or hex of one case),
//!   such as cargo's `libagent_checkpoint_redact-7a85428d24f356d0`. A random
//!   secret mixes cases and digits inside its segments.

/// The entropy (bits per byte) a run must exceed.
pub const THRESHOLD: f64 = 4.5;

/// The shortest run considered.
pub const MIN_RUN: usize = 10;

/// A run of `n` bytes has at most `log2(n)` bits of entropy, so runs shorter
/// than this can never exceed [`THRESHOLD`] (log2(22) < 4.5 < log2(23)).
const MIN_USEFUL_RUN: usize = 23;

const INTEGRITY_PREFIXES: [&[u8]; 4] = [b"sha512-", b"sha384-", b"sha256-", b"sha1-"];

/// `CLASS[b]` is 1 + the index of `b` in the run alphabet, 0 outside it.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0usize;
    let mut next = 1u8;
    while i < 256 {
        let b = i as u8;
        if b.is_ascii_alphanumeric() || b == b'+' || b == b'_' || b == b'=' || b == b'-' {
            t[i] = next;
            next += 1;
        }
        i += 1;
    }
    t
};

/// True for a byte of the run alphabet `[A-Za-z0-9+_=-]`.
#[cfg(test)]
pub fn is_run_byte(b: u8) -> bool {
    CLASS[b as usize] != 0
}

/// Calls `found(start, end)` for every run of `text` above the threshold.
pub fn find(text: &str, mut found: impl FnMut(usize, usize)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let is_run = |b: u8| CLASS[b as usize] != 0;
    // Only runs of MIN_USEFUL_RUN bytes or more matter, so probe the last
    // byte of the window: when it is not a run byte, no such run starts in
    // the window and the whole window is skipped. `i` is always just after
    // a byte that is not a run byte (or at 0).
    let mut i = 0;
    while i + MIN_USEFUL_RUN <= n {
        let probe = i + MIN_USEFUL_RUN - 1;
        if !is_run(bytes[probe]) {
            i = probe + 1;
            continue;
        }
        let mut start = probe;
        while start > i && is_run(bytes[start - 1]) {
            start -= 1;
        }
        let mut end = probe + 1;
        while end < n && is_run(bytes[end]) {
            end += 1;
        }
        i = end + 1;
        if end - start < MIN_USEFUL_RUN {
            continue;
        }
        // A subresource-integrity digest: its base64 may hold `/`, so look
        // back over it for the prefix, and skip the rest of it.
        let token_start = crate::text::scan_back(bytes, start, 128, |b| is_run(b) || b == b'/');
        if INTEGRITY_PREFIXES
            .iter()
            .any(|p| bytes[token_start..].starts_with(p))
        {
            while i < n && (is_run(bytes[i]) || bytes[i] == b'/') {
                i += 1;
            }
            i += 1;
            continue;
        }
        if start > 0
            && bytes[start - 1] == b'\\'
            && matches!(bytes[start], b'n' | b't' | b'r' | b'b' | b'f' | b'u')
        {
            start += 1;
        }
        let run = &bytes[start..end];
        if run.len() < MIN_RUN.max(MIN_USEFUL_RUN) {
            continue;
        }
        if above_threshold(run)
            && !is_sequence(run)
            && !is_identifier(run)
            && !named_as_hash(bytes, start)
        {
            // `MY_TOKEN=<secret>`: the name stays (a bare lower-case word
            // such as `key=` goes with the value, as the Entire CLI has it).
            match assignment_value(run) {
                Some(v) if is_hash_name(&run[..v - 1]) => {}
                Some(v) if keeps_name(&run[..v - 1]) => {
                    let value = &run[v..];
                    if !is_identifier(value) && !is_sequence(value) {
                        found(start + v, end);
                    }
                }
                _ => found(start, end),
            }
        }
    }
}

/// A run that reads `NAME=VALUE` (`NAME` a variable name: a letter or `_`,
/// then letters, digits, `_`, `-`; a value of 8 bytes or more not starting
/// with `=`): where the value starts.
pub fn assignment_value(run: &[u8]) -> Option<usize> {
    let eq = memchr::memchr(b'=', run)?;
    let (name, value) = (&run[..eq], &run[eq + 1..]);
    let first = *name.first()?;
    let is_name = (first.is_ascii_alphabetic() || first == b'_')
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    (is_name && value.len() >= 8 && value[0] != b'=').then_some(eq + 1)
}

/// Names of a digest (their last word, any case): a value after one is a
/// hash of something public, named as such (`"sha256": "…"`,
/// `checksum=…`, `etag: "…"`, `commit …`), not a secret.
const HASH_WORDS: [&str; 18] = [
    "sha",
    "sha1",
    "sha256",
    "sha384",
    "sha512",
    "md5",
    "blake3",
    "hash",
    "digest",
    "checksum",
    "integrity",
    "etag",
    "commit",
    "version",
    "rev",
    "revision",
    "oid",
    "fingerprint",
];

/// A name whose last word (after `_`, `-`, `.` or a camelCase boundary) is
/// one of [`HASH_WORDS`].
fn is_hash_name(name: &[u8]) -> bool {
    let from = name
        .iter()
        .rposition(|&b| matches!(b, b'_' | b'-' | b'.'))
        .map_or(0, |p| p + 1);
    let mut word = &name[from..];
    if let Some(p) = word.iter().rposition(u8::is_ascii_uppercase) {
        if p > 0 && word[p - 1].is_ascii_lowercase() {
            word = &word[p..];
        }
    }
    HASH_WORDS
        .iter()
        .any(|h| word.eq_ignore_ascii_case(h.as_bytes()))
}

/// The run at `start` is the value of a digest's name: `sha256:…`,
/// `"checksum": "…`, `etag = '…`, `commit …` (up to 8 bytes of quotes,
/// spaces, `:` and `=` between them).
fn named_as_hash(bytes: &[u8], start: usize) -> bool {
    let mut i = start;
    while i > 0
        && start - i < 8
        && matches!(bytes[i - 1], b'"' | b'\'' | b' ' | b'\t' | b':' | b'=')
    {
        i -= 1;
    }
    if i == start {
        return false;
    }
    let name_start = crate::text::scan_back(bytes, i, 64, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
    });
    is_hash_name(&bytes[name_start..i]) || is_public_name(&bytes[name_start..i])
}

/// Names of a value that is public or a database key, not a secret
/// (`public_key`, `publicToken`, `pubkey`, `primaryKey`, `foreign-key`).
fn is_public_name(name: &[u8]) -> bool {
    let mut buf = [0u8; 64];
    let mut n = 0;
    for &c in name {
        if matches!(c, b'_' | b'-' | b'.') {
            continue;
        }
        if n == buf.len() {
            return false;
        }
        buf[n] = c.to_ascii_lowercase();
        n += 1;
    }
    let key = &buf[..n];
    [
        &b"publickey"[..],
        b"publictoken",
        b"pubkey",
        b"primarykey",
        b"foreignkey",
    ]
    .iter()
    .any(|w| key.ends_with(w))
}

/// The name of an assignment is kept unless it is one lower-case word
/// (`key`, `token`: the Entire CLI redacts `key=<secret>` whole).
fn keeps_name(name: &[u8]) -> bool {
    !name.iter().all(u8::is_ascii_lowercase)
}

/// Three quarters or more of the neighbouring bytes ascend: an alphabet.
fn is_sequence(run: &[u8]) -> bool {
    let up = run.windows(2).filter(|w| w[1] > w[0]).count();
    up * 4 >= (run.len() - 1) * 3
}

/// A ULID, or plain words, numbers and ULIDs joined by `-`, `_`, `.` (a
/// ref name made file name: `refs_entire_checkpoints_ZN_<ULID>`).
fn is_identifier(run: &[u8]) -> bool {
    is_ulid(run)
        || std::str::from_utf8(run).is_ok_and(crate::placeholders::reads_as_words)
        || run
            .split(|&b| matches!(b, b'-' | b'_' | b'.' | b'='))
            .filter(|seg| !seg.is_empty())
            .all(is_plain_segment)
}

/// 26 Crockford base32 characters, the first at most `7`.
fn is_ulid(run: &[u8]) -> bool {
    const CROCKFORD_NOT: &[u8] = b"ILOU";
    run.len() == 26
        && matches!(run[0], b'0'..=b'7')
        && run
            .iter()
            .all(|&b| (b.is_ascii_digit() || b.is_ascii_uppercase()) && !CROCKFORD_NOT.contains(&b))
}

fn is_plain_segment(seg: &[u8]) -> bool {
    let all = |f: fn(&u8) -> bool| seg.iter().all(f);
    is_ulid(seg)
        || all(u8::is_ascii_lowercase)
        || all(u8::is_ascii_uppercase)
        || all(u8::is_ascii_digit)
        || (seg[0].is_ascii_uppercase() && seg[1..].iter().all(u8::is_ascii_lowercase))
        || all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
        || all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(b))
}

/// True when the run's entropy is above [`THRESHOLD`]. A run of `d`
/// distinct bytes has at most `log2(d)` bits per byte, so runs of 22
/// distinct bytes or fewer (hex, most identifiers) need no logarithm.
fn above_threshold(run: &[u8]) -> bool {
    let mut seen = [false; 256];
    let mut distinct = 0usize;
    for &b in run {
        if !seen[b as usize] {
            seen[b as usize] = true;
            distinct += 1;
        }
    }
    distinct >= MIN_USEFUL_RUN && shannon(run) > THRESHOLD
}

/// Shannon entropy in bits per byte of a run (all bytes in the run alphabet).
pub fn shannon(run: &[u8]) -> f64 {
    if run.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 67];
    for &b in run {
        counts[CLASS[b as usize] as usize] += 1;
    }
    let n = run.len() as f64;
    let mut sum = 0.0f64;
    for &c in &counts {
        if c > 1 {
            let c = f64::from(c);
            sum += c * c.log2();
        }
    }
    (n.log2() - sum / n).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(text: &str) -> Vec<&str> {
        let mut v = Vec::new();
        find(text, |s, e| v.push(&text[s..e]));
        v
    }

    #[test]
    fn random_token_is_found_paths_and_hex_are_not() {
        let secret = "q8Zr2LmX0vB7nK4tY1wE9cH6jP3sD5fGaQ";
        assert_eq!(runs(&format!("key {secret} ok")), vec![secret]);
        // `=` belongs to the run alphabet: `key=<secret>` is one run.
        assert_eq!(
            runs(&format!("key={secret}")),
            vec![format!("key={secret}").as_str()]
        );
        // 40 hex digits: at most 4 bits per byte.
        assert!(runs("commit 3f786850e387550fdab836ed7e6dc881de23001b").is_empty());
        // A path: `/` breaks runs.
        assert!(runs("/tmp/TestE2E_Something3407889464/001/controller.go").is_empty());
        assert!(runs("hello world, this is normal text").is_empty());
    }

    #[test]
    fn json_escape_letter_is_dropped() {
        let secret = "q8Zr2LmX0vB7nK4tY1wE9cH6jP3sD5fGaQ";
        assert_eq!(runs(&format!("a\\n{secret}")), vec![secret]);
        // Without the backslash the `n` belongs to the run.
        assert_eq!(
            runs(&format!("a n{secret}")),
            vec![format!("n{secret}").as_str()]
        );
    }

    #[test]
    fn integrity_hashes_are_skipped() {
        let v = "sha512-Kq5sNclPz7QV2+lfQIos6Xd5VJnA1U2Qo9CnM7ctKsqWqJhSX3DLHA0GD8aBt2h0e7tUvM8qJc0Vq6SnB9Ww1A==";
        assert!(runs(v).is_empty());
        // A digest holding `/` is skipped whole.
        let slashed = "sha512-Gpf5C2B2EJ0r4brHUT3XSgACeHREcuiObXH56xd/B3fFsEFbUT04VBEe6MuZiCtMp0tQgq8Zr2LmX0vB7nK4tY1w==";
        assert!(runs(slashed).is_empty());
        let short_first = "sha512-ayb/PyyLzpwRyFVxeC0uoEHu59QlB1iWGcGsOpXQcaB/Dc+uGfBmNmpCHp3HmTT0t8lSsMmg3j7+tdJW/TlHjQ==";
        assert!(runs(short_first).is_empty());
        assert_eq!(runs(&v[7..]).len(), 1);
    }

    #[test]
    fn alphabets_and_identifiers_are_skipped() {
        for t in [
            "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "libagent_checkpoint_redact-7a85428d24f356d0",
            "739TDCQS4VEZFAYX1P38V50M6R",
            "refs_entire_checkpoints_ZN_01KVBJCWYA4YW6J5M9GP655HZN",
        ] {
            assert!(shannon(t.as_bytes()) > THRESHOLD, "{t}");
            assert!(runs(t).is_empty(), "{t}");
        }
        // Mixed case and digits inside a segment: a secret.
        assert_eq!(runs("libagent-q8Zr2LmX0vB7nK4tY1wE9cH6jP3sD5fGaQ").len(), 1);
        assert_eq!(runs("739TDCQS4VEZFAYX1P38V50M6RQ").len(), 1);
        assert_eq!(runs("refs_ZN_01KVBJCWYA4YW6J5M9GP655HZNq").len(), 1);
    }

    #[test]
    fn digests_named_as_such_and_camel_case_words_are_skipped() {
        let digest = "n4bQgYhMfWWaL+qgxVrQFaO9TxsrC4Is0V1sFbDwCgg=";
        assert_eq!(runs(digest).len(), 1);
        for t in [
            format!("\"sha256\": \"{digest}\""),
            format!("checksum={digest}"),
            format!("etag: '{digest}'"),
            format!("digest sha256:{digest}"),
            format!("fileSha256 = {digest}"),
            "getAuthenticationTokenForServiceAccountCredentials2AndRetry".to_owned(),
        ] {
            assert!(runs(&t).is_empty(), "{t}");
        }
        // Other names keep the run.
        assert_eq!(runs(&format!("shadow: {digest}")).len(), 1);
        assert_eq!(runs(&format!("API_SECRET={digest}")).len(), 1);
    }

    #[test]
    fn entropy_bounds() {
        assert_eq!(shannon(b"aaaaaaaaaa"), 0.0);
        let all: Vec<u8> = (0u8..=255).filter(|&b| is_run_byte(b)).collect();
        assert_eq!(all.len(), 66);
        assert!((shannon(&all) - (66f64).log2()).abs() < 1e-9);
    }
}
