//! Layers 3 and 4: URLs with a password in their userinfo, and database
//! connection strings (URLs, `jdbc:` URLs, key=value DSNs and
//! `Server=...;UID=...;PWD=...` strings), each redacted whole.

use crate::placeholders::{is_placeholder, is_reference};
use crate::text::{is_terminator, scan_back, skip_escape_letter};

/// URL schemes of databases and brokers: their URLs are `database_url`
/// findings (with a userinfo password or a `password=` parameter).
const DB_SCHEMES: [&str; 20] = [
    "postgres",
    "postgresql",
    "pgsql",
    "mysql",
    "mysqlx",
    "mariadb",
    "mongodb",
    "mongodb+srv",
    "redis",
    "rediss",
    "mssql",
    "sqlserver",
    "oracle",
    "cockroachdb",
    "clickhouse",
    "amqp",
    "amqps",
    "couchdb",
    "neo4j",
    "memcached",
];

/// Query/DSN keys that hold a password.
const PASSWORD_KEYS: [&str; 3] = ["password", "passwd", "pwd"];
/// DSN keys that name the server.
const HOST_KEYS: [&str; 7] = [
    "host",
    "hostaddr",
    "server",
    "datasource",
    "address",
    "addr",
    "networkaddress",
];
/// DSN keys that name the user.
const USER_KEYS: [&str; 4] = ["user", "username", "userid", "uid"];

/// What a URL or connection string detector found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlKind {
    /// A URL with `user:password@` (layer 3).
    UrlPassword,
    /// A database URL with a password (layer 4).
    DatabaseUrl,
    /// A key=value connection string with host, user and password (layer 4).
    DatabaseDsn,
}

fn is_scheme_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
}

fn real_secret(value: &str) -> bool {
    !is_placeholder(value) && !is_reference(value)
}

/// The longest URL or connection string looked at (bounds the work per
/// keyword occurrence, so that redaction stays linear in the input).
const MAX_URL: usize = 4096;

/// How far around a password keyword a key=value connection string is
/// looked for.
const MAX_DSN_REACH: usize = 512;

/// The end of a URL-like value starting at `from`: up to a terminator, less
/// trailing punctuation that rather ends the sentence.
fn url_end(bytes: &[u8], from: usize) -> usize {
    let mut end = from;
    while end < bytes.len() && end - from < MAX_URL && !is_terminator(bytes[end]) {
        end += 1;
    }
    while end > from
        && matches!(
            bytes[end - 1],
            b'.' | b',' | b';' | b':' | b'!' | b'?' | b')' | b']' | b'}'
        )
    {
        end -= 1;
    }
    end
}

/// A `password=`-like parameter with a real value in `query`
/// (`?`/`&`/`;`-separated, keys compared case-insensitively).
fn query_has_password(query: &str) -> bool {
    query
        .split(['?', '&', ';'])
        .filter_map(|pair| pair.split_once('='))
        .any(|(k, v)| {
            let k = k.trim();
            PASSWORD_KEYS.iter().any(|p| k.eq_ignore_ascii_case(p)) && real_secret(v.trim())
        })
}

/// Layers 3-4 at a `://` found at `sep`: the whole URL, when it carries a
/// password.
pub fn at_scheme_separator(text: &str, sep: usize) -> Option<(usize, usize, UrlKind)> {
    let bytes = text.as_bytes();
    let mut start = scan_back(bytes, sep, 32, is_scheme_byte);
    start = skip_escape_letter(bytes, start, sep);
    if start == sep || !bytes[start].is_ascii_alphabetic() {
        return None;
    }
    let scheme = &text[start..sep];
    let body = sep + 3;
    let is_db = DB_SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s));
    // The authority first (short): most URLs have no userinfo and, unless
    // they are a database's, need no more looking at.
    let mut auth_end = body;
    while auth_end < bytes.len()
        && auth_end - body < MAX_URL
        && !is_terminator(bytes[auth_end])
        && !matches!(bytes[auth_end], b'/' | b'?' | b'#')
    {
        auth_end += 1;
    }
    let authority = &text[body..auth_end];
    let userinfo_password = authority
        .rfind('@')
        .and_then(|at| authority[..at].split_once(':'))
        .map(|(_, pw)| pw)
        .filter(|pw| real_secret(pw));
    if userinfo_password.is_none() && !is_db {
        return None;
    }
    let end = url_end(bytes, body);
    if end <= body {
        return None;
    }
    if is_db {
        let rest = &text[body..end];
        let path = rest.get(authority.len().min(rest.len())..).unwrap_or("");
        let query = path.split_once('?').map_or("", |(_, q)| q);
        if userinfo_password.is_some() || query_has_password(query) {
            return Some((start, end, UrlKind::DatabaseUrl));
        }
        return None;
    }
    Some((start, end, UrlKind::UrlPassword))
}

