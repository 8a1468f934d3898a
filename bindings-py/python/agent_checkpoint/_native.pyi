"""Type stubs of the native module ``agent_checkpoint._native`` (checked by mypy.stubtest)."""

import builtins
import os
from pathlib import Path
from typing import Any, Callable, ClassVar, Final, Iterable, Literal, Mapping, Optional, Protocol, Union, final, overload

from typing_extensions import TypeAlias

_StrPath: TypeAlias = Union[str, os.PathLike[str]]

class _HasFile(Protocol):
    """An operation model: anything with a ``file`` attribute naming its target."""

    @property
    def file(self) -> _StrPath: ...

_Operation: TypeAlias = Union[_StrPath, _HasFile]
_IdKind: TypeAlias = Literal["legacy", "ulid", "unknown"]
_CapturedKind: TypeAlias = Literal["file", "new", "link"]
_PlanAction: TypeAlias = Literal["keep", "write", "remove", "rmdir", "conflict", "refuse"]
_OnConflict: TypeAlias = Literal["overwrite", "skip"]
_Key: TypeAlias = Union[bytes, bytearray, str]
_Rules: TypeAlias = Union[Mapping[str, str], Iterable[tuple[str, str]]]
_DiffLineKind: TypeAlias = Literal["context", "removed", "added"]
_ProgressStage: TypeAlias = Literal["capture", "check", "restore"]
_Progress: TypeAlias = Callable[[_ProgressStage, int, int], object]

__all__ = [
    "_error_samples",
    "AuthFailedError",
    "BlobRedaction",
    "CHECKPOINT_REF_PREFIX",
    "CapturedPath",
    "CheckpointError",
    "CheckpointNotADirectoryError",
    "CheckpointStore",
    "ConflictError",
    "CorruptObjectError",
    "DiffLine",
    "DuEntry",
    "DuReport",
    "ERROR_CODES",
    "FetchResult",
    "FetchedRef",
    "Finding",
    "GcReport",
    "Hunk",
    "InvalidArgumentError",
    "InvalidCheckpointIdError",
    "InvalidPathError",
    "InvalidPatternError",
    "InvalidRefNameError",
    "IoError",
    "METADATA_BRANCH",
    "MalformedSnapshotError",
    "NoTranscriptError",
    "NotAFileError",
    "NotARepositoryError",
    "NotFoundError",
    "OutgoingCheckpoint",
    "PROMPT_SEPARATOR",
    "PathEscapesRootError",
    "PathProblem",
    "PermissionDeniedError",
    "PlanItem",
    "PushPlan",
    "PushQueue",
    "PushResult",
    "Redaction",
    "Redactor",
    "RefBusyError",
    "RefFailure",
    "RejectedError",
    "RemoteCheckpoint",
    "RemoteUnreachableError",
    "RemovedBranch",
    "RemovedCheckpoint",
    "RemovedSnapshot",
    "RollbackResult",
    "RootMismatchError",
    "SessionUsage",
    "SHADOW_BRANCH_PREFIX",
    "StorageUsage",
    "TooLargeError",
    "UnauthenticatedError",
    "UnsupportedVersionError",
    "__version__",
    "checkpoint_id_kind",
    "checkpoint_path",
    "create_checkpoint",
    "display_short",
    "error_class",
    "hash_worktree_id",
    "inspect_snapshot",
    "is_shadow_branch",
    "join_prompts",
    "new_checkpoint_id",
    "new_ulid",
    "parse_ref",
    "parse_shadow_branch_name",
    "plan_rollback",
    "record_applied",
    "redact_blob",
    "redact_json",
    "redact_text",
    "ref_name",
    "rollback",
    "shadow_branch_name",
    "shard_for",
    "snapshot_paths",
    "split_prompts",
    "ulid_timestamp_ms",
    "validate_checkpoint_id",
]

__version__: str
ERROR_CODES: tuple[str, ...]
PROMPT_SEPARATOR: Final = "\n\n---\n\n"
CHECKPOINT_REF_PREFIX: Final = "refs/entire/checkpoints/"
SHADOW_BRANCH_PREFIX: Final = "entire/"
METADATA_BRANCH: Final = "entire/checkpoints/v1"

