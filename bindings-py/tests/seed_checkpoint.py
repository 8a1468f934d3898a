"""A minimal, faithful reimplementation of the seed's ``axm_edit.core.checkpoint``.

``create_checkpoint``, ``rollback`` and ``snapshot_paths`` are the seed's
documented source verbatim (with ``RollbackResult`` as a small dataclass);
the private helpers, which the seed's documentation does not show, are
written as its docstrings and comments imply:

- ``_resolve_within(root, path)``: the resolved target (``realpath``-like,
  following symlinks), or ``None`` when it is outside ``root``.
- ``_ancestors_to_create(root, target)``: the directories between ``root``
  and ``target`` that do not exist yet (what creating the file brings into
  being), as root-relative POSIX strings.
- ``_read_created_dirs(payload)``: the snapshot's ``created_dirs`` as a set,
  tolerating snapshots without the key.
- ``_restore_one(target, encoded, root, created_dirs)``: rewrite the original
  bytes (creating parents), or remove a file the batch created and prune the
  now-empty directories it created, deepest first, never a pre-existing one.

Used only by the interop tests: our rollback must accept its snapshots, and
its rollback must restore ours.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, List, Optional, Sequence, Set

_SNAPSHOT_VERSION = 1


@dataclass
class RollbackResult:
    restored: List[str] = field(default_factory=list)
    unrestored: List[str] = field(default_factory=list)
    valid: bool = True

    @property
    def ok(self) -> bool:
        return self.valid and not self.unrestored


@dataclass
class Operation:
    """The seed's operation models all name their target in ``file``."""

    file: str


def _resolve_within(root: Path, path: Any) -> Optional[Path]:
    target = (root / Path(path)).resolve()
    try:
        target.relative_to(root)
    except ValueError:
        return None
    if target == root:
        return None
    return target


def _ancestors_to_create(root: Path, target: Path) -> Set[str]:
    missing: Set[str] = set()
    parent = target.parent
    while parent != root and not parent.exists():
        missing.add(parent.relative_to(root).as_posix())
        parent = parent.parent
    return missing


def _read_created_dirs(payload: Any) -> Set[str]:
    dirs = payload.get("created_dirs", []) if isinstance(payload, dict) else []
    if not isinstance(dirs, list):
        return set()
    return {d for d in dirs if isinstance(d, str)}


def _prune_created(target: Path, root: Path, created_dirs: Iterable[str]) -> None:
    parent = target.parent
    while parent != root:
        rel = parent.relative_to(root).as_posix()
        if rel not in created_dirs:
            break
        try:
            parent.rmdir()  # only if empty; a non-empty dir holds something else
        except OSError:
            break
        parent = parent.parent


def _restore_one(target: Path, encoded: Optional[str], root: Path, created_dirs: Set[str]) -> None:
    if encoded is None:
        if target.is_file() or target.is_symlink():
            target.unlink()
        _prune_created(target, root, created_dirs)
        return
    data = base64.b64decode(encoded)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def create_checkpoint(root: Path, operations: Sequence[Operation]) -> str:
    root = root.resolve()
    entries: dict[str, str | None] = {}
    created_dirs: set[str] = set()
    for op in operations:
        target = _resolve_within(root, op.file)
        if target is None:
            continue
        # Key the dedup on the canonical resolved-within path, not the raw
        # spelling: "a.py" and "./a.py" name the same file and must collapse
        # to a single entry. The canonical key is also what rollback re-resolves.
        rel = target.relative_to(root).as_posix()
        if rel in entries:
            continue
        if target.is_file():
            entries[rel] = base64.b64encode(target.read_bytes()).decode("ascii")
        else:
            entries[rel] = None
            created_dirs |= _ancestors_to_create(root, target)
    return json.dumps(
        {
            "version": _SNAPSHOT_VERSION,
            "entries": entries,
            "created_dirs": sorted(created_dirs),
        }
    )


def rollback(root: Path, checkpoint: str) -> RollbackResult:
    root = root.resolve()
    try:
        payload = json.loads(checkpoint)
        entries = payload["entries"]
    except (ValueError, TypeError, KeyError):
        return RollbackResult(valid=False)
    if not isinstance(entries, dict):
        return RollbackResult(valid=False)

    created_dirs = _read_created_dirs(payload)
    restored: list[str] = []
    unrestored: list[str] = []
    for rel, encoded in entries.items():
        target = _resolve_within(root, rel)
        if target is None:
            continue
        try:
            _restore_one(target, encoded, root, created_dirs)
            restored.append(rel)
        except OSError:
            unrestored.append(rel)
    return RollbackResult(restored=restored, unrestored=unrestored)


def snapshot_paths(checkpoint: str) -> list[str]:
    try:
        payload = json.loads(checkpoint)
        entries = payload["entries"]
    except (ValueError, TypeError, KeyError):
        return []
    if not isinstance(entries, dict):
        return []
    return list(entries)
