//! The keyword + value rules of the table (issue 35, items 5 and 6): a
//! secret's name, then a value of a secret's shape. They are generic: less
//! specific than the other layers, so a finding one of them shares with a
//! known format is named after that format.
//!
//! - [`SECRET_ASSIGNMENT`]: a name ending in a secret word (`*_API_KEY`,
//!   `*_TOKEN`, `*_CLIENT_SECRET`, `password`, `pwd`, `auth`, ...), then
//!   `=`, `:`, `:=` or `=>` (quotes and spaces allowed: shell, `.env`,
//!   YAML, TOML, INI, JSON, Go, Python, JS, Java, XML attributes), then a
//!   value that [`crate::assign::is_secretish`] accepts.
//! - [`SECRET_KEYWORD_VALUE`]: a secret word in prose or a label (`api key
//!   is …`, `Token: …`, `client secret …`) and, a few bytes on, a value of
//!   a strong shape only ([`crate::assign::is_keyword_gated_value`]): hex of
//!   32+, a UUID, 16+ digits, or base64 of 20+ mixing cases and digits.

use crate::rules::{Anchor, Rule};

/// Value bytes of an assignment: base64 and URL-safe alphabets plus the
/// punctuation passwords use (`&` ends a query parameter, `:` a URL scheme,
/// `<` an XML element), brackets included.
macro_rules! value_class {
    () => {
        r"[A-Za-z0-9_~+/=!@#$%^*?.{}()\[\]>-]"
    };
}

/// The glue between a secret's name and its value (see [`SECRET_ASSIGNMENT`]).
macro_rules! glue {
    () => {
        r#"(?:["']\]?[ \t]{0,4},|["']?\]?(?:\[\])?[ \t]{0,4}(?:(?:string|String)[ \t]{1,4})?(?::{1,3}=|=>|\.=|\?=|[:=]))[ \t]{0,4}@?["'`]?"#
    };
}

/// What may follow a value: a quote, a space, a separator, a JSON escape.
macro_rules! value_end {
    () => {
        r#"(?:["'`\s,;}\]\)&<>]|\\[nrt]|\.(?:\s|$)|$)"#
    };
}

/// `name = value` for a secret's name.
pub const SECRET_ASSIGNMENT: Rule = Rule {
    name: "secret_assignment",
    // The name ends in one of these words; camelCase spelled out (the
    // keywords are matched as written, also lower, UPPER, Capitalized).
    keywords: &[
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "auth",
        "api_key",
        "api-key",
        "Api-Key",
        "apikey",
        "apiKey",
        "ApiKey",
        "access_key",
        "access-key",
        "accessKey",
        "private_key",
        "private-key",
        "privateKey",
        "secret_key",
        "secret-key",
        "secretKey",
        "auth_key",
        "auth-key",
        "Auth-Key",
        "authKey",
    ],
    any_case: true,
    anchor: Anchor::Ident,
    word_start: true,
    pattern: concat!(
        // The name: ending in a secret word; `auth` only as a whole word
        // (`auth`, `npm_auth`, `basicAuth`; not `oauth`).
        r"(?:(?i:[a-z0-9_-]*(?:token|secret|password|passwd|pwd|api[_-]?key|access[_-]?key|private[_-]?key|secret[_-]?key|auth[_-]?key)|(?:[a-z0-9_-]*[_-])?auth)|[a-z0-9_-]*[a-z0-9]Auth)",
        // The glue: closing quote, `:`, `=`, `:=` or `=>`, opening quote.
        // Also Go's `name string = "…"`, `[]=`, `.=` (PHP), `?=`, `::=`
        // (make), `= @"…"` (Objective-C), a key in brackets
        // (`dict["secret"] = …`) and a call's next argument
        // (`setProperty("X_TOKEN", "…")`).
        glue!(),
        // The value, not starting with `?` (`${X:?message}`), not ending
        // in a sentence's full stop; brackets inside it only when they do
        // not pair up as code does (checked by `is_secretish`).
        r"([A-Za-z0-9_~+/=!@#$%^*.{(\[-]",
        value_class!(),
        "{6,254}[A-Za-z0-9_~+/=!@#$%^*?})\\]>-])",
        value_end!()
    ),
    check: Some(crate::assign::is_secretish),
    max_len: 384,
    generic: true,
    glue_after_keyword: true,
    examples: &[],
    near_misses: &[],
    scan: None,
};

/// A secret word, a short gap, then a value of a strong shape.
pub const SECRET_KEYWORD_VALUE: Rule = Rule {
    name: "secret_keyword_value",
    keywords: &[
        "token",
        "secret",
        "password",
        "api key",
        "API key",
        "API Key",
        "api_key",
        "api-key",
        "apikey",
        "access key",
        "Access Key",
        "auth key",
    ],
    any_case: true,
    anchor: Anchor::Keyword,
    // The word starts there: `input_tokens`, `MY_TOKEN` are left to the
    // assignment rule (and most keyword hits end here, before the regex).
    word_start: true,
    pattern: concat!(
        r"(?i:token|secret|password|api[ _-]?key|access key|auth key)s?",
        // The gap: spaces (`is`, `was`, `of`, `value` allowed) or `:` / `=`,
        // then an optional quote.
        r#"(?:[ \t]{1,4}(?:(?i:is|was|of|value)[ \t]{1,4})?|[ \t]{0,4}[:=-][ \t]{0,4})["'`]?"#,
        // Strong shapes only (checked by `is_keyword_gated_value`).
        // Dots inside (`…Q3.gEhg…`, a JWT), not at either end.
        r"([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[A-Za-z0-9+/_-][A-Za-z0-9+/_.-]{14,254}[A-Za-z0-9+/_-]={0,2})",
        r#"(?:["'`\s,;)\]}]|\.(?:\s|$)|$)"#
    ),
    check: Some(crate::assign::is_keyword_gated_value),
    max_len: 320,
    generic: true,
    glue_after_keyword: false,
    examples: &[],
    near_misses: &[],
    scan: None,
};

/// A password too short for [`SECRET_ASSIGNMENT`]: 6 or 7 bytes beside a
/// password's name (`password`, `passwd`, `pwd`, `secret`, as the name's
/// last word), checked by [`crate::assign::is_short_password`]. The floor:
/// 6 bytes; shorter values (`pw=abc1`) are kept, too many of them are
/// counters, flags and test data.
pub const SHORT_PASSWORD_ASSIGNMENT: Rule = Rule {
    name: "short_password_assignment",
    keywords: &["password", "passwd", "pwd", "secret"],
    any_case: true,
    anchor: Anchor::Ident,
    word_start: true,
    pattern: concat!(
        r"(?i:[a-z0-9_-]*(?:secret|password|passwd|pwd))",
        glue!(),
        "([A-Za-z0-9_~+/=!@#$%^*.-][A-Za-z0-9_~+/=!@#$%^*?.-]{4,5}[A-Za-z0-9_~+/=!@#$%^*?-])",
        value_end!()
    ),
    check: Some(crate::assign::is_short_password),
    max_len: 128,
    generic: true,
    glue_after_keyword: true,
    examples: &[
        ("smtp_password: hunt3r", "smtp_password: REDACTED"),
        ("ADMIN_PWD='Qz7#vK'", "ADMIN_PWD='REDACTED'"),
    ],
    near_misses: &[
        "password: abc12",
        "password=hunter",
        "secret: v1.2.3",
        "pwd=/home/me",
    ],
    scan: None,
};
