//! Layer 7 (opt-in): personal data. E-mail addresses (no-reply addresses
//! kept), phone numbers and street addresses, replaced by
//! `[REDACTED_EMAIL]`, `[REDACTED_PHONE]` and `[REDACTED_ADDRESS]`.

use crate::text::{scan_back, skip_escape_letter};

/// Phone numbers: an optional `+country`, an optional `(area)`, then groups
/// of digits separated by a space, dot or dash; 9 to 15 digits in all.
pub const PHONE_PATTERN: &str =
    r"(?:\+[0-9]{1,3}[ .-]?)?(?:\([0-9]{1,4}\)[ .-]?)?[0-9]{2,4}(?:[ .-][0-9]{2,4}){1,4}";

/// Street addresses: a house number, one to four capitalised words and a
/// street type.
pub const ADDRESS_PATTERN: &str = r"[0-9]{1,5}(?:[ \t]+[A-Z][A-Za-z'.-]*){1,4}[ \t]+(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Parkway|Pkwy|Highway|Hwy|Square|Sq|Circle|Cir)(?-u:\b)\.?";

fn is_local_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-')
}

fn is_domain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'.'
}

/// An e-mail address around the `@` at `at`, unless it is a no-reply
/// address or an SSH remote (`git@host:org/repo`).
pub fn email_at(text: &str, at: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut start = scan_back(bytes, at, 64, is_local_byte);
    start = skip_escape_letter(bytes, start, at);
    while start < at && bytes[start] == b'.' {
        start += 1;
    }
    if start == at {
        return None;
    }
    let mut end = at + 1;
    while end < bytes.len() && end - at < 255 && is_domain_byte(bytes[end]) {
        end += 1;
    }
    while end > at + 1 && matches!(bytes[end - 1], b'.' | b'-') {
        end -= 1;
    }
    let domain = &text[at + 1..end];
    let tld = domain.rsplit_once('.').map(|(_, t)| t)?;
    if tld.len() < 2
        || !tld.bytes().all(|b| b.is_ascii_alphabetic())
        || domain.starts_with(['.', '-'])
    {
        return None;
    }
    if domain.split('.').any(str::is_empty) {
        return None;
    }
    if bytes.get(end) == Some(&b':') && bytes.get(end + 1).is_some_and(|b| !b.is_ascii_whitespace())
    {
        return None;
    }
    let local = text[start..at].to_ascii_lowercase();
    let squashed: String = local
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    if squashed.contains("noreply")
        || squashed.contains("donotreply")
        || domain.to_ascii_lowercase().contains("noreply")
    {
        return None;
    }
    Some((start, end))
}

/// A phone-number candidate from [`PHONE_PATTERN`] is one when it holds 9 to
/// 15 digits and is not part of a longer number, version or address.
pub fn phone_ok(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let digits = bytes[start..end]
        .iter()
        .filter(|b| b.is_ascii_digit())
        .count();
    if !(9..=15).contains(&digits) {
        return false;
    }
    let seps: Vec<u8> = bytes[start..end]
        .iter()
        .copied()
        .filter(|b| matches!(b, b' ' | b'.' | b'-'))
        .collect();
    // 1.2.3.4-like dotted numbers are versions and addresses, not phones.
    if seps.iter().all(|&b| b == b'.') && bytes[start] != b'+' {
        return false;
    }
    if start > 0 {
        let p = bytes[start - 1];
        if p.is_ascii_alphanumeric() || matches!(p, b'_' | b'.' | b'-' | b'/' | b':' | b'+') {
            return false;
        }
    }
    if let Some(&n) = bytes.get(end) {
        if n.is_ascii_alphanumeric() || n == b'_' {
            return false;
        }
        if matches!(n, b'.' | b'-' | b':' | b'/')
            && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)
        {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn email(text: &str) -> Option<&str> {
        let at = text.find('@')?;
        email_at(text, at).map(|(s, e)| &text[s..e])
    }

    #[test]
    fn emails() {
        assert_eq!(
            email("mail jane.doe+x@example.co.uk."),
            Some("jane.doe+x@example.co.uk")
        );
        assert_eq!(email("noreply@github.com"), None);
        assert_eq!(email("no-reply@example.com"), None);
        assert_eq!(email("12345+jane@users.noreply.github.com"), None);
        assert_eq!(email("git@github.com:org/repo.git"), None);
        assert_eq!(email("@decorator"), None);
        assert_eq!(email("x@localhost"), None);
    }

    #[test]
    fn phones() {
        let ok = |t: &str| phone_ok(t, 0, t.len());
        assert!(ok("+1 415 555 0132"));
        assert!(ok("(415) 555-0132"));
        assert!(ok("+44 20 7946 0958"));
        assert!(!ok("192.168.100.200"));
        assert!(!ok("2024-01-15"));
        assert!(!ok("1 2"));
    }
}
