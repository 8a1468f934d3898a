//! Plays the shared vectors (tests/vectors) through the component in wasmtime.
//!
//! Each filesystem case gets a fresh temp directory, preopened as `/sandbox`
//! in a fresh instance; `$ROOT` is that guest path. A port of
//! core/tests/fs_vectors.rs and core/tests/naming_vectors.rs; cases listed for
//! `component-rust` in expected_failures.txt must fail.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use std::path::{Path, PathBuf};

use agent_checkpoint_component_host::{
    action_name, line_kind_name, snake_code, CaptureOptions, CapturedKind, CheckpointError,
    ComponentHost, DiffLineKind, DiffOptions, IdKind, Instance, OnConflict, PathDiff, PlanItem,
    PlanOptions, RecordAppliedOptions, RollbackOptions, RollbackReport,
};
use serde_json::{json, Value};

use common::{check_eq, check_tree, expected_failures, load_cases, Tree, TreeNode};

const TARGET: &str = "component-rust";
const GUEST: &str = "/sandbox";

/// The component under test: `CHECKPOINT_COMPONENT_WASM`, or the debug build.
fn wasm_path() -> PathBuf {
    std::env::var_os("CHECKPOINT_COMPONENT_WASM").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../../target/wasm32-wasip2/debug/agent_checkpoint_component.wasm")
        },
        PathBuf::from,
    )
}

type Outcome<T> = Result<T, String>;

/// A call's value, or its WIT error as `Err(snake_case code)`; a trap fails the case.
fn wit<T>(result: wasmtime::Result<Result<T, CheckpointError>>) -> Outcome<Result<T, String>> {
    match result {
        Ok(Ok(v)) => Ok(Ok(v)),
        Ok(Err(e)) => Ok(Err(snake_code(e.code).to_owned())),
        Err(trap) => Err(format!("trap: {trap:#}")),
    }
}

fn trap<T>(result: wasmtime::Result<T>) -> Outcome<T> {
    result.map_err(|e| format!("trap: {e:#}"))
}

/// A sealing key as the vectors give it: a UTF-8 string.
fn key_of(options: &Value) -> Option<Vec<u8>> {
    options["key"].as_str().map(|k| k.as_bytes().to_vec())
}

fn rollback_options(v: &Value) -> Outcome<RollbackOptions> {
    let on_conflict = match v["on_conflict"].as_str() {
        None | Some("overwrite") => OnConflict::Overwrite,
        Some("skip") => OnConflict::Skip,
        Some(other) => return Err(format!("bad on_conflict {other:?}")),
    };
    Ok(RollbackOptions {
        durable: v["durable"].as_bool().unwrap_or(true),
        allow_git_dir: v["allow_git_dir"].as_bool().unwrap_or(false),
        on_conflict,
        key: key_of(v),
        redo: v["redo"].as_bool().unwrap_or(true),
        restore_setid: v["restore_setid"].as_bool().unwrap_or(false),
        strict_root: v["strict_root"].as_bool().unwrap_or(false),
        max_file_bytes: v["max_file_bytes"].as_u64(),
    })
}

/// The rollback options a plan takes (`durable`, `redo` and `max_file_bytes`
/// change nothing in one), with diffs when the case expects them.
fn plan_options(options: &RollbackOptions, case: &Value) -> Outcome<PlanOptions> {
    let diff = match case.get("expect_diff") {
        None => None,
        Some(_) => {
            let v = &case["diff_options"];
            Some(DiffOptions {
                context: v["context"]
                    .as_u64()
                    .map_or(Ok(3), u32::try_from)
                    .map_err(|e| e.to_string())?,
                max_bytes: v["max_bytes"].as_u64().unwrap_or(1 << 20),
            })
        }
    };
    Ok(PlanOptions {
        allow_git_dir: options.allow_git_dir,
        on_conflict: options.on_conflict,
        key: options.key.clone(),
        restore_setid: options.restore_setid,
        strict_root: options.strict_root,
        diff,
    })
}

