//! Attacks on the JSON redaction promises (issue 29 points 6 and 10, issue
//! 40 point 5): every occurrence in a document, identifier keys, keys
//! scanned, invalid UTF-8, idempotence, nothing found => byte-identical.

use agent_checkpoint_redact::{redact_blob, redact_json, redact_text, Redactor};

const AWS: &str = "AKIAYRWQG5EJLPZLBYNP";
const GHP: &str = "ghp_7Hq2Lx9Vb4Nc8Rt1Yw5Ze3Ka6Md0Pf2Sg4Jx";
const ENT: &str = "q8Zr2LmX0vB7nK4tY1wE9cH6jP3sD5fGaQ";

fn no_secret(out: &str, secret: &str) {
    assert!(!out.contains(secret), "{secret} survived in {out}");
}

fn fixed_point(out: &str) {
    assert_eq!(redact_json(out), out, "not idempotent");
}

#[test]
fn unicode_escapes_inside_a_token_are_seen() {
    let doc = r#"{"text":"key \u0041KIAYRWQG5EJLPZLBYNP ok"}"#;
    let out = redact_json(doc);
    assert_eq!(out, r#"{"text":"key REDACTED ok"}"#);
    let url = r#"{"text":"postgres:\/\/app:Pw9xQ2mZ7kL4@db.example.com\/app"}"#;
    let out = redact_json(url);
    assert!(!out.contains("Pw9xQ2mZ7kL4"), "{out}");
}

#[test]
fn secrets_in_keys_are_redacted() {
    let doc = format!("{{\"{AWS}\": 1, \"k\": {{\"{GHP}\": \"v\"}}}}");
    let out = redact_json(&doc);
    no_secret(&out, AWS);
    no_secret(&out, GHP);
    fixed_point(&out);
}

#[test]
fn nested_containers_under_identifier_keys_are_scanned() {
    let doc =
        format!("{{\"ids\": [[\"{AWS}\"], {{\"x\": \"{GHP}\"}}], \"id\": {{\"a\": [\"{ENT}\"]}}}}");
    let out = redact_json(&doc);
    no_secret(&out, AWS);
    no_secret(&out, GHP);
    no_secret(&out, ENT);
}

#[test]
fn odd_identifier_keys() {
    // Not identifiers: scanned.
    for k in [
        "uuid", "paid", "valid", "android", "Android", "grid", "PID", "idx", "ID_",
    ] {
        let doc = format!("{{\"{k}\": \"{AWS}\"}}");
        no_secret(&redact_json(&doc), AWS);
    }
    // Identifiers: skipped unless the secret is found elsewhere.
    for k in ["ID", "Id", "_id", "id", "user_ids", "userIds", "sessionId"] {
        let doc = format!("{{\"{k}\": \"{AWS}\", \"text\": \"{AWS}\"}}");
        no_secret(&redact_json(&doc), AWS);
    }
}

#[test]
fn same_secret_in_a_skipped_field_on_another_line() {
    for (a, b) in [
        (
            format!("{{\"text\": \"key {GHP}\"}}"),
            format!("{{\"file_path\": \"/x/{GHP}\"}}"),
        ),
        (
            format!("{{\"file_path\": \"/x/{GHP}\"}}"),
            format!("{{\"text\": \"key {GHP}\"}}"),
        ),
        (
            format!("{{\"sessionId\": \"{ENT}\"}}"),
            format!("plain text {ENT}"),
        ),
        (
            format!("{{\"cwd\": \"{ENT}\"}}"),
            format!("{{\"content\": \"run {ENT}\"}}"),
        ),
    ] {
        for sep in ["\n", "\r\n", "\n\n"] {
            let doc = format!("{a}{sep}{b}{sep}");
            let out = redact_json(&doc);
            no_secret(&out, GHP);
            no_secret(&out, ENT);
            fixed_point(&out);
        }
    }
}

/// The other occurrence is written with JSON escapes the first is not
/// (`\/` as PHP and some loggers write, `\u0041`): it is the same secret.
#[test]
fn escaped_occurrence_in_a_skipped_field_on_another_line() {
    let escaped_aws = format!("\\u0041{}", &AWS[1..]);
    let lines = [
        format!("{{\"text\": \"key {AWS}\"}}"),
        format!("{{\"file_path\": \"/x/{escaped_aws}\"}}"),
    ];
    let joined = lines.join("\n");
    let out = redact_json(&joined);
    assert!(!out.contains(&escaped_aws), "{out}");
    // A whole document too.
    let doc = format!("{{\"text\": \"key {AWS}\", \"path\": \"{escaped_aws}\"}}");
    let out = redact_json(&doc);
    assert!(!out.contains(&escaped_aws), "{out}");
    // A URL secret with `\/`.
    let url = "https://deploy:Zr8KmQ2xL9vB4nT7@git.example.com/r.git";
    let lines = [
        format!("{{\"text\": \"clone {url}\"}}"),
        format!("{{\"cwd\": \"{}\"}}", url.replace('/', "\\/")),
    ];
    let joined = lines.join("\n");
    let out = redact_json(&joined);
    assert!(!out.contains("Zr8KmQ2xL9vB4nT7"), "{out}");
}

#[test]
fn secret_only_in_skipped_fields_is_kept_as_documented() {
    // Skipped means not searched: documented, not a leak of a found secret.
    let doc = format!("{{\"session_id\": \"{ENT}\"}}");
    assert_eq!(redact_json(&doc), doc);
}

#[test]
fn invalid_bytes_around_and_inside_tokens() {
    for bytes in [
        "\u{ff}".as_bytes().to_vec(),
        vec![0xff],
        vec![0xc3],
        vec![0xe2, 0x82],
        vec![0xc1, 0x81],       // overlong 'A'
        vec![0xed, 0xa0, 0x80], // CESU surrogate
    ] {
        let mut t = Vec::new();
        t.extend_from_slice(&bytes);
        t.extend_from_slice(AWS.as_bytes());
        t.extend_from_slice(&bytes);
        t.extend_from_slice(b" key ");
        t.extend_from_slice(GHP.as_bytes());
        t.extend_from_slice(&bytes);
        for path in ["a.txt", "a.jsonl"] {
            let out = redact_blob(path, &t);
            let s = String::from_utf8_lossy(&out);
            no_secret(&s, AWS);
            no_secret(&s, GHP);
            assert_eq!(redact_blob(path, &out), out, "not idempotent");
        }
        // In a JSONL line, a skipped field on another line.
        let mut j = Vec::new();
        j.extend_from_slice(b"{\"text\": \"caf");
        j.extend_from_slice(&bytes);
        j.extend_from_slice(format!(" {GHP}\"}}\n{{\"file_path\": \"").as_bytes());
        j.extend_from_slice(&bytes);
        j.extend_from_slice(GHP.as_bytes());
        j.extend_from_slice(&bytes);
        j.extend_from_slice(b"\"}\n");
        let out = redact_blob("t.jsonl", &j);
        no_secret(&String::from_utf8_lossy(&out), GHP);
        assert_eq!(redact_blob("t.jsonl", &out), out);
    }
}

#[test]
fn lone_surrogates() {
    for doc in [
        format!("{{\"text\": \"\\ud800{AWS}\"}}"),
        format!("{{\"text\": \"{AWS}\\udc00\"}}"),
        r#"{"text": "\ud800\u0041KIAYRWQG5EJLPZLBYNP"}"#.to_owned(),
        format!("{{\"\\ud800{AWS}\": 1}}"),
    ] {
        let out = redact_json(&doc);
        no_secret(&out, AWS);
        assert!(!out.contains("KIAYRWQG5EJLPZLBYNP"), "{out}");
        fixed_point(&out);
    }
}

#[test]
fn crlf_lines() {
    let doc =
        format!("{{\"text\": \"{AWS}\"}}\r\nDB_PASSWORD=Zr8KmQ2xL9\r\n{{\"path\": \"{AWS}\"}}\r\n");
    let out = redact_json(&doc);
    no_secret(&out, AWS);
    assert!(!out.contains("Zr8KmQ2xL9"), "{out}");
    assert_eq!(out.matches("\r\n").count(), 3);
    let clean = "{\"a\": 1}\r\n\r\nplain\r\n";
    assert!(matches!(redact_json(clean), std::borrow::Cow::Borrowed(_)));
}

#[test]
fn deep_nesting_does_not_overflow() {
    for n in [10_000usize, 100_000] {
        let doc = format!("{}\"{AWS}\"{}", "[".repeat(n), "]".repeat(n));
        let out = redact_json(&doc);
        no_secret(&out, AWS);
        let doc = format!("{}\"{AWS}\"{}", "{\"a\":".repeat(n), "}".repeat(n));
        let out = redact_json(&doc);
        no_secret(&out, AWS);
        let doc = format!(
            "{}\"{AWS}\"{}",
            "{\"ids\":{\"a\":".repeat(n),
            "}}".repeat(n)
        );
        let out = redact_json(&doc);
        no_secret(&out, AWS);
        // Unclosed: not JSON, redacted as text.
        let doc = format!("{}\"{AWS}\"", "[".repeat(n));
        no_secret(&redact_json(&doc), AWS);
    }
}

/// In plain text too, a secret found once goes at every occurrence
/// (README: "a JSON document, or a whole JSONL transcript, or a text").
#[test]
fn text_every_occurrence() {
    let t = format!("token {ENT} and again aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa{ENT}");
    let out = redact_text(&t);
    no_secret(&out, ENT);
}

/// Generated transcript: one distinct secret per line in text, repeated
/// in the next line's file_path.
pub fn transcript(lines: usize) -> String {
    let mut s = String::new();
    for i in 0..lines {
        let tok = format!("ghp_{:036}", i + 7_000_000_000_000usize);
        s.push_str(&format!(
            "{{\"type\":\"text\",\"text\":\"key {tok}\",\"file_path\":\"/p/{tok}\"}}\n"
        ));
    }
    s
}

#[test]
fn transcript_with_a_secret_per_line() {
    let t = transcript(500);
    let out = redact_json(&t);
    assert!(!out.contains("ghp_"));
    assert_eq!(out.matches("REDACTED").count(), 1000);
}

#[test]
#[ignore = "measurement: --ignored --nocapture"]
fn measure() {
    let r = Redactor::default();
    for n in [1_000usize, 10_000, 100_000] {
        let t = transcript(n);
        let start = std::time::Instant::now();
        let out = r.redact_json(&t);
        eprintln!("{n} lines ({} bytes): {:?}", t.len(), start.elapsed());
        assert!(!out.contains("ghp_"));
    }
    for n in [10_000usize, 100_000] {
        let mut s = String::new();
        for i in 0..n {
            s.push_str(&format!(
                "{{\"type\":\"text\",\"text\":\"key ghp_{:036}\"}}\n",
                i + 7_000_000_000_000usize
            ));
        }
        let start = std::time::Instant::now();
        let _ = r.redact_json(&s);
        eprintln!("{n} lines, secret in text only: {:?}", start.elapsed());
    }
    for n in [2_000usize, 20_000] {
        let t = transcript(n);
        let doc = format!("[{}]", t.trim_end().replace('\n', ","));
        let start = std::time::Instant::now();
        let out = r.redact_json(&doc);
        eprintln!("one JSON array of {n} such objects: {:?}", start.elapsed());
        assert!(!out.contains("ghp_"));
    }
    let big = format!("{{\"text\":\"{}\"}}", "word ".repeat(10 << 20));
    let start = std::time::Instant::now();
    let _ = r.redact_json(&big);
    eprintln!("50 MB single line: {:?}", start.elapsed());
    let big = format!("{{\"text\":\"{} {AWS}\"}}", "word ".repeat(10 << 20));
    let start = std::time::Instant::now();
    let out = r.redact_json(&big);
    eprintln!("50 MB single line with a secret: {:?}", start.elapsed());
    no_secret(&out, AWS);
}

mod fuzzish {
    use super::*;
    use proptest::prelude::*;

    const PARTS: &[&str] = &[
        AWS,
        GHP,
        ENT,
        "\\u0041KIAYRWQG5EJLPZLBYNP",
        "https:\\/\\/u:Zr8KmQ2xL9vB4nT7@h\\/r",
        "{\"text\":\"",
        "{\"file_path\":\"",
        "{\"ids\":[\"",
        "{\"",
        "\":\"",
        "\"}",
        "\"]}",
        "\\ud800",
        "\\n",
        "\\\\",
        "DB_PASSWORD=",
        "password",
        "\n",
        "\r\n",
        " ",
        "REDACTED",
    ];

    fn blob() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                4 => proptest::sample::select(PARTS).prop_map(|s| s.as_bytes().to_vec()),
                1 => proptest::collection::vec(128u8..=255, 1..3),
                1 => "[A-Za-z0-9]{1,12}".prop_map(String::into_bytes),
            ],
            0..24,
        )
        .prop_map(|v| v.concat())
    }

    fn cases() -> u32 {
        std::env::var("ATTACK_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

        /// Idempotent; nothing found means byte-identical; a planted secret
        /// is gone wherever it was written plainly.
        #[test]
        fn blobs_idempotent_and_untouched_when_clean(bytes in blob()) {
            let r = Redactor::default();
            for path in ["t.txt", "t.jsonl"] {
                let once = r.redact_blob_with_findings(path, &bytes);
                prop_assert_eq!(once.findings.is_empty(), *once.output == *bytes);
                let twice = r.redact_blob_with_findings(path, &once.output);
                prop_assert_eq!(&*twice.output, &*once.output);
                prop_assert!(twice.findings.is_empty());
                // Where a secret stands apart (not glued to a word, which
                // makes it another word), it is gone from text (JSONL keeps
                // one that is only in a skipped field, as documented).
                if path != "t.txt" {
                    continue;
                }
                let out: &[u8] = &once.output;
                for secret in [AWS, GHP] {
                    let n = secret.len();
                    let apart = (0..out.len().saturating_sub(n - 1)).any(|i| {
                        &out[i..i + n] == secret.as_bytes()
                            && (i == 0 || !out[i - 1].is_ascii_alphanumeric())
                            && out.get(i + n).is_none_or(|c| !c.is_ascii_alphanumeric())
                    });
                    prop_assert!(!apart, "{} in {}", secret, String::from_utf8_lossy(out));
                }
            }
        }
    }
}
