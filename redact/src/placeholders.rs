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
    if value.starts_with("${") && value.ends_with('}') && !is_braced_literal(value) {
        return true;
    }
    // An ellipsis (`…`, `...`) stands for a value left out.
    if is_angle_name(value) || is_mask_run(value) || value.chars().all(|c| c == '…' || c == '.') {
        return true;
    }
    // `secret_here`, `your-token-here`: a word that says where a secret goes.
    let lower = value.to_ascii_lowercase();
    value.len() <= 40
        && (lower.ends_with("_here") || lower.ends_with("-here"))
        && value
            .bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'-')
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

/// Words that mark a value as a stand-in (`your-api-key-here`,
/// `dummy_token_1`, `example123`): a real secret's random bytes almost
/// never spell one of them.
const STAND_IN_WORDS: [&str; 11] = [
    "example",
    "placeholder",
    "changeme",
    "dummy",
    "sample",
    "fake",
    "your",
    "replace",
    "insert",
    "redacted",
    "xxxx",
];

/// A value that says it is a stand-in: it holds one of a few words
/// (`example`, `placeholder`, `dummy`, `sample`, `fake`, `your`, `replace`,
/// `insert`, `changeme`, `redacted`, `xxxx`), any case.
pub fn names_a_stand_in(value: &str) -> bool {
    let b = value.as_bytes();
    STAND_IN_WORDS.iter().any(|w| {
        b.windows(w.len())
            .any(|win| win.eq_ignore_ascii_case(w.as_bytes()))
    })
}

/// A run typed in order (`0123456789abcdef…`, `abcdefghij…`,
/// `1234567890abcdef1234567890abcdef`): three quarters or more of the
/// neighbouring bytes are successive (`a`->`b`, `9`->`0`, `9`->`a`,
/// `z`->`0`, `f`->`0`/`1` ...), 8 bytes at least. A random secret's
/// neighbours are successive about once in sixty.
pub fn is_typed_sequence(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() < 8 {
        return false;
    }
    let steps = b.windows(2).filter(|w| is_step(w[0], w[1])).count();
    steps * 4 >= (b.len() - 1) * 3
}

fn is_step(a: u8, b: u8) -> bool {
    b == a.wrapping_add(1)
        || matches!(
            (a, b),
            (b'9', b'0' | b'a' | b'A')
                | (b'0', b'a' | b'A')
                | (b'z' | b'Z', b'0' | b'1' | b'a' | b'A')
                | (b'f' | b'F', b'0' | b'1')
        )
}

/// An identifier made of words, not a secret: split at `_`, `-`, `.` and
/// camelCase boundaries (`requiredCharacteristicTypesForDisplayMetadata`,
/// `createSecretKeySpecFromBase64`, `refresh_access_token_v2`) it is three
/// words or more, each all lower case, Capitalized, or an acronym of up to
/// five capitals, each word of three letters or more holding a vowel and no
/// five consonants in a row, words of 3.5 letters on average, and at most
/// two numbers of at most four digits. Random tokens of mixed case and
/// digits break into one- and two-letter pieces and fail.
pub fn reads_as_words(value: &str) -> bool {
    let b = value.as_bytes();
    if b.len() < 12 || b.len() > 256 {
        return false;
    }
    let (mut words, mut letters, mut numbers) = (0usize, 0usize, 0usize);
    let mut one_letter = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if matches!(c, b'_' | b'-' | b'.') {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            numbers += 1;
            if i - s > 4 || numbers > 2 {
                return false;
            }
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return false;
        }
        let s = i;
        let word_end = if c.is_ascii_uppercase() {
            // Capitals: an acronym ends before the capital that starts the
            // next Capitalized word (`parseURLString` -> `URL`, `String`).
            let mut j = i;
            while j < b.len() && b[j].is_ascii_uppercase() {
                j += 1;
            }
            if j - i == 1 {
                while j < b.len() && b[j].is_ascii_lowercase() {
                    j += 1;
                }
                j
            } else if j < b.len() && b[j].is_ascii_lowercase() {
                j - 1
            } else {
                j
            }
        } else {
            let mut j = i;
            while j < b.len() && b[j].is_ascii_lowercase() {
                j += 1;
            }
            j
        };
        i = word_end;
        let word = &b[s..word_end];
        let acronym = word.len() > 1 && word.iter().all(u8::is_ascii_uppercase);
        if acronym && word.len() > 5 {
            return false;
        }
        if word.len() == 1 {
            one_letter += 1;
            if one_letter > 1 {
                return false;
            }
        } else if word.len() >= 3 && !acronym && !is_pronounceable(word) {
            return false;
        }
        words += 1;
        letters += word.len();
    }
    words >= 3 && letters * 2 >= words * 7
}

