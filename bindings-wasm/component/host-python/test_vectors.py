"""Plays the shared vectors (tests/vectors) through the component in wasmtime-py.

Each filesystem case gets a fresh temp directory, preopened as /sandbox in a
fresh instance; `$ROOT` is that guest path. Port of core/tests/fs_vectors.rs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import pytest

from checkpoint_host import Component, ComponentError, ComponentHost
from conftest import expected_failures, load_cases
from trees import mutate, read_tree, show_diff, with_parents, write_tree

GUEST = "/sandbox"
EXPECTED = expected_failures()
FS_CASES = load_cases("fs_")
NAMING_CASES = load_cases("naming_")


def check_eq(what: str, want: Any, got: Any) -> None:
    assert want == got, f"{what}: expected {want!r}, got {got!r}"


def check_tree(want: dict, got: dict) -> None:
    assert want == got, f"tree differs: {show_diff(want, got)}"


#: The rollback options `plan_rollback` takes (the others change nothing in a plan).
PLAN_OPTIONS = ("allow_git_dir", "on_conflict", "key", "restore_setid", "strict_root")


def plan_items(plan: list) -> list[dict]:
    """A plan as the vectors spell it: path, action, conflict, and a refusal's code."""
    out = []
    for i in plan:
        item = {"path": i.path, "action": i.action, "conflict": i.conflict}
        if i.code is not None:
            item["code"] = i.code
        out.append(item)
    return out


MARKER = {"context": " ", "removed": "-", "added": "+"}


def hunks_text(item: Any) -> str:
    """The hunks written back as unified-diff lines (no headers, no
    no-newline markers), checking each line's numbers on the way."""
    lines = []
    for h in item.hunks:
        def span(start: int, n: int) -> str:
            return str(start) if n == 1 else f"{start},{n}"

        lines.append(f"@@ -{span(h.old_start, h.old_lines)} +{span(h.new_start, h.new_lines)} @@")
        old, new = max(h.old_start, 1), max(h.new_start, 1)
        for line in h.lines:
            assert line.old_line == (None if line.kind == "added" else old), (item.path, line)
            assert line.new_line == (None if line.kind == "removed" else new), (item.path, line)
            old += line.old_line is not None
            new += line.new_line is not None
            lines.append(MARKER[line.kind] + line.text)
    return "\n".join(lines)


def plan_diffs(plan: list) -> dict:
    """The plan's diffs as the vectors spell them: path -> {summary, text?}
    (text only when there are hunks), after checking the hunks say what the
    text says."""
    out = {}
    for item in plan:
        if item.diff_summary is None:
            assert item.diff is None and item.hunks == [], item
            continue
        entry = {"summary": item.diff_summary}
        if item.hunks:
            entry["text"] = item.diff
            body = "\n".join(item.diff.split("\n")[2:-1]).replace("\r", "")
            check_eq(f"{item.path}: hunks", body.replace("\n\\ No newline at end of file", ""), hunks_text(item))
        else:
            check_eq(f"{item.path}: diff without hunks", item.diff_summary, item.diff)
        out[item.path] = entry
    return out