/// The plan's diffs as the vectors spell them: path -> `{summary, text?}`
/// (text only when there are hunks), after checking the hunks say what the
/// text says.
fn diffs_json(items: &[PlanItem]) -> Outcome<Value> {
    let mut out = serde_json::Map::new();
    for item in items {
        let Some(diff) = &item.diff else { continue };
        let mut entry = json!({ "summary": diff.summary });
        if let Some(text) = &diff.text {
            let body = text.split('\n').collect::<Vec<_>>();
            let body = body[2.min(body.len())..body.len().saturating_sub(1)]
                .join("\n")
                .replace('\r', "")
                .replace("\n\\ No newline at end of file", "");
            check_eq(
                "hunks",
                &Value::from(body),
                &Value::from(hunks_text(&item.path, diff)?),
            )?;
            entry["text"] = Value::from(text.as_str());
        } else if !diff.hunks.is_empty() {
            return Err(format!("{}: hunks without a text", item.path));
        }
        out.insert(item.path.clone(), entry);
    }
    Ok(Value::Object(out))
}

/// The hunks written back as unified-diff lines (no headers, no no-newline
/// markers), checking each line's numbers on the way.
fn hunks_text(path: &str, diff: &PathDiff) -> Outcome<String> {
    let mut lines = Vec::new();
    let span = |start: u32, n: u32| {
        if n == 1 {
            start.to_string()
        } else {
            format!("{start},{n}")
        }
    };
    for h in &diff.hunks {
        lines.push(format!(
            "@@ -{} +{} @@",
            span(h.old_start, h.old_lines),
            span(h.new_start, h.new_lines)
        ));
        let (mut old, mut new) = (h.old_start.max(1), h.new_start.max(1));
        for l in &h.lines {
            let want_old = (l.kind != DiffLineKind::Added).then_some(old);
            let want_new = (l.kind != DiffLineKind::Removed).then_some(new);
            if (l.old_line, l.new_line) != (want_old, want_new) {
                return Err(format!("{path}: line numbers of {:?}", l.text));
            }
            old += u32::from(l.old_line.is_some());
            new += u32::from(l.new_line.is_some());
            let marker = match line_kind_name(l.kind) {
                "context" => ' ',
                "removed" => '-',
                _ => '+',
            };
            lines.push(format!("{marker}{}", l.text));
        }
    }
    Ok(lines.join("\n"))
}

/// A plan as the vectors spell it: `{path, action, conflict}`, plus the
/// `code` of a refused path.
fn plan_json(items: &[PlanItem]) -> Value {
    Value::Array(
        items
            .iter()
            .map(|i| {
                let mut item =
                    json!({"path": i.path, "action": action_name(i.action), "conflict": i.conflict});
                if let Some(code) = i.code {
                    item["code"] = Value::from(snake_code(code));
                }
                item
            })
            .collect(),
    )
}

fn snapshot_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn play_fs(host: &ComponentHost, case: &Value) -> Outcome<()> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = tmp.path().join("root");
    std::fs::create_dir(&dir).map_err(|e| e.to_string())?;
    for (path, node) in Tree::from_case(case, "tree")?.nodes {
        common::write_native(&dir, &path, &node)?;
    }
    let mut inst = host
        .instantiate(&dir, GUEST)
        .map_err(|e| format!("instantiate: {e:#}"))?;
    play(case, &mut inst, &dir)
}