# Errors: one class per code, each carrying the code as ``.code``.

class CheckpointError(Exception):
    code: ClassVar[str]
    #: The path the error is about, as given (``None`` when it is about none).
    path: str | None

class InvalidCheckpointIdError(CheckpointError, ValueError): ...
class InvalidRefNameError(CheckpointError, ValueError): ...
class InvalidPathError(CheckpointError, ValueError): ...
class PathEscapesRootError(CheckpointError, ValueError): ...
class NotAFileError(CheckpointError, ValueError): ...
class CheckpointNotADirectoryError(CheckpointError, ValueError): ...
class MalformedSnapshotError(CheckpointError, ValueError): ...
class UnsupportedVersionError(CheckpointError, ValueError): ...
class TooLargeError(CheckpointError, ValueError): ...
class InvalidArgumentError(CheckpointError, ValueError): ...
class InvalidPatternError(CheckpointError, ValueError): ...
class UnauthenticatedError(CheckpointError): ...
class RootMismatchError(CheckpointError): ...
class NotFoundError(CheckpointError, FileNotFoundError): ...
class NoTranscriptError(CheckpointError, FileNotFoundError): ...
class NotARepositoryError(CheckpointError, ValueError): ...
class CorruptObjectError(CheckpointError, OSError): ...
class RefBusyError(CheckpointError): ...
class ConflictError(CheckpointError): ...
class RemoteUnreachableError(CheckpointError, OSError): ...
class AuthFailedError(CheckpointError): ...
class RejectedError(CheckpointError): ...
class PermissionDeniedError(CheckpointError, PermissionError): ...
class IoError(CheckpointError, OSError): ...

def error_class(code: str) -> type[CheckpointError]: ...

# For the test suite: sample errors of `code` as raised, with the core's message.
def _error_samples(code: str) -> list[tuple[CheckpointError, str]]: ...

# Snapshot and rollback.

def create_checkpoint(
    root: _StrPath,
    operations: Iterable[_Operation],
    *,
    allow_git_dir: bool = False,
    max_file_bytes: int | None = None,
    key: _Key | None = None,
    record_root: bool = True,
    progress: _Progress | None = None,
) -> str: ...
def rollback(
    root: _StrPath,
    checkpoint: str,
    *,
    durable: bool = True,
    allow_git_dir: bool = False,
    on_conflict: _OnConflict = "overwrite",
    key: _Key | None = None,
    redo: bool = True,
    restore_setid: bool = False,
    strict_root: bool = False,
    max_file_bytes: int | None = None,
    progress: _Progress | None = None,
) -> RollbackResult: ...
def plan_rollback(
    root: _StrPath,
    checkpoint: str,
    *,
    allow_git_dir: bool = False,
    on_conflict: _OnConflict = "overwrite",
    key: _Key | None = None,
    restore_setid: bool = False,
    strict_root: bool = False,
    diff: bool = False,
    diff_context: int = 3,
    diff_max_bytes: int = 1048576,
    progress: _Progress | None = None,
) -> list[PlanItem]: ...
def record_applied(
    root: _StrPath,
    checkpoint: str,
    *,
    allow_git_dir: bool = False,
    key: _Key | None = None,
) -> str: ...
def snapshot_paths(checkpoint: str) -> list[str]: ...
def inspect_snapshot(checkpoint: str) -> list[CapturedPath]: ...
@final
class RollbackResult:
    @property
    def restored(self) -> list[str]: ...
    @property
    def unrestored(self) -> list[str]: ...
    @property
    def failures(self) -> dict[str, str]: ...
    @property
    def failure_codes(self) -> dict[str, str]: ...
    @property
    def conflicts(self) -> list[str]: ...
    @property
    def plan(self) -> list[PlanItem]: ...
    @property
    def redo(self) -> str | None: ...
    @property
    def not_in_redo(self) -> list[PathProblem]: ...
    @property
    def not_covered(self) -> dict[str, int]: ...
    @property
    def other_root(self) -> str | None: ...
    @property
    def error_code(self) -> str | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def valid(self) -> bool: ...
    @property
    def ok(self) -> bool: ...

