"""A batch of edits as a ``with`` block: rolled back if the block raises.

:func:`guard` captures the paths on entry (:func:`create_checkpoint`) and,
when the block ends with an exception — any ``BaseException``, so
``KeyboardInterrupt`` and ``asyncio.CancelledError`` too — rolls back exactly
those paths (:func:`rollback`) and lets the exception go on. A block that ends
normally keeps its edits; the snapshot stays at :attr:`Guard.snapshot` for a
later :meth:`Guard.rollback`. With ``store=`` (a :class:`CheckpointStore`), a
block whose edits stay is also written to the store on exit, as a new
checkpoint holding the snapshot (:attr:`Guard.checkpoint_id`), so the batch
can be undone later with ``store.rollback(g.checkpoint_id)``. ``async with``
does the capture, the rollback and the write in a worker thread
(:func:`asyncio.to_thread`), off the event loop.

Only composition of the two native calls lives here: what a rollback does is
the core's, the same as calling :func:`rollback` by hand.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal

from agent_checkpoint._native import (
    CheckpointStore,
    InvalidArgumentError,
    RollbackResult,
    create_checkpoint,
    new_ulid,
    rollback,
    snapshot_paths,
)

if TYPE_CHECKING:
    from agent_checkpoint._native import _Key, _Operation, _Progress, _StrPath

__all__ = ["Guard", "guard"]

class Guard:
    """The paths of one batch, captured: what ``with guard(...)`` gives.

    Made by :func:`guard`; enter it once (``with`` or ``async with``).
    """

    #: The snapshot taken on entry (JSON text); ``None`` before entry.
    snapshot: str | None
    #: The report of the rollback, once one ran; ``None`` before.
    report: RollbackResult | None
    #: What the rollback raised, when it raised instead of reporting (the
    #: root could not be opened, an option was unusable); ``None`` otherwise.
    rollback_error: Exception | None
    #: The checkpoint written to ``store`` on exit; ``None`` without a store,
    #: before exit, or when the batch was rolled back.
    checkpoint_id: str | None
    #: What writing to ``store`` raised when the block itself raised (and
    #: was kept): the block's exception goes on, this is attached to it.
    store_error: Exception | None

    def __init__(
        self,
        root: _StrPath,
        paths: Iterable[_Operation],
        *,
        allow_git_dir: bool = False,
        max_file_bytes: int | None = None,
        key: _Key | None = None,
        record_root: bool = True,
        durable: bool = True,
        redo: bool = True,
        restore_setid: bool = False,
        strict_root: bool = False,
        progress: _Progress | None = None,
        store: CheckpointStore | None = None,
        session_id: str = "guard",
        session: Mapping[str, Any] | None = None,
    ) -> None:
        if store is not None:
            _check_store(store, root, session)
        self._root = root
        self._paths = list(paths)
        self._allow_git_dir = allow_git_dir
        self._max_file_bytes = max_file_bytes
        self._key = key
        self._record_root = record_root
        self._durable = durable
        self._redo = redo
        self._restore_setid = restore_setid
        self._strict_root = strict_root
        self._progress = progress
        self._store = store
        self._session_id = session_id
        self._session = dict(session) if session is not None else {}
        self._kept = False
        self._rolled_back = False
        self.snapshot = None
        self.report = None
        self.rollback_error = None
        self.checkpoint_id = None
        self.store_error = None

    @property
    def kept(self) -> bool:
        """Whether :meth:`keep` was called."""
        return self._kept

    @property
    def rolled_back(self) -> bool:
        """Whether a rollback ran (whatever its report says)."""
        return self._rolled_back

    def keep(self) -> None:
        """Never roll back on the way out of the block, even on an exception.

        An explicit :meth:`rollback` still rolls back.
        """
        self._kept = True

    def rollback(self) -> RollbackResult:
        """Roll the captured paths back now, and return the report.

        Runs at most once: a later call (or the end of the block) returns the
        same report and touches nothing. Raises what :func:`rollback` raises
        (the root cannot be opened, an option is unusable); a snapshot it
        refuses is reported, not raised.
        """
        if self.report is not None:
            return self.report
        if self.snapshot is None:
            raise RuntimeError("guard: nothing captured yet (enter the guard first)")
        self._rolled_back = True
        self.report = rollback(
            self._root,
            self.snapshot,
            durable=self._durable,
            allow_git_dir=self._allow_git_dir,
            key=self._key,
            redo=self._redo,
            restore_setid=self._restore_setid,
            strict_root=self._strict_root,
            max_file_bytes=self._max_file_bytes,
            progress=self._progress,
        )
        return self.report

    def discard(self) -> RollbackResult:
        """Discard the batch's edits: the same as :meth:`rollback`."""
        return self.rollback()

    def _capture(self) -> None:
        if self.snapshot is not None:
            raise RuntimeError("guard: a guard is entered once")
        self.snapshot = create_checkpoint(
            self._root,
            self._paths,
            allow_git_dir=self._allow_git_dir,
            max_file_bytes=self._max_file_bytes,
            key=self._key,
            record_root=self._record_root,
            progress=self._progress,
        )

    def _roll_back_for(self, exc: BaseException) -> None:
        # The block's exception is what the caller sees, whatever the
        # rollback does: its failure is attached, never raised in its place.
        if self._kept or self._rolled_back:
            return
        try:
            report = self.rollback()
        except Exception as failure:
            self.rollback_error = failure
            _note(exc, f"agent_checkpoint.guard: the rollback failed: {failure!r}")
            return
        if not report.ok:
            detail = report.error if not report.valid else ", ".join(
                f"{path} ({report.failure_codes.get(path, '?')})" for path in report.unrestored
            )
            _note(exc, f"agent_checkpoint.guard: the rollback did not restore everything: {detail}")

    def _write_checkpoint(self) -> None:
        # The edits stay: keep the snapshot in the store as a new checkpoint
        # whose files are the guarded paths (fields given in `session` win).
        if self._store is None or self._rolled_back or self.snapshot is None:
            return
        checkpoint_id = new_ulid()
        fields: dict[str, Any] = {"files_touched": snapshot_paths(self.snapshot)}
        fields.update(self._session)
        fields["snapshot"] = self.snapshot
        self._store.write_session(checkpoint_id, self._session_id, **fields)
        self.checkpoint_id = checkpoint_id

    def _exit(self, exc: BaseException | None) -> None:
        if exc is not None:
            self._roll_back_for(exc)
            try:
                self._write_checkpoint()
            except Exception as failure:
                self.store_error = failure
                _note(exc, f"agent_checkpoint.guard: writing the checkpoint failed: {failure!r}")
        else:
            self._write_checkpoint()

    def __enter__(self) -> Guard:
        self._capture()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]:
        self._exit(exc)
        return False

    async def __aenter__(self) -> Guard:
        await asyncio.to_thread(self._capture)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> Literal[False]:
        if exc is not None or self._store is not None:
            await _off_loop(self._exit, exc)
        return False