fn play(case: &Value, inst: &mut Instance, dir: &Path) -> Outcome<()> {
    let op = case["op"].as_str().ok_or("case without op")?;
    let read_tree = || common::read_native(dir);
    let before = read_tree()?;
    let snapshot = match op {
        "capture_then_rollback" | "capture" => {
            let paths: Vec<String> = case["paths"]
                .as_array()
                .ok_or("paths must be a list")?
                .iter()
                .map(|p| {
                    p.as_str()
                        .map(|s| s.replace("$ROOT", GUEST))
                        .ok_or("path must be a string")
                })
                .collect::<Result<_, _>>()?;
            let options = CaptureOptions {
                allow_git_dir: case["capture_options"]["allow_git_dir"]
                    .as_bool()
                    .unwrap_or(false),
                max_file_bytes: case["capture_options"]["max_file_bytes"].as_u64(),
                key: key_of(&case["capture_options"]),
                record_root: case["capture_options"]["record_root"]
                    .as_bool()
                    .unwrap_or(true),
            };
            let got = wit(inst.call(|c, s| c.call_create_checkpoint(s, GUEST, &paths, &options)))?;
            match (got, case.get("expect_capture_error")) {
                (Err(code), Some(want)) => {
                    check_eq(
                        "capture error code",
                        want.as_str().unwrap_or(""),
                        code.as_str(),
                    )?;
                    return check_tree(&before, &read_tree()?);
                }
                (Err(code), None) => return Err(format!("capture failed: {code}")),
                (Ok(s), Some(code)) => {
                    return Err(format!("capture should fail with {code}, gave {s}"))
                }
                (Ok(s), None) => s,
            }
        }
        "rollback" => snapshot_text(&case["snapshot"]),
        "snapshot_paths" => {
            let text = snapshot_text(&case["snapshot"]);
            let got = trap(inst.call(|c, s| c.call_snapshot_paths(s, &text)))?;
            let want: Vec<String> =
                serde_json::from_value(case["expect"].clone()).map_err(|e| e.to_string())?;
            return check_eq("paths", &want, &got);
        }
        "inspect_snapshot" => {
            let text = snapshot_text(&case["snapshot"]);
            let got = wit(inst.call(|c, s| c.call_inspect_snapshot(s, &text)))?;
            return match (got, case.get("expect_error")) {
                (Ok(items), None) => {
                    let got: Vec<Value> = items
                        .iter()
                        .map(|i| {
                            let kind = match i.kind {
                                CapturedKind::File => "file",
                                CapturedKind::New => "new",
                                CapturedKind::Link => "link",
                            };
                            json!({"path": i.path, "kind": kind, "size": i.size, "mode": i.mode,
                                "link_target": i.link_target, "digest": i.digest})
                        })
                        .collect();
                    check_eq("inspect", &case["expect"], &Value::Array(got))
                }
                (Err(code), Some(want)) => {
                    check_eq("error code", want.as_str().unwrap_or(""), code.as_str())
                }
                (Ok(items), Some(code)) => {
                    Err(format!("expected {code}, got {} items", items.len()))
                }
                (Err(code), None) => Err(format!("unexpected error {code}")),
            };
        }
        other => return Err(format!("unknown op {other}")),
    };
    if let Some(want) = case.get("expect_paths") {
        let want: Vec<String> = serde_json::from_value(want.clone()).map_err(|e| e.to_string())?;
        let got = trap(inst.call(|c, s| c.call_snapshot_paths(s, &snapshot)))?;
        check_eq("snapshot_paths", &want, &got)?;
    }
    if let Some(want) = case.get("expect_snapshot") {
        let got: Value = serde_json::from_str(&snapshot).map_err(|e| e.to_string())?;
        check_eq("snapshot", want, &got)?;
    }
    if let Some(want) = case.get("expect_snapshot_text").and_then(Value::as_str) {
        // The root's canonical path as the component records it: the guest path.
        check_eq(
            "snapshot text",
            want.replace("$ROOT", GUEST).as_str(),
            snapshot.as_str(),
        )?;
    }
    if op == "capture" {
        return check_tree(&before, &read_tree()?);
    }
    for step in case["mutate"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        mutate(dir, step)?;
    }
    let mut snapshot = snapshot;
    if let Some(tamper) = case["tamper"].as_array() {
        let from = tamper[0].as_str().ok_or("tamper needs [from, to]")?;
        let to = tamper[1].as_str().ok_or("tamper needs [from, to]")?;
        if !snapshot.contains(from) {
            return Err(format!("tamper: {from:?} not in {snapshot}"));
        }
        snapshot = snapshot.replacen(from, to, 1);
    }
    let options = rollback_options(&case["rollback_options"])?;
    if case["record_applied"].as_bool() == Some(true) {
        let record = RecordAppliedOptions {
            allow_git_dir: options.allow_git_dir,
            key: options.key.clone(),
        };
        let got = wit(inst.call(|c, s| c.call_record_applied(s, GUEST, &snapshot, &record)))?;
        match (got, case.get("expect_record_error")) {
            (Ok(s), None) => snapshot = s,
            (Err(code), Some(want)) => {
                return check_eq(
                    "record_applied error",
                    want.as_str().unwrap_or(""),
                    code.as_str(),
                )
            }
            (Ok(_), Some(code)) => return Err(format!("record_applied should fail with {code}")),
            (Err(code), None) => return Err(format!("record_applied failed: {code}")),
        }
    }
    for step in case["human_edits"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        mutate(dir, step)?;
    }
    let plan_opts = plan_options(&options, case)?;
    let plan = wit(inst.call(|c, s| c.call_plan_rollback(s, GUEST, &snapshot, &plan_opts)))?;
    if let Some(want) = case.get("expect_plan") {
        match (&plan, want.as_str()) {
            (Err(code), Some(want)) => check_eq("plan error", want, code.as_str())?,
            (Err(code), None) => return Err(format!("plan failed: {code}")),
            (Ok(items), _) => check_eq("plan", want, &plan_json(items))?,
        }
    }
    if let (Some(want), Ok(items)) = (case.get("expect_diff"), &plan) {
        check_eq("diffs", want, &diffs_json(items)?)?;
    }
    let mutated = read_tree()?;
    let mut rollback = |text: &str| -> Outcome<RollbackReport> {
        wit(inst.call(|c, s| c.call_rollback(s, GUEST, text, &options)))?
            .map_err(|code| format!("rollback failed: {code}"))
    };
    let mut report = rollback(&snapshot)?;
    // The plan is a contract: the rollback carried out exactly that plan.
    if let (Ok(plan), true) = (&plan, report.valid) {
        check_eq(
            "plan carried out",
            &plan_json(plan),
            &plan_json(&report.plan),
        )?;
    }
    for _ in 1..case["rollback_times"].as_u64().unwrap_or(1) {
        report = rollback(&snapshot)?;
    }
    if case["check_redo"].as_bool() == Some(true) {
        let redo = report.redo.clone().ok_or("no redo snapshot")?;
        let again = rollback(&redo)?;
        if !again.ok {
            return Err(format!(
                "rolling back the redo failed: {:?}",
                again.unrestored
            ));
        }
        check_tree(&mutated, &read_tree()?).map_err(|e| format!("after redo: {e}"))?;
        rollback(&snapshot)?;
    }
    check_report(case, &report)?;
    let expected = match case.get("expect_tree") {
        Some(_) => Tree::from_case(case, "expect_tree")?.with_parents(),
        None if !report.valid => mutated,
        None => return Err("case without expect_tree".into()),
    };
    check_tree(&expected, &read_tree()?)
}