/// A vowel (`y` counts) and no five consonants in a row.
fn is_pronounceable(word: &[u8]) -> bool {
    let vowel = |c: &u8| {
        matches!(
            c.to_ascii_lowercase(),
            b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
        )
    };
    let mut run = 0;
    for c in word {
        if vowel(c) {
            run = 0;
        } else {
            run += 1;
            if run >= 5 {
                return false;
            }
        }
    }
    word.iter().any(vowel)
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
        // A template or a command substitution is code: no bracket in it
        // closes another kind (`${X:-a}`, `$(cat f)`, `{{ .Values.x }}`,
        // cut short `${PW`); a password that merely starts with them does
        // (`{{h}o)p${e]…`).
        [b'$', b'{', ..] if is_braced_literal(value) => false,
        [b'$', b'{' | b'(', ..] | [b'{', b'{', ..] => !brackets_cross(value),
        [b'$', rest @ ..] => {
            !rest.is_empty() && rest.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
        }
        [b'%', b'(', ..] => true,
        _ => false,
    }
}

/// `${20FCC725-C7FF-…}`: braces around a literal, not a variable (a
/// variable's name starts with a letter or `_`; `${1}` is positional).
fn is_braced_literal(value: &str) -> bool {
    let inner = &value.as_bytes()[2..];
    inner.len() > 3
        && inner[0].is_ascii_digit()
        && !inner[..inner.len() - 1].iter().all(u8::is_ascii_digit)
}

/// Every `(`, `[` and `{` in `value` closed by its own kind, in order, and
/// no closing bracket without its opener: brackets as code writes them.
pub fn brackets_pair_up(value: &str) -> bool {
    bracket_walk(value) == Some(true)
}

/// A closing bracket of another kind than the last one open, or with none
/// open (`{{h}o)`): not code.
fn brackets_cross(value: &str) -> bool {
    bracket_walk(value).is_none()
}

/// `None` when a closing bracket does not match; else whether every opened
/// bracket was closed.
fn bracket_walk(value: &str) -> Option<bool> {
    let mut open = Vec::new();
    for c in value.bytes() {
        match c {
            b'(' | b'[' | b'{' => open.push(c),
            b')' | b']' | b'}' => {
                let want = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if open.pop() != Some(want) {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(open.is_empty())
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
            "…",
            "secret_here",
            "your-token-here",
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
    fn stand_ins_sequences_and_words() {
        for v in [
            "your-api-key-here",
            "DUMMY_TOKEN_1",
            "example123",
            "sk_test_fake42",
        ] {
            assert!(names_a_stand_in(v), "{v:?}");
        }
        for v in ["Zr8KpW3xQ7vL2mN9", "hunter2xyz", "3f9c2a7e1b4d8f0a"] {
            assert!(!names_a_stand_in(v), "{v:?}");
        }
        for v in [
            "0123456789abcdefghijklmnopqrstuvwxyz",
            "1234567890abcdef1234567890abcdef",
            "abcdefghijklmnopqrstuvwxyz0123456789",
            "ABCDEFGHIJ",
        ] {
            assert!(is_typed_sequence(v), "{v:?}");
        }
        for v in [
            "Zr8KpW3xQ7vL2mN9",
            "3f9c2a7e1b4d8f0a6c5e",
            "abc1",
            "0d4e8b2f6a1c9e3d7b5f",
        ] {
            assert!(!is_typed_sequence(v), "{v:?}");
        }
        for v in [
            "requiredCharacteristicTypesForDisplayMetadata",
            "createSecretKeySpecFromBase64",
            "refresh_access_token_v2",
            "parseURLStringFromConfig",
            "getAuthenticationTokenForServiceAccountCredentials2",
            "AbstractSingletonProxyFactoryBean",
        ] {
            assert!(reads_as_words(v), "{v:?}");
        }
        for v in [
            "q8Zr2LmX0vB7nK4tY1wE9c",
            "Zr8KpW3xQ7vL2mN9",
            "kP3nW8qZ1xT6vB9m",
            "aB3dE6gH9jK2mN5pQ8",
            "hunter2hunter",
            "xkcdqrstvbnmplkj",
            "shortWord",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
        ] {
            assert!(!reads_as_words(v), "{v:?}");
        }
    }

    #[test]
    fn references() {
        for v in [
            "$DB_PASSWORD",
            "${X}",
            "$(cat /run/secret)",
            "{{ secrets.DB }}",
            "%(pw)s",
            "${X:-a}",
            "${PW",
            "{{ .Values.x | quote }}",
        ] {
            assert!(is_reference(v), "{v:?}");
        }
        for v in [
            "$",
            "$a-b",
            "a$b",
            "secret",
            "{a b}",
            "{",
            "{{h}o)p$#x}}",
            "${20FCC725-C7FF-4BBF}",
        ] {
            assert!(!is_reference(v), "{v:?}");
        }
    }

    #[test]
    fn brackets() {
        assert!(brackets_pair_up("f(a[1]){x}"));
        assert!(!brackets_pair_up("f(a]"));
        assert!(!brackets_pair_up("f(a"));
        assert!(!brackets_pair_up(")("));
    }
}
