"""The shared vectors: every naming_* case and every fs_* case (real temp dirs)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

import agent_checkpoint as ac
from vectors import (
    check_tree,
    load_cases,
    mutate,
    params,
    read_tree,
    tree_from_case,
    with_parents,
    write_node,
)

NAMING = load_cases("naming_")
FS = load_cases("fs_")


def play_naming(op: str, args: list) -> Any:
    """The function named by `op`, called with the case's args (tuples as lists, like JSON)."""
    function = getattr(ac, op)
    result = function(*args)
    if isinstance(result, ac.ShadowBranch):
        return {"commit_prefix": result.commit_prefix, "worktree_hash": result.worktree_hash}
    if isinstance(result, tuple):
        return list(result)
    return result


@pytest.mark.parametrize("case", params(NAMING))
def test_naming_vector(case: Dict[str, Any]) -> None:
    if "expect_error" in case:
        with pytest.raises(ac.CheckpointError) as raised:
            play_naming(case["op"], case["args"])
        assert raised.value.code == case["expect_error"]
    else:
        assert play_naming(case["op"], case["args"]) == case["expect"]


def test_vector_counts() -> None:
    # Guards against an empty or truncated load (every file, every case).
    assert len(NAMING) >= 190
    assert len(FS) >= 120


def snapshot_text(case: Dict[str, Any]) -> str:
    snapshot = case["snapshot"]
    return snapshot if isinstance(snapshot, str) else json.dumps(snapshot, separators=(",", ":"), sort_keys=True)


def plan_items(plan: List[ac.PlanItem]) -> List[Dict[str, Any]]:
    """A plan as the vectors spell it: path, action, conflict, and a refusal's code."""
    items: List[Dict[str, Any]] = []
    for i in plan:
        item: Dict[str, Any] = {"path": i.path, "action": i.action, "conflict": i.conflict}
        if i.code is not None:
            item["code"] = i.code
        items.append(item)
    return items


def hunks_text(item: ac.PlanItem) -> str:
    """The hunks written back as unified-diff lines (no headers, no
    no-newline markers), checking each line's numbers on the way."""
    lines: List[str] = []
    marker = {"context": " ", "removed": "-", "added": "+"}
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
            lines.append(marker[line.kind] + line.text)
    return "\n".join(lines)


def plan_diffs(plan: List[ac.PlanItem]) -> Dict[str, Dict[str, str]]:
    """The plan's diffs as the vectors spell them: path -> {summary, text?}
    (text only when there is a line diff), after checking the hunks say
    what the text says."""
    out: Dict[str, Dict[str, str]] = {}
    for item in plan:
        if item.diff_summary is None:
            assert item.diff is None and item.hunks == [], item
            continue
        entry = {"summary": item.diff_summary}
        if item.hunks:
            assert item.diff is not None
            entry["text"] = item.diff
            body = "\n".join(item.diff.split("\n")[2:-1]).replace("\r", "")
            assert hunks_text(item) == body.replace("\n\\ No newline at end of file", ""), item.path
        else:
            assert item.diff == item.diff_summary, item
        out[item.path] = entry
    return out


def report_matches(case: Dict[str, Any], result: ac.RollbackResult) -> None:
    want = case.get("expect_report", {})
    if "ok" in want:
        assert result.ok == want["ok"], result
    if "valid" in want:
        assert result.valid == want["valid"], result
    if "error_code" in want:
        assert result.error_code == want["error_code"], result
    if "conflicts" in want:
        assert result.conflicts == want["conflicts"], result
    if "has_redo" in want:
        assert (result.redo is not None) == want["has_redo"], result
    if "restored" in want:
        assert result.restored == want["restored"], result
    if "unrestored" in want:
        assert result.unrestored == want["unrestored"], result
    if "unrestored_codes" in want:
        assert result.failure_codes == want["unrestored_codes"], result
    if "not_in_redo" in want:
        assert sorted(p.path for p in result.not_in_redo) == want["not_in_redo"], result
        # One shape with Node's `notInRedo`: path, code, reason.
        assert all(isinstance(p, ac.PathProblem) and p.code and p.reason for p in result.not_in_redo)
    if "other_root" in want:
        assert result.other_root == want["other_root"], result
    # Invariants of the host type, on every case.
    assert result.ok == (result.valid and not result.unrestored)
    assert sorted(result.failures) == result.unrestored == sorted(result.failure_codes)
    assert (result.error is None) == result.valid == (result.error_code is None)


