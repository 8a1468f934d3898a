"""The pure-Python baseline: what a user would write by hand.

The same snapshot format (version 1: entries + created_dirs), with
``Path.resolve``, ``read_bytes``, ``base64.b64encode``, ``json.dumps``,
``write_bytes`` and ``unlink``. No atomic writes, no validation, no modes.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Iterable


def create_checkpoint(root: str | os.PathLike[str], paths: Iterable[str]) -> str:
    base = Path(root).resolve()
    entries: dict[str, str | None] = {}
    created: set[str] = set()
    for p in paths:
        target = (base / p).resolve()
        rel = target.relative_to(base).as_posix()
        if rel in entries:
            continue
        if target.is_file():
            entries[rel] = base64.b64encode(target.read_bytes()).decode("ascii")
        else:
            entries[rel] = None
            parent = target.parent
            while parent != base and not parent.exists():
                created.add(parent.relative_to(base).as_posix())
                parent = parent.parent
    return json.dumps({"version": 1, "entries": entries, "created_dirs": sorted(created)})


def rollback(root: str | os.PathLike[str], checkpoint: str, durable: bool = False) -> bool:
    base = Path(root).resolve()
    payload = json.loads(checkpoint)
    for rel, encoded in payload["entries"].items():
        target = base / rel
        if encoded is None:
            target.unlink(missing_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        data = base64.b64decode(encoded)
        if durable:
            with open(target, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        else:
            target.write_bytes(data)
    for rel in sorted(payload.get("created_dirs", []), key=lambda d: -d.count("/")):
        try:
            (base / rel).rmdir()
        except OSError:
            pass
    return True
