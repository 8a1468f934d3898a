"""RunCheckpoint, path_args and checkpointed on their own, without a framework."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest

import scenario
from agent_checkpoint.run_checkpoint import DEFAULT_PATHS, RunCheckpoint, checkpointed, path_args, paths_of_tool


def test_path_args_reads_one_path_or_a_list() -> None:
    assert list(DEFAULT_PATHS({"path": "a", "file_path": Path("b"), "paths": ["c", "d"], "text": "x"})) == [
        "a",
        Path("b"),
        "c",
        "d",
    ]
    assert list(path_args("targets")({"targets": None})) == []
    # A declared tool called without any of its path arguments would run
    # unprotected: refused before it runs.
    with pytest.raises(TypeError, match="path arguments"):
        path_args("targets")({"filename": "a.txt"})
    with pytest.raises(TypeError, match="path arguments"):
        DEFAULT_PATHS({"filename": "a.txt"})
    with pytest.raises(TypeError, match="'targets'"):
        path_args("targets")({"targets": [1]})


def test_which_tools_edit_files() -> None:
    assert paths_of_tool(["write"], "write") is DEFAULT_PATHS
    assert paths_of_tool(["write"], "read") is None
    spec = path_args("x")
    assert paths_of_tool({"write": spec}, "write") is spec


def test_checkpointed_functions_roll_back_a_failed_call_and_the_run_undoes(tmp_path: Path) -> None:
    scenario.make_project(tmp_path)
    run = RunCheckpoint(tmp_path)

    def write_files(paths: list[str], text: str) -> str:
        """Write files."""
        return scenario.write_files(tmp_path, paths, text)

    async def rewrite(targets: list[str], text: str) -> str:
        return scenario.rewrite(tmp_path, targets, text)

    guarded = checkpointed(write_files, run)
    assert guarded.__name__ == "write_files" and guarded.__doc__ == "Write files."
    assert inspect.signature(guarded) == inspect.signature(write_files)
    guarded(scenario.FIRST["paths"], text="one\n")  # positional and keyword arguments both bind
    with pytest.raises(scenario.Failed):
        asyncio.run(checkpointed(rewrite, run, path_args("targets"))(**scenario.SECOND))
    assert scenario.tree(tmp_path) == scenario.AFTER_RUN
    assert run.paths == ["a.txt", "gen/new.txt", "b.txt", "c.txt"]
    assert len(run.snapshots) == 2
    undo = run.undo()
    assert undo.ok and undo.restored == ["a.txt", "b.txt", "c.txt", "gen/new.txt"] and undo.unrestored == []
    assert scenario.tree(tmp_path) == scenario.BEFORE
    assert run.undone and run.undo() is undo
    with pytest.raises(RuntimeError, match="undone"):
        guarded(["a.txt"], "x")
    assert scenario.tree(tmp_path) == scenario.BEFORE  # the call did not run


def test_touch_captures_only_first_touches(tmp_path: Path) -> None:
    scenario.make_project(tmp_path)
    run = RunCheckpoint(tmp_path)
    run.touch(["a.txt"])
    (tmp_path / "a.txt").write_text("edited\n")
    asyncio.run(run.atouch(["a.txt", "b.txt"]))  # a.txt: already held, as it was first
    (tmp_path / "b.txt").write_text("edited\n")
    assert run.paths == ["a.txt", "b.txt"]
    assert asyncio.run(run.aundo()).ok
    assert scenario.tree(tmp_path) == scenario.BEFORE