fn check_report(case: &Value, report: &RollbackReport) -> Outcome<()> {
    let want = &case["expect_report"];
    if let Some(ok) = want["ok"].as_bool() {
        let unrestored: Vec<_> = report
            .unrestored
            .iter()
            .map(|u| (&u.path, &u.reason))
            .collect();
        check_eq(
            &format!("ok (unrestored: {unrestored:?}, error: {:?})", report.error),
            &ok,
            &report.ok,
        )?;
    }
    if let Some(valid) = want["valid"].as_bool() {
        check_eq("valid", &valid, &report.valid)?;
    }
    if let Some(code) = want.get("error_code") {
        let got = report.error.as_ref().map(|e| snake_code(e.code).to_owned());
        check_eq("error_code", &code.as_str().map(str::to_owned), &got)?;
    }
    if let Some(restored) = want.get("restored") {
        let want: Vec<String> =
            serde_json::from_value(restored.clone()).map_err(|e| e.to_string())?;
        check_eq("restored", &want, &report.restored)?;
    }
    if let Some(conflicts) = want.get("conflicts") {
        let want: Vec<String> =
            serde_json::from_value(conflicts.clone()).map_err(|e| e.to_string())?;
        check_eq("conflicts", &want, &report.conflicts)?;
    }
    if let Some(codes) = want.get("unrestored_codes") {
        let got: serde_json::Map<String, Value> = report
            .unrestored
            .iter()
            .map(|u| (u.path.clone(), Value::from(snake_code(u.code))))
            .collect();
        check_eq("unrestored codes", codes, &Value::Object(got))?;
    }
    if let Some(paths) = want.get("not_in_redo") {
        let want: Vec<String> = serde_json::from_value(paths.clone()).map_err(|e| e.to_string())?;
        let got: Vec<String> = report.not_in_redo.iter().map(|n| n.path.clone()).collect();
        check_eq("not_in_redo", &want, &got)?;
    }
    if let Some(paths) = want.get("not_covered") {
        let want: Vec<String> = serde_json::from_value(paths.clone()).map_err(|e| e.to_string())?;
        let got: Vec<String> = report.not_covered.iter().map(|n| n.path.clone()).collect();
        check_eq("not_covered", &want, &got)?;
    }
    if let Some(other) = want.get("other_root") {
        let got = report.other_root.clone().map_or(Value::Null, Value::from);
        check_eq("other_root", other, &got)?;
    }
    if let Some(has_redo) = want.get("has_redo").and_then(Value::as_bool) {
        check_eq("has redo", &has_redo, &report.redo.is_some())?;
    }
    if let Some(unrestored) = want.get("unrestored") {
        let want: Vec<String> =
            serde_json::from_value(unrestored.clone()).map_err(|e| e.to_string())?;
        let got: Vec<String> = report.unrestored.iter().map(|u| u.path.clone()).collect();
        check_eq("unrestored", &want, &got)?;
    }
    Ok(())
}

