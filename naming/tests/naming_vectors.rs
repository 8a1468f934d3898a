//! Plays every case of `tests/vectors/naming_*.json` against the core.
//!
//! Each file is `{"cases": [...]}`; a case is `{"name", "op", "args",
//! "expect"}` or `{"name", "op", "args", "expect_error": "<code>"}`. Cases
//! listed for target `rust` in `tests/vectors/expected_failures.txt` must
//! fail; a listed case that passes fails the run.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use agent_checkpoint::Error;
use agent_checkpoint_naming::{id, prompts, refs};
use serde_json::{json, Value};

const TARGET: &str = "rust";

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

struct Case {
    file: String,
    name: String,
    op: String,
    args: Vec<Value>,
    expected: Result<Value, String>,
}

fn load_cases() -> Vec<Case> {
    let mut files: Vec<PathBuf> = fs::read_dir(vectors_dir())
        .expect("tests/vectors exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with("naming_") && name.ends_with(".json")
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no naming_*.json vectors found");
    files.iter().flat_map(|p| load_file(p)).collect()
}

fn load_file(path: &Path) -> Vec<Case> {
    let file = path
        .file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned();
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let cases = doc["cases"]
        .as_array()
        .unwrap_or_else(|| panic!("{file}: no cases array"));
    cases.iter().map(|c| parse_case(&file, c)).collect()
}

fn parse_case(file: &str, c: &Value) -> Case {
    let name = c["name"]
        .as_str()
        .unwrap_or_else(|| panic!("{file}: case without name: {c}"));
    let field = |key: &str| c.get(key).cloned();
    let expected = match (field("expect"), field("expect_error")) {
        (Some(v), None) => Ok(v),
        (None, Some(Value::String(code))) => Err(code),
        _ => panic!("{file}: {name}: needs exactly one of expect / expect_error (a string)"),
    };
    Case {
        file: file.to_owned(),
        name: name.to_owned(),
        op: c["op"]
            .as_str()
            .unwrap_or_else(|| panic!("{file}: {name}: no op"))
            .to_owned(),
        args: c["args"]
            .as_array()
            .unwrap_or_else(|| panic!("{file}: {name}: no args"))
            .clone(),
        expected,
    }
}

fn str_arg(args: &[Value], i: usize) -> Result<&str, String> {
    args.get(i)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("argument {i} must be a string"))
}

fn list_arg(args: &[Value], i: usize) -> Result<Vec<String>, String> {
    let list = args
        .get(i)
        .and_then(Value::as_array)
        .ok_or("argument must be a list")?;
    list.iter()
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| "list items must be strings".into())
        })
        .collect()
}

/// `Ok(Ok(value))`, `Ok(Err(error code))`, or `Err(why the case is broken)`.
fn play(op: &str, args: &[Value]) -> Result<Result<Value, String>, String> {
    let code = |e: Error| e.code().as_str().to_owned();
    let s = || str_arg(args, 0);
    Ok(match op {
        "checkpoint_id_kind" => Ok(json!(id::checkpoint_id_kind(s()?).as_str())),
        "validate_checkpoint_id" => id::validate_checkpoint_id(s()?)
            .map(|v| json!(v.as_str()))
            .map_err(code),
        "shard_for" => Ok(json!(id::shard_for(s()?))),
        "checkpoint_path" => Ok(json!(id::checkpoint_path(s()?))),
        "display_short" => Ok(json!(id::display_short(s()?))),
        "ulid_timestamp_ms" => Ok(json!(id::ulid_timestamp_ms(s()?))),
        "ref_name" => refs::ref_name(s()?).map(|v| json!(v)).map_err(code),
        "parse_ref" => Ok(json!(refs::parse_ref(s()?))),
        "shadow_branch_name" => refs::shadow_branch_name(s()?, str_arg(args, 1)?)
            .map(|v| json!(v))
            .map_err(code),
        "parse_shadow_branch_name" => Ok(match refs::parse_shadow_branch_name(s()?) {
            Some(b) => json!({"commit_prefix": b.commit_prefix, "worktree_hash": b.worktree_hash}),
            None => Value::Null,
        }),
        "hash_worktree_id" => Ok(json!(refs::hash_worktree_id(s()?))),
        "is_shadow_branch" => Ok(json!(refs::is_shadow_branch(s()?))),
        "split_prompts" => Ok(json!(prompts::split_prompts(s()?))),
        "join_prompts" => Ok(json!(prompts::join_prompts(&list_arg(args, 0)?))),
        other => return Err(format!("unknown op {other:?}")),
    })
}

/// Why the case failed, or `None` if it passed.
fn check(case: &Case) -> Option<String> {
    let actual = match play(&case.op, &case.args) {
        Ok(actual) => actual,
        Err(broken) => return Some(format!("broken case: {broken}")),
    };
    if actual == case.expected {
        return None;
    }
    let show = |r: &Result<Value, String>| match r {
        Ok(v) => v.to_string(),
        Err(code) => format!("error {code}"),
    };
    Some(format!(
        "{}({}) gave {}, expected {}",
        case.op,
        Value::Array(case.args.clone()),
        show(&actual),
        show(&case.expected)
    ))
}

/// Case names this runner is expected to fail, from `expected_failures.txt`
/// (`<target> <case-name>  # reason`, whitespace-separated).
fn expected_failures() -> HashSet<String> {
    let Ok(text) = fs::read_to_string(vectors_dir().join("expected_failures.txt")) else {
        return HashSet::new();
    };
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default())
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some(TARGET), Some(name)) => Some(name.to_owned()),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn naming_vectors() {
    let cases = load_cases();
    let mut names = BTreeSet::new();
    for case in &cases {
        assert!(
            names.insert(case.name.as_str()),
            "duplicate case name {}",
            case.name
        );
    }
    let allowed = expected_failures();
    let (mut passed, mut expected_failed) = (0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let outcome = check(case);
        let listed = allowed.contains(&case.name);
        match (outcome, listed) {
            (None, false) => passed += 1,
            (Some(_), true) => expected_failed += 1,
            (None, true) => failures.push(format!(
                "{}: {}: listed in expected_failures.txt but passed",
                case.file, case.name
            )),
            (Some(why), false) => failures.push(format!("{}: {}: {why}", case.file, case.name)),
        }
    }
    // Expected failures count as skipped in the closing line CI reads.
    println!(
        "naming_vectors: {passed} passed, {} failed, {expected_failed} skipped",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "failing vector cases:\n{}",
        failures.join("\n")
    );
}
