//! Checkpoint IDs: the legacy 12-hex form and canonical ULIDs, how they are
//! classified, minted, shortened for display and laid out in trees and refs.
//!
//! Every function here takes any `&str` and never panics. Lengths and cuts are
//! counted in bytes, as in the Go tool this mirrors; for the IDs themselves
//! (pure ASCII) bytes and characters coincide. On other input a cut that
//! would fall inside a multi-byte character keeps that whole character on
//! the side being kept (the prefix for [`display_short`] and
//! [`checkpoint_path`], the suffix for [`shard_for`]), so the result is
//! always valid UTF-8 and may be a few bytes longer than the nominal width.

use std::fmt;
use std::str::FromStr;

use agent_checkpoint::{Error, Result};

/// Length in bytes of a legacy checkpoint ID (`[0-9a-f]{12}`).
pub const LEGACY_ID_LEN: usize = 12;

/// Length in bytes of a ULID checkpoint ID.
pub const ULID_LEN: usize = ulid::ULID_LEN;

/// Length in bytes of a ref-namespace shard (see [`shard_for`]).
pub const SHARD_LEN: usize = 2;

/// Width [`display_short`] cuts non-ULID strings to.
pub const SHORT_ID_LEN: usize = 12;

/// The largest timestamp a ULID can carry: 2^48 - 1 milliseconds.
pub const MAX_ULID_TIMESTAMP_MS: u64 = (1 << 48) - 1;

const LEGACY_BYTES: usize = LEGACY_ID_LEN / 2;
const ULID_RANDOM_BYTES: usize = 10;

/// The format of a checkpoint ID string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IdKind {
    /// Exactly 12 lowercase hex characters.
    Legacy,
    /// A canonical 26-character Crockford base32 ULID.
    Ulid,
    /// Anything else.
    Unknown,
}

impl IdKind {
    /// The stable lowercase name: `legacy`, `ulid` or `unknown`.
    pub const fn as_str(self) -> &'static str {
        match self {
            IdKind::Legacy => "legacy",
            IdKind::Ulid => "ulid",
            IdKind::Unknown => "unknown",
        }
    }
}

impl fmt::Display for IdKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A checkpoint ID known to be legacy or ULID: it can only be built through
/// validation ([`validate_checkpoint_id`], `TryFrom<&str>`, `FromStr`) or by
/// the generators.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CheckpointId(String);

impl CheckpointId {
    /// The ID as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Its format; never [`IdKind::Unknown`].
    pub fn kind(&self) -> IdKind {
        checkpoint_id_kind(&self.0)
    }

    /// The owned text of the ID.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for CheckpointId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for CheckpointId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl TryFrom<&str> for CheckpointId {
    type Error = Error;

    fn try_from(s: &str) -> Result<CheckpointId> {
        validate_checkpoint_id(s)
    }
}

impl TryFrom<String> for CheckpointId {
    type Error = Error;

    fn try_from(s: String) -> Result<CheckpointId> {
        match checkpoint_id_kind(&s) {
            IdKind::Unknown => Err(invalid_id(&s)),
            _ => Ok(CheckpointId(s)),
        }
    }
}

impl FromStr for CheckpointId {
    type Err = Error;

    fn from_str(s: &str) -> Result<CheckpointId> {
        validate_checkpoint_id(s)
    }
}

impl From<CheckpointId> for String {
    fn from(id: CheckpointId) -> String {
        id.0
    }
}

/// Classifies `s`: [`IdKind::Legacy`] for exactly 12 lowercase hex
/// characters, [`IdKind::Ulid`] for a canonical ULID (26 characters of
/// `0123456789ABCDEFGHJKMNPQRSTVWXYZ`, uppercase, first character `0`-`7`),
/// otherwise [`IdKind::Unknown`].
pub fn checkpoint_id_kind(s: &str) -> IdKind {
    if is_legacy(s) {
        IdKind::Legacy
    } else if is_canonical_ulid(s) {
        IdKind::Ulid
    } else {
        IdKind::Unknown
    }
}