/// Layer 4 at `jdbc:` found at `at`: the whole JDBC URL when it carries a
/// password (a `password=` property, `user:password@`, or Oracle's
/// `thin:user/password@`).
pub fn at_jdbc(text: &str, at: usize) -> Option<(usize, usize, UrlKind)> {
    let bytes = text.as_bytes();
    let end = url_end(bytes, at);
    let url = &text[at..end];
    let has_password = query_has_password(url)
        || url.find("//").is_some_and(|i| {
            let auth = &url[i + 2..];
            let auth = &auth[..auth.find(['/', '?', ';']).unwrap_or(auth.len())];
            auth.rfind('@')
                .and_then(|a| auth[..a].split_once(':'))
                .is_some_and(|(_, pw)| real_secret(pw))
        })
        || url.find(":thin:").is_some_and(|i| {
            let cred = &url[i + 6..];
            cred.find('@')
                .and_then(|a| cred[..a].split_once('/'))
                .is_some_and(|(_, pw)| real_secret(pw))
        });
    has_password.then_some((at, end, UrlKind::DatabaseUrl))
}

/// One `key=value` pair of a connection string.
struct Pair {
    start: usize,
    end: usize,
    key: KeyKind,
    value_start: usize,
    value_end: usize,
}

/// What a connection-string key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Host,
    User,
    Password,
    Other,
}

/// A key lower-cased without spaces and `_` (`User ID` -> `userid`),
/// compared with the key lists; no allocation.
fn key_kind(key: &[u8]) -> KeyKind {
    let mut buf = [0u8; 16];
    let mut n = 0;
    for &b in key {
        if b == b' ' || b == b'_' {
            continue;
        }
        if n == buf.len() {
            return KeyKind::Other;
        }
        buf[n] = b.to_ascii_lowercase();
        n += 1;
    }
    let k = std::str::from_utf8(&buf[..n]).unwrap_or("");
    if HOST_KEYS.contains(&k) {
        KeyKind::Host
    } else if USER_KEYS.contains(&k) {
        KeyKind::User
    } else if PASSWORD_KEYS.contains(&k) {
        KeyKind::Password
    } else {
        KeyKind::Other
    }
}

/// Layer 4 at a password keyword found at `kw` (`password`, `pwd`, ...):
/// the whole key=value connection string when it names a host, a user and a
/// real password. Both libpq (`host=h user=u password=p`) and ADO/ODBC
/// (`Server=h;UID=u;PWD=p`) syntaxes.
pub fn dsn_at_password(text: &str, kw: usize, kw_end: usize) -> Option<(usize, usize, UrlKind)> {
    let bytes = text.as_bytes();
    // The keyword must be a whole key followed by `=`.
    let mut i = kw_end;
    while i < bytes.len() && bytes[i] == b' ' {
        i += 1;
    }
    if bytes.get(i) != Some(&b'=') {
        return None;
    }
    if kw > 0
        && !matches!(
            bytes[kw - 1],
            b' ' | b'\t' | b';' | b'"' | b'\'' | b'`' | b'(' | b'\n'
        )
    {
        return None;
    }
    // Cheap test first: a host key and a user key must be near.
    let near = &bytes[kw.saturating_sub(MAX_DSN_REACH)..(kw_end + MAX_DSN_REACH).min(bytes.len())];
    let mut lower = [0u8; 2 * MAX_DSN_REACH + 16];
    let lower = &mut lower[..near.len().min(2 * MAX_DSN_REACH + 16)];
    for (d, b) in lower.iter_mut().zip(near) {
        *d = b.to_ascii_lowercase();
    }
    let near_has = |words: &[&[u8]]| {
        words
            .iter()
            .any(|w| memchr::memmem::find(lower, w).is_some())
    };
    if !near_has(&[b"host", b"server", b"source", b"addr"]) || !near_has(&[b"user", b"uid"]) {
        return None;
    }
    // The region: the stretch of text around the keyword without a line
    // break, double quote or backtick.
    let region_start = scan_back(bytes, kw, MAX_DSN_REACH, |b| {
        !matches!(b, b'\n' | b'\r' | b'"' | b'`')
    });
    let mut region_end = kw_end;
    while region_end < bytes.len()
        && region_end - kw_end < MAX_DSN_REACH
        && !matches!(bytes[region_end], b'\n' | b'\r' | b'"' | b'`')
    {
        region_end += 1;
        // A value in double quotes (`Password="se;cr;et"`) is part of it.
        if bytes.get(region_end) == Some(&b'"') && bytes[region_end - 1] == b'=' {
            if let Some(close) = bytes[region_end + 1..]
                .iter()
                .take(MAX_DSN_REACH)
                .position(|&b| matches!(b, b'"' | b'\n'))
                .map(|p| region_end + 1 + p)
                .filter(|&c| bytes[c] == b'"')
            {
                region_end = close + 1;
            }
        }
    }
    for semicolons in [true, false] {
        let pairs = parse_pairs(text, region_start, region_end, semicolons);
        // The run of consecutive pairs that holds the keyword.
        let Some(pos) = pairs.iter().position(|p| p.start == kw) else {
            continue;
        };
        let mut lo = pos;
        while lo > 0 && joined(text, &pairs[lo - 1], &pairs[lo], semicolons) {
            lo -= 1;
        }
        let mut hi = pos;
        while hi + 1 < pairs.len() && joined(text, &pairs[hi], &pairs[hi + 1], semicolons) {
            hi += 1;
        }
        let run = &pairs[lo..=hi];
        let has = |kind: KeyKind| run.iter().any(|p| p.key == kind);
        let password = &pairs[pos];
        let value = text[password.value_start..password.value_end].trim();
        let value = value.trim_matches(|c| c == '\'' || c == '"');
        if has(KeyKind::Host) && has(KeyKind::User) && real_secret(value) {
            return Some((run[0].start, run[run.len() - 1].end, UrlKind::DatabaseDsn));
        }
    }
    None
}

