//! Times as Go's `time.Time` writes them in JSON: RFC 3339 with the
//! fraction of a second trimmed of trailing zeros (`RFC3339Nano`), `Z` for
//! UTC, `+hh:mm` otherwise.
//!
//! The store writes UTC only; a time read with another offset keeps it, so a
//! document read and written again comes out with the same bytes.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Serialize, Serializer};

use agent_checkpoint::{Error, Result};

/// Seconds from 0001-01-01T00:00:00Z (Go's zero time) to the Unix epoch.
const GO_ZERO_UNIX: i64 = -62_135_596_800;

/// An instant with nanoseconds and the UTC offset it was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Timestamp {
    unix_seconds: i64,
    nanos: u32,
    offset_seconds: i32,
}

impl Default for Timestamp {
    /// Go's zero time, `0001-01-01T00:00:00Z`.
    fn default() -> Timestamp {
        Timestamp {
            unix_seconds: GO_ZERO_UNIX,
            nanos: 0,
            offset_seconds: 0,
        }
    }
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Timestamp) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    /// Orders by instant (the offset breaks ties only).
    fn cmp(&self, other: &Timestamp) -> std::cmp::Ordering {
        (self.unix_seconds, self.nanos, self.offset_seconds).cmp(&(
            other.unix_seconds,
            other.nanos,
            other.offset_seconds,
        ))
    }
}

impl Timestamp {
    /// The instant `unix_seconds` + `nanos` after the Unix epoch, in UTC.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `nanos` is 1e9 or more or the instant
    /// is outside the years 0000-9999 (which RFC 3339 cannot write).
    pub fn from_unix(unix_seconds: i64, nanos: u32) -> Result<Timestamp> {
        let t = Timestamp {
            unix_seconds,
            nanos,
            offset_seconds: 0,
        };
        if nanos >= 1_000_000_000 || !(MIN_UNIX..=MAX_UNIX).contains(&unix_seconds) {
            return Err(Error::invalid_argument(
                "time",
                "outside the years 0000-9999 or nanoseconds out of range",
            ));
        }
        Ok(t)
    }

    /// The current time in UTC.
    pub fn now() -> Timestamp {
        let since = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp {
            unix_seconds: i64::try_from(since.as_secs()).unwrap_or(MAX_UNIX),
            nanos: since.subsec_nanos(),
            offset_seconds: 0,
        }
    }

    /// Seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> i64 {
        self.unix_seconds
    }

    /// The nanoseconds within the second.
    pub fn nanos(&self) -> u32 {
        self.nanos
    }

    /// The UTC offset the time was written with, in seconds (0 for `Z`).
    pub fn offset_seconds(&self) -> i32 {
        self.offset_seconds
    }

    /// Whether this is Go's zero time.
    pub fn is_zero(&self) -> bool {
        self.unix_seconds == GO_ZERO_UNIX && self.nanos == 0
    }

    /// The same instant in UTC.
    pub fn to_utc(self) -> Timestamp {
        Timestamp {
            offset_seconds: 0,
            ..self
        }
    }

    /// Parses an RFC 3339 time as Go's `time.Time` JSON decoder does:
    /// `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1-9 digits, then `Z`
    /// or `+hh:mm` / `-hh:mm`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the text when it is not such a time.
    pub fn parse(text: &str) -> Result<Timestamp> {
        parse_rfc3339(text.as_bytes()).ok_or_else(|| {
            Error::invalid_argument("time", format!("{text:?} is not an RFC 3339 time"))
        })
    }
}

const MIN_UNIX: i64 = -62_167_219_200; // 0000-01-01T00:00:00Z
const MAX_UNIX: i64 = 253_402_300_799; // 9999-12-31T23:59:59Z

