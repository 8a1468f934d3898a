//! Checks on a candidate secret's content that a regex cannot express: what
//! its base64 decodes to. Used by the known-format rules (`rules.rs`) whose
//! shape alone is too loose (a Discord token's first segment is a base64
//! user id; a Docker `auth` value is base64 of `user:password`; a JWT
//! without a signature must still have a JOSE header).

/// The value of one base64 digit (standard or URL-safe alphabet).
fn digit(b: u8) -> Option<u32> {
    Some(match b {
        b'A'..=b'Z' => u32::from(b - b'A'),
        b'a'..=b'z' => u32::from(b - b'a') + 26,
        b'0'..=b'9' => u32::from(b - b'0') + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    })
}

/// `s` decoded as base64 (either alphabet, padding optional), or `None`
/// when it is not base64. At most `limit` input bytes are decoded.
pub fn decode_base64(s: &str, limit: usize) -> Option<Vec<u8>> {
    let body = s.trim_end_matches('=');
    if body.len() > limit || body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in body.bytes() {
        acc = (acc << 6) | digit(b)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// A Discord bot token: its first segment is the bot's user id (a
/// snowflake of 17 to 20 decimal digits) in base64.
pub fn discord_user_id_first(token: &str) -> bool {
    let Some(first) = token.split('.').next() else {
        return false;
    };
    decode_base64(first, 32).is_some_and(|id| {
        (17..=20).contains(&id.len()) && id[0] != b'0' && id.iter().all(u8::is_ascii_digit)
    })
}

/// A Docker `auth` value: base64 of `user:password`, both non-empty and
/// printable.
pub fn docker_auth(value: &str) -> bool {
    decode_base64(value, 1024).is_some_and(|d| {
        d.iter().all(|b| (0x20..0x7f).contains(b))
            && d.iter()
                .position(|&b| b == b':')
                .is_some_and(|at| at > 0 && at + 1 < d.len())
    })
}

/// A JWT: three segments (the signature possibly empty), or two whose
/// header decodes to a JOSE header (`{"alg":…}`); two bare base64 JSON
/// objects joined by a dot are not one.
pub fn jwt_like(token: &str) -> bool {
    let mut parts = token.split('.');
    let header = parts.next().unwrap_or("");
    if parts.nth(1).is_some() {
        return true;
    }
    decode_base64(header, 2048).is_some_and(|h| h.windows(5).any(|w| w == b"\"alg\""))
}

/// Not a reference to a secret kept elsewhere: `$NAME`, `${NAME}`,
/// `{{ name }}`, `%NAME%`.
pub fn not_a_variable(value: &str) -> bool {
    !(value.starts_with('$')
        || value.starts_with('%')
        || value.contains("{{")
        || value.starts_with("${"))
}

/// A command line's password that is a real one, not a stand-in: not a
/// placeholder, a reference (`$PASS`, `${{ secrets.X }}`, `$(cat f)`), a
/// bracketed name (`<password>`, `[PASSWORD]`), one letter repeated
/// (`yyy`) or a word documentation uses (`test`, `pass`, `token`).
pub fn not_a_stand_in_password(value: &str) -> bool {
    const WORDS: [&str; 9] = [
        "test", "pass", "password", "passwd", "pwd", "token", "secret", "changeme", "changeit",
    ];
    let v = value.trim_end_matches(['"', '\'', '>', ']']);
    let b = v.as_bytes();
    !(b.is_empty()
        || crate::placeholders::is_placeholder(v)
        || crate::placeholders::is_reference(value)
        || matches!(b[0], b'$' | b'<' | b'[')
        || value.ends_with(['>', ']'])
        || b.iter().all(|&c| c.eq_ignore_ascii_case(&b[0]))
        || WORDS.iter().any(|w| v.eq_ignore_ascii_case(w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_both_alphabets_with_or_without_padding() {
        assert_eq!(
            decode_base64("aGk6dGhlcmU=", 64).as_deref(),
            Some(&b"hi:there"[..])
        );
        assert_eq!(
            decode_base64("aGk6dGhlcmU", 64).as_deref(),
            Some(&b"hi:there"[..])
        );
        assert_eq!(
            decode_base64("-_-_", 64).as_deref(),
            Some(&[0xfb, 0xff, 0xbf][..])
        );
        assert_eq!(decode_base64("a", 64), None);
        assert_eq!(decode_base64("ab!d", 64), None);
        assert_eq!(decode_base64("aGk6dGhlcmU=", 4), None);
    }

    #[test]
    fn discord_first_segment_is_a_user_id() {
        // base64("112233445566778899") (18 digits).
        assert!(discord_user_id_first("MTEyMjMzNDQ1NTY2Nzc4ODk5.abcdef.x"));
        // base64("hello world, friends") is not digits.
        assert!(!discord_user_id_first(
            "aGVsbG8gd29ybGQsIGZyaWVuZHM.abcdef.x"
        ));
        // base64("1234") is too short for a snowflake.
        assert!(!discord_user_id_first("MTIzNA.abcdef.x"));
    }

    #[test]
    fn docker_auth_is_user_colon_password() {
        assert!(docker_auth("dXNlcjpwYXNz"));
        assert!(!docker_auth("cmVxdWlyZWQ="), "base64 of `required`");
        assert!(!docker_auth("OnBhc3M="), "`:pass` has no user");
        assert!(!docker_auth("required"));
    }

    #[test]
    fn two_segment_jwt_needs_a_jose_header() {
        // {"alg":"none"} . {"sub":"1"}
        assert!(jwt_like("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0"));
        // {"sub":"1"} . {"sub":"1"}: no header.
        assert!(!jwt_like("eyJzdWIiOiIxIn0.eyJzdWIiOiIxIn0"));
        assert!(jwt_like("eyJzdWIiOiIxIn0.eyJzdWIiOiIxIn0."));
    }
}