/// True when only separators lie between two pairs.
fn joined(text: &str, a: &Pair, b: &Pair, semicolons: bool) -> bool {
    if a.end > b.start {
        return false;
    }
    let between = &text[a.end..b.start];
    if semicolons {
        between.trim().len() <= 1 && between.trim().chars().all(|c| c == ';')
    } else {
        !between.is_empty() && between.bytes().all(|b| b == b' ' || b == b'\t')
    }
}

/// Every `key=value` pair of `text[from..to]`, skipping what does not parse.
fn parse_pairs(text: &str, from: usize, to: usize, semicolons: bool) -> Vec<Pair> {
    let bytes = text.as_bytes();
    let mut pairs = Vec::new();
    let mut i = from;
    while i < to {
        match parse_pair(text, i, to, semicolons) {
            Some(p) => {
                i = p.end.max(i + 1);
                pairs.push(p);
            }
            None => {
                // Skip to the next separator.
                while i < to && !is_pair_separator(bytes[i], semicolons) {
                    i += 1;
                }
                while i < to && is_pair_separator(bytes[i], semicolons) {
                    i += 1;
                }
            }
        }
    }
    pairs
}

fn is_pair_separator(b: u8, semicolons: bool) -> bool {
    if semicolons {
        b == b';'
    } else {
        b == b' ' || b == b'\t'
    }
}