def snapshot_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def play_fs(case: dict, component: Component, root: Path) -> None:
    op = case["op"]
    before = read_tree(root)
    if op in ("snapshot_paths", "inspect_snapshot"):
        text = snapshot_text(case["snapshot"])
        if op == "snapshot_paths":
            check_eq("paths", case["expect"], component.snapshot_paths(text))
            return
        try:
            got = component.inspect_snapshot(text)
        except ComponentError as e:
            check_eq("error code", case.get("expect_error"), e.snake_code)
            return
        assert "expect_error" not in case, f"expected {case['expect_error']}, got {got}"
        check_eq("inspect", case["expect"], got)
        return
    if op in ("capture_then_rollback", "capture"):
        paths = [p.replace("$ROOT", GUEST) for p in case["paths"]]
        options = case.get("capture_options", {})
        try:
            snapshot = component.create_checkpoint(GUEST, paths, **options)
        except ComponentError as e:
            assert "expect_capture_error" in case, f"capture failed: {e}"
            check_eq("capture error code", case["expect_capture_error"], e.snake_code)
            check_tree(before, read_tree(root))
            return
        assert "expect_capture_error" not in case, f"capture should fail, gave {snapshot}"
    elif op == "rollback":
        snapshot = snapshot_text(case["snapshot"])
    else:
        raise AssertionError(f"unknown op {op}")
    if "expect_paths" in case:
        check_eq("snapshot_paths", case["expect_paths"], component.snapshot_paths(snapshot))
    if "expect_snapshot" in case:
        check_eq("snapshot", case["expect_snapshot"], json.loads(snapshot))
    if "expect_snapshot_text" in case:
        # The root's canonical path as the component records it: the guest path.
        check_eq("snapshot text", case["expect_snapshot_text"].replace("$ROOT", GUEST), snapshot)
    if op == "capture":
        check_tree(before, read_tree(root))
        return
    for step in case.get("mutate", []):
        mutate(root, step)
    if "tamper" in case:
        old, new = case["tamper"]
        assert old in snapshot, f"tamper: {old} not in {snapshot}"
        snapshot = snapshot.replace(old, new, 1)
    # Passed as keywords: an option the host does not know is a TypeError, never dropped.
    options = case.get("rollback_options", {})
    if case.get("record_applied"):
        try:
            snapshot = component.record_applied(
                GUEST, snapshot, allow_git_dir=options.get("allow_git_dir", False), key=options.get("key")
            )
        except ComponentError as e:
            assert "expect_record_error" in case, f"record_applied failed: {e}"
            check_eq("record_applied error", case["expect_record_error"], e.snake_code)
            return
        assert "expect_record_error" not in case, "record_applied should fail"
    for step in case.get("human_edits", []):
        mutate(root, step)
    plan_options = {k: v for k, v in options.items() if k in PLAN_OPTIONS}
    if "expect_diff" in case:
        plan_options["diff"] = True
        for name in ("context", "max_bytes"):
            if name in case.get("diff_options", {}):
                plan_options["diff_" + name] = case["diff_options"][name]
    try:
        planned = component.plan_rollback(GUEST, snapshot, **plan_options)
        plan: Optional[list] = plan_items(planned)
        plan_error = None
    except ComponentError as e:
        plan, plan_error = None, e
    if "expect_diff" in case and plan is not None:
        check_eq("diffs", case["expect_diff"], plan_diffs(planned))
    if "expect_plan" in case:
        if plan is None:
            assert isinstance(case["expect_plan"], str), f"plan failed: {plan_error}"
            check_eq("plan error", case["expect_plan"], plan_error.snake_code)
        else:
            check_eq("plan", case["expect_plan"], plan)
    mutated = read_tree(root)
    report = component.rollback(GUEST, snapshot, **options)
    if plan is not None and report.valid:
        # The plan is a contract: the rollback carried out exactly that plan.
        check_eq("plan carried out", plan, plan_items(report.plan))
    for _ in range(1, case.get("rollback_times", 1)):
        report = component.rollback(GUEST, snapshot, **options)
    if case.get("check_redo"):
        assert report.redo is not None, "no redo snapshot"
        again = component.rollback(GUEST, report.redo, **options)
        assert again.ok, f"rolling back the redo failed: {again.unrestored}"
        check_tree(mutated, read_tree(root))
        component.rollback(GUEST, snapshot, **options)
    want = case.get("expect_report", {})
    if "ok" in want:
        check_eq(f"ok ({report})", want["ok"], report.ok)
    if "valid" in want:
        check_eq("valid", want["valid"], report.valid)
    if "error_code" in want:
        check_eq("error_code", want["error_code"], report.error_code)
    if "restored" in want:
        check_eq("restored", want["restored"], report.restored)
    if "conflicts" in want:
        check_eq("conflicts", want["conflicts"], report.conflicts)
    if "has_redo" in want:
        check_eq("has redo", want["has_redo"], report.redo is not None)
    if "unrestored" in want:
        check_eq("unrestored", want["unrestored"], report.unrestored)
    if "unrestored_codes" in want:
        check_eq("unrestored codes", want["unrestored_codes"], report.failure_codes)
    if "not_in_redo" in want:
        check_eq("not_in_redo", want["not_in_redo"], list(report.not_in_redo))
    if "not_covered" in want:
        check_eq("not_covered", want["not_covered"], list(report.not_covered))
    if "other_root" in want:
        check_eq("other_root", want["other_root"], report.other_root)
    if "expect_tree" in case:
        expected = with_parents(case["expect_tree"])
    else:
        assert not report.valid, "case without expect_tree"
        expected = mutated
    check_tree(expected, read_tree(root))


def play_naming(case: dict, component: Component) -> None:
    try:
        got: Any = component.pure(case["op"], *case["args"])
    except ComponentError as e:
        assert "expect_error" in case, f"unexpected error {e}"
        check_eq("error code", case["expect_error"], e.snake_code)
        return
    assert "expect_error" not in case, f"expected {case['expect_error']}, got {got!r}"
    check_eq(case["op"], case["expect"], got)


def outcome(name: str, play) -> None:
    """Runs `play`; a case listed in expected_failures.txt must fail."""
    if name not in EXPECTED:
        play()
        return
    try:
        play()
    except (AssertionError, ComponentError) as e:
        pytest.xfail(f"listed in expected_failures.txt: {e}")
    pytest.fail(f"{name}: listed in expected_failures.txt for {'component-python'} but passed")


@pytest.mark.parametrize("case", FS_CASES, ids=[c["name"] for c in FS_CASES])
def test_fs_vector(case: dict, host: ComponentHost, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    write_tree(root, case.get("tree", {}))
    with host.instantiate(root, GUEST) as component:
        outcome(case["name"], lambda: play_fs(case, component, root))


@pytest.fixture(scope="module")
def pure_component(host: ComponentHost, tmp_path_factory: pytest.TempPathFactory):
    with host.instantiate(tmp_path_factory.mktemp("pure"), GUEST) as component:
        yield component


@pytest.mark.parametrize("case", NAMING_CASES, ids=[c["name"] for c in NAMING_CASES])
def test_naming_vector(case: dict, pure_component: Component) -> None:
    outcome(case["name"], lambda: play_naming(case, pure_component))


def test_vectors_were_found() -> None:
    assert len(FS_CASES) >= 40 and len(NAMING_CASES) >= 100
