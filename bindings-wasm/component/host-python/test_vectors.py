"""Plays the shared vectors (tests/vectors) through the component in wasmtime-py.

Each filesystem case gets a fresh temp directory, preopened as /sandbox in a
fresh instance; `$ROOT` is that guest path. Port of core/tests/fs_vectors.rs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
        check_eq("snapshot text", case["expect_snapshot_text"], snapshot)
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
    if "expect_plan" in case:
        plan_options = {k: v for k, v in options.items() if k in ("allow_git_dir", "on_conflict", "key")}
        try:
            plan = component.plan_rollback(GUEST, snapshot, **plan_options)
        except ComponentError as e:
            check_eq("plan error", case["expect_plan"], e.snake_code)
        else:
            got = [{"path": i.path, "action": i.action, "conflict": i.conflict} for i in plan]
            check_eq("plan", case["expect_plan"], got)
    mutated = read_tree(root)
    for _ in range(case.get("rollback_times", 1)):
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
