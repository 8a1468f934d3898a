"""Targeted path snapshot and rollback for atomic batch edits.

Before a batch of edits, :func:`create_checkpoint` records, for exactly the
paths the batch will touch, whether each existed and its original bytes into
one self-contained JSON snapshot; :func:`rollback` later restores exactly those
paths and nothing else, atomically per file, and reports what it restored and
what it could not. No git and no subprocess are involved.

Around that sits the naming layer agents use to file checkpoints in git:
checkpoint IDs, ref names, shadow branches, prompt files and the push queue;
and secret redaction for what is stored beside a checkpoint (prompts,
transcripts, metadata): :func:`redact_text`, :func:`redact_json`,
:func:`redact_blob` and :class:`Redactor`.

Everything is implemented in Rust (``agent_checkpoint._native``); this package
re-exports it, and adds :func:`guard`, a ``with`` block around a batch that
rolls it back when the block raises (``agent_checkpoint.checkpoint_guard``, on
top of the two native calls).
"""

from __future__ import annotations

from typing import NamedTuple

from agent_checkpoint._native import (
    AuthFailedError,
    BlobRedaction,
    CHECKPOINT_REF_PREFIX,
    CapturedPath,
    CheckpointError,
    CheckpointStore,
    CheckpointNotADirectoryError,
    ConflictError,
    CorruptObjectError,
    DiffLine,
    DuEntry,
    DuReport,
    ERROR_CODES,
    FetchResult,
    FetchedRef,
    Finding,
    GcReport,
    Hunk,
    InvalidArgumentError,
    InvalidCheckpointIdError,
    InvalidPathError,
    InvalidPatternError,
    InvalidRefNameError,
    IoError,
    METADATA_BRANCH,
    MalformedSnapshotError,
    NoTranscriptError,
    NotAFileError,
    NotARepositoryError,
    NotFoundError,
    OutgoingCheckpoint,
    PROMPT_SEPARATOR,
    PathEscapesRootError,
    PathProblem,
    PermissionDeniedError,
    PlanItem,
    PushPlan,
    PushQueue,
    PushResult,
    Redaction,
    Redactor,
    RefBusyError,
    RefFailure,
    RejectedError,
    RemoteCheckpoint,
    RemoteUnreachableError,
    RemovedBranch,
    RemovedCheckpoint,
    RemovedSnapshot,
    RollbackResult,
    RootMismatchError,
    SessionUsage,
    SHADOW_BRANCH_PREFIX,
    StorageUsage,
    TooLargeError,
    UnauthenticatedError,
    UnsupportedVersionError,
    __version__,
    checkpoint_id_kind,
    checkpoint_path,
    create_checkpoint,
    display_short,
    error_class,
    hash_worktree_id,
    inspect_snapshot,
    is_shadow_branch,
    join_prompts,
    new_checkpoint_id,
    new_ulid,
    parse_ref,
    plan_rollback,
    record_applied,
    redact_blob,
    redact_json,
    redact_text,
    ref_name,
    rollback,
    shadow_branch_name,
    shard_for,
    snapshot_paths,
    split_prompts,
    ulid_timestamp_ms,
    validate_checkpoint_id,
)
from agent_checkpoint._native import parse_shadow_branch_name as _parse_shadow_branch_name
from agent_checkpoint.checkpoint_guard import Guard, guard

#: The rollback report: ``RollbackResult`` is its seed-compatible name.
RollbackReport = RollbackResult


class ShadowBranch(NamedTuple):
    """A shadow branch name, split: what :func:`parse_shadow_branch_name` returns."""

    commit_prefix: str
    worktree_hash: str


def parse_shadow_branch_name(name: str) -> ShadowBranch | None:
    """The commit prefix and worktree hash of a shadow branch name, or ``None``.

    Follows the Go tool: the part after ``entire/`` is split at its last ``-``;
    without a usable ``-`` it is the legacy form (the whole rest is the commit
    prefix, the worktree hash is empty).
    """
    parsed = _parse_shadow_branch_name(name)
    return None if parsed is None else ShadowBranch(*parsed)


__all__ = [
    "AuthFailedError",
    "BlobRedaction",
    "CHECKPOINT_REF_PREFIX",
    "CapturedPath",
    "CheckpointStore",
    "CheckpointError",
    "CheckpointNotADirectoryError",
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
    "Guard",
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
    "RollbackReport",
    "RollbackResult",
    "RootMismatchError",
    "SessionUsage",
    "SHADOW_BRANCH_PREFIX",
    "ShadowBranch",
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
    "guard",
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