fn is_legacy(s: &str) -> bool {
    s.len() == LEGACY_ID_LEN && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

// The decoder accepts lowercase and silently drops the overflowing top bits of
// a first character above `7`; re-encoding and comparing rejects both, so only
// the one spelling we ever emit counts as a ULID.
fn is_canonical_ulid(s: &str) -> bool {
    decode_canonical_ulid(s).is_some()
}

fn decode_canonical_ulid(s: &str) -> Option<ulid::Ulid> {
    if s.len() != ULID_LEN {
        return None;
    }
    let decoded = ulid::Ulid::from_string(s).ok()?;
    let mut buf = [0u8; ULID_LEN];
    (decoded.array_to_str(&mut buf) == s).then_some(decoded)
}

/// Validates `s` as a legacy or ULID checkpoint ID.
///
/// # Errors
/// [`Error::InvalidCheckpointId`] naming the input when its kind is unknown.
pub fn validate_checkpoint_id(s: &str) -> Result<CheckpointId> {
    match checkpoint_id_kind(s) {
        IdKind::Unknown => Err(invalid_id(s)),
        _ => Ok(CheckpointId(s.to_owned())),
    }
}

fn invalid_id(s: &str) -> Error {
    let reason = if s.is_empty() {
        "the id is empty"
    } else {
        "must be 12 lowercase hex characters or a 26-character canonical ULID"
    };
    Error::InvalidCheckpointId {
        id: s.to_owned(),
        reason: reason.to_owned(),
    }
}

/// Mints a new legacy ID: 6 random bytes from the operating system, as 12
/// lowercase hex characters.
///
/// # Errors
/// [`Error::Io`] (code `io`) if the system random source fails.
pub fn new_checkpoint_id() -> Result<CheckpointId> {
    let mut bytes = [0u8; LEGACY_BYTES];
    fill_random(&mut bytes)?;
    Ok(CheckpointId(hex::encode(bytes)))
}

/// Mints a new ULID from `timestamp_ms` (milliseconds since the Unix epoch;
/// `None` means now) and 80 random bits, in canonical uppercase form.
///
/// On `wasm32-unknown-unknown` there is no clock the core may read, so
/// `None` is an error there: pass the host's time (e.g. `Date.now()`), or
/// call [`new_ulid_at`].
///
/// # Errors
/// [`Error::TooLarge`] for a timestamp above [`MAX_ULID_TIMESTAMP_MS`];
/// [`Error::Io`] if the clock or the system random source is unavailable.
pub fn new_ulid(timestamp_ms: Option<u64>) -> Result<CheckpointId> {
    match timestamp_ms {
        Some(ms) => new_ulid_at(ms),
        None => new_ulid_at(now_ms()?),
    }
}

/// Mints a new ULID for the given millisecond timestamp plus 80 random bits.
///
/// # Errors
/// [`Error::TooLarge`] for a timestamp above [`MAX_ULID_TIMESTAMP_MS`];
/// [`Error::Io`] if the system random source fails.
pub fn new_ulid_at(timestamp_ms: u64) -> Result<CheckpointId> {
    if timestamp_ms > MAX_ULID_TIMESTAMP_MS {
        return Err(Error::too_large(
            "ULID timestamp (ms)",
            timestamp_ms,
            MAX_ULID_TIMESTAMP_MS,
        ));
    }
    let mut bytes = [0u8; ULID_RANDOM_BYTES];
    fill_random(&mut bytes)?;
    let random = bytes
        .iter()
        .fold(0u128, |acc, &b| (acc << 8) | u128::from(b));
    let mut buf = [0u8; ULID_LEN];
    let text = ulid::Ulid::from_parts(timestamp_ms, random).array_to_str(&mut buf);
    Ok(CheckpointId((*text).to_owned()))
}

fn fill_random(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|e| Error::Io {
        path: None,
        error: std::io::Error::other(format!("system random source failed: {e}")),
    })
}

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn now_ms() -> Result<u64> {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| Error::Io {
            path: None,
            error: std::io::Error::other("the system clock is before 1970"),
        })?;
    Ok(u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn now_ms() -> Result<u64> {
    Err(Error::Io {
        path: None,
        error: std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "no clock on wasm32-unknown-unknown: pass timestamp_ms (e.g. Date.now())",
        ),
    })
}

/// The millisecond timestamp of `s` if it is a canonical ULID, else `None`.
pub fn ulid_timestamp_ms(s: &str) -> Option<u64> {
    decode_canonical_ulid(s).map(|u| u.timestamp_ms())
}

/// `s` trimmed for compact display: a ULID in full (its entropy is in the
/// tail, so a prefix would be ambiguous), anything else cut to its first
/// [`SHORT_ID_LEN`] bytes (see the module docs for non-ASCII input).
pub fn display_short(s: &str) -> String {
    if is_canonical_ulid(s) {
        return s.to_owned();
    }
    prefix_keeping_chars(s, SHORT_ID_LEN).to_owned()
}

