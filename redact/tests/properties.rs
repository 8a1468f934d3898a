//! Property tests: no panic on any input; redaction is idempotent (text and
//! JSON); a text with nothing found comes back borrowed, byte for byte;
//! findings describe the output exactly; valid JSON stays valid JSON with
//! the same shape.

use std::borrow::Cow;
use std::sync::OnceLock;

use agent_checkpoint_redact::{
    Redaction, Redactor, ADDRESS_LABEL, EMAIL_LABEL, PHONE_LABEL, REDACTED,
};
use proptest::prelude::*;
use serde_json::Value;

const CASES: u32 = 384;

/// The default redactor, and one with every optional layer (personal data
/// and a caller rule that can match inside `REDACTED`).
fn redactors() -> &'static [Redactor; 2] {
    static R: OnceLock<[Redactor; 2]> = OnceLock::new();
    R.get_or_init(|| {
        let full = Redactor::builder()
            .personal_data(true)
            .rule("acted", "ACT[A-Z_]*")
            .rule("ticket", "[0-9]{3}-[A-Z]{2}")
            .build()
            .expect("valid rules");
        [Redactor::default(), full]
    })
}

/// Pieces that set off every layer, their near misses and their edges.
const PIECES: &[&str] = &[
    "ghp_7Hq2Lx9Vb4Nc8Rt1Yw5Ze3Ka6Md0Pf2Sg4Jx",
    "AKIAYRWQG5EJLPZLBYNP",
    "sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA",
    "q8Zr2LmX0vB7nK4tY1wE9cH6jP3sD5fGaQ",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fw",
    "-----BEGIN RSA PRIVATE KEY-----\n",
    "-----END RSA PRIVATE KEY-----",
    "MIIEowIBAAKCAQEAv7Q2x9Lm0Zr3Nc8Vb4Tq1Yw5Ke6Md0Pf2Sg4Jh7Hq2Lx9Vb4Nc8Rt1",
    "DB_PASSWORD=",
    "PGPASSWORD='",
    "password=",
    "PWD=",
    "postgres://",
    "https://",
    "://",
    "user:pass@",
    "@example.com",
    "jane@example.org",
    "jdbc:mysql://h/db?password=",
    "host=h user=u password=p",
    "Server=s;UID=u;PWD=p;",
    "HEROKU_API_KEY: ",
    "3b1f5c8e-9a2d-4e7f-b6c1-0d9e8f7a6b5c",
    "Bearer ",
    "REDACTED",
    "[REDACTED_EMAIL]",
    "[REDACTED",
    "ACTED",
    "123-AB",
    "+1 415 555 0132",
    "1600 Main Street",
    "${X}",
    "changeme",
    "****",
    "\\n",
    "\\u00e9",
    "\\",
    "\"",
    "'",
    "=",
    " ",
    "\n",
    "\t",
    "é",
    "😀",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "sha512-",
    "\u{0}",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(PIECES).prop_map(str::to_owned),
        1 => "[A-Za-z0-9+_=/-]{1,30}",
        1 => any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(piece(), 0..14).prop_map(|v| v.concat())
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(
            &[
                "type",
                "text",
                "content",
                "password",
                "host",
                "user",
                "DB_PASSWORD",
                "DB Password",
                "session_id",
                "signature",
                "filePath",
                "cwd",
                "source",
                "data",
            ][..]
        )
        .prop_map(str::to_owned),
        text(),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        proptest::sample::select(&["image", "image/png", "base64", "text"][..])
            .prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// The document text: compact, pretty, or several compact values as JSONL.
fn json_text() -> impl Strategy<Value = String> {
    prop_oneof![
        json_value().prop_map(|v| v.to_string()),
        json_value().prop_map(|v| serde_json::to_string_pretty(&v).unwrap_or_default()),
        proptest::collection::vec(json_value(), 1..5).prop_map(|vs| vs
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")),
    ]
}

/// Findings are sorted, disjoint, on char boundaries, and replacing each
/// one's span gives the output.
fn check_findings(input: &str, r: &Redaction<'_, str>) -> Result<(), TestCaseError> {
    let mut rebuilt = String::new();
    let mut at = 0;
    for f in &r.findings {
        prop_assert!(
            f.start >= at && f.start < f.end && f.end <= input.len(),
            "{:?}",
            r.findings
        );
        prop_assert!(input.is_char_boundary(f.start) && input.is_char_boundary(f.end));
        rebuilt.push_str(&input[at..f.start]);
        let label = match f.rule.as_str() {
            "email" => EMAIL_LABEL,
            "phone" => PHONE_LABEL,
            "address" => ADDRESS_LABEL,
            _ => REDACTED,
        };
        // A joined finding of mixed kinds is plain REDACTED.
        let replaced = &r.output[rebuilt.len()..];
        if replaced.starts_with(label) {
            rebuilt.push_str(label);
        } else {
            rebuilt.push_str(REDACTED);
        }
        at = f.end;
    }
    rebuilt.push_str(&input[at..]);
    prop_assert_eq!(rebuilt.as_str(), &*r.output);
    match &r.output {
        Cow::Borrowed(b) => {
            prop_assert!(r.findings.is_empty());
            prop_assert_eq!(b.as_ptr(), input.as_ptr());
        }
        Cow::Owned(_) => prop_assert!(!r.findings.is_empty()),
    }
    Ok(())
}

/// The same shape: equal non-string leaves, keys and lengths. Keys are
/// redacted like values: a key that changed holds `REDACTED` (or a label),
/// and keys redacted to the same text count once.
fn same_shape(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(_), Value::String(_)) => true,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_shape(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            let redacted = |k: &str| k.contains(REDACTED);
            if x.keys().all(|k| y.contains_key(k)) && x.len() == y.len() {
                return x.iter().all(|(k, v)| same_shape(v, &y[k]));
            }
            y.len() <= x.len()
                && y.iter().all(|(k, v)| match x.get(k) {
                    Some(old) => redacted(k) || same_shape(old, v),
                    None => redacted(k),
                })
        }
        _ => a == b,
    }
}