/// One vector mutate step, on the host (a link at a written path is replaced,
/// never written through, as the core's `Root::write_file` does).
fn mutate(dir: &Path, step: &Value) -> Outcome<()> {
    let at = |key: &str| -> Outcome<PathBuf> {
        Ok(dir.join(
            step[key]
                .as_str()
                .ok_or(format!("{key} must be a string"))?,
        ))
    };
    let parents = |p: &Path| -> Outcome<()> {
        std::fs::create_dir_all(p.parent().ok_or("no parent")?).map_err(|e| e.to_string())
    };
    let unlink_non_dir = |p: &Path| -> Outcome<()> {
        match std::fs::symlink_metadata(p) {
            Ok(m) if !m.is_dir() => std::fs::remove_file(p).map_err(|e| e.to_string()),
            _ => Ok(()),
        }
    };
    if let Some(rel) = step.get("write").and_then(Value::as_str) {
        let p = dir.join(rel);
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink()) {
            std::fs::remove_file(&p).map_err(|e| e.to_string())?;
        }
        let node = TreeNode::from_json(step)?;
        return common::write_native(dir, rel, &node)
            .map_err(|e| format!("mutation {step} failed: {e}"));
    }
    let result = if step.get("delete").is_some() {
        std::fs::remove_file(at("delete")?)
    } else if step.get("rmdir").is_some() {
        std::fs::remove_dir(at("rmdir")?)
    } else if step.get("mkdir").is_some() {
        let p = at("mkdir")?;
        parents(&p)?;
        std::fs::create_dir(&p)
    } else if step.get("symlink").is_some() {
        let p = at("symlink")?;
        parents(&p)?;
        unlink_non_dir(&p)?;
        std::os::unix::fs::symlink(step["target"].as_str().ok_or("symlink needs a target")?, &p)
    } else {
        return Err(format!("unknown mutation {step}"));
    };
    result.map_err(|e| format!("mutation {step} failed: {e}"))
}

fn str_arg(args: &[Value], i: usize) -> Outcome<String> {
    args.get(i)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("argument {i} must be a string"))
}

