//! JSONL of 4 MiB and more is redacted in two halves (on two threads where
//! threads exist); the result must be the one of redacting line by line.

use agent_checkpoint_redact::Redactor;

#[test]
fn large_jsonl_equals_line_by_line() {
    let r = Redactor::default();
    let mut lines = Vec::new();
    let mut i = 0u64;
    let mut size = 0;
    while size < (4 << 20) + 300_000 {
        let line = match i % 500 {
            // Distinct secrets, so that no secret is shared across lines
            // (and none all zeros: `ghp_000…` is a placeholder).
            0 => format!("{{\"n\":{i},\"text\":\"token ghp_{:036}\"}}", i + 1),
            250 => format!("{{\"n\":{i},\"text\":\"DB_PASSWORD=pw{i}x\\nok\"}}"),
            333 => format!("not json DB_PASSWORD=pw{i}y"),
            _ => format!(
                "{{\"n\":{i},\"text\":\"line {i} of an ordinary transcript, nothing to see\"}}"
            ),
        };
        size += line.len() + 1;
        lines.push(line);
        i += 1;
    }
    let text = lines.join("\n");
    let whole = r.redact_json_with_findings(&text);
    let expected: Vec<String> = lines
        .iter()
        .map(|l| r.redact_json(l).into_owned())
        .collect();
    assert_eq!(*whole.output, expected.join("\n"));
    let planted = lines
        .iter()
        .filter(|l| l.contains("ghp_") || l.contains("DB_PASSWORD"))
        .count();
    assert_eq!(whole.findings.len(), planted);
    assert!(whole.findings.windows(2).all(|w| w[0].end <= w[1].start));
}
