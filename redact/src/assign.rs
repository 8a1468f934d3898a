//! Layer 6: credential assignments (`DB_PASSWORD=...`, `PGPASSWORD='...'`,
//! `APP_DB_PASSWORD=...`, `PROD_MYSQL_PWD=...`): the value only, quotes kept.
//!
//! A credential name is a database-ish word, optional segments, then
//! `password`, `passwd` or `pwd` (`PWD` alone, the shell's working directory,
//! is not one). The same test names the JSON keys whose value is replaced.

use crate::placeholders::{
    brackets_pair_up, is_placeholder, is_reference, is_typed_sequence, names_a_stand_in,
    reads_as_words,
};
use crate::text::{scan_back, skip_escape_letter};

/// Words that make a `..._PASSWORD` name a database credential.
pub const DB_WORDS: [&str; 30] = [
    "db",
    "database",
    "pg",
    "postgres",
    "postgresql",
    "psql",
    "mysql",
    "mariadb",
    "maria",
    "mongo",
    "mongodb",
    "redis",
    "sql",
    "mssql",
    "sqlserver",
    "oracle",
    "ora",
    "cassandra",
    "couchdb",
    "couchbase",
    "elastic",
    "elasticsearch",
    "neo4j",
    "influx",
    "influxdb",
    "clickhouse",
    "snowflake",
    "cockroach",
    "rds",
    "dsn",
];

/// The longest value looked at (bounds the work per keyword occurrence).
const MAX_VALUE: usize = 1024;

/// The last segment of a credential name.
pub const PASSWORD_WORDS: [&str; 3] = ["password", "passwd", "pwd"];

/// Bare values that are type names or literals in code (`db_password: str`),
/// not secrets.
const CODE_WORDS: [&str; 16] = [
    "str",
    "string",
    "String",
    "&str",
    "bool",
    "int",
    "None",
    "null",
    "nil",
    "undefined",
    "true",
    "false",
    "Option",
    "Secret",
    "SecretStr",
    "SecretString",
];

/// `DB_PASSWORD`, `pgPassword`, `DB Password`, `prod-mysql-pwd` -> true;
/// `PWD`, `password`, `SMTP_PASSWORD`, `db_password_file` -> false.
pub fn is_credential_name(name: &str) -> bool {
    let norm = normalize(name);
    let norm = norm.trim_matches('_');
    let Some(head) = PASSWORD_WORDS.iter().find_map(|w| norm.strip_suffix(w)) else {
        return false;
    };
    let head = head.trim_end_matches('_');
    !head.is_empty() && head.split('_').any(|seg| DB_WORDS.contains(&seg))
}

/// The name of a secret in general (not only a database's): ending in
/// `token`, `secret`, `password`, `passwd`, `api_key`, `access_key`,
/// `private_key`, `secret_key`, `auth_key` (any case, camelCase, `-`, `.`
/// or space for `_`), or docker's `auth` and `identitytoken`.
/// `tokens`, `token_type`, `secret_name`, `password_hash` are not.
pub fn is_secret_name(name: &str) -> bool {
    // Keys are many: most are rejected by their last two letters (every
    // name below ends in `en`, `et`, `rd`, `wd`, `ey` or `th`).
    let b = name.as_bytes();
    let tail = match b {
        [.., x, y] => [x.to_ascii_lowercase(), y.to_ascii_lowercase()],
        _ => return false,
    };
    if !matches!(&tail, b"en" | b"et" | b"rd" | b"wd" | b"ey" | b"th") {
        return false;
    }
    // Lower-case them without separators into a stack buffer (`api_key`,
    // `apiKey`, `API-KEY` all read `apikey`).
    let mut buf = [0u8; 64];
    let mut n = 0;
    for &c in name.as_bytes() {
        if matches!(c, b'_' | b'-' | b'.' | b' ') {
            continue;
        }
        if n == buf.len() {
            return false;
        }
        buf[n] = c.to_ascii_lowercase();
        n += 1;
    }
    let key = &buf[..n];
    if matches!(key, b"auth" | b"identitytoken") {
        return true;
    }
    [
        &b"token"[..],
        b"secret",
        b"password",
        b"passwd",
        b"apikey",
        b"accesskey",
        b"privatekey",
        b"secretkey",
        b"authkey",
    ]
    .iter()
    .any(|w| key.ends_with(w))
}