@pytest.mark.parametrize("case", params(FS))
def test_fs_vector(case: Dict[str, Any], tmp_path: Path) -> None:
    op = case["op"]
    if op == "snapshot_paths":
        assert ac.snapshot_paths(snapshot_text(case)) == case["expect"]
        return
    if op == "inspect_snapshot":
        if "expect_error" in case:
            with pytest.raises(ac.CheckpointError) as raised:
                ac.inspect_snapshot(case["snapshot"])
            assert raised.value.code == case["expect_error"]
        else:
            got = [
                {
                    "path": i.path,
                    "kind": i.kind,
                    "size": i.size,
                    "mode": i.mode,
                    "link_target": i.link_target,
                    "digest": i.digest,
                }
                for i in ac.inspect_snapshot(case["snapshot"])
            ]
            assert got == case["expect"]
        return

    root = tmp_path / "root"
    root.mkdir()
    for path, node in tree_from_case(case, "tree").items():
        write_node(root, path, node)
    before = read_tree(root)
    absolute = str(root)

    if op in ("capture", "capture_then_rollback"):
        paths = [p.replace("$ROOT", absolute) for p in case["paths"]]
        options = case.get("capture_options", {})
        kwargs = {
            "allow_git_dir": options.get("allow_git_dir", False),
            "max_file_bytes": options.get("max_file_bytes"),
            "key": options.get("key"),
        }
        if "max_file_bytes" in options:
            kwargs["max_file_bytes"] = options["max_file_bytes"]
        if "expect_capture_error" in case:
            with pytest.raises(ac.CheckpointError) as raised:
                ac.create_checkpoint(absolute, paths, **kwargs)
            assert raised.value.code == case["expect_capture_error"], raised.value
            check_tree(before, read_tree(root))
            return
        snapshot = ac.create_checkpoint(absolute, paths, **kwargs)
    elif op == "rollback":
        snapshot = snapshot_text(case)
    else:
        raise AssertionError(f"unknown op {op}")

    if "expect_paths" in case:
        assert ac.snapshot_paths(snapshot) == case["expect_paths"]
    if "expect_snapshot" in case:
        assert json.loads(snapshot) == case["expect_snapshot"]
    if "expect_snapshot_text" in case:
        assert snapshot == case["expect_snapshot_text"].replace("$ROOT", os.path.realpath(root))
    if op == "capture":
        check_tree(before, read_tree(root))
        return

    for step in case.get("mutate", []):
        mutate(root, step)
    if "tamper" in case:
        old, new = case["tamper"]
        assert old in snapshot, f"tamper: {old!r} not in {snapshot}"
        snapshot = snapshot.replace(old, new, 1)
    options = case.get("rollback_options", {})
    kwargs = {
        "durable": options.get("durable", True),
        "allow_git_dir": options.get("allow_git_dir", False),
        "on_conflict": options.get("on_conflict", "overwrite"),
        "key": options.get("key"),
        "redo": options.get("redo", True),
        "restore_setid": options.get("restore_setid", False),
        "strict_root": options.get("strict_root", False),
        "max_file_bytes": options.get("max_file_bytes"),
    }
    if case.get("record_applied"):
        record = lambda: ac.record_applied(  # noqa: E731
            absolute, snapshot, allow_git_dir=kwargs["allow_git_dir"], key=kwargs["key"]
        )
        if "expect_record_error" in case:
            with pytest.raises(ac.CheckpointError) as raised:
                record()
            assert raised.value.code == case["expect_record_error"]
            return
        snapshot = record()
    for step in case.get("human_edits", []):
        mutate(root, step)
    plan_kwargs = {
        k: kwargs[k] for k in ("allow_git_dir", "on_conflict", "key", "restore_setid", "strict_root")
    }
    if "expect_diff" in case:
        diff_options = case.get("diff_options", {})
        plan_kwargs["diff"] = True
        for name in ("context", "max_bytes"):
            if name in diff_options:
                plan_kwargs["diff_" + name] = diff_options[name]
    try:
        plan = ac.plan_rollback(absolute, snapshot, **plan_kwargs)
    except ac.CheckpointError as e:
        plan_error = e
    else:
        plan_error = None
    if "expect_plan" in case:
        want = case["expect_plan"]
        if isinstance(want, str):
            assert plan_error is not None and plan_error.code == want
        else:
            assert plan_error is None, plan_error
            assert plan_items(plan) == want
    if "expect_diff" in case and plan_error is None:
        assert plan_diffs(plan) == case["expect_diff"]
    mutated = read_tree(root)
    result = ac.rollback(absolute, snapshot, **kwargs)
    if plan_error is None and result.valid:
        # The plan is a contract: the rollback carried out exactly that plan.
        assert plan_items(result.plan) == plan_items(plan)
    for _ in range(1, case.get("rollback_times", 1)):
        result = ac.rollback(absolute, snapshot, **kwargs)
    if case.get("check_redo"):
        assert result.redo is not None, "no redo snapshot"
        again = ac.rollback(absolute, result.redo, **kwargs)
        assert again.ok, f"rolling back the redo failed: {again}"
        check_tree(mutated, read_tree(root))
        ac.rollback(absolute, snapshot, **kwargs)
    report_matches(case, result)
    if "expect_tree" in case:
        expected = with_parents(tree_from_case(case, "expect_tree"))
    else:
        assert not result.valid, "case without expect_tree"
        expected = mutated
    check_tree(expected, read_tree(root))
