//! Plays tests/vectors/fs_*.json against the in-memory root and a real temp dir.
//!
//! Case format: tests/vectors/README.md. A `folding` case plays on a
//! [`FoldingRoot`] over the in-memory root, and on a real directory only on
//! the folding mount that tests/casefold/run names in
//! `AGENT_CHECKPOINT_CASEFOLD_DIR` (skipped, and counted, without it).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a failing test"
)]

mod common;

use std::collections::BTreeMap;

use agent_checkpoint::root::{FoldingRoot, MemNode, Root};
use agent_checkpoint::{
    capture, snapshot_paths, CapRoot, CaptureOptions, MemRoot, ParseOptions, RecordOptions,
    RelPath, RollbackOptions, SealKey, Snapshot,
};
use base64::Engine as _;
use serde_json::Value;

use common::{expected_failures, load_cases, Tree, TreeNode};

const MEM_ABSOLUTE: &str = "/virtual/root";

/// A fresh root of one kind, filled with a tree.
trait Harness {
    fn name(&self) -> &'static str;
    fn play(&self, case: &Value) -> Result<(), String>;
    /// Why this harness cannot play `case` here, if it cannot.
    fn skip(&self, _case: &Value) -> Option<&'static str> {
        None
    }
}

/// Whether `case` plays on a root that folds names.
fn folding(case: &Value) -> bool {
    case["folding"].as_bool() == Some(true)
}

/// The folding mount of tests/casefold/run, when it runs this test.
fn folding_mount() -> Option<std::path::PathBuf> {
    std::env::var_os("AGENT_CHECKPOINT_CASEFOLD_DIR").map(Into::into)
}

struct Mem;
struct Native;

impl Harness for Mem {
    fn name(&self) -> &'static str {
        "rust-mem"
    }
    fn play(&self, case: &Value) -> Result<(), String> {
        let root = MemRoot::with_absolute_path(MEM_ABSOLUTE);
        for (path, node) in Tree::from_case(case, "tree")?.nodes {
            let rel = RelPath::try_from(path.as_str()).map_err(|e| e.to_string())?;
            root.insert(&rel, mem_node(&node));
        }
        if folding(case) {
            let folding = FoldingRoot::new(root);
            return play(case, &folding, MEM_ABSOLUTE, &|| mem_tree(folding.inner()));
        }
        play(case, &root, MEM_ABSOLUTE, &|| mem_tree(&root))
    }
}

impl Harness for Native {
    fn name(&self) -> &'static str {
        if cfg!(windows) {
            "rust-windows"
        } else {
            "rust-native"
        }
    }
    fn skip(&self, case: &Value) -> Option<&'static str> {
        (folding(case) && folding_mount().is_none())
            .then_some("a folding case needs the mount of tests/casefold/run")
    }
    fn play(&self, case: &Value) -> Result<(), String> {
        let tmp = match folding_mount().filter(|_| folding(case)) {
            Some(mount) => tempfile::tempdir_in(mount),
            None => tempfile::tempdir(),
        }
        .map_err(|e| e.to_string())?;
        let dir = tmp.path().join("root");
        std::fs::create_dir(&dir).map_err(|e| e.to_string())?;
        for (path, node) in Tree::from_case(case, "tree")?.nodes {
            common::write_native(&dir, &path, &node)?;
        }
        let root = CapRoot::open(&dir, agent_checkpoint::root::ambient_authority())
            .map_err(|e| e.to_string())?;
        let abs = dir.to_str().ok_or("temp dir is not UTF-8")?.to_owned();
        play(case, &root, &abs, &|| common::read_native(&dir))
    }
}

fn mem_node(node: &TreeNode) -> MemNode {
    match node {
        TreeNode::File { bytes, mode } => MemNode::File {
            bytes: bytes.clone(),
            mode: *mode,
        },
        TreeNode::Dir => MemNode::Dir,
        TreeNode::Link(t) => MemNode::Symlink(t.clone()),
        TreeNode::Special => MemNode::Other,
    }
}

