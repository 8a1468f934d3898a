"""Type stubs of the native module ``agent_checkpoint._native`` (checked by mypy.stubtest)."""

import os
from pathlib import Path
from typing import ClassVar, Final, Iterable, Literal, Protocol, Union, final

from typing_extensions import TypeAlias

_StrPath: TypeAlias = Union[str, os.PathLike[str]]

class _HasFile(Protocol):
    """An operation model: anything with a ``file`` attribute naming its target."""

    @property
    def file(self) -> _StrPath: ...

_Operation: TypeAlias = Union[_StrPath, _HasFile]
_IdKind: TypeAlias = Literal["legacy", "ulid", "unknown"]
_CapturedKind: TypeAlias = Literal["file", "new", "link"]
_PlanAction: TypeAlias = Literal["keep", "write", "remove", "rmdir", "conflict"]
_OnConflict: TypeAlias = Literal["overwrite", "skip"]
_Key: TypeAlias = Union[bytes, bytearray, str]

__all__ = [
    "CHECKPOINT_REF_PREFIX",
    "ERROR_CODES",
    "METADATA_BRANCH",
    "PROMPT_SEPARATOR",
    "SHADOW_BRANCH_PREFIX",
    "CapturedPath",
    "CheckpointError",
    "InvalidCheckpointIdError",
    "InvalidPathError",
    "InvalidRefNameError",
    "IoError",
    "MalformedSnapshotError",
    "NotAFileError",
    "NotFoundError",
    "PathEscapesRootError",
    "PermissionDeniedError",
    "PlanItem",
    "PushQueue",
    "RollbackResult",
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

class InvalidCheckpointIdError(CheckpointError, ValueError): ...
class InvalidRefNameError(CheckpointError, ValueError): ...
class InvalidPathError(CheckpointError, ValueError): ...
class PathEscapesRootError(CheckpointError, ValueError): ...
class NotAFileError(CheckpointError, ValueError): ...
class MalformedSnapshotError(CheckpointError, ValueError): ...
class UnsupportedVersionError(CheckpointError, ValueError): ...
class TooLargeError(CheckpointError, ValueError): ...
class UnauthenticatedError(CheckpointError): ...
class NotFoundError(CheckpointError, FileNotFoundError): ...
class PermissionDeniedError(CheckpointError, PermissionError): ...
class IoError(CheckpointError, OSError): ...

def error_class(code: str) -> type[CheckpointError]: ...

# Snapshot and rollback.

def create_checkpoint(
    root: _StrPath,
    operations: Iterable[_Operation],
    *,
    allow_git_dir: bool = False,
    max_file_bytes: int | None = None,
    key: _Key | None = None,
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
) -> RollbackResult: ...
def plan_rollback(
    root: _StrPath,
    checkpoint: str,
    *,
    allow_git_dir: bool = False,
    on_conflict: _OnConflict = "overwrite",
    key: _Key | None = None,
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
    def conflicts(self) -> list[str]: ...
    @property
    def redo(self) -> str | None: ...
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
class PlanItem:
    @property
    def path(self) -> str: ...
    @property
    def action(self) -> _PlanAction: ...
    @property
    def conflict(self) -> bool: ...
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
