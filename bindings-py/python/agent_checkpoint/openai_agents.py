"""OpenAI Agents SDK: a tool maker and run hooks that checkpoint file edits.

- :func:`checkpoint_function_tool` makes a ``FunctionTool`` (as
  ``function_tool`` does) from a function whose calls are checkpointed: each
  call captures its paths before it runs and, if it raises, rolls them back
  before the SDK turns the error into the tool's output for the model (or
  ends the run, with ``failure_error_function=None``).
- :class:`CheckpointRunHooks` (``Runner.run(..., hooks=...)``) and
  :class:`CheckpointAgentHooks` (``Agent(..., hooks=...)``) leave the tools as
  they are and capture, in ``on_tool_start`` (before the tool runs), the paths
  in the arguments of the tools named in ``edits``, each before its first
  touch: the run can be undone. They cannot roll a failed call back: the SDK
  turns a tool's exception into its output before any hook runs.

Both record into a :class:`~agent_checkpoint.run_checkpoint.RunCheckpoint`,
whose ``undo()`` after the run takes the whole run back. Needs
``openai-agents`` (``pip install 'agent-checkpoint-rs[openai-agents]'``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agents import Agent, AgentHooks, FunctionTool, RunContextWrapper, RunHooks, Tool, function_tool
from agents.tool_context import ToolContext

from agent_checkpoint.run_checkpoint import DEFAULT_PATHS, FileTools, PathsOf, RunCheckpoint, checkpointed, paths_of_tool

__all__ = ["CheckpointAgentHooks", "CheckpointRunHooks", "checkpoint_function_tool"]


def checkpoint_function_tool(
    func: Callable[..., Any], checkpoint: RunCheckpoint, paths: PathsOf = DEFAULT_PATHS, **options: Any
) -> FunctionTool:
    """``function_tool(func, **options)``, each call checkpointed in ``checkpoint``.

    ``paths`` reads the paths from the call's arguments (by default
    ``path`` / ``file_path`` / ``paths``); ``options`` are ``function_tool``'s
    (``name_override``, ``failure_error_function``, ...).
    """
    return function_tool(checkpointed(func, checkpoint, paths), **options)


class CheckpointRunHooks(RunHooks[Any]):
    """Run hooks capturing the paths of the tools in ``edits`` before they run.

    ``edits`` names the tools that edit files (their paths read from the
    ``path`` / ``file_path`` / ``paths`` arguments) or maps each name to a
    :data:`~agent_checkpoint.run_checkpoint.PathsOf`.
    """

    def __init__(self, checkpoint: RunCheckpoint, edits: FileTools) -> None:
        self.checkpoint = checkpoint
        self.edits = edits

    async def on_tool_start(self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool) -> None:
        """Capture the paths this call names that the run has not touched yet."""
        await _touch(self.checkpoint, self.edits, context, tool)


class CheckpointAgentHooks(AgentHooks[Any]):
    """:class:`CheckpointRunHooks`, as one agent's hooks (``Agent(hooks=...)``)."""

    def __init__(self, checkpoint: RunCheckpoint, edits: FileTools) -> None:
        self.checkpoint = checkpoint
        self.edits = edits

    async def on_tool_start(self, context: RunContextWrapper[Any], agent: Agent[Any], tool: Tool) -> None:
        """Capture the paths this call names that the run has not touched yet."""
        await _touch(self.checkpoint, self.edits, context, tool)


async def _touch(checkpoint: RunCheckpoint, edits: FileTools, context: RunContextWrapper[Any], tool: Tool) -> None:
    paths_of = paths_of_tool(edits, tool.name)
    if paths_of is None or not isinstance(context, ToolContext):
        return
    await checkpoint.atouch(paths_of(_arguments(context.tool_arguments)))


def _arguments(text: str) -> dict[str, Any]:
    # The SDK reports arguments that are not a JSON object to the model
    # itself; there is nothing to capture for them.
    try:
        parsed = json.loads(text) if text else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}