fn mem_tree(root: &MemRoot) -> Result<BTreeMap<String, TreeNode>, String> {
    Ok(root
        .entries()
        .into_iter()
        .map(|(k, v)| {
            let node = match v {
                MemNode::File { bytes, mode } => TreeNode::File { bytes, mode },
                MemNode::Dir => TreeNode::Dir,
                MemNode::Symlink(t) => TreeNode::Link(t),
                MemNode::Other => TreeNode::Special,
            };
            (k, node)
        })
        .collect())
}

fn substitute(s: &str, abs: &str) -> String {
    s.replace("$ROOT", abs)
}

fn play<R: Root>(
    case: &Value,
    root: &R,
    abs: &str,
    read_tree: &dyn Fn() -> Result<BTreeMap<String, TreeNode>, String>,
) -> Result<(), String> {
    let op = case["op"].as_str().ok_or("case without op")?;
    let before = read_tree()?;
    let snapshot = match op {
        "capture_then_rollback" | "capture" => {
            let paths: Vec<String> = case["paths"]
                .as_array()
                .ok_or("paths must be a list")?
                .iter()
                .map(|p| {
                    p.as_str()
                        .map(|s| substitute(s, abs))
                        .ok_or("path must be a string")
                })
                .collect::<Result<_, _>>()?;
            let mut options = CaptureOptions::default()
                .with_allow_git_dir(
                    case["capture_options"]["allow_git_dir"]
                        .as_bool()
                        .unwrap_or(false),
                )
                .with_key(key_of(&case["capture_options"])?);
            if let Some(max) = case["capture_options"]["max_file_bytes"].as_u64() {
                options = options.with_max_file_bytes(max);
            }
            match (
                capture(root, &paths, &options),
                case.get("expect_capture_error"),
            ) {
                (Err(e), Some(code)) => {
                    common::check_eq(
                        "capture error code",
                        code.as_str().unwrap_or(""),
                        e.code().as_str(),
                    )?;
                    return common::check_tree(&before, &read_tree()?);
                }
                (Err(e), None) => return Err(format!("capture failed: {e} ({})", e.code())),
                (Ok(s), Some(code)) => {
                    return Err(format!("capture should fail with {code}, gave {s}"))
                }
                (Ok(s), None) => s.into_string(),
            }
        }
        "rollback" => match &case["snapshot"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        },
        "snapshot_paths" => {
            let text = case["snapshot"]
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| case["snapshot"].to_string());
            let got = snapshot_paths(&text);
            let want: Vec<String> =
                serde_json::from_value(case["expect"].clone()).map_err(|e| e.to_string())?;
            return common::check_eq("paths", &want, &got);
        }
        "inspect_snapshot" => {
            let text = case["snapshot"]
                .as_str()
                .ok_or("snapshot must be a string")?;
            return match (
                agent_checkpoint::inspect_snapshot(text),
                case.get("expect_error"),
            ) {
                (Ok(items), None) => {
                    let got: Vec<Value> = items
                        .iter()
                        .map(|i| {
                            serde_json::json!({"path": i.path, "kind": i.kind.as_str(), "size": i.size,
                                "mode": i.mode, "link_target": i.link_target, "digest": i.digest})
                        })
                        .collect();
                    common::check_eq("inspect", &case["expect"], &Value::Array(got))
                }
                (Err(e), Some(code)) => {
                    common::check_eq("error code", code.as_str().unwrap_or(""), e.code().as_str())
                }
                (Ok(items), Some(code)) => Err(format!("expected {code}, got {items:?}")),
                (Err(e), None) => Err(format!("unexpected error {e}")),
            };
        }
        other => return Err(format!("unknown op {other}")),
    };
    if let Some(want) = case.get("expect_paths") {
        let want: Vec<String> = serde_json::from_value(want.clone()).map_err(|e| e.to_string())?;
        common::check_eq("snapshot_paths", &want, &snapshot_paths(&snapshot))?;
    }
    if let Some(want) = case.get("expect_snapshot") {
        let got: Value = serde_json::from_str(&snapshot).map_err(|e| e.to_string())?;
        common::check_eq("snapshot", want, &got)?;
    }
    if let Some(want) = case.get("expect_skipped") {
        let parsed =
            Snapshot::parse(&snapshot, &ParseOptions::default()).map_err(|e| e.to_string())?;
        let got: BTreeMap<String, u64> = parsed
            .skipped()
            .map(|(p, size)| (p.to_string(), size))
            .collect();
        let want: BTreeMap<String, u64> =
            serde_json::from_value(want.clone()).map_err(|e| e.to_string())?;
        common::check_eq("skipped", &want, &got)?;
    }
    if let Some(want) = case.get("expect_snapshot_text").and_then(Value::as_str) {
        // `$ROOT` stands in JSON text: the path goes in escaped (`\\` on Windows).
        let canonical = serde_json::to_string(&root.canonical_path().unwrap_or_default())
            .map_err(|e| e.to_string())?;
        let canonical = canonical.trim_matches('"');
        common::check_eq("snapshot text", &substitute(want, canonical), &snapshot)?;
    }
    if op == "capture" {
        return common::check_tree(&before, &read_tree()?);
    }
    for step in case["mutate"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        mutate(root, step)?;
    }
    let mut snapshot = snapshot;
    if let Some(tamper) = case["tamper"].as_array() {
        let from = tamper[0].as_str().ok_or("tamper needs [from, to]")?;
        let to = tamper[1].as_str().ok_or("tamper needs [from, to]")?;
        assert!(
            snapshot.contains(from),
            "tamper: {from:?} not in {snapshot}"
        );
        snapshot = snapshot.replacen(from, to, 1);
    }
    let (parse, options) = rollback_options(&case["rollback_options"])?;
    if case["record_applied"].as_bool() == Some(true) {
        let key = key_of(&case["rollback_options"])?;
        let recorded = Snapshot::parse(&snapshot, &parse.clone().with_key(None)).and_then(|s| {
            agent_checkpoint::record_applied(root, &s, &RecordOptions::default().with_key(key))
        });
        match (recorded, case.get("expect_record_error")) {
            (Ok(s), None) => snapshot = s.into_string(),
            (Err(e), Some(code)) => {
                return common::check_eq(
                    "record_applied error",
                    code.as_str().unwrap_or(""),
                    e.code().as_str(),
                )
            }
            (Ok(_), Some(code)) => return Err(format!("record_applied should fail with {code}")),
            (Err(e), None) => return Err(format!("record_applied failed: {e}")),
        }
    }
    for step in case["human_edits"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        mutate(root, step)?;
    }
    let plan_options = options.plan_options().with_diff(diff_options(
        &case["diff_options"],
        case.get("expect_diff"),
    )?);
    let plan = Snapshot::parse(&snapshot, &parse)
        .and_then(|s| agent_checkpoint::plan_rollback(root, &s, &plan_options));
    if let Some(want) = case.get("expect_plan") {
        match (&plan, want.as_str()) {
            (Err(e), Some(code)) => common::check_eq("plan error", code, e.code().as_str())?,
            (Err(e), None) => return Err(format!("plan failed: {e}")),
            (Ok(plan), _) => common::check_eq("plan", want, &plan_json(plan))?,
        }
    }
    if let (Some(want), Ok(plan)) = (case.get("expect_diff"), &plan) {
        common::check_eq("diffs", want, &diffs_json(plan))?;
    }
    let passes = case["rollback_times"].as_u64().unwrap_or(1);
    let mutated = read_tree()?;
    let mut report = common::rollback_text_with(root, &snapshot, &parse, &options);
    // The plan is a contract: the rollback carried out exactly that plan.
    if let (Ok(plan), true) = (&plan, report.valid()) {
        common::check_eq(
            "plan carried out",
            &plan_json(plan),
            &plan_json(&report.plan),
        )?;
    }
    for _ in 1..passes {
        report = common::rollback_text_with(root, &snapshot, &parse, &options);
    }
    if case["check_redo"].as_bool() == Some(true) {
        let redo = report.redo_text().ok_or("no redo snapshot")?;
        let again = common::rollback_text_with(root, &redo, &parse, &options);
        if !again.ok() {
            return Err(format!(
                "rolling back the redo failed: {:?} {:?}",
                again.unrestored, again.error
            ));
        }
        common::check_tree(&mutated, &read_tree()?).map_err(|e| format!("after redo: {e}"))?;
        let _ = common::rollback_text_with(root, &snapshot, &parse, &options);
    }
    check_report(case, &report)?;
    let expected = match case.get("expect_tree") {
        Some(_) => Tree::from_case(case, "expect_tree")?.with_parents(),
        None if !report.valid() => mutated,
        None => return Err("case without expect_tree".into()),
    };
    common::check_tree(&expected, &read_tree()?)
}

