"""Plans with diffs (`plan_rollback(..., diff=True)`: `diff`, `diff_summary`,
`hunks`) and progress callbacks (`progress=` on capture, plan and rollback)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any, List, Tuple

import pytest

import agent_checkpoint as ac

Report = Tuple[str, int, int]

TEN = "".join(f"{n}\n" for n in range(1, 11))


@pytest.fixture()
def edited(tmp_path: Path) -> Tuple[Path, str]:
    """A root whose `n.txt` had lines 1..10, then line 3 and line 10 changed
    and `new.txt` created; and the snapshot taken before."""
    (tmp_path / "n.txt").write_text(TEN)
    snapshot = ac.create_checkpoint(tmp_path, ["n.txt", "new.txt"])
    (tmp_path / "n.txt").write_text(TEN.replace("3\n", "three\n").replace("10\n", "ten\n"))
    (tmp_path / "new.txt").write_text("made by the batch\n")
    return tmp_path, snapshot


def test_no_diff_unless_asked(edited: Tuple[Path, str]) -> None:
    root, snapshot = edited
    for item in ac.plan_rollback(root, snapshot):
        assert item.diff is None and item.diff_summary is None and item.hunks == []


def test_hunks_carry_line_numbers(edited: Tuple[Path, str]) -> None:
    root, snapshot = edited
    plan = {i.path: i for i in ac.plan_rollback(root, snapshot, diff=True, diff_context=1)}
    item = plan["n.txt"]
    assert item.diff_summary == "+2 -2"
    assert item.diff is not None and item.diff.startswith("--- a/n.txt\n+++ b/n.txt\n@@ -2,3 +2,3 @@\n")
    assert "diff_summary='+2 -2'" in repr(item)
    first, second = item.hunks
    assert (first.old_start, first.old_lines, first.new_start, first.new_lines) == (2, 3, 2, 3)
    assert [(line.kind, line.text, line.old_line, line.new_line) for line in first.lines] == [
        ("context", "2", 2, 2),
        ("removed", "three", 3, None),
        ("added", "3", None, 3),
        ("context", "4", 4, 4),
    ]
    assert (second.old_start, second.old_lines, second.new_start, second.new_lines) == (9, 2, 9, 2)
    assert [line.kind for line in second.lines] == ["context", "removed", "added"]
    assert repr(second.lines[1]) == "DiffLine(kind='removed', text='ten', old_line=10, new_line=None)"
    assert repr(second) == "Hunk(old_start=9, old_lines=2, new_start=9, new_lines=2, lines=<3 lines>)"
    assert isinstance(first, ac.Hunk) and isinstance(first.lines[0], ac.DiffLine)
    assert first == ac.plan_rollback(root, snapshot, diff=True, diff_context=1)[0].hunks[0]
    # A removal has no line diff: its diff is its one-line summary.
    removal = plan["new.txt"]
    assert removal.action == "remove" and removal.hunks == []
    assert removal.diff == removal.diff_summary == "remove file of 18 bytes"


def test_context_and_size_limit(edited: Tuple[Path, str]) -> None:
    root, snapshot = edited
    default = ac.plan_rollback(root, snapshot, diff=True)[0]
    assert len(default.hunks) == 1 and default.hunks[0].old_lines == 10
    tight = ac.plan_rollback(root, snapshot, diff=True, diff_context=0)[0]
    assert [len(h.lines) for h in tight.hunks] == [2, 2]
    over = ac.plan_rollback(root, snapshot, diff=True, diff_max_bytes=4)[0]
    assert over.hunks == [] and over.diff == over.diff_summary
    assert over.diff_summary is not None and "over the diff limit of 4 bytes" in over.diff_summary


@pytest.mark.parametrize("name", ["diff_context", "diff_max_bytes"])
def test_bad_diff_numbers_are_refused(edited: Tuple[Path, str], name: str) -> None:
    root, snapshot = edited
    with pytest.raises(ac.InvalidArgumentError) as raised:
        ac.plan_rollback(root, snapshot, diff=True, **{name: -1})
    assert raised.value.code == "invalid_argument" and name in str(raised.value)
    with pytest.raises(TypeError):
        ac.plan_rollback(root, snapshot, diff=True, **{name: "3"})
    with pytest.raises(TypeError):
        ac.plan_rollback(root, snapshot, diff=True, **{name: 1.5})
    # Checked even without diff=True: a bad value is never silently ignored.
    with pytest.raises(ac.InvalidArgumentError):
        ac.plan_rollback(root, snapshot, **{name: -1})


def test_bad_progress_is_a_type_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="progress must be a callable"):
        ac.create_checkpoint(tmp_path, ["a"], progress=3)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def stages(reports: List[Report]) -> List[Tuple[str, List[Tuple[int, int]]]]:
    """The reports grouped by stage, in order; each stage counts up."""
    out: List[Tuple[str, List[Tuple[int, int]]]] = []
    for stage, done, total in reports:
        if not out or out[-1][0] != stage:
            out.append((stage, []))
        out[-1][1].append((done, total))
    for stage, steps in out:
        assert [d for d, _ in steps] == sorted(d for d, _ in steps), (stage, steps)
    return out


def edges(reports: List[Report]) -> List[Tuple[str, Tuple[int, int], Tuple[int, int]]]:
    """Each stage's first and last report."""
    return [(stage, steps[0], steps[-1]) for stage, steps in stages(reports)]


def test_progress_of_capture_plan_and_rollback(tmp_path: Path) -> None:
    names = [f"f{n}.txt" for n in range(30)]
    for name in names:
        (tmp_path / name).write_text(name)
    reports: List[Report] = []
    threads = set()

    def progress(stage: str, done: int, total: int) -> None:
        threads.add(threading.get_ident())
        reports.append((stage, done, total))

    snapshot = ac.create_checkpoint(tmp_path, names + ["new.txt"], progress=progress)
    # Each path counts, whether it exists or not.
    assert edges(reports) == [("capture", (0, 31), (31, 31))]
    for name in names[:5]:
        (tmp_path / name).write_text("edited")
    (tmp_path / "new.txt").write_text("x")

    reports.clear()
    plan = ac.plan_rollback(tmp_path, snapshot, diff=True, progress=progress)
    assert edges(reports) == [("check", (0, 31), (31, 31))]
    assert sum(i.action != "keep" for i in plan) == 6

    reports.clear()
    result = ac.rollback(tmp_path, snapshot, progress=progress)
    assert result.ok
    assert edges(reports) == [("check", (0, 31), (31, 31)), ("restore", (0, 6), (6, 6))]
    assert all(isinstance(v, int) for r in reports for v in r[1:])
    assert threads, "never called"


def test_an_exception_in_progress_does_not_stop_the_rollback(
    edited: Tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, snapshot = edited
    raised: List[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", raised.append)
    calls: List[Report] = []

    def progress(stage: str, done: int, total: int) -> None:
        calls.append((stage, done, total))
        raise RuntimeError(f"progress bar broke at {stage} {done}/{total}")

    result = ac.rollback(root, snapshot, progress=progress)
    assert result.ok and result.restored == ["n.txt", "new.txt"]
    assert (root / "n.txt").read_text() == TEN and not (root / "new.txt").exists()
    # Called on, after each exception; each went to sys.unraisablehook.
    assert edges(calls) == [("check", (0, 2), (2, 2)), ("restore", (0, 2), (2, 2))]
    assert len(raised) == len(calls)
    assert isinstance(raised[0].exc_value, RuntimeError)
    assert str(raised[0].exc_value) == "progress bar broke at check 0/2"
    assert raised[0].object is progress