def guard(
    root: _StrPath,
    paths: Iterable[_Operation],
    *,
    allow_git_dir: bool = False,
    max_file_bytes: int | None = None,
    key: _Key | None = None,
    record_root: bool = True,
    durable: bool = True,
    redo: bool = True,
    restore_setid: bool = False,
    strict_root: bool = False,
    progress: _Progress | None = None,
    store: CheckpointStore | None = None,
    session_id: str = "guard",
    session: Mapping[str, Any] | None = None,
) -> Guard:
    """A guard over ``paths`` under ``root``, for ``with`` or ``async with``.

    On entry it captures the paths (``create_checkpoint(root, paths, ...)``);
    if the block raises, it rolls them back (``rollback(root, snapshot, ...)``)
    and the exception goes on, with :attr:`Guard.report` set. The options are
    those of the two functions, under their names: ``allow_git_dir``,
    ``max_file_bytes``, ``key`` and ``progress`` go to both, ``record_root``
    to the capture, ``durable``, ``redo``, ``restore_setid`` and
    ``strict_root`` to the rollback.

    ``store``: when the block's edits stay (it ends normally, or raises with
    :meth:`Guard.keep` called), a new checkpoint is written to this
    :class:`CheckpointStore` on exit: one session ``session_id`` holding the
    snapshot, its ``files_touched`` the guarded paths, and the fields of
    ``session`` (``agent``, ``prompts``, ...; as ``write_session`` takes
    them). Its ID is :attr:`Guard.checkpoint_id`. A write that fails after a
    normal exit raises; after a raising block it is attached to the
    block's exception (:attr:`Guard.store_error`).
    """
    return Guard(
        root,
        paths,
        allow_git_dir=allow_git_dir,
        max_file_bytes=max_file_bytes,
        key=key,
        record_root=record_root,
        durable=durable,
        redo=redo,
        restore_setid=restore_setid,
        strict_root=strict_root,
        progress=progress,
        store=store,
        session_id=session_id,
        session=session,
    )


#: Fields of the session the guard sets itself.
_OWN_FIELDS = ("checkpoint_id", "session_id", "snapshot")


def _check_store(store: CheckpointStore, root: _StrPath, session: Mapping[str, Any] | None) -> None:
    # A stored checkpoint is rolled back into the store's working tree
    # (`store.rollback(id)` with no root), which refuses a snapshot taken
    # elsewhere (`root_mismatch`): checked here before anything is
    # captured, so the run fails at its start rather than at its undo.
    if not isinstance(store, CheckpointStore):
        raise TypeError(f"guard: store must be a CheckpointStore, not {type(store).__name__}")
    work_dir = store.work_dir
    if work_dir is None or os.path.realpath(work_dir) != os.path.realpath(root):
        raise InvalidArgumentError(
            f"guard: with store=, root must be the store's working tree ({work_dir}), not {os.fspath(root)}: "
            "capture from the top, naming the paths below it"
        )
    for name in _OWN_FIELDS:
        if session is not None and name in session:
            raise InvalidArgumentError(f"guard: session must not set {name!r} (the guard sets it)")


def _note(exc: BaseException, note: str) -> None:
    if sys.version_info >= (3, 11):
        exc.add_note(note)


async def _off_loop(work: Callable[[BaseException | None], None], exc: BaseException | None) -> None:
    # A rollback once started runs to its end in its thread: a cancellation
    # that arrives meanwhile waits for it (the report is set), then goes on.
    done = asyncio.ensure_future(asyncio.to_thread(work, exc))
    cancelled: asyncio.CancelledError | None = None
    while not done.done():
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError as again:
            if done.cancelled():
                raise
            cancelled = again
    done.result()
    if cancelled is not None:
        raise cancelled