/// A naming case's result in the vectors' shape, or its error code.
fn play_naming(inst: &mut Instance, op: &str, args: &[Value]) -> Outcome<Result<Value, String>> {
    let s = if op == "join_prompts" {
        String::new()
    } else {
        str_arg(args, 0)?
    };
    let ok = |v: Value| Ok(Ok(v));
    match op {
        "checkpoint_id_kind" => {
            let kind = match trap(inst.call(|c, st| c.call_checkpoint_id_kind(st, &s)))? {
                IdKind::Legacy => "legacy",
                IdKind::Ulid => "ulid",
                IdKind::Unknown => "unknown",
            };
            ok(json!(kind))
        }
        "validate_checkpoint_id" => {
            Ok(wit(inst.call(|c, st| c.call_validate_checkpoint_id(st, &s)))?.map(Value::from))
        }
        "shard_for" => ok(json!(trap(inst.call(|c, st| c.call_shard_for(st, &s)))?)),
        "checkpoint_path" => ok(json!(trap(
            inst.call(|c, st| c.call_checkpoint_path(st, &s))
        )?)),
        "display_short" => ok(json!(trap(
            inst.call(|c, st| c.call_display_short(st, &s))
        )?)),
        "ulid_timestamp_ms" => ok(json!(trap(
            inst.call(|c, st| c.call_ulid_timestamp_ms(st, &s))
        )?)),
        "ref_name" => Ok(wit(inst.call(|c, st| c.call_ref_name(st, &s)))?.map(Value::from)),
        "parse_ref" => ok(json!(trap(inst.call(|c, st| c.call_parse_ref(st, &s)))?)),
        "shadow_branch_name" => {
            let w = str_arg(args, 1)?;
            Ok(wit(inst.call(|c, st| c.call_shadow_branch_name(st, &s, &w)))?.map(Value::from))
        }
        "parse_shadow_branch_name" => {
            let got = trap(inst.call(|c, st| c.call_parse_shadow_branch_name(st, &s)))?;
            ok(json!(got.map(
                |b| json!({"commit_prefix": b.commit_prefix, "worktree_hash": b.worktree_hash})
            )))
        }
        "hash_worktree_id" => ok(json!(trap(
            inst.call(|c, st| c.call_hash_worktree_id(st, &s))
        )?)),
        "is_shadow_branch" => ok(json!(trap(
            inst.call(|c, st| c.call_is_shadow_branch(st, &s))
        )?)),
        "split_prompts" => ok(json!(trap(
            inst.call(|c, st| c.call_split_prompts(st, &s))
        )?)),
        "join_prompts" => {
            let list: Vec<String> =
                serde_json::from_value(args.first().cloned().unwrap_or_default())
                    .map_err(|e| e.to_string())?;
            ok(json!(trap(
                inst.call(|c, st| c.call_join_prompts(st, &list))
            )?))
        }
        other => Err(format!("unknown op {other:?}")),
    }
}

fn check_naming(inst: &mut Instance, case: &Value) -> Outcome<()> {
    let args = case["args"].as_array().ok_or("no args")?;
    let got = play_naming(inst, case["op"].as_str().ok_or("no op")?, args)?;
    let want = match (case.get("expect"), case.get("expect_error")) {
        (Some(v), None) => Ok(v.clone()),
        (None, Some(code)) => Err(code.as_str().unwrap_or("").to_owned()),
        _ => return Err("needs exactly one of expect / expect_error".into()),
    };
    check_eq("result", &want, &got)
}

#[test]
fn vectors_through_wasmtime() {
    let host =
        ComponentHost::new(&wasm_path()).expect("the component is built (scripts/component)");
    let expected = expected_failures(TARGET);
    let pure_dir = tempfile::tempdir().unwrap();
    let mut pure = host.instantiate(pure_dir.path(), GUEST).unwrap();
    let (mut passed, mut expected_failed) = (0, 0);
    let mut failures = Vec::new();
    for prefix in ["fs_", "naming_"] {
        let cases = load_cases(prefix);
        assert!(cases.len() >= 40, "only {} {prefix} vectors", cases.len());
        for case in cases {
            let name = case["name"].as_str().unwrap_or("?").to_owned();
            let result = if prefix == "fs_" {
                play_fs(&host, &case)
            } else {
                check_naming(&mut pure, &case)
            };
            match (result, expected.contains(&name)) {
                (Ok(()), false) => passed += 1,
                (Err(_), true) => expected_failed += 1,
                (Ok(()), true) => failures.push(format!(
                    "{name}: listed in expected_failures.txt but passed"
                )),
                (Err(e), false) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    println!(
        "component-rust vectors: {passed} passed, {} failed, {expected_failed} skipped",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
