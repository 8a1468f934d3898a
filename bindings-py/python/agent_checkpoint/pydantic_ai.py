"""Pydantic AI: a toolset whose file-editing tools are checkpointed.

:class:`CheckpointToolset` wraps any toolset (a ``FunctionToolset``, an MCP
server, ...). A call of a tool named in ``edits`` captures the paths in its
arguments before it runs and, if it raises (``ModelRetry`` included: the model
is asked again with the files as they were), rolls exactly those paths back
and lets the exception go on. Every capture also lands in the
:class:`~agent_checkpoint.run_checkpoint.RunCheckpoint`, so ``undo()`` after
the run takes the whole run back::

    run = RunCheckpoint(".")
    agent.run_sync(prompt, toolsets=[CheckpointToolset(tools, run, edits=["write_file"])])
    run.undo()

Needs ``pydantic-ai-slim`` (``pip install 'agent-checkpoint-rs[pydantic-ai]'``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic_ai import RunContext
from pydantic_ai.toolsets import ToolsetTool, WrapperToolset

from agent_checkpoint.run_checkpoint import FileTools, RunCheckpoint, paths_of_tool

__all__ = ["CheckpointToolset"]

DepsT = TypeVar("DepsT")


@dataclass
class CheckpointToolset(WrapperToolset[DepsT]):
    """``wrapped``, with the calls of its tools in ``edits`` checkpointed in ``checkpoint``.

    ``edits`` names the tools that edit files (their paths read from the
    ``path`` / ``file_path`` / ``paths`` arguments) or maps each name to a
    :data:`~agent_checkpoint.run_checkpoint.PathsOf`. Other tools run as they
    are. The capture and the rollback run in a worker thread.
    """

    checkpoint: RunCheckpoint
    edits: FileTools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[DepsT], tool: ToolsetTool[DepsT]
    ) -> Any:
        paths_of = paths_of_tool(self.edits, name)
        if paths_of is None:
            return await self.wrapped.call_tool(name, tool_args, ctx, tool)
        async with self.checkpoint.guard(paths_of(tool_args)):
            return await self.wrapped.call_tool(name, tool_args, ctx, tool)