fn key_of(options: &Value) -> Result<Option<SealKey>, String> {
    options["key"]
        .as_str()
        .map(|k| SealKey::try_from(k).map_err(|e| e.to_string()))
        .transpose()
}

/// The plan as the vectors spell it: `{path, action, conflict}`, plus the
/// `code` of a refused path.
fn plan_json(plan: &agent_checkpoint::Plan) -> Value {
    Value::Array(
        plan.items
            .iter()
            .map(|i| {
                let mut item = serde_json::json!({
                    "path": i.path, "action": i.action.as_str(), "conflict": i.conflict
                });
                if let Some(code) = i.code {
                    item["code"] = Value::from(code.as_str());
                }
                item
            })
            .collect(),
    )
}

/// The diff options of a case that expects diffs (`None` otherwise).
fn diff_options(
    v: &Value,
    expect: Option<&Value>,
) -> Result<Option<agent_checkpoint::DiffOptions>, String> {
    if expect.is_none() {
        return Ok(None);
    }
    let mut options = agent_checkpoint::DiffOptions::default();
    if let Some(context) = v["context"].as_u64() {
        options = options.with_context(usize::try_from(context).map_err(|e| e.to_string())?);
    }
    if let Some(max) = v["max_bytes"].as_u64() {
        options = options.with_max_bytes(max);
    }
    Ok(Some(options))
}

