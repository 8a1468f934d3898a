//! Values that stand for a secret without being one: never redacted.
//!
//! STORE.md §7: empty, `REDACTED`, `[REDACTED]`, `<REDACTED>`, `changeme`,
//! `example`, `placeholder`, `your_password`, `your_secret`, `${...}`,
//! `<lower-case-name>`, runs of 3+ of `*`, `x`, `.`, `-`. The personal data
//! labels (`[REDACTED_EMAIL]`, ...) are placeholders too, so that redaction is
//! idempotent, and so are variable references and format placeholders
//! (`$NAME`, `$(...)`, `{{ ... }}`, `{}`, `%s`) that code holds instead of a
//! value.

/// The word every secret is replaced with.
pub const REDACTED: &str = "REDACTED";

/// The label an e-mail address is replaced with (personal data, opt-in).
pub const EMAIL_LABEL: &str = "[REDACTED_EMAIL]";
/// The label a phone number is replaced with (personal data, opt-in).
pub const PHONE_LABEL: &str = "[REDACTED_PHONE]";
/// The label a postal address is replaced with (personal data, opt-in).
pub const ADDRESS_LABEL: &str = "[REDACTED_ADDRESS]";

const WORDS: [&str; 11] = [
    "redacted",
    "[redacted]",
    "<redacted>",
    "changeme",
    "example",
    "placeholder",
    "your_password",
    "your_secret",
    "[redacted_email]",
    "[redacted_phone]",
    "[redacted_address]",
];

/// True for a value that is a placeholder and must never be redacted.
pub fn is_placeholder(value: &str) -> bool {
    if value.is_empty() {
        return true;
    }
    if value.len() <= 20 && WORDS.iter().any(|w| value.eq_ignore_ascii_case(w)) {
        return true;
    }
    if value.starts_with("${") && value.ends_with('}') {
        return true;
    }
    if is_angle_name(value) || is_mask_run(value) {
        return true;
    }
    false
}

/// The body of a token after its known prefix that stands for one: its
/// letters and digits are one character repeated (any case: `xxxx_XXXX`,
/// `aaaa…`, `0000…`), separators (`_`, `-`, `.`, `*`) aside, 4 at least.
pub fn is_placeholder_body(body: &str) -> bool {
    let mut chars = body
        .bytes()
        .filter(|b| !matches!(b, b'_' | b'-' | b'.' | b'*'))
        .map(|b| b.to_ascii_lowercase());
    let Some(first) = chars.next() else {
        return false;
    };
    let mut n = 1;
    for c in chars {
        if c != first {
            return false;
        }
        n += 1;
    }
    n >= 4 && first.is_ascii_alphanumeric()
}

/// A key from a provider's documentation, kept as the placeholder it is:
/// AWS's `AKIAIOSFODNN7EXAMPLE` and `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`
/// shapes (ending in `EXAMPLE` or `EXAMPLEKEY`).
pub fn is_documented_example(secret: &str) -> bool {
    secret.ends_with("EXAMPLE") || secret.ends_with("EXAMPLEKEY")
}

/// A value that refers to a secret held elsewhere: `$NAME`, `${...}`,
/// `$(command)`, `{{ template }}`, `%(name)s`, or a format placeholder
/// (`{}`, `{0}`, `{password}`, `%s`).
pub fn is_reference(value: &str) -> bool {
    let b = value.as_bytes();
    if let Some(inner) = value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
        if inner
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b':')
        {
            return true;
        }
    }
    if value == "%s" {
        return true;
    }
    match b {
        [b'$', b'{' | b'(', ..] => true,
        [b'$', rest @ ..] => {
            !rest.is_empty() && rest.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        }
        [b'{', b'{', ..] => true,
        [b'%', b'(', ..] => true,
        _ => false,
    }
}

/// `<lower-case-name>`: `<` + lower-case letters, digits, `_`, `-` + `>`.
fn is_angle_name(value: &str) -> bool {
    let Some(inner) = value.strip_prefix('<').and_then(|v| v.strip_suffix('>')) else {
        return false;
    };
    let b = inner.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-')
}

/// Three or more of `*`, `x`/`X`, `.`, `-` and nothing else (`****`, `xxxx-xxxx`).
fn is_mask_run(value: &str) -> bool {
    value.len() >= 3
        && value
            .bytes()
            .all(|c| matches!(c, b'*' | b'x' | b'X' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_list_is_placeholders() {
        for v in [
            "",
            "REDACTED",
            "[REDACTED]",
            "<REDACTED>",
            "changeme",
            "CHANGEME",
            "example",
            "placeholder",
            "your_password",
            "your_secret",
            "${DB_PASSWORD}",
            "<db-password>",
            "<token_2>",
            "***",
            "xxxxxxxx",
            "...",
            "-----",
            "xxxx-xxxx",
            "[REDACTED_EMAIL]",
        ] {
            assert!(is_placeholder(v), "{v:?}");
        }
    }

    #[test]
    fn real_values_are_not_placeholders() {
        for v in [
            "secret123",
            "pwd123",
            "xx",
            "<Token>",
            "<>",
            "examples",
            "${unclosed",
            "REDACTEDx",
            "x*y",
        ] {
            assert!(!is_placeholder(v), "{v:?}");
        }
    }

    #[test]
    fn placeholder_bodies_and_documented_examples() {
        for v in [
            "xxxx_xxxxxxxx",
            "XXXXxxxx",
            "aaaaaaaa",
            "0000-0000",
            "x.x.x.x",
        ] {
            assert!(is_placeholder_body(v), "{v:?}");
        }
        for v in ["", "xxx", "____", "abababab", "7Hq2Lx9V", "aaaaaaab"] {
            assert!(!is_placeholder_body(v), "{v:?}");
        }
        assert!(is_documented_example("AKIAIOSFODNN7EXAMPLE"));
        assert!(!is_documented_example(concat!("AKIA", "YRWQG5EJLPZLBYNP")));
    }

    #[test]
    fn references() {
        for v in [
            "$DB_PASSWORD",
            "${X}",
            "$(cat /run/secret)",
            "{{ secrets.DB }}",
            "%(pw)s",
        ] {
            assert!(is_reference(v), "{v:?}");
        }
        for v in ["$", "$a-b", "a$b", "secret", "{a b}", "{"] {
            assert!(!is_reference(v), "{v:?}");
        }
    }
}