/// Lower-case, camelCase split into `_`-separated words, spaces, dashes and
/// dots turned into `_`.
fn normalize(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        match c {
            ' ' | '-' | '.' => out.push('_'),
            _ => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A real secret value: not a placeholder, not a reference, not code.
pub fn is_secret_value(value: &str) -> bool {
    !is_placeholder(value) && !is_reference(value)
}

/// Punctuation that passwords hold, counted with the digits: a value
/// mixing letters with one of these is no plain word.
const PASSWORD_PUNCTUATION: &[u8] = b"!@#$%^*?~";

/// A value beside a secret's name (`api_key = …`, `"token": …`) that has
/// the shape of a secret: not a placeholder or a reference, 8 bytes or
/// more, and either letters mixed with digits or password punctuation
/// (`!@#$%^*?~`) that do not read as an identifier (`hunter2x`, `Zr8K…`,
/// `P@ssw0rd!`; not `sha256`, `utf8`-style words, `v1.2.3` versions,
/// camelCase words such as `createSecretKeySpecFromBase64`, nor dotted
/// references such as `process.env.TOKEN`), or hex of 16 or more, a UUID,
/// or 12 digits or more (the shapes entropy alone can never reach). Never
/// a URL, an e-mail address, a value typed in order (`1234567890abcdef…`)
/// or one that names a stand-in (`your-api-key-1`, `dummy_token_2`).
pub fn is_secretish(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() < 8 || !is_secret_value(value) || CODE_WORDS.contains(&value) {
        return false;
    }
    if b[0] == b'/' || b[0] == b'.' || b[0] == b'-' {
        return false;
    }
    // Brackets that pair up are code (`foo(bar)x`, `cfg["k"]`, `{{ x }}`),
    // a value ending in an opener is a call or an index cut at its quote
    // (`os.getenv(`, `request.json[`); brackets that do not pair up are a
    // password's punctuation.
    if value.contains(['(', ')', '[', ']', '{', '}'])
        && (brackets_pair_up(value) || value.ends_with(['(', '[', '{']))
    {
        return false;
    }
    if value.contains("://")
        || is_email(b)
        || is_dotted_reference(b)
        || is_typed_sequence(value)
        || names_a_stand_in(value)
        || reads_as_words(value)
    {
        return false;
    }
    // A filler (`0123 0123 …`, `abab…`) is no secret: 5 distinct bytes at least.
    let mut seen = [false; 256];
    for &c in b {
        seen[c as usize] = true;
    }
    if seen.iter().filter(|&&x| x).count() < 5 {
        return false;
    }
    let hex = b.iter().all(u8::is_ascii_hexdigit)
        && b.iter().any(u8::is_ascii_digit)
        && b.iter().any(u8::is_ascii_alphabetic);
    let digits = b.iter().all(u8::is_ascii_digit);
    let uuid = is_uuid(b);
    if uuid || (digits && b.len() >= 12) || (hex && b.len() >= 16) {
        return true;
    }
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let numbers = b
        .iter()
        .filter(|c| c.is_ascii_digit() || PASSWORD_PUNCTUATION.contains(c))
        .count();
    if letters == b.len() {
        return is_letters_only_key(b);
    }
    if letters == 0 || numbers == 0 {
        return false;
    }
    // Words and numbers joined by separators (`my_secret_v2`,
    // `release-2024-01`): an identifier, not a secret.
    !value
        .split(['_', '-', '.', '/', '+', '='])
        .filter(|seg| !seg.is_empty())
        .all(|seg| {
            let s = seg.as_bytes();
            s.iter().all(u8::is_ascii_digit)
                || s.iter().all(u8::is_ascii_alphabetic)
                || (s.len() <= 3 && s[0].is_ascii_alphabetic())
        })
}

/// Letters only, yet a key (base64 that happens to hold no digit): 20
/// bytes or more whose case changes at one neighbour in four at least,
/// as random letters do (`QmFzZVNpeExldHRlcnNPbmxZ`); camelCase words
/// change case once a word (`getAuthenticationTokenForUser`).
fn is_letters_only_key(b: &[u8]) -> bool {
    let switches = b
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() != w[1].is_ascii_uppercase())
        .count();
    b.len() >= 20 && switches * 4 >= b.len() - 1
}

/// A 6- or 7-byte value beside a password's name that is one: letters
/// mixed with digits or password punctuation, 5 distinct bytes, not a
/// placeholder, a reference, a version (`v1.2.3`), a path or words.
pub fn is_short_password(value: &str) -> bool {
    let b = value.as_bytes();
    if !(6..8).contains(&b.len()) || !is_secret_value(value) || CODE_WORDS.contains(&value) {
        return false;
    }
    if matches!(b[0], b'/' | b'.' | b'-' | b'~')
        || is_typed_sequence(value)
        || names_a_stand_in(value)
    {
        return false;
    }
    let mut seen = [false; 256];
    for &c in b {
        seen[c as usize] = true;
    }
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let others = b
        .iter()
        .filter(|c| c.is_ascii_digit() || PASSWORD_PUNCTUATION.contains(c))
        .count();
    let version =
        b[0].eq_ignore_ascii_case(&b'v') && b[1..].iter().all(|c| c.is_ascii_digit() || *c == b'.');
    seen.iter().filter(|&&x| x).count() >= 5 && letters > 0 && others > 0 && !version
}

/// A value a secret word announces without an assignment (`api key is
/// …`, `Token: …`): a strong shape only, as [`is_secretish`] sees it — a
/// UUID, hex of 32 or more, 16 digits or more, 16+ bytes of base64
/// mixing upper case, lower case and digits, or 20+ of one case with 4
/// digits at least.
pub fn is_keyword_gated_value(value: &str) -> bool {
    let b = value.as_bytes();
    if !is_secretish(value) {
        return false;
    }
    let hex = b.iter().all(u8::is_ascii_hexdigit);
    let digits = b.iter().all(u8::is_ascii_digit);
    if is_uuid(b) || (digits && b.len() >= 16) || (hex && !digits && b.len() >= 32) {
        return true;
    }
    let digit_count = b.iter().filter(|c| c.is_ascii_digit()).count();
    let mixed_case = b.iter().any(u8::is_ascii_uppercase) && b.iter().any(u8::is_ascii_lowercase);
    // One case only, then long and with digits spread in it
    // (`k0lj2mwl8n3ztmrivlpbc7obk914sj`).
    !hex && b.len() >= 16 && digit_count > 0 && (mixed_case || (b.len() >= 20 && digit_count >= 4))
}

/// 8-4-4-4-12 hex digits.
fn is_uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// `name@host.tld`: an address, not a password.
fn is_email(b: &[u8]) -> bool {
    let Some(at) = b.iter().position(|&c| c == b'@') else {
        return false;
    };
    let (local, host) = (&b[..at], &b[at + 1..]);
    let ok = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_' | b'+');
    !local.is_empty()
        && local.iter().all(ok)
        && host.iter().all(ok)
        && host
            .rsplit(|&c| c == b'.')
            .next()
            .is_some_and(|tld| tld.len() >= 2 && tld.iter().all(u8::is_ascii_alphabetic))
        && host.contains(&b'.')
}

/// `process.env.TOKEN`, `config.password2`, `self.secret`: names joined
/// by dots, each starting with a letter or `_` and 40 bytes at most (a
/// segment longer than any name is a token's: `…uQ3.gEhg…`).
fn is_dotted_reference(b: &[u8]) -> bool {
    b.contains(&b'.')
        && b.split(|&c| c == b'.').all(|seg| {
            seg.len() <= 40
                && seg
                    .first()
                    .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
                && seg.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        })
}

/// Layer 6 at a password word found at `kw..kw_end`: the value's byte range.
pub fn at_password_word(text: &str, kw: usize, kw_end: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    // The word must end the name.
    if bytes
        .get(kw_end)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    let mut name_start = scan_back(bytes, kw, 64, is_name_byte);
    name_start = skip_escape_letter(bytes, name_start, kw);
    if !is_credential_name(&text[name_start..kw_end]) {
        return None;
    }
    // A quote right before the name, and whether it is closed right after.
    let opened = name_start
        .checked_sub(1)
        .map(|p| bytes[p])
        .filter(|b| matches!(b, b'"' | b'\''));
    // Glue: optional closing quote, spaces, `=`/`:`/`:=`, spaces.
    let mut i = kw_end;
    let closed = matches!(bytes.get(i), Some(b'"' | b'\''));
    if closed {
        i += 1;
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    match bytes.get(i) {
        Some(b'=') => i += 1,
        Some(b':') => {
            i += 1;
            if bytes.get(i) == Some(&b'=') {
                i += 1;
            }
        }
        _ => return None,
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    let quote = match bytes.get(i) {
        Some(&q @ (b'"' | b'\'')) => Some(q),
        _ => None,
    };
    // `"DB_PASSWORD="` in code: the quote after `=` closes the literal the
    // name is in; no value follows.
    if quote.is_some() && quote == opened && !closed {
        return None;
    }
    let (start, end) = if let Some(q) = quote {
        let start = i + 1;
        let mut j = start;
        let limit = start.saturating_add(MAX_VALUE).min(bytes.len());
        while j < limit && bytes[j] != q && bytes[j] != b'\n' {
            j += if bytes[j] == b'\\' { 2 } else { 1 };
        }
        if j >= bytes.len() || (j < limit && bytes[j] != q) {
            return None;
        }
        // A value longer than MAX_VALUE is redacted up to there; the next
        // round of the fixed point takes the rest.
        let mut end = j;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        (start, end)
    } else {
        let start = i;
        let mut j = start;
        let limit = start.saturating_add(MAX_VALUE).min(bytes.len());
        while j < limit
            && !matches!(
                bytes[j],
                b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'\'' | b'`' | b'\\' | b';' | b','
            )
        {
            j += 1;
        }
        while !text.is_char_boundary(j) {
            j -= 1;
        }
        let value = &text[start..j];
        if value.starts_with(['=', '>', '&', '|'])
            || value.contains(['(', ')', '[', ']', '{', '}', '<'])
            || CODE_WORDS.contains(&value)
        {
            return None;
        }
        (start, j)
    };
    if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return None;
    }
    let value = &text[start..end];
    is_secret_value(value).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names() {
        for n in [
            "DB_PASSWORD",
            "PGPASSWORD",
            "APP_DB_PASSWORD",
            "PROD_MYSQL_PWD",
            "DB Password",
            "dbPassword",
            "DBPassword",
            "mysqlRootPassword",
            "POSTGRES_PASSWORD",
            "--db-password",
            "redis_passwd",
        ] {
            assert!(is_credential_name(n), "{n}");
        }
        for n in [
            "PWD",
            "password",
            "SMTP_PASSWORD",
            "db_password_file",
            "dbx_password",
            "OLDPWD",
        ] {
            assert!(!is_credential_name(n), "{n}");
        }
    }

    fn value(text: &str) -> Option<&str> {
        let lower = text.to_ascii_lowercase();
        for w in PASSWORD_WORDS {
            let mut from = 0;
            while let Some(i) = lower[from..].find(w) {
                let kw = from + i;
                if let Some((s, e)) = at_password_word(text, kw, kw + w.len()) {
                    return Some(&text[s..e]);
                }
                from = kw + 1;
            }
        }
        None
    }

    #[test]
    fn secret_names() {
        for n in [
            "token",
            "GITHUB_TOKEN",
            "_authToken",
            "apiKey",
            "X-Api-Key",
            "client_secret",
            "AWS_SECRET_ACCESS_KEY",
            "password",
            "auth",
            "IdentityToken",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in [
            "tokens",
            "token_type",
            "secret_name",
            "password_hash",
            "author",
            "key",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn secretish_values() {
        for v in [
            "hunter2xyz",
            "Zr8KpW3xQ7vL2mN9",
            "3f9c2a7e1b4d8f0a6c5e",
            "8a1b2c3d-4e5f-6789-abcd-ef0123456789",
            "482039174658",
            "s3cr3t-Pa55",
            "P@ssw0rd!2024#x",
            "Tr!ckyPass",
            "QmFzZVNpeExldHRlcnNPbmxZ",
        ] {
            assert!(is_secretish(v), "{v}");
        }
        for v in [
            "short1",
            "not-a-secret-setting",
            "correct-horse-db",
            "my_secret_v2",
            "release-2024-01",
            "${API_KEY}",
            "changeme",
            "xxxxxxxxxxxx",
            "/run/secrets/x1",
            "SecretString",
            "123456789012",
            "1234567890abcdef1234567890abcdef",
            "your-api-key-1",
            "dummy_token_42",
            "https://api2.example.com/v1",
            "ops2@example.com",
            "process.env.GITHUB_TOKEN2",
            "refreshAccessTokenWithRetry2",
            "getAuthenticationTokenForUser",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef",
        ] {
            assert!(!is_secretish(v), "{v}");
        }
    }

    #[test]
    fn keyword_gated_values() {
        for v in [
            "8a1b2c3d-4e5f-6789-abcd-ef0123456789",
            "5e8f1a3c7b9d2e4f6a8c0b1d3e5f7a9c",
            "4820391746582019",
            "Zr8KpW3xQ7vL2mN9",
        ] {
            assert!(is_keyword_gated_value(v), "{v}");
        }
        for v in [
            "3f9c2a7e1b4d8f0a",
            "482039174658",
            "hunter2hunter",
            "Tr!ckyPass",
            "kp3nw8qz1xt6vb9m",
            "1234567890123456",
        ] {
            assert!(!is_keyword_gated_value(v), "{v}");
        }
    }

    #[test]
    fn assignments() {
        assert_eq!(value("DB_PASSWORD=secret123"), Some("secret123"));
        assert_eq!(value("PGPASSWORD='secret123'"), Some("secret123"));
        assert_eq!(
            value("export APP_DB_PASSWORD=\"s3 cr3t\" next"),
            Some("s3 cr3t")
        );
        assert_eq!(value("PROD_MYSQL_PWD: hunter2"), Some("hunter2"));
        assert_eq!(value(r#""DB_PASSWORD": "secret123""#), Some("secret123"));
        assert_eq!(value("a\\nDB_PASSWORD=secret123\\n"), Some("secret123"));
        assert_eq!(value("DB_PASSWORD=${DB_PASSWORD}"), None);
        assert_eq!(value("DB_PASSWORD=$DB_PASSWORD"), None);
        assert_eq!(value("PWD=/workspace/project"), None);
        assert_eq!(value("password=not-a-secret-setting"), None);
        assert_eq!(value("db_password = os.environ[\"X\"]"), None);
        assert_eq!(value("db_password: str"), None);
        assert_eq!(value("if db_password == other"), None);
        assert_eq!(value("DB_PASSWORD="), None);
        assert_eq!(value(r#"("DB_PASSWORD=", gen(14))"#), None);
        assert_eq!(
            value(r#"docker run -e "DB_PASSWORD=s3cret" app"#),
            Some("s3cret")
        );
        assert_eq!(value("DB_PASSWORD=''"), None);
        // Long values are cut at MAX_VALUE, on a char boundary.
        let long = format!("DB_PASSWORD={}", "é".repeat(MAX_VALUE));
        assert_eq!(value(&long).map(str::len), Some(MAX_VALUE));
        let long = format!("DB_PASSWORD='{}'", "é".repeat(MAX_VALUE));
        assert!(value(&long).is_some_and(|v| v.len() <= MAX_VALUE + 1));
    }
}
