"""LangChain / LangGraph: a checkpointing tool wrapper and callback handler.

Two ways in, each recording into a
:class:`~agent_checkpoint.run_checkpoint.RunCheckpoint` whose ``undo()`` takes
the whole run back:

- :func:`checkpoint_tool` wraps one tool: each call captures the paths in its
  arguments before it runs and rolls them back if it raises (a handled
  ``ToolException`` too: it raised).
- :class:`CheckpointCallbackHandler` needs no change to the tools: passed in
  ``config={"callbacks": [handler]}``, it captures on ``on_tool_start`` (before
  the tool runs, for the tools named in ``edits``) and rolls back on
  ``on_tool_error``, or on ``on_tool_end`` with an error ``ToolMessage`` (a
  ``ToolException`` the tool handled).

Both work inside LangGraph's agent loop (``create_react_agent``, ``ToolNode``).
Tools taking a dict of arguments are supported (the paths are read from it).
Needs ``langchain-core`` (``pip install 'agent-checkpoint-rs[langchain]'``).
"""

from __future__ import annotations

import inspect
import sys
import warnings
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import ConfigDict

from agent_checkpoint.checkpoint_guard import Guard
from agent_checkpoint.run_checkpoint import DEFAULT_PATHS, FileTools, PathsOf, RunCheckpoint, paths_of_tool

__all__ = ["CheckpointCallbackHandler", "CheckpointTool", "checkpoint_tool"]


class CheckpointTool(BaseTool):
    """A tool that runs ``wrapped`` inside a guard of ``checkpoint``: made by :func:`checkpoint_tool`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    wrapped: BaseTool
    checkpoint: RunCheckpoint
    paths_of: PathsOf

    def _run(self, *args: Any, config: RunnableConfig, run_manager: Any = None, **kwargs: Any) -> Any:
        extra = _passed_on(self.wrapped._run, config, run_manager)
        with self.checkpoint.guard(self.paths_of(kwargs)):
            return self.wrapped._run(*args, **extra, **kwargs)

    async def _arun(self, *args: Any, config: RunnableConfig, run_manager: Any = None, **kwargs: Any) -> Any:
        extra = _passed_on(self.wrapped._arun, config, run_manager)
        async with self.checkpoint.guard(self.paths_of(kwargs)):
            return await self.wrapped._arun(*args, **extra, **kwargs)


def checkpoint_tool(tool: BaseTool, checkpoint: RunCheckpoint, paths: PathsOf = DEFAULT_PATHS) -> CheckpointTool:
    """``tool``, its calls checkpointed in ``checkpoint``: same name, description, schema.

    ``paths`` reads the paths from the call's arguments (by default the
    ``path`` / ``file_path`` / ``paths`` arguments). The error handling options
    (``handle_tool_error``, ``handle_validation_error``) move to the wrapper,
    so the rollback sees the exception before they turn it into a message.
    """
    return CheckpointTool(
        name=tool.name,
        description=tool.description,
        args_schema=tool.args_schema,
        return_direct=tool.return_direct,
        response_format=tool.response_format,
        handle_tool_error=tool.handle_tool_error,
        handle_validation_error=tool.handle_validation_error,
        tags=tool.tags,
        metadata=tool.metadata,
        extras=tool.extras,
        wrapped=tool,
        checkpoint=checkpoint,
        paths_of=paths,
    )


def _passed_on(method: Any, config: RunnableConfig, run_manager: Any) -> dict[str, Any]:
    # What BaseTool.run passes to `_run` when it asks for it: the same here.
    parameters = inspect.signature(method).parameters
    extra: dict[str, Any] = {}
    if "config" in parameters:
        extra["config"] = config
    if "run_manager" in parameters:
        extra["run_manager"] = run_manager
    return extra


class CheckpointCallbackHandler(BaseCallbackHandler):
    """Checkpoints the calls of the tools named in ``edits``, from the callbacks.

    ``edits`` names the tools that edit files (their paths read from the
    ``path`` / ``file_path`` / ``paths`` arguments) or maps each name to a
    :data:`~agent_checkpoint.run_checkpoint.PathsOf`. A capture that fails
    stops the tool (``raise_error``): it never runs unprotected.
    """

    raise_error = True

    def __init__(self, checkpoint: RunCheckpoint, edits: FileTools) -> None:
        self.checkpoint = checkpoint
        self.edits = edits
        self._guards: dict[UUID, Guard] = {}

    def on_tool_start(
        self,
        serialized: dict[str, Any],
        input_str: str,
        *,
        run_id: UUID,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Capture the call's paths, if the tool edits files."""
        paths_of = paths_of_tool(self.edits, str(serialized.get("name")))
        if paths_of is None:
            return
        guard = self.checkpoint.guard(paths_of(inputs or {}))
        guard.__enter__()
        self._guards[run_id] = guard

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Keep the call's edits, unless its output is an error ``ToolMessage``.

        A rollback that raises here is kept at the guard's ``rollback_error``
        and warned about, never raised: the tool's handled result goes on to
        the model (the run's :meth:`RunCheckpoint.undo` still restores).
        """
        guard = self._guards.pop(run_id, None)
        if guard is not None and isinstance(output, ToolMessage) and output.status == "error":
            try:
                guard.rollback()
            except Exception as failure:
                guard.rollback_error = failure
                warnings.warn(
                    f"agent_checkpoint: rolling back a failed tool call failed: {failure!r}",
                    RuntimeWarning,
                    stacklevel=2,
                )

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Roll the call's paths back."""
        guard = self._guards.pop(run_id, None)
        if guard is not None:
            guard.__exit__(type(error), error, error.__traceback__ or sys.exc_info()[2])