/// The plan's diffs as the vectors spell them: path -> `{summary, text?}`,
/// after checking the hunks say what the text says.
fn diffs_json(plan: &agent_checkpoint::Plan) -> Value {
    let mut out = serde_json::Map::new();
    for item in &plan.items {
        let Some(diff) = &item.diff else { continue };
        let mut entry = serde_json::json!({ "summary": diff.summary });
        if let Some(text) = &diff.text {
            entry["text"] = Value::from(text.as_str());
            assert_eq!(
                hunks_text(diff),
                text.lines()
                    .skip(2)
                    .collect::<Vec<_>>()
                    .join("\n")
                    .replace("\r", "")
                    .replace("\n\\ No newline at end of file", ""),
                "{}: hunks",
                item.path
            );
        }
        out.insert(item.path.clone(), entry);
    }
    Value::Object(out)
}

/// The hunks written back as unified-diff lines (without headers and
/// without the no-newline markers), to compare with the text.
fn hunks_text(diff: &agent_checkpoint::PathDiff) -> String {
    let mut lines = Vec::new();
    for h in &diff.hunks {
        let range = |start: usize, n: usize| {
            if n == 1 {
                start.to_string()
            } else {
                format!("{start},{n}")
            }
        };
        lines.push(format!(
            "@@ -{} +{} @@",
            range(h.old_start, h.old_lines),
            range(h.new_start, h.new_lines)
        ));
        let (mut old, mut new) = (h.old_start.max(1), h.new_start.max(1));
        for l in &h.lines {
            assert_eq!(
                l.old_line,
                (l.kind != agent_checkpoint::DiffLineKind::Added).then_some(old)
            );
            assert_eq!(
                l.new_line,
                (l.kind != agent_checkpoint::DiffLineKind::Removed).then_some(new)
            );
            old += usize::from(l.old_line.is_some());
            new += usize::from(l.new_line.is_some());
            lines.push(format!("{}{}", l.kind.marker(), l.text));
        }
    }
    lines.join("\n")
}

fn rollback_options(v: &Value) -> Result<(ParseOptions, RollbackOptions), String> {
    let key = key_of(v)?;
    let parse = ParseOptions::default()
        .with_allow_git_dir(v["allow_git_dir"].as_bool().unwrap_or(false))
        .with_key(key.clone());
    let mut options = RollbackOptions::default()
        .with_durable(v["durable"].as_bool().unwrap_or(true))
        .with_redo(v["redo"].as_bool().unwrap_or(true))
        .with_restore_setid(v["restore_setid"].as_bool().unwrap_or(false))
        .with_strict_root(v["strict_root"].as_bool().unwrap_or(false))
        .with_key(key);
    if let Some(name) = v["on_conflict"].as_str() {
        options = options.with_on_conflict(
            agent_checkpoint::OnConflict::from_name(name).ok_or("bad on_conflict")?,
        );
    }
    if let Some(max) = v["max_file_bytes"].as_u64() {
        options = options.with_max_file_bytes(max);
    }
    Ok((parse, options))
}