@final
class CapturedPath:
    @property
    def path(self) -> str: ...
    @property
    def kind(self) -> _CapturedKind: ...
    @property
    def size(self) -> int | None: ...
    @property
    def mode(self) -> int | None: ...
    @property
    def link_target(self) -> str | None: ...
    @property
    def digest(self) -> str | None: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class PathProblem:
    """One path a rollback's redo cannot carry, and why."""

    @property
    def path(self) -> str: ...
    @property
    def code(self) -> str: ...
    @property
    def reason(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class PlanItem:
    @property
    def path(self) -> str: ...
    @property
    def action(self) -> _PlanAction: ...
    @property
    def conflict(self) -> bool: ...
    @property
    def code(self) -> str | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def diff(self) -> str | None: ...
    @property
    def diff_summary(self) -> str | None: ...
    @property
    def hunks(self) -> list[Hunk]: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Hunk:
    @property
    def old_start(self) -> int: ...
    @property
    def old_lines(self) -> int: ...
    @property
    def new_start(self) -> int: ...
    @property
    def new_lines(self) -> int: ...
    @property
    def lines(self) -> list[DiffLine]: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class DiffLine:
    @property
    def kind(self) -> _DiffLineKind: ...
    @property
    def text(self) -> str: ...
    @property
    def old_line(self) -> int | None: ...
    @property
    def new_line(self) -> int | None: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

# Checkpoint IDs, refs, shadow branches, prompts.

def new_checkpoint_id() -> str: ...
def new_ulid(timestamp_ms: int | None = None) -> str: ...
def checkpoint_id_kind(s: str) -> _IdKind: ...
def validate_checkpoint_id(s: str) -> str: ...
def shard_for(s: str) -> str: ...
def checkpoint_path(s: str) -> str: ...
def display_short(s: str) -> str: ...
def ulid_timestamp_ms(s: str) -> int | None: ...
def ref_name(id: str) -> str: ...
def parse_ref(name: str) -> str | None: ...
def shadow_branch_name(base_commit: str, worktree_id: str = "") -> str: ...
def parse_shadow_branch_name(name: str) -> tuple[str, str] | None: ...
def hash_worktree_id(worktree_id: str) -> str: ...
def is_shadow_branch(name: str) -> bool: ...
def split_prompts(content: str) -> list[str]: ...
def join_prompts(prompts: Iterable[str]) -> str: ...

# The push queue.

@final
class PushQueue:
    def __new__(cls, directory: _StrPath) -> PushQueue: ...
    @property
    def path(self) -> Path: ...
    @property
    def directory(self) -> Path: ...
    def enqueue(self, ref: str) -> None: ...
    def enqueue_all(self, refs: Iterable[str]) -> None: ...
    def drain(self) -> list[str]: ...
    def peek(self) -> list[str]: ...
    def remove(self, refs: Iterable[str]) -> None: ...

_Backend: TypeAlias = Literal["git-refs", "git-branch"]

@final
class CheckpointStore:
    """Checkpoints kept in git (any directory of the repository's worktree)."""

    def __new__(
        cls, path: _StrPath, backend: _Backend = "git-refs", *, sign_commits: Optional[bool] = None
    ) -> CheckpointStore:
        """``sign_commits``: sign every commit the store writes (``True``), never
        (``False``), or as git's ``commit.gpgSign`` says (``None``)."""
    @property
    def backend(self) -> _Backend: ...
    @property
    def common_dir(self) -> Path: ...
    @property
    def work_dir(self) -> Optional[Path]:
        """The repository's working tree (where ``rollback`` without a root restores); ``None`` when bare."""
    def write_session(
        self,
        checkpoint_id: str,
        session_id: str,
        *,
        transcript: Union[bytes, str, None] = None,
        **fields: Any,
    ) -> dict[str, Any]: ...
    def read(self, checkpoint_id: str) -> dict[str, Any]: ...
    def read_raw(self, checkpoint_id: str) -> str: ...
    #: ``{"metadata": dict, "prompts": list[str], "transcript": bytes | None}``;
    #: ``transcript`` is ``None`` for a session written without one.
    def read_session(self, checkpoint_id: str, index: int = 0) -> dict[str, Any]: ...
    def list(self) -> builtins.list[dict[str, Any]]:
        """Every local checkpoint, newest first: dicts with `checkpoint_id`,
        `backend`, `session_ids`, `created_at`, `agent`, `is_task`,
        `tool_use_id`, `checkpoints_count`, `files_touched`, `imported` and
        `damaged`: `None`, or `{"code": str, "reason": str}` for one that
        cannot be read (listed after the sound ones)."""
        ...
    def snapshot(self, checkpoint_id: str) -> Optional[str]: ...
    def rollback(
        self,
        checkpoint_id: str,
        root: Optional[_StrPath] = None,
        *,
        durable: bool = True,
        allow_git_dir: bool = False,
        on_conflict: _OnConflict = "overwrite",
        key: Optional[_Key] = None,
        redo: bool = True,
        restore_setid: bool = False,
        strict_root: bool = False,
        max_file_bytes: Optional[int] = None,
        progress: Optional[_Progress] = None,
    ) -> RollbackResult: ...
    def plan_rollback(
        self,
        checkpoint_id: str,
        root: Optional[_StrPath] = None,
        *,
        allow_git_dir: bool = False,
        on_conflict: _OnConflict = "overwrite",
        key: Optional[_Key] = None,
        restore_setid: bool = False,
        strict_root: bool = False,
        diff: bool = False,
        diff_context: int = 3,
        diff_max_bytes: int = 1048576,
        progress: Optional[_Progress] = None,
    ) -> builtins.list[PlanItem]: ...
    def backfill_transcript(
        self,
        checkpoint_id: str,
        session_id: str,
        transcript: Union[bytes, str],
        prompts: Optional[Iterable[str]] = None,
    ) -> str: ...
    def backfill_summary(self, checkpoint_id: str, session_id: str, summary: dict[str, Any]) -> str: ...
    def backfill_attribution(self, checkpoint_id: str, attribution: dict[str, Any]) -> str: ...
    # Shadow branches: one commit per agent step (docs/STORE.md §4).
    def shadow_step(
        self,
        session_id: str,
        *,
        files: Optional[Iterable[str]] = None,
        deleted: Optional[Iterable[str]] = None,
        message: Optional[str] = None,
        metadata_dir: Optional[_StrPath] = None,
        first: Optional[bool] = None,
        task: Optional[str] = None,
        agent_id: Optional[str] = None,
        checkpoint_uuid: Optional[str] = None,
        max_file_bytes: Optional[int] = None,
    ) -> dict[str, Any]: ...
    def shadow_branch(self) -> str: ...
    def shadow_branches(self) -> builtins.list[dict[str, Any]]: ...
    def shadow_log(
        self,
        *,
        session_id: Optional[str] = None,
        limit: int = 0,
        branch: Optional[str] = None,
    ) -> builtins.list[dict[str, Any]]: ...
    def shadow_transcript(self, commit: str) -> bytes: ...
    def shadow_rewind(
        self,
        commit: str,
        root: Optional[_StrPath] = None,
        *,
        durable: bool = True,
        redo: bool = True,
    ) -> RollbackResult: ...
    def shadow_rewind_plan(
        self,
        commit: str,
        root: Optional[_StrPath] = None,
        *,
        diff: bool = False,
        diff_context: int = 3,
        diff_max_bytes: int = 1048576,
    ) -> builtins.list[PlanItem]: ...
    def shadow_condense(
        self, session_id: str, checkpoint_id: str, **fields: Any
    ) -> dict[str, Any]: ...
    def shadow_clean(self) -> builtins.list[dict[str, Any]]: ...
    # Storage: what the checkpoints take on disk and getting it back.
    def du(self, *, top: int = 10) -> DuReport:
        """The bytes the checkpoints take (persistent checkpoints, undo
        snapshots, shadow branches), counted as git counts them, with the
        ``top`` largest entries and sessions named."""
    def gc(
        self,
        *,
        keep: Optional[int] = None,
        older_than: Optional[str] = None,
        include_checkpoints: bool = False,
        dry_run: bool = False,
    ) -> GcReport:
        """Removes undo snapshots beyond the retention (``keep`` per session,
        0: every one; ``older_than`` like ``"30d"``, ``"12h"``, ``"never"``;
        defaults from the git config ``entire.snapshotRetention`` /
        ``entire.snapshotMaxAge``, else 100 and 30 days), the shadow
        branches no session needs and, with ``include_checkpoints``, old
        persistent checkpoints; then frees the objects only they reached.
        ``dry_run`` changes nothing."""

    @overload
    def push(self, remote: str = "origin", *, dry_run: Literal[False] = False) -> PushResult: ...
    @overload
    def push(self, remote: str = "origin", *, dry_run: Literal[True]) -> PushPlan: ...
    @overload
    def push(self, remote: str = "origin", *, dry_run: bool) -> Union[PushResult, PushPlan]: ...
    def fetch(self, checkpoint_id: str, remote: str = "origin") -> FetchedRef: ...
    def fetch_all(self, remote: str = "origin") -> FetchResult: ...
    def list_remote(self, remote: str = "origin") -> builtins.list[RemoteCheckpoint]: ...

_RefFailureCode: TypeAlias = Literal["rejected", "conflict", "remote_unreachable"]
_FetchOutcome: TypeAlias = Literal["created", "fast_forwarded", "up_to_date", "local_ahead", "replayed"]

@final
class RefFailure:
    """A ref a push or fetch did not get through, with its code and the remote's reason."""

    @property
    def ref_name(self) -> str: ...
    @property
    def code(self) -> _RefFailureCode: ...
    @property
    def reason(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class PushResult:
    """What ``CheckpointStore.push`` did."""

    @property
    def remote(self) -> str: ...
    @property
    def pushed(self) -> builtins.list[str]: ...
    @property
    def queued(self) -> builtins.list[RefFailure]: ...
    @property
    def dropped(self) -> builtins.list[str]: ...
    @property
    def ok(self) -> bool: ...

@final
class OutgoingCheckpoint:
    """One ref a push would send, as ``CheckpointStore.push(dry_run=True)`` lists it."""

    @property
    def ref_name(self) -> str: ...
    @property
    def checkpoint_id(self) -> Optional[str]: ...
    @property
    def commit(self) -> str: ...
    @property
    def queued(self) -> bool: ...
    @property
    def session_ids(self) -> builtins.list[str]: ...
    @property
    def agent(self) -> str: ...
    @property
    def files_touched(self) -> builtins.list[str]: ...
    @property
    def upload_bytes(self) -> int: ...
    @property
    def on_remote(self) -> bool: ...
    @property
    def remote_commit(self) -> Optional[str]: ...
    @property
    def damaged(self) -> Optional[dict[str, str]]: ...

@final
class PushPlan:
    """What ``CheckpointStore.push`` would send (``dry_run=True``); nothing was pushed."""

    @property
    def remote(self) -> str: ...
    @property
    def checkpoints(self) -> builtins.list[OutgoingCheckpoint]: ...
    @property
    def dropped(self) -> builtins.list[str]: ...
    @property
    def upload_bytes(self) -> int: ...
    @property
    def to_send(self) -> builtins.list[str]: ...

@final
class FetchedRef:
    """One ref a fetch brought in."""

    @property
    def ref_name(self) -> str: ...
    @property
    def outcome(self) -> _FetchOutcome: ...
    @property
    def commit(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class FetchResult:
    """What ``CheckpointStore.fetch_all`` did."""

    @property
    def remote(self) -> str: ...
    @property
    def fetched(self) -> builtins.list[FetchedRef]: ...
    @property
    def failed(self) -> builtins.list[RefFailure]: ...
    @property
    def ok(self) -> bool: ...

@final
class RemoteCheckpoint:
    """One checkpoint a remote holds, and how the local copy compares."""

    @property
    def checkpoint_id(self) -> str: ...
    @property
    def backend(self) -> _Backend: ...
    @property
    def ref_name(self) -> str: ...
    @property
    def commit(self) -> str: ...
    @property
    def local(self) -> Literal["absent", "same", "different"]: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]
# Storage: the results of CheckpointStore.du and CheckpointStore.gc.

@final
class StorageUsage:
    """The refs of one kind of storage and the bytes only they hold."""

    @property
    def refs(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class DuEntry:
    """One of the store's refs and the bytes only it holds."""

    @property
    def kind(self) -> Literal["checkpoint", "checkpoint_branch", "snapshot", "shadow_branch"]: ...
    @property
    def name(self) -> str: ...
    @property
    def ref_name(self) -> str: ...
    @property
    def session_id(self) -> Optional[str]: ...
    @property
    def bytes(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class SessionUsage:
    """The undo snapshots of one session."""

    @property
    def session_id(self) -> str: ...
    @property
    def snapshots(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class DuReport:
    """What ``CheckpointStore.du`` found."""

    @property
    def total_bytes(self) -> int: ...
    @property
    def object_bytes(self) -> int: ...
    @property
    def objects(self) -> int: ...
    @property
    def snapshot_file_bytes(self) -> int: ...
    @property
    def checkpoints(self) -> StorageUsage: ...
    @property
    def snapshots(self) -> StorageUsage: ...
    @property
    def shadow_branches(self) -> StorageUsage: ...
    @property
    def shared_bytes(self) -> int: ...
    @property
    def largest(self) -> builtins.list[DuEntry]: ...
    @property
    def sessions(self) -> builtins.list[SessionUsage]: ...

@final
class RemovedSnapshot:
    """An undo-snapshot ref ``CheckpointStore.gc`` removed (or would remove)."""

    @property
    def ref_name(self) -> str: ...
    @property
    def checkpoint_id(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def tip(self) -> str: ...
    @property
    def reason(self) -> Literal["beyond_retention", "older_than", "checkpoint_removed"]: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class RemovedBranch:
    """A shadow branch ``CheckpointStore.gc`` removed (or would remove)."""

    @property
    def branch(self) -> str: ...
    @property
    def tip(self) -> str: ...
    @property
    def reason(self) -> Literal["base_commit_gone", "sessions_condensed"]: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class RemovedCheckpoint:
    """A persistent checkpoint ``CheckpointStore.gc`` removed (only with ``include_checkpoints``)."""

    @property
    def checkpoint_id(self) -> str: ...
    @property
    def ref_name(self) -> str: ...
    @property
    def tip(self) -> str: ...
    def __eq__(self, value: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class GcReport:
    """What ``CheckpointStore.gc`` did (or, with ``dry_run``, would do)."""

    @property
    def dry_run(self) -> bool: ...
    @property
    def keep(self) -> Optional[int]: ...
    @property
    def older_than_seconds(self) -> Optional[int]: ...
    @property
    def removed_snapshots(self) -> builtins.list[RemovedSnapshot]: ...
    @property
    def removed_branches(self) -> builtins.list[RemovedBranch]: ...
    @property
    def removed_checkpoints(self) -> builtins.list[RemovedCheckpoint]: ...
    @property
    def objects_removed(self) -> int: ...
    @property
    def object_bytes_freed(self) -> int: ...
    @property
    def snapshot_files_removed(self) -> int: ...
    @property
    def snapshot_file_bytes_freed(self) -> int: ...
    @property
    def repacked(self) -> bool: ...

# Secret redaction.

def redact_text(text: str, *, personal_data: bool = False, rules: _Rules | None = None) -> str: ...
def redact_json(text: str, *, personal_data: bool = False, rules: _Rules | None = None) -> str: ...
def redact_blob(
    path: _StrPath, data: bytes, *, personal_data: bool = False, rules: _Rules | None = None
) -> bytes: ...
@final
class Finding:
    @property
    def rule(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Redaction:
    @property
    def output(self) -> str: ...
    @property
    def findings(self) -> list[Finding]: ...

@final
class BlobRedaction:
    @property
    def output(self) -> bytes: ...
    @property
    def findings(self) -> list[Finding]: ...

@final
class Redactor:
    def __new__(cls, *, personal_data: bool = False, rules: _Rules | None = None) -> Redactor: ...
    @property
    def personal_data(self) -> bool: ...
    @property
    def rule_names(self) -> list[str]: ...
    def redact_text(self, text: str) -> str: ...
    def redact_json(self, text: str) -> str: ...
    def redact_blob(self, path: _StrPath, data: bytes) -> bytes: ...
    def redact_text_with_findings(self, text: str) -> Redaction: ...
    def redact_json_with_findings(self, text: str) -> Redaction: ...
    def redact_blob_with_findings(self, path: _StrPath, data: bytes) -> BlobRedaction: ...