fn parse_pair(text: &str, at: usize, to: usize, semicolons: bool) -> Option<Pair> {
    let bytes = text.as_bytes();
    let mut i = at;
    while i < to && (bytes[i] == b' ' || bytes[i] == b'\t') {
        i += 1;
    }
    let start = i;
    if i >= to || !bytes[i].is_ascii_alphabetic() {
        return None;
    }
    // Keys: letters, digits, `_`; ADO keys may hold spaces (`User ID`).
    while i < to
        && (bytes[i].is_ascii_alphanumeric()
            || bytes[i] == b'_'
            || (semicolons && bytes[i] == b' '))
    {
        i += 1;
    }
    let key = key_kind(&bytes[start..i]);
    while i < to && bytes[i] == b' ' {
        i += 1;
    }
    if i >= to || bytes[i] != b'=' {
        return None;
    }
    i += 1;
    if !semicolons {
        while i < to && bytes[i] == b' ' {
            i += 1;
        }
    }
    let value_start = i;
    if i < to && matches!(bytes[i], b'\'' | b'"') {
        // A quoted value, `\'` escapes a quote.
        let q = bytes[i];
        i += 1;
        while i < to && bytes[i] != q {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i = (i + 1).min(to);
    } else {
        while i < to
            && !is_pair_separator(bytes[i], semicolons)
            && !(semicolons && matches!(bytes[i], b'\'' | b'"'))
        {
            i += 1;
        }
        // `conn=Server=h;…`: the pair is the inner one, the outer name
        // (not a connection string's key) stays: `conn=REDACTED`.
        if semicolons && key == KeyKind::Other {
            if let Some(inner) = parse_pair(text, value_start, i, true).filter(|p| p.end == i) {
                return Some(inner);
            }
        }
    }
    let mut end = i.min(to);
    if semicolons {
        while end > value_start && bytes[end - 1] == b' ' {
            end -= 1;
        }
    }
    if end <= value_start {
        return None;
    }
    // Never split a character.
    if !text.is_char_boundary(end) {
        return None;
    }
    Some(Pair {
        start,
        end,
        key,
        value_start,
        value_end: end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Option<(&str, UrlKind)> {
        let sep = text.find("://")?;
        at_scheme_separator(text, sep).map(|(s, e, k)| (&text[s..e], k))
    }

    #[test]
    fn userinfo_passwords() {
        assert_eq!(
            url("proxy=https://user:pass@example.com/path"),
            Some(("https://user:pass@example.com/path", UrlKind::UrlPassword))
        );
        assert_eq!(
            url("DATABASE_URL=postgres://app:pwd123@db.example.com:5432/app"),
            Some((
                "postgres://app:pwd123@db.example.com:5432/app",
                UrlKind::DatabaseUrl
            ))
        );
        assert_eq!(
            url("see https://user:pass@example.com/x)."),
            Some(("https://user:pass@example.com/x", UrlKind::UrlPassword))
        );
        assert_eq!(url("https://example.com/?password_reset=true"), None);
        assert_eq!(url("https://user@example.com/"), None);
        assert_eq!(url("https://host:8080/path@x"), None);
        assert_eq!(url("https://user:${TOKEN}@example.com/"), None);
        assert_eq!(url("redis://:changeme@localhost:6379"), None);
    }

    #[test]
    fn db_urls_with_password_parameter() {
        assert_eq!(
            url("postgres://db.example.com/app?user=svc&password=hunter2x&sslmode=require"),
            Some((
                "postgres://db.example.com/app?user=svc&password=hunter2x&sslmode=require",
                UrlKind::DatabaseUrl
            ))
        );
        assert_eq!(url("postgres://db.example.com/app?user=svc"), None);
        assert_eq!(url("https://example.com/?password=x1"), None);
    }

    #[test]
    fn jdbc() {
        let t = "jdbc:mysql://db:3306/app?user=svc&password=s3cr3t";
        assert_eq!(at_jdbc(t, 0), Some((0, t.len(), UrlKind::DatabaseUrl)));
        let t = "jdbc:oracle:thin:scott/tiger@db:1521:orcl";
        assert_eq!(at_jdbc(t, 0), Some((0, t.len(), UrlKind::DatabaseUrl)));
        let t = "jdbc:sqlserver://db;user=svc;password=s3cr3t;encrypt=true";
        assert_eq!(at_jdbc(t, 0), Some((0, t.len(), UrlKind::DatabaseUrl)));
        assert_eq!(at_jdbc("jdbc:postgresql://db/app", 0), None);
        assert_eq!(at_jdbc("jdbc:mysql://db/app?password=${PW}", 0), None);
    }

    fn dsn(text: &str) -> Option<&str> {
        let lower = text.to_ascii_lowercase();
        let kw = ["password", "pwd"]
            .iter()
            .find_map(|k| lower.find(k).map(|i| (i, i + k.len())))?;
        dsn_at_password(text, kw.0, kw.1).map(|(s, e, _)| &text[s..e])
    }

    #[test]
    fn dsns() {
        assert_eq!(
            dsn(r#"connect("host=localhost user=app password=secret dbname=app")"#),
            Some("host=localhost user=app password=secret dbname=app")
        );
        assert_eq!(
            dsn("Server=tcp:db.example.net,1433;Initial Catalog=app;User ID=svc;Password=s3cr3t!;Encrypt=True;"),
            Some("Server=tcp:db.example.net,1433;Initial Catalog=app;User ID=svc;Password=s3cr3t!;Encrypt=True")
        );
        assert_eq!(
            dsn("Server=db;UID=sa;PWD=Hunter2"),
            Some("Server=db;UID=sa;PWD=Hunter2")
        );
        assert_eq!(dsn("host=localhost password=secret"), None);
        assert_eq!(dsn("host=localhost user=app password=changeme"), None);
        assert_eq!(dsn("password=not-a-secret-setting"), None);
    }
}
