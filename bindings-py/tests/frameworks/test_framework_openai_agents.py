"""The OpenAI Agents SDK's Runner, scripted by a Model implemented here.

The tools made by checkpoint_function_tool roll a failed call back (whether the SDK reports the error
to the model or lets it end the run); the hooks alone capture every path
before its first touch, so the run can be undone, but see no failure.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import (  # noqa: E402
    Agent,
    Model,
    ModelResponse,
    ModelSettings,
    ModelTracing,
    RunConfig,
    Runner,
    Tool,
    Usage,
    function_tool,
)
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText  # noqa: E402

import scenario  # noqa: E402
from agent_checkpoint.openai_agents import (  # noqa: E402
    CheckpointAgentHooks,
    CheckpointRunHooks,
    checkpoint_function_tool,
)
from agent_checkpoint.run_checkpoint import DEFAULT_PATHS, RunCheckpoint, path_args  # noqa: E402

EDITS = {"write_files": DEFAULT_PATHS, "rewrite": path_args("targets")}


class ScriptedModel(Model):
    """Calls write_files, then rewrite, then answers with what the last tool said."""

    def __init__(self) -> None:
        self.turn = 0

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.turn += 1
        if self.turn == 1:
            output: Any = ResponseFunctionToolCall(
                type="function_call", call_id="call-1", name="write_files", arguments=json.dumps(scenario.FIRST)
            )
        elif self.turn == 2:
            output = ResponseFunctionToolCall(
                type="function_call", call_id="call-2", name="rewrite", arguments=json.dumps(scenario.SECOND)
            )
        else:
            said = [item["output"] for item in input if item.get("type") == "function_call_output"]
            output = ResponseOutputMessage(
                id="msg-1",
                type="message",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text=f"done: {said[-1]}", annotations=[])],
            )
        return ModelResponse(output=[output], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the tests do not stream")


def tool_functions(root: Path) -> tuple[Callable[..., str], Callable[..., str]]:
    def write_files(paths: list[str], text: str) -> str:
        """Write `text` to every file of `paths`."""
        return scenario.write_files(root, paths, text)

    def rewrite(targets: list[str], text: str) -> str:
        """Write `text` to every file of `targets`."""
        return scenario.rewrite(root, targets, text)

    return write_files, rewrite


def play(agent: Agent[Any], hooks: CheckpointRunHooks | None = None) -> str | BaseException:
    config = RunConfig(tracing_disabled=True)
    try:
        result = asyncio.run(Runner.run(agent, "edit the files", hooks=hooks, run_config=config))
    except Exception as exc:
        return exc
    return str(result.final_output)


@pytest.mark.parametrize("reported", [True, False], ids=["reported-to-the-model", "ends-the-run"])
def test_wrapped_tools(tmp_path: Path, reported: bool) -> None:
    scenario.make_project(tmp_path)
    run = RunCheckpoint(tmp_path)
    write_files, rewrite = tool_functions(tmp_path)
    # Reported: the SDK's default, the error goes to the model as the tool's output.
    options: dict[str, Any] = {} if reported else {"failure_error_function": None}
    wrapped: list[Tool] = [
        checkpoint_function_tool(write_files, run),
        checkpoint_function_tool(rewrite, run, path_args("targets"), **options),
    ]
    assert [tool.name for tool in wrapped] == ["write_files", "rewrite"]
    outcome = play(Agent(name="editor", model=ScriptedModel(), tools=wrapped))
    if reported:
        # The SDK's default message for a failed tool, seen by the model.
        assert outcome == "done: An error occurred while running the tool. Please try again.", outcome
    else:
        assert isinstance(outcome, BaseException) and "could not write c.txt" in str(outcome), outcome
    assert scenario.tree(tmp_path) == scenario.AFTER_RUN
    assert run.paths == ["a.txt", "gen/new.txt", "b.txt", "c.txt"]
    undo = run.undo()
    assert undo.ok, undo.reports
    assert scenario.tree(tmp_path) == scenario.BEFORE


@pytest.mark.parametrize("where", ["run", "agent"])
def test_hooks_capture_the_run_for_undo(tmp_path: Path, where: str) -> None:
    scenario.make_project(tmp_path)
    run = RunCheckpoint(tmp_path)
    plain: list[Tool] = [function_tool(f) for f in tool_functions(tmp_path)]
    if where == "run":
        outcome = play(Agent(name="editor", model=ScriptedModel(), tools=plain), CheckpointRunHooks(run, EDITS))
    else:
        agent = Agent(name="editor", model=ScriptedModel(), tools=plain, hooks=CheckpointAgentHooks(run, EDITS))
        outcome = play(agent)
    assert isinstance(outcome, str) and outcome.startswith("done: "), outcome
    # Hooks see no failure: the failed call's edits stay until the run is undone.
    assert scenario.tree(tmp_path)["b.txt"] == b"two\n"
    assert run.paths == ["a.txt", "gen/new.txt", "b.txt", "c.txt"]
    assert run.undo().ok
    assert scenario.tree(tmp_path) == scenario.BEFORE
