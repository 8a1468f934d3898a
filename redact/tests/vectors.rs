//! Plays the shared vectors `tests/vectors/redact.json` against the crate.
//!
//! A case is `{"name", "op": "text"|"json"|"blob", "input" | "input_b64",
//! "path"?, "options"?: {"personal_data", "rules": [[name, regex]]},
//! "expect" | "expect_b64" | "expect_error", "expect_findings"?}`. Every
//! expected output is also checked to be a fixed point (idempotence).

use std::path::Path;

use agent_checkpoint_redact::{Finding, Redactor};
use base64::Engine as _;
use serde_json::Value;

fn b64(s: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .unwrap_or_else(|e| panic!("bad base64 {s:?}: {e}"))
}

fn redactor(options: Option<&Value>) -> Result<Redactor, String> {
    let Some(o) = options else {
        return Ok(Redactor::default());
    };
    let mut b = Redactor::builder().personal_data(o["personal_data"].as_bool().unwrap_or(false));
    for rule in o["rules"].as_array().into_iter().flatten() {
        let name = rule[0].as_str().expect("rule name");
        let pattern = rule[1].as_str().expect("rule pattern");
        b = b.rule(name, pattern);
    }
    b.build().map_err(|e| e.code().to_owned())
}

/// Output bytes and findings of one op.
fn run(r: &Redactor, op: &str, input: &[u8], path: &str) -> (Vec<u8>, Vec<Finding>) {
    match op {
        "text" | "json" => {
            let text = std::str::from_utf8(input).expect("text input is UTF-8");
            let out = if op == "text" {
                r.redact_text_with_findings(text)
            } else {
                r.redact_json_with_findings(text)
            };
            (out.output.as_bytes().to_vec(), out.findings)
        }
        "blob" => {
            let out = r.redact_blob_with_findings(path, input);
            (out.output.to_vec(), out.findings)
        }
        other => panic!("unknown op {other}"),
    }
}

#[test]
fn redact_vectors() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/redact.json");
    let text = std::fs::read_to_string(&file).expect("tests/vectors/redact.json");
    let doc: Value = serde_json::from_str(&text).expect("valid JSON");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let mut failures = Vec::new();
    let mut names = std::collections::HashSet::new();
    for c in cases {
        let name = c["name"].as_str().expect("name");
        assert!(names.insert(name), "duplicate case {name}");
        let op = c["op"].as_str().expect("op");
        let input = match (c["input"].as_str(), c["input_b64"].as_str()) {
            (Some(s), _) => s.as_bytes().to_vec(),
            (None, Some(b)) => b64(b),
            _ => panic!("{name}: no input"),
        };
        let path = c["path"].as_str().unwrap_or("");
        let r = match redactor(c.get("options")) {
            Ok(r) => r,
            Err(code) => {
                if c["expect_error"].as_str() != Some(code.as_str()) {
                    failures.push(format!("{name}: unexpected error {code}"));
                }
                continue;
            }
        };
        if let Some(code) = c["expect_error"].as_str() {
            failures.push(format!("{name}: expected error {code}, built fine"));
            continue;
        }
        let expect = match (c["expect"].as_str(), c["expect_b64"].as_str()) {
            (Some(s), _) => s.as_bytes().to_vec(),
            (None, Some(b)) => b64(b),
            _ => panic!("{name}: no expectation"),
        };
        let (out, findings) = run(&r, op, &input, path);
        if out != expect {
            failures.push(format!(
                "{name}: got {:?}, expected {:?}",
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&expect)
            ));
            continue;
        }
        if let Some(ef) = c["expect_findings"].as_array() {
            let want: Vec<(String, u64, u64)> = ef
                .iter()
                .map(|f| {
                    (
                        f["rule"].as_str().expect("rule").to_owned(),
                        f["start"].as_u64().expect("start"),
                        f["end"].as_u64().expect("end"),
                    )
                })
                .collect();
            let got: Vec<(String, u64, u64)> = findings
                .iter()
                .map(|f| (f.rule.clone(), f.start as u64, f.end as u64))
                .collect();
            if got != want {
                failures.push(format!("{name}: findings {got:?}, expected {want:?}"));
            }
        }
        let (again, more) = run(&r, op, &out, path);
        if again != out || !more.is_empty() {
            failures.push(format!(
                "{name}: not idempotent: {:?}",
                String::from_utf8_lossy(&again)
            ));
        }
    }
    println!(
        "redact vectors: {} passed, {} failed",
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