/// A blob's findings are sorted and disjoint, and replacing each one's
/// span of the input gives the output: every byte outside them (an
/// invalid sequence too) is kept.
fn check_blob_findings(input: &[u8], r: &Redaction<'_, [u8]>) -> Result<(), TestCaseError> {
    let mut rebuilt: Vec<u8> = Vec::new();
    let mut at = 0;
    for f in &r.findings {
        prop_assert!(f.start >= at && f.start < f.end && f.end <= input.len());
        rebuilt.extend_from_slice(&input[at..f.start]);
        let replaced = &r.output[rebuilt.len()..];
        let word = [EMAIL_LABEL, PHONE_LABEL, ADDRESS_LABEL]
            .into_iter()
            .find(|l| replaced.starts_with(l.as_bytes()))
            .unwrap_or(REDACTED);
        rebuilt.extend_from_slice(word.as_bytes());
        at = f.end;
    }
    rebuilt.extend_from_slice(&input[at..]);
    prop_assert_eq!(&rebuilt[..], &*r.output);
    Ok(())
}

/// The invalid UTF-8 sequences of `bytes`, in order.
fn invalid_sequences(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .utf8_chunks()
        .map(|c| c.invalid().to_vec())
        .filter(|c| !c.is_empty())
        .collect()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// One to three bytes that are not UTF-8 on their own.
fn invalid_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(vec![0xe9]),
        Just(vec![0xff]),
        Just(vec![0x80]),
        Just(vec![0xc3]),
        Just(vec![0xe2, 0x82]),
        Just(vec![0xf0, 0x9f, 0x98]),
        Just(vec![0xed, 0xa0, 0x80]),
        Just(vec![0xe9, 0xe8]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    #[test]
    fn text_is_idempotent_and_findings_are_exact(input in text()) {
        for r in redactors() {
            let once = r.redact_text_with_findings(&input);
            check_findings(&input, &once)?;
            let twice = r.redact_text_with_findings(&once.output);
            prop_assert_eq!(&*twice.output, &*once.output);
            prop_assert!(twice.findings.is_empty(), "{:?}", twice.findings);
        }
    }

    #[test]
    fn arbitrary_unicode_never_panics(input in any::<String>()) {
        for r in redactors() {
            let t = r.redact_text_with_findings(&input);
            check_findings(&input, &t)?;
            let j = r.redact_json_with_findings(&input);
            check_findings(&input, &j)?;
        }
    }

    #[test]
    fn arbitrary_bytes_as_blobs_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256), json in any::<bool>()) {
        let path = if json { "x.jsonl" } else { "x.txt" };
        for r in redactors() {
            let out = r.redact_blob_with_findings(path, &bytes);
            if bytes.contains(&0) {
                prop_assert_eq!(&*out.output, &bytes[..]);
                prop_assert!(out.findings.is_empty());
            } else {
                check_blob_findings(&bytes, &out)?;
            }
        }
    }

    /// Text with invalid UTF-8 (Latin-1 bytes, stray continuation bytes,
    /// cut sequences) between the pieces: redacted as text, every invalid
    /// sequence kept byte for byte and in order, idempotent, and each
    /// planted secret gone. As JSONL too, the bytes inside the strings.
    #[test]
    fn invalid_utf8_is_redacted_as_text(parts in proptest::collection::vec((text(), invalid_bytes()), 0..8), json in any::<bool>()) {
        let secret = "ghp_7Hq2Lx9Vb4Nc8Rt1Yw5Ze3Ka6Md0Pf2Sg4Jx";
        let mut bytes = Vec::new();
        for (t, bad) in &parts {
            let t = t.replace('\0', "");
            if json {
                bytes.extend_from_slice(b"{\"text\":\"");
                let quoted = serde_json::to_string(&t).unwrap_or_default();
                bytes.extend_from_slice(&quoted.as_bytes()[1..quoted.len() - 1]);
                bytes.extend_from_slice(bad);
                bytes.extend_from_slice(format!(" {secret} ").as_bytes());
                bytes.extend_from_slice(bad);
                bytes.extend_from_slice(b"\"}\n");
            } else {
                bytes.extend_from_slice(t.as_bytes());
                bytes.extend_from_slice(bad);
                bytes.extend_from_slice(format!(" {secret} ").as_bytes());
                bytes.extend_from_slice(bad);
            }
        }
        let path = if json { "full.jsonl" } else { "notes.txt" };
        let r = Redactor::default();
        let found = r.redact_blob_with_findings(path, &bytes);
        check_blob_findings(&bytes, &found)?;
        let once = found.output;
        // The invalid bytes the secrets stand beside are kept (the one a
        // credential assignment's value starts with is the value's).
        if !parts.iter().any(|(t, _)| t.contains('=') || t.contains(':')) {
            prop_assert_eq!(invalid_sequences(&once), invalid_sequences(&bytes));
        }
        prop_assert!(!contains(&once, secret.as_bytes()), "{:?}", String::from_utf8_lossy(&once));
        let twice = r.redact_blob(path, &once);
        prop_assert_eq!(&*twice, &*once);
        if json {
            // Every line is still a JSON object once the bytes are valid.
            for line in String::from_utf8_lossy(&once).lines() {
                prop_assert!(serde_json::from_str::<Value>(line).is_ok(), "{}", line);
            }
        }
    }

    #[test]
    fn json_is_idempotent_and_stays_valid(doc in json_text()) {
        let whole: Option<Value> = serde_json::from_str(&doc).ok();
        for r in redactors() {
            let once = r.redact_json_with_findings(&doc);
            check_findings(&doc, &once)?;
            let twice = r.redact_json(&once.output);
            prop_assert_eq!(&*twice, &*once.output);
            match &whole {
                Some(v) => {
                    let after: Value = serde_json::from_str(&once.output)
                        .map_err(|e| TestCaseError::fail(format!("{e}: {}", once.output)))?;
                    prop_assert!(same_shape(v, &after), "{} -> {}", doc, once.output);
                }
                None => {
                    for (a, b) in doc.split('\n').zip(once.output.split('\n')) {
                        if let Ok(v) = serde_json::from_str::<Value>(a) {
                            let after: Value = serde_json::from_str(b)
                                .map_err(|e| TestCaseError::fail(format!("{e}: {b}")))?;
                            prop_assert!(same_shape(&v, &after));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn json_like_text_never_panics_and_is_idempotent(input in text()) {
        for r in redactors() {
            let once = r.redact_json_with_findings(&input);
            check_findings(&input, &once)?;
            prop_assert_eq!(&*r.redact_json(&once.output), &*once.output);
        }
    }

    #[test]
    fn prose_without_secrets_is_borrowed(words in proptest::collection::vec("[a-z]{1,9}", 0..40)) {
        let text = words.join(" ");
        let out = Redactor::default().redact_text(&text);
        prop_assert!(matches!(out, Cow::Borrowed(_)));
    }
}
