//! The default store redacts: a transcript and prompts holding 30 kinds of
//! made-up secrets leave none of them in any object of the repository
//! (every object read back with `git cat-file`). None of these secrets is
//! real: each body comes from a fixed pseudo-random stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use agent_checkpoint_redact::Redactor;
use agent_checkpoint_store::{SessionWrite, Store};
use common::TestRepo;

const ULID: &str = "01KVBJCWYA4YW6J5M9GP655HZN";

const AN: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";
const UPPER_DIGITS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const BASE32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";

/// A fixed stream of made-up characters (xorshift).
struct Gen(u64);

impl Gen {
    fn r(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                a[(self.0 % a.len() as u64) as usize] as char
            })
            .collect()
    }
}

/// Thirty kinds of secret, each as an agent transcript would show it.
fn secrets() -> Vec<(&'static str, String)> {
    let mut g = Gen(0x5DEE_CE66_D1CE_5EED);
    vec![
        ("aws access key id", format!("AKIA{}", g.r(BASE32, 16))),
        ("github classic token", format!("ghp_{}", g.r(AN, 36))),
        (
            "github fine-grained token",
            format!("github_pat_{}_{}", g.r(AN, 22), g.r(AN, 59)),
        ),
        ("github oauth token", format!("gho_{}", g.r(AN, 36))),
        ("github app token", format!("ghs_{}", g.r(AN, 36))),
        ("gitlab token", format!("glpat-{}", g.r(AN, 20))),
        ("npm token", format!("npm_{}", g.r(AN, 36))),
        (
            "pypi token",
            format!("pypi-AgEIcHlwaS5vcmc{}", g.r(URLSAFE, 70)),
        ),
        (
            "slack bot token",
            format!(
                "xoxb-{}-{}-{}",
                g.r(DIGITS, 12),
                g.r(DIGITS, 13),
                g.r(AN, 24)
            ),
        ),
        (
            "slack webhook",
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                g.r(UPPER_DIGITS, 9),
                g.r(UPPER_DIGITS, 9),
                g.r(AN, 24)
            ),
        ),
        ("stripe secret key", format!("sk_live_{}", g.r(AN, 32))),
        ("stripe restricted key", format!("rk_live_{}", g.r(AN, 32))),
        (
            "anthropic key",
            format!("sk-ant-api03-{}AA", g.r(URLSAFE, 93)),
        ),
        ("hugging face token", format!("hf_{}", g.r(AN, 34))),
        ("groq key", format!("gsk_{}", g.r(AN, 52))),
        ("replicate token", format!("r8_{}", g.r(AN, 37))),
        (
            "sendgrid key",
            format!("SG.{}.{}", g.r(URLSAFE, 22), g.r(URLSAFE, 43)),
        ),
        ("twilio api key", format!("SK{}", g.r(HEX, 32))),
        (
            "telegram bot token",
            format!("{}:AA{}", g.r(DIGITS, 10), g.r(URLSAFE, 33)),
        ),
        ("google api key", format!("AIza{}", g.r(URLSAFE, 35))),
        ("digitalocean token", format!("dop_v1_{}", g.r(HEX, 64))),
        ("shopify token", format!("shpat_{}", g.r(HEX, 32))),
        ("vault token", format!("hvs.{}", g.r(URLSAFE, 90))),
        (
            "age secret key",
            format!("AGE-SECRET-KEY-1{}", g.r(BECH32, 58)),
        ),
        ("linear key", format!("lin_api_{}", g.r(AN, 40))),
        ("pulumi token", format!("pul-{}", g.r(HEX, 40))),
        (
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ{}.{}",
                g.r(AN, 40),
                g.r(URLSAFE, 43)
            ),
        ),
        (
            "database url password",
            format!("postgres://app:{}@db.example.com:5432/app", g.r(LOWER, 14)),
        ),
        (
            "password assignment",
            format!("DB_PASSWORD={}", g.r(AN, 18)),
        ),
        (
            "high-entropy value",
            format!("secret_value={}", g.r(AN, 40)),
        ),
    ]
}

/// The part of a secret that must never be stored: its value (for an
/// assignment or URL, what follows the name or user).
fn value(secret: &str) -> &str {
    if let Some((_, v)) = secret.split_once('=') {
        return v;
    }
    if let Some(rest) = secret.strip_prefix("postgres://app:") {
        return rest.split('@').next().unwrap_or(rest);
    }
    secret
}

#[test]
fn thirty_secret_kinds_reach_no_object() {
    let secrets = secrets();
    assert_eq!(secrets.len(), 30);
    let kinds: std::collections::BTreeSet<_> = secrets.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds.len(), 30, "thirty different kinds");
    // Each secret is one the default redactor knows on its own (so the
    // check below is about the store, not about the rules).
    let redactor = Redactor::default();
    for (kind, secret) in &secrets {
        let text = format!("here: {secret} ok");
        assert!(
            !redactor.redact_text(&text).contains(value(secret)),
            "{kind} is not redacted by the default rules: {secret}"
        );
    }

    let repo = TestRepo::new();
    let store = Store::open(repo.path()).unwrap();
    let mut transcript = String::new();
    for (i, (kind, secret)) in secrets.iter().enumerate() {
        let line = serde_json::json!({
            "type": if i % 2 == 0 { "user" } else { "tool_result" },
            "message": {"content": [{"type": "text", "text": format!("the {kind} is {secret}\n")}]},
        });
        transcript.push_str(&line.to_string());
        transcript.push('\n');
    }
    let prompts: Vec<String> = secrets
        .iter()
        .map(|(kind, secret)| format!("use this {kind}: {secret}"))
        .collect();
    store
        .write_session(
            &SessionWrite::new(ULID, "session-1")
                .agent("Claude Code")
                .prompts(prompts)
                .transcript(transcript.into_bytes()),
        )
        .unwrap();

    let out = repo.git_output(&["cat-file", "--batch-all-objects", "--batch"], None);
    assert!(out.status.success());
    let objects = String::from_utf8_lossy(&out.stdout);
    assert!(objects.contains("REDACTED"), "the redacted text is stored");
    let leaked: Vec<&str> = secrets
        .iter()
        .filter(|(_, secret)| objects.contains(value(secret)))
        .map(|(kind, _)| *kind)
        .collect();
    assert!(leaked.is_empty(), "secrets reached an object: {leaked:?}");
    // What reads back is the redacted session, still JSONL line for line.
    let content = store.read_session(ULID, 0).unwrap();
    let text = String::from_utf8(content.transcript.unwrap()).unwrap();
    assert_eq!(text.lines().count(), 30);
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }
    assert_eq!(content.prompts.len(), 30);
    assert!(content.prompts.iter().all(|p| p.contains("REDACTED")));
    repo.assert_fsck();
}
