"""Pydantic AI's own agent loop, scripted by its FunctionModel, through CheckpointToolset."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, FunctionToolset, ModelRetry  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402

import scenario  # noqa: E402
from agent_checkpoint.pydantic_ai import CheckpointToolset  # noqa: E402
from agent_checkpoint.run_checkpoint import DEFAULT_PATHS, RunCheckpoint, path_args  # noqa: E402


def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    turn = sum(isinstance(message, ModelResponse) for message in messages)
    if turn == 0:
        return ModelResponse(parts=[ToolCallPart("write_files", scenario.FIRST)])
    if turn == 1:
        return ModelResponse(parts=[ToolCallPart("rewrite", scenario.SECOND)])
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    retried = [p.content for p in last.parts if isinstance(p, ToolReturnPart) and p.outcome == "retried"]
    return ModelResponse(parts=[TextPart(f"done after {retried}")])


def toolset(root: Path, failure: BaseException | None) -> FunctionToolset[None]:
    tools: FunctionToolset[None] = FunctionToolset()

    @tools.tool_plain
    def write_files(paths: list[str], text: str) -> str:
        return scenario.write_files(root, paths, text)

    @tools.tool_plain
    def rewrite(targets: list[str], text: str) -> str:
        return scenario.rewrite(root, targets, text, failure)

    return tools


def run_agent(root: Path, failure: BaseException | None) -> tuple[RunCheckpoint, str | BaseException]:
    run = RunCheckpoint(root)
    agent = Agent(FunctionModel(script))
    guarded = CheckpointToolset(
        toolset(root, failure), run, edits={"write_files": DEFAULT_PATHS, "rewrite": path_args("targets")}
    )
    try:
        return run, agent.run_sync("edit the files", toolsets=[guarded]).output
    except Exception as exc:
        return run, exc


def test_a_retried_tool_is_rolled_back_and_the_run_goes_on(tmp_path: Path) -> None:
    scenario.make_project(tmp_path)
    run, output = run_agent(tmp_path, ModelRetry("disk full"))
    assert output == "done after ['disk full']"
    assert scenario.tree(tmp_path) == scenario.AFTER_RUN
    assert run.paths == ["a.txt", "gen/new.txt", "b.txt", "c.txt"]
    undo = run.undo()
    assert undo.ok, undo.reports
    assert scenario.tree(tmp_path) == scenario.BEFORE


def test_a_tool_that_raises_ends_the_run_rolled_back(tmp_path: Path) -> None:
    scenario.make_project(tmp_path)
    run, output = run_agent(tmp_path, None)
    assert isinstance(output, scenario.Failed)
    assert scenario.tree(tmp_path) == scenario.AFTER_RUN
    assert run.undo().ok
    assert scenario.tree(tmp_path) == scenario.BEFORE
    assert run.undo() is run.undo()  # once


def test_tools_not_named_run_as_they_are(tmp_path: Path) -> None:
    scenario.make_project(tmp_path)
    run = RunCheckpoint(tmp_path)
    agent = Agent(FunctionModel(script))
    guarded = CheckpointToolset(toolset(tmp_path, ModelRetry("disk full")), run, edits=["write_files"])
    agent.run_sync("edit the files", toolsets=[guarded])
    # `rewrite` was not declared: nothing captured it, nothing rolled it back.
    assert scenario.tree(tmp_path)["b.txt"] == b"two\n"
    assert run.paths == ["a.txt", "gen/new.txt"]
