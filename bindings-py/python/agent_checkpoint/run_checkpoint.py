"""One checkpoint per agent run, for the framework integrations.

A :class:`RunCheckpoint` collects every path that a run's file-editing tools
touch, each captured once, before its first touch; :meth:`RunCheckpoint.undo`
rolls the whole run back. :meth:`RunCheckpoint.guard` is what an integration
puts around one tool call: a :class:`~agent_checkpoint.Guard` over the call's
paths (rolled back if the call raises) that also records the paths the run had
not touched yet.

Which arguments of a tool are paths is a :data:`PathsOf`: a function from the
call's arguments to paths. :func:`path_args` builds one from argument names;
:data:`DEFAULT_PATHS` reads the common shapes ``path``, ``file_path`` and
``paths``. :data:`FileTools` says which tools edit files: tool names (read with
:data:`DEFAULT_PATHS`) or a mapping from name to a :data:`PathsOf`.

Pure Python over :func:`create_checkpoint` and :func:`rollback`; the frameworks
are imported by their own modules (``agent_checkpoint.pydantic_ai``,
``agent_checkpoint.langchain``, ``agent_checkpoint.openai_agents``), never here.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, Union, cast

from agent_checkpoint._native import RollbackResult, create_checkpoint, rollback, snapshot_paths
from agent_checkpoint.checkpoint_guard import Guard

if TYPE_CHECKING:
    from agent_checkpoint._native import _Key, _StrPath

__all__ = [
    "DEFAULT_PATHS",
    "FileTools",
    "PathsOf",
    "RunCheckpoint",
    "RunUndo",
    "checkpointed",
    "path_args",
    "paths_of_tool",
]

#: How to find the paths in a tool call's arguments (a mapping of argument
#: name to value): the paths it returns are captured before the call runs.
PathsOf: TypeAlias = Callable[[Mapping[str, Any]], Iterable[Union[str, os.PathLike[str]]]]
#: Which tools edit files: names (their paths read with :data:`DEFAULT_PATHS`),
#: or a mapping of name to a :data:`PathsOf`.
FileTools: TypeAlias = Union[Mapping[str, PathsOf], Collection[str]]


def path_args(*names: str) -> PathsOf:
    """A :data:`PathsOf` reading the arguments ``names``.

    Each such argument holds one path (``str`` or ``os.PathLike``) or a list or
    tuple of paths; an argument that is absent or ``None`` adds nothing, but a
    call that has none of them is a :class:`TypeError` (a tool declared as
    editing files whose paths cannot be found would run unprotected), as is
    any other value; both are raised before the tool runs.
    """

    def paths(arguments: Mapping[str, Any]) -> list[str | os.PathLike[str]]:
        if not any(name in arguments for name in names):
            raise TypeError(
                f"a tool declared as editing files was called without any of its path "
                f"arguments {list(names)!r} (got {sorted(arguments)!r}); name them with path_args(...)"
            )
        found: list[str | os.PathLike[str]] = []
        for name in names:
            value = arguments.get(name)
            if value is None:
                continue
            items = value if isinstance(value, (list, tuple)) else [value]
            for item in items:
                if not isinstance(item, (str, os.PathLike)):
                    raise TypeError(f"argument {name!r}: expected a path or a list of paths, got {item!r}")
                found.append(item)
        return found

    return paths


#: The paths of the common argument shapes: ``path``, ``file_path``, ``paths``.
DEFAULT_PATHS: PathsOf = path_args("path", "file_path", "paths")


def paths_of_tool(file_tools: FileTools, name: str) -> PathsOf | None:
    """How to find the paths of tool ``name``, or ``None`` if it edits no files."""
    if isinstance(file_tools, Mapping):
        return file_tools.get(name)
    return DEFAULT_PATHS if name in file_tools else None


@dataclass(frozen=True)
class RunUndo:
    """What :meth:`RunCheckpoint.undo` did: one rollback report per capture."""

    #: The reports, in the order the rollbacks ran (the latest capture first).
    reports: tuple[RollbackResult, ...]

    @property
    def ok(self) -> bool:
        """Whether every rollback restored everything it held."""
        return all(report.ok for report in self.reports)

    @property
    def restored(self) -> list[str]:
        """The paths restored, sorted."""
        return sorted({path for report in self.reports for path in report.restored})

    @property
    def unrestored(self) -> list[str]:
        """The paths that could not be restored, sorted."""
        return sorted({path for report in self.reports for path in report.unrestored})


class RunCheckpoint:
    """The paths one agent run's tools touched, each captured before its first touch.

    Make one per run and hand it to the integration (a toolset, a tool
    wrapper, a callback handler, run hooks); afterwards :meth:`undo` rolls the
    whole run back. The options are those of :func:`create_checkpoint` and
    :func:`rollback`, for every capture and rollback it makes. Safe to share
    between the threads and tasks of one run; two tool calls editing the same
    path at the same time are not told apart.
    """

    def __init__(
        self,
        root: _StrPath,
        *,
        allow_git_dir: bool = False,
        max_file_bytes: int | None = None,
        key: _Key | None = None,
        durable: bool = True,
        redo: bool = True,
        strict_root: bool = False,
    ) -> None:
        self.root = root
        self._allow_git_dir = allow_git_dir
        self._max_file_bytes = max_file_bytes
        self._key = key
        self._durable = durable
        self._redo = redo
        self._strict_root = strict_root
        self._lock = threading.Lock()
        self._paths: list[str] = []
        self._seen: set[str] = set()
        self._snapshots: list[str] = []
        self._undo: RunUndo | None = None

    @property
    def paths(self) -> list[str]:
        """Every path captured so far (canonical spelling), in order of first touch."""
        with self._lock:
            return list(self._paths)

    @property
    def snapshots(self) -> list[str]:
        """The snapshots taken so far (JSON text), oldest first; disjoint paths."""
        with self._lock:
            return list(self._snapshots)

    @property
    def undone(self) -> bool:
        """Whether :meth:`undo` ran."""
        return self._undo is not None

    def guard(self, paths: Iterable[_StrPath]) -> Guard:
        """A guard for one tool call over ``paths``: enter it around the call.

        Entering captures the paths (for the call's own rollback when it
        raises) and records those the run had not touched yet.
        """
        return _ToolGuard(self, list(paths))

    def touch(self, paths: Iterable[_StrPath]) -> None:
        """Capture those of ``paths`` the run has not touched yet (no tool guard)."""
        wanted = list(paths)
        if not wanted:
            return
        with self._lock:
            self._record(None, wanted)

    async def atouch(self, paths: Iterable[_StrPath]) -> None:
        """:meth:`touch` in a worker thread."""
        await asyncio.to_thread(self.touch, list(paths))

    def undo(self) -> RunUndo:
        """Roll back the whole run: every capture, the latest first.

        Runs once; a later call returns the same result. Raises what
        :func:`rollback` raises (the root cannot be opened); a snapshot it
        refuses is reported, not raised.
        """
        with self._lock:
            if self._undo is None:
                reports = tuple(
                    rollback(
                        self.root,
                        snapshot,
                        durable=self._durable,
                        allow_git_dir=self._allow_git_dir,
                        key=self._key,
                        redo=self._redo,
                        strict_root=self._strict_root,
                        max_file_bytes=self._max_file_bytes,
                    )
                    for snapshot in reversed(self._snapshots)
                )
                self._undo = RunUndo(reports)
            return self._undo

    async def aundo(self) -> RunUndo:
        """:meth:`undo` in a worker thread."""
        return await asyncio.to_thread(self.undo)

    def _capture(self, paths: list[_StrPath]) -> str:
        return create_checkpoint(
            self.root,
            paths,
            allow_git_dir=self._allow_git_dir,
            max_file_bytes=self._max_file_bytes,
            key=self._key,
        )

    def _record(self, snapshot: str | None, paths: list[_StrPath]) -> None:
        # Called with the lock held. `snapshot` covers `paths` (taken just now),
        # or is None: then the new paths are captured here.
        if self._undo is not None:
            raise RuntimeError("RunCheckpoint: the run was undone; make a new one for the next run")
        if snapshot is None:
            snapshot = self._capture(paths)
        canonical = snapshot_paths(snapshot)
        new = [path for path in canonical if path not in self._seen]
        if not new:
            return
        if len(new) < len(canonical):
            # Some were touched before: their state now is not the run's start.
            snapshot = self._capture(list(new))
        self._snapshots.append(snapshot)
        self._paths.extend(new)
        self._seen.update(new)


_F = TypeVar("_F", bound=Callable[..., Any])


def checkpointed(func: _F, checkpoint: RunCheckpoint, paths: PathsOf = DEFAULT_PATHS) -> _F:
    """``func`` (a tool's function, sync or async), each call inside ``checkpoint.guard``.

    ``paths`` reads the paths from the call's arguments, bound to ``func``'s
    parameter names (by default ``path`` / ``file_path`` / ``paths``). The
    wrapper keeps ``func``'s name, docstring and signature, so a framework
    that makes tools from functions sees the same tool.
    """
    signature = inspect.signature(func)

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            arguments = signature.bind_partial(*args, **kwargs).arguments
            async with checkpoint.guard(paths(arguments)):
                return await func(*args, **kwargs)

        return cast(_F, call_async)

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        arguments = signature.bind_partial(*args, **kwargs).arguments
        with checkpoint.guard(paths(arguments)):
            return func(*args, **kwargs)

    return cast(_F, call)


class _ToolGuard(Guard):
    """A guard whose capture also records the run's first touches."""

    def __init__(self, run: RunCheckpoint, paths: list[_StrPath]) -> None:
        super().__init__(
            run.root,
            paths,
            allow_git_dir=run._allow_git_dir,
            max_file_bytes=run._max_file_bytes,
            key=run._key,
            durable=run._durable,
            redo=run._redo,
            strict_root=run._strict_root,
        )
        self._run = run
        self._tool_paths = paths

    def _capture(self) -> None:
        with self._run._lock:
            super()._capture()
            assert self.snapshot is not None
            self._run._record(self.snapshot, self._tool_paths)
