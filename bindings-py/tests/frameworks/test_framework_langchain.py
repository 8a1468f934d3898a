"""LangGraph's prebuilt agent loop, scripted by LangChain's fake chat model.

Once with the tools wrapped (checkpoint_tool), once with plain tools and the
callback handler; each failing tool either raises out of the loop or is
handled by it (an error ToolMessage) and the loop goes on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langgraph")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage  # noqa: E402
from langchain_core.tools import BaseTool, StructuredTool, ToolException  # noqa: E402
from langgraph.prebuilt import ToolNode, create_react_agent  # noqa: E402

import scenario  # noqa: E402
from agent_checkpoint.langchain import CheckpointCallbackHandler, checkpoint_tool  # noqa: E402
from agent_checkpoint.run_checkpoint import DEFAULT_PATHS, RunCheckpoint, path_args  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # create_react_agent moved to langchain


class ScriptedChatModel(GenericFakeChatModel):
    """The fake chat model, accepting tools (it answers from its script anyway)."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        return self


def model() -> ScriptedChatModel:
    return ScriptedChatModel(
        messages=iter(
            [
                AIMessage("", tool_calls=[{"name": "write_files", "args": scenario.FIRST, "id": "call-1"}]),
                AIMessage("", tool_calls=[{"name": "rewrite", "args": scenario.SECOND, "id": "call-2"}]),
                AIMessage("done"),
            ]
        )
    )


def tools(root: Path, failure: BaseException | None, handled: bool) -> list[BaseTool]:
    def write_files(paths: list[str], text: str) -> str:
        """Write `text` to every file of `paths`."""
        return scenario.write_files(root, paths, text)

    def rewrite(targets: list[str], text: str) -> str:
        """Write `text` to every file of `targets`."""
        return scenario.rewrite(root, targets, text, failure)

    return [
        StructuredTool.from_function(write_files),
        StructuredTool.from_function(rewrite, handle_tool_error=handled),
    ]


def play(agent: Any, config: dict[str, Any], asynchronous: bool) -> list[BaseMessage] | BaseException:
    state = {"messages": [("user", "edit the files")]}
    try:
        if asynchronous:
            result = asyncio.run(agent.ainvoke(state, config))
        else:
            result = agent.invoke(state, config)
    except Exception as exc:
        return exc
    messages: list[BaseMessage] = result["messages"]
    return messages


def check_run(root: Path, run: RunCheckpoint, outcome: list[BaseMessage] | BaseException, goes_on: bool) -> None:
    if goes_on:
        assert isinstance(outcome, list), outcome
        errors = [m for m in outcome if isinstance(m, ToolMessage) and m.status == "error"]
        assert [m.tool_call_id for m in errors] == ["call-2"]
        assert outcome[-1].content == "done"
    else:
        assert isinstance(outcome, scenario.Failed), outcome
    assert scenario.tree(root) == scenario.AFTER_RUN
    assert run.paths == ["a.txt", "gen/new.txt", "b.txt", "c.txt"]
    undo = run.undo()
    assert undo.ok, undo.reports
    assert scenario.tree(root) == scenario.BEFORE


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("handled", [False, True], ids=["raises", "tool-node-handles"])
def test_wrapped_tools(tmp_path: Path, asynchronous: bool, handled: bool) -> None:
    scenario.make_project(tmp_path)
    run = RunCheckpoint(tmp_path)
    write_files, rewrite = tools(tmp_path, None, False)
    wrapped = [checkpoint_tool(write_files, run), checkpoint_tool(rewrite, run, path_args("targets"))]
    assert wrapped[1].name == "rewrite" and wrapped[1].args == rewrite.args
    agent = create_react_agent(model(), ToolNode(wrapped, handle_tool_errors=handled))
    check_run(tmp_path, run, play(agent, {}, asynchronous), goes_on=handled)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize(
    "failure", ["raises", "tool-node-handles", "tool-exception-handled-by-the-tool"]
)
def test_callback_handler(tmp_path: Path, asynchronous: bool, failure: str) -> None:
    scenario.make_project(tmp_path)
    run = RunCheckpoint(tmp_path)
    handler = CheckpointCallbackHandler(run, edits={"write_files": DEFAULT_PATHS, "rewrite": path_args("targets")})
    if failure == "tool-exception-handled-by-the-tool":
        plain = tools(tmp_path, ToolException("disk full"), True)
    else:
        plain = tools(tmp_path, None, False)
    agent = create_react_agent(model(), ToolNode(plain, handle_tool_errors=failure == "tool-node-handles"))
    outcome = play(agent, {"callbacks": [handler]}, asynchronous)
    check_run(tmp_path, run, outcome, goes_on=failure != "raises")


def test_a_capture_that_fails_stops_the_tool(tmp_path: Path) -> None:
    scenario.make_project(tmp_path)
    run = RunCheckpoint(tmp_path)
    handler = CheckpointCallbackHandler(run, edits=["write_files"])
    escaping = StructuredTool.from_function(
        lambda paths, text: scenario.write_files(tmp_path, paths, text), name="write_files", description="write"
    )
    with pytest.raises(Exception) as caught:
        escaping.invoke({"paths": ["../outside.txt"], "text": "x"}, {"callbacks": [handler]})
    assert getattr(caught.value, "code", None) == "path_escapes_root"
    assert not (tmp_path.parent / "outside.txt").exists()