fn check_report(case: &Value, report: &common::TextReport) -> Result<(), String> {
    let want = &case["expect_report"];
    if let Some(ok) = want["ok"].as_bool() {
        common::check_eq(
            &format!(
                "ok (unrestored: {:?}, error: {:?})",
                report.unrestored,
                report.error.as_ref().map(ToString::to_string)
            ),
            &ok,
            &report.ok(),
        )?;
    }
    if let Some(valid) = want["valid"].as_bool() {
        common::check_eq("valid", &valid, &report.valid())?;
    }
    if let Some(code) = want.get("error_code") {
        let got = report.error_code().map(|c| c.as_str().to_owned());
        common::check_eq("error_code", &code.as_str().map(str::to_owned), &got)?;
    }
    if let Some(restored) = want.get("restored") {
        let want: Vec<String> =
            serde_json::from_value(restored.clone()).map_err(|e| e.to_string())?;
        common::check_eq("restored", &want, &report.restored)?;
    }
    if let Some(conflicts) = want.get("conflicts") {
        let want: Vec<String> =
            serde_json::from_value(conflicts.clone()).map_err(|e| e.to_string())?;
        common::check_eq("conflicts", &want, &report.conflicts)?;
    }
    if let Some(codes) = want.get("unrestored_codes") {
        let got: Value = report
            .unrestored
            .iter()
            .map(|u| (u.path.clone(), Value::from(u.code.as_str())))
            .collect::<serde_json::Map<_, _>>()
            .into();
        common::check_eq("unrestored codes", codes, &got)?;
    }
    if let Some(paths) = want.get("not_covered") {
        let want: Vec<String> = serde_json::from_value(paths.clone()).map_err(|e| e.to_string())?;
        let got: Vec<String> = report.not_covered.iter().map(|n| n.path.clone()).collect();
        common::check_eq("not_covered", &want, &got)?;
    }
    if let Some(paths) = want.get("not_in_redo") {
        let want: Vec<String> = serde_json::from_value(paths.clone()).map_err(|e| e.to_string())?;
        let got: Vec<String> = report.not_in_redo.iter().map(|n| n.path.clone()).collect();
        common::check_eq("not_in_redo", &want, &got)?;
    }
    if let Some(other) = want.get("other_root") {
        let got = report.other_root().map(Value::from);
        common::check_eq(
            "other_root",
            &Some(other.clone()),
            &got.or(Some(Value::Null)),
        )?;
    }
    if let Some(has_redo) = want.get("has_redo").and_then(Value::as_bool) {
        common::check_eq("has redo", &has_redo, &report.redo.is_some())?;
    }
    if let Some(unrestored) = want.get("unrestored") {
        let want: Vec<String> =
            serde_json::from_value(unrestored.clone()).map_err(|e| e.to_string())?;
        let got: Vec<String> = report.unrestored.iter().map(|u| u.path.clone()).collect();
        common::check_eq("unrestored", &want, &got)?;
    }
    Ok(())
}