/// The tree path of a checkpoint on the `entire/checkpoints/v1` branch: the
/// first two bytes, `/`, the rest (`a1b2c3d4e5f6` -> `a1/b2c3d4e5f6`). Input
/// shorter than 3 bytes, or with nothing left after the first two
/// characters, is returned unchanged.
pub fn checkpoint_path(s: &str) -> String {
    if s.len() < 3 {
        return s.to_owned();
    }
    let head = prefix_keeping_chars(s, 2);
    match s.get(head.len()..) {
        Some(rest) if !rest.is_empty() => format!("{head}/{rest}"),
        _ => s.to_owned(),
    }
}

/// The ref-namespace shard of an ID: its LAST two bytes, for every kind
/// (`a1b2c3d4e5f6` -> `f6`); the whole string if shorter than 2 bytes.
pub fn shard_for(s: &str) -> String {
    shard_of(s).to_owned()
}

/// [`shard_for`] without the allocation.
pub(crate) fn shard_of(s: &str) -> &str {
    suffix_keeping_chars(s, SHARD_LEN)
}

/// The first `n` bytes of `s`, extended to the end of a character the cut
/// would split.
pub(crate) fn prefix_keeping_chars(s: &str, n: usize) -> &str {
    if n >= s.len() {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end += 1;
    }
    s.get(..end).unwrap_or(s)
}

/// The last `n` bytes of `s`, extended to the start of a character the cut
/// would split.
fn suffix_keeping_chars(s: &str, n: usize) -> &str {
    if n >= s.len() {
        return s;
    }
    let mut start = s.len() - n;
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    s.get(start..).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE_ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

    #[test]
    fn kinds() {
        assert_eq!(checkpoint_id_kind("a1b2c3d4e5f6"), IdKind::Legacy);
        assert_eq!(checkpoint_id_kind(SAMPLE_ULID), IdKind::Ulid);
        assert_eq!(
            checkpoint_id_kind("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"),
            IdKind::Ulid
        );
        assert_eq!(
            checkpoint_id_kind("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"),
            IdKind::Unknown
        );
        assert_eq!(
            checkpoint_id_kind("01kvbjcwya4yw6j5m9gp655hzn"),
            IdKind::Unknown
        );
        assert_eq!(checkpoint_id_kind("A1B2C3D4E5F6"), IdKind::Unknown);
        assert_eq!(checkpoint_id_kind(""), IdKind::Unknown);
        assert_eq!(IdKind::Ulid.to_string(), "ulid");
    }

    #[test]
    fn newtype_conversions() {
        let id: CheckpointId = "a1b2c3d4e5f6".parse().unwrap();
        assert_eq!(id.kind(), IdKind::Legacy);
        assert_eq!(id.to_string(), "a1b2c3d4e5f6");
        assert!(CheckpointId::try_from("nope").is_err());
        assert!(CheckpointId::try_from(String::from(SAMPLE_ULID)).is_ok());
        let err = validate_checkpoint_id("nope").unwrap_err();
        assert_eq!(err.code(), agent_checkpoint::ErrorCode::InvalidCheckpointId);
        assert!(err.to_string().contains("\"nope\""));
    }

    #[test]
    fn generators_produce_their_kind() {
        assert_eq!(new_checkpoint_id().unwrap().kind(), IdKind::Legacy);
        assert_eq!(new_ulid(None).unwrap().kind(), IdKind::Ulid);
        let at = new_ulid(Some(1_700_000_000_000)).unwrap();
        assert_eq!(ulid_timestamp_ms(at.as_str()), Some(1_700_000_000_000));
        let max = new_ulid_at(MAX_ULID_TIMESTAMP_MS).unwrap();
        assert!(max.as_str().starts_with("7ZZZZZZZZZ"));
        let err = new_ulid_at(MAX_ULID_TIMESTAMP_MS + 1).unwrap_err();
        assert_eq!(err.code(), agent_checkpoint::ErrorCode::TooLarge);
    }

    #[test]
    fn cuts_keep_whole_characters() {
        assert_eq!(shard_for("日本語"), "語");
        assert_eq!(shard_for("aé"), "é");
        assert_eq!(checkpoint_path("日本語"), "日/本語");
        assert_eq!(checkpoint_path("日"), "日");
        assert_eq!(checkpoint_path("éab"), "é/ab");
        assert_eq!(display_short("ééééééééé"), "éééééé");
        assert_eq!(display_short("aaaaaaaaaaa日"), "aaaaaaaaaaa日");
    }
}
