//! Redaction: no input panics; text and JSON redaction are idempotent;
//! findings are sorted, in bounds and on char boundaries; binary blobs come
//! back untouched; valid JSON stays valid JSON.
#![no_main]

use std::sync::OnceLock;

use agent_checkpoint_redact::{Redaction, Redactor};
use libfuzzer_sys::fuzz_target;

fn redactors() -> &'static [Redactor; 2] {
    static R: OnceLock<[Redactor; 2]> = OnceLock::new();
    R.get_or_init(|| {
        let full = Redactor::builder()
            .personal_data(true)
            .rule("acted", "ACT[A-Z_]*")
            .build()
            .expect("valid rule");
        [Redactor::default(), full]
    })
}

fn check(input: &str, r: &Redaction<'_, str>) {
    let mut at = 0;
    for f in &r.findings {
        assert!(at <= f.start && f.start < f.end && f.end <= input.len());
        assert!(input.is_char_boundary(f.start) && input.is_char_boundary(f.end));
        at = f.end;
    }
    assert_eq!(r.findings.is_empty(), *r.output == *input);
}

fuzz_target!(|data: &[u8]| {
    for r in redactors() {
        // Only a NUL byte makes a blob binary: text with invalid UTF-8 is
        // redacted as text (its invalid bytes kept), and idempotently.
        let binary = data.contains(&0);
        for path in ["t.txt", "t.jsonl"] {
            let out = r.redact_blob(path, data);
            if binary {
                assert_eq!(&*out, data);
            } else {
                assert_eq!(
                    &*r.redact_blob(path, &out),
                    &*out,
                    "redact_blob is not idempotent"
                );
            }
        }
        let Ok(text) = std::str::from_utf8(data) else {
            continue;
        };

        let once = r.redact_text_with_findings(text);
        check(text, &once);
        let twice = r.redact_text_with_findings(&once.output);
        assert_eq!(*twice.output, *once.output, "redact_text is not idempotent");
        assert!(twice.findings.is_empty());

        let once = r.redact_json_with_findings(text);
        check(text, &once);
        let twice = r.redact_json(&once.output);
        assert_eq!(*twice, *once.output, "redact_json is not idempotent");
        if serde_json::from_str::<serde_json::Value>(text).is_ok() {
            assert!(
                serde_json::from_str::<serde_json::Value>(&once.output).is_ok(),
                "valid JSON became invalid: {}",
                once.output
            );
        }
    }
});