fn mutate<R: Root>(root: &R, step: &Value) -> Result<(), String> {
    let rel = |key: &str| -> Result<RelPath, String> {
        RelPath::try_from(
            step[key]
                .as_str()
                .ok_or(format!("{key} must be a string"))?,
        )
        .map_err(|e| e.to_string())
    };
    let ensure_parents = |p: &RelPath| -> Result<(), String> {
        for dir in p.ancestors() {
            if root.metadata(&dir).map_err(|e| e.to_string())?.is_none() {
                root.create_dir(&dir).map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    };
    let result = if step.get("write").is_some() {
        let p = rel("write")?;
        ensure_parents(&p)?;
        let node = TreeNode::from_json(step)?;
        let TreeNode::File { bytes, mode } = node else {
            return Err("write needs text or b64".into());
        };
        root.write_file(&p, &bytes, &common::write_options(mode))
    } else if step.get("delete").is_some() {
        root.remove_file(&rel("delete")?, Default::default())
    } else if step.get("rmdir").is_some() {
        root.remove_dir(&rel("rmdir")?)
    } else if step.get("mkdir").is_some() {
        let p = rel("mkdir")?;
        ensure_parents(&p)?;
        root.create_dir(&p)
    } else if step.get("symlink").is_some() {
        let p = rel("symlink")?;
        ensure_parents(&p)?;
        let target = step["target"].as_str().ok_or("symlink needs a target")?;
        root.write_link(&p, target, &common::write_options(0o777))
    } else {
        return Err(format!("unknown mutation {step}"));
    };
    result.map_err(|e| format!("mutation {step} failed: {e}"))
}

#[test]
fn fs_vectors() {
    let cases = load_cases("fs_");
    assert!(cases.len() >= 40, "only {} fs vectors", cases.len());
    let harnesses: [&dyn Harness; 2] = [&Mem, &Native];
    let mut failures = Vec::new();
    let mut passed = 0;
    let mut skipped = Vec::new();
    let windows = common::windows::expectations();
    for harness in harnesses {
        let expected = expected_failures(harness.name());
        for case in &cases {
            let name = case["name"].as_str().unwrap_or("?");
            if let Some(why) = harness.skip(case) {
                skipped.push(format!("[{}] {name}: {why}", harness.name()));
                continue;
            }
            let result = harness.play(case);
            if harness.name() == "rust-windows" {
                match common::windows::check(&windows, name, result) {
                    Ok(()) => passed += 1,
                    Err(e) => failures.push(format!("[rust-windows] {name}: {e}")),
                }
                continue;
            }
            match (result, expected.contains(name)) {
                (Ok(()), false) => passed += 1,
                (Err(_), true) => passed += 1,
                (Ok(()), true) => failures.push(format!(
                    "[{}] {name}: listed as an expected failure but passed",
                    harness.name()
                )),
                (Err(e), false) => failures.push(format!("[{}] {name}: {e}", harness.name())),
            }
        }
    }
    // Checked on every platform: a renamed case leaves no stale Windows line.
    failures.extend(common::windows::unknown_names(&windows, &cases));
    for skip in &skipped {
        println!("skipped: {skip}");
    }
    println!(
        "fs vectors: {passed} passed, {} failed, {} skipped",
        failures.len(),
        skipped.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn base64_of_vectors_is_standard() {
    // Guards the vector files themselves: every b64 field decodes strictly.
    for case in load_cases("fs_") {
        let text = case.to_string();
        for (i, _) in text.match_indices("\"b64\":\"") {
            let rest = &text[i + 7..];
            let end = rest.find('"').unwrap_or(0);
            base64::engine::general_purpose::STANDARD
                .decode(&rest[..end])
                .unwrap();
        }
    }
}

#[test]
fn the_windows_column_fails_stale_and_wrong_expectations() {
    use common::windows::{check, Expectation};
    let listed: BTreeMap<String, Expectation> = [(
        "a/case".to_owned(),
        Expectation {
            outcome: "setup".to_owned(),
            reason: "no links".to_owned(),
        },
    )]
    .into();
    let setup_failure = || Err("setup: no link made".to_owned());
    assert!(check(&listed, "a/case", setup_failure()).is_ok());
    // Listed, but passes as on POSIX: a stale line.
    assert!(check(&listed, "a/case", Ok(())).is_err());
    // Listed, but ends another way.
    assert!(check(&listed, "a/case", Err("plan: differs".to_owned())).is_err());
    // Not listed: as on POSIX.
    assert!(check(&listed, "other", Ok(())).is_ok());
    assert!(check(&listed, "other", setup_failure()).is_err());
    // Every line of the file names a case and has a reason.
    let all = load_cases("fs_");
    assert!(common::windows::unknown_names(&common::windows::expectations(), &all).is_empty());
    let stale = common::windows::unknown_names(&listed, &all);
    assert_eq!(stale.len(), 1, "{stale:?}");
}