fn parse_rfc3339(b: &[u8]) -> Option<Timestamp> {
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let digits = b.get(range)?;
        let mut n = 0i64;
        for &d in digits {
            if !d.is_ascii_digit() {
                return None;
            }
            n = n * 10 + i64::from(d - b'0');
        }
        Some(n)
    };
    let sep = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(sep(4, b'-') && sep(7, b'-') && sep(10, b'T') && sep(13, b':') && sep(16, b':')) {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut i = 19;
    let mut nanos = 0u32;
    if sep(i, b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let digits = i - start;
        if digits == 0 || digits > 9 {
            return None;
        }
        let value = u32::try_from(num(start..i)?).ok()?;
        nanos = value * 10u32.pow(u32::try_from(9 - digits).ok()?);
    }
    let offset_seconds = match b.get(i..)? {
        b"Z" => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let hh = num(i + 1..i + 3)?;
            let mm = num(i + 4..i + 6)?;
            if hh > 23 || mm > 59 {
                return None;
            }
            let secs = i32::try_from(hh * 3600 + mm * 60).ok()?;
            if *sign == b'-' {
                -secs
            } else {
                secs
            }
        }
        _ => return None,
    };
    let local = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    Some(Timestamp {
        unix_seconds: local - i64::from(offset_seconds),
        nanos,
        offset_seconds,
    })
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

impl fmt::Display for Timestamp {
    /// RFC 3339 with trailing zeros of the fraction trimmed, as Go writes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let local = self.unix_seconds + i64::from(self.offset_seconds);
        let (year, month, day) = civil_from_days(local.div_euclid(86_400));
        let secs = local.rem_euclid(86_400);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60
        )?;
        if self.nanos != 0 {
            let fraction = format!("{:09}", self.nanos);
            write!(f, ".{}", fraction.trim_end_matches('0'))?;
        }
        if self.offset_seconds == 0 {
            f.write_str("Z")
        } else {
            let sign = if self.offset_seconds < 0 { '-' } else { '+' };
            let abs = self.offset_seconds.unsigned_abs();
            write!(f, "{sign}{:02}:{:02}", abs / 3600, abs / 60 % 60)
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Timestamp, D::Error> {
        struct TimeVisitor;
        impl Visitor<'_> for TimeVisitor {
            type Value = Timestamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an RFC 3339 time string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Timestamp, E> {
                parse_rfc3339(v.as_bytes())
                    .ok_or_else(|| E::custom(format!("{v:?} is not an RFC 3339 time")))
            }
        }
        deserializer.deserialize_str(TimeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_go_rfc3339nano() {
        let t = Timestamp::from_unix(1_767_323_045, 120_000_000).unwrap();
        assert_eq!(t.to_string(), "2026-01-02T03:04:05.12Z");
        let t = Timestamp::from_unix(1_767_323_045, 0).unwrap();
        assert_eq!(t.to_string(), "2026-01-02T03:04:05Z");
        let t = Timestamp::from_unix(1_767_323_045, 1).unwrap();
        assert_eq!(t.to_string(), "2026-01-02T03:04:05.000000001Z");
        assert_eq!(Timestamp::default().to_string(), "0001-01-01T00:00:00Z");
        assert!(Timestamp::default().is_zero());
    }

    #[test]
    fn parses_and_keeps_offsets() {
        for text in [
            "2026-01-02T03:04:05.12Z",
            "2026-01-02T05:04:05.5+02:00",
            "1999-12-31T23:59:59-07:30",
            "0001-01-01T00:00:00Z",
            "2024-02-29T00:00:00Z",
        ] {
            assert_eq!(Timestamp::parse(text).unwrap().to_string(), text);
        }
        let a = Timestamp::parse("2026-01-02T05:04:05+02:00").unwrap();
        let b = Timestamp::parse("2026-01-02T03:04:05Z").unwrap();
        assert_eq!(a.unix_seconds(), b.unix_seconds());
        assert_eq!(a.to_utc(), b);
        for bad in [
            "",
            "2026-01-02",
            "2026-01-02T03:04:05",
            "2026-13-02T03:04:05Z",
            "2023-02-29T03:04:05Z",
            "2026-01-02T03:04:05.Z",
            "2026-01-02T03:04:05.1234567890Z",
            "2026-01-02T03:04:05+2:00",
            "2026-01-02 03:04:05Z",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn range_is_checked() {
        assert!(Timestamp::from_unix(MAX_UNIX + 1, 0).is_err());
        assert!(Timestamp::from_unix(0, 1_000_000_000).is_err());
        assert_eq!(
            Timestamp::from_unix(0, 0).unwrap().to_string(),
            "1970-01-01T00:00:00Z"
        );
    }
}
