"""A worker for the in-process contenders: `backup` (per-file backup, as the
agents that copy a file's bytes before writing it) or `package` (the
agent_checkpoint package). JSON lines on stdin, one reply per line:
{"op": "checkpoint", "id": N, "paths": [...]}, {"op": "restore", "id": N}.
Each reply holds the op's wall seconds and the process's peak RSS (KiB).

usage: worker_py.py backup|package ROOT STORE
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path


class Backup:
    """Copies each existing path's bytes (and mode) into STORE/<id>/<n>
    (flat, as the agents' file-history directories) and records which paths
    and parent directories did not exist."""

    def __init__(self, root: Path, store: Path):
        self.root = root
        self.store = store

    def checkpoint(self, ident: int, paths: list[str]) -> None:
        where = self.store / str(ident)
        manifest = {"present": [], "absent": [], "dirs": []}
        where.mkdir(parents=True, exist_ok=True)
        for rel in paths:
            source = self.root / rel
            if source.is_file():
                shutil.copy2(source, where / str(len(manifest["present"])))
                manifest["present"].append(rel)
            else:
                manifest["absent"].append(rel)
                parent = source.parent
                while parent != self.root and not parent.exists():
                    manifest["dirs"].append(str(parent.relative_to(self.root)))
                    parent = parent.parent
        (where / "manifest.json").write_text(json.dumps(manifest))

    def restore(self, ident: int) -> None:
        where = self.store / str(ident)
        manifest = json.loads((where / "manifest.json").read_text())
        for n, rel in enumerate(manifest["present"]):
            target = self.root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(where / str(n), target)
        for rel in manifest["absent"]:
            try:
                os.unlink(self.root / rel)
            except FileNotFoundError:
                pass
        for rel in sorted(manifest["dirs"], key=len, reverse=True):
            try:
                os.rmdir(self.root / rel)
            except FileNotFoundError:
                pass


class Package:
    """The agent_checkpoint package: create_checkpoint of the paths, the
    snapshot written to STORE/<id>.json; rollback of it (durable=False)."""

    def __init__(self, root: Path, store: Path):
        import agent_checkpoint  # type: ignore[import-not-found]

        self.ac = agent_checkpoint
        self.root = root
        self.store = store

    def checkpoint(self, ident: int, paths: list[str]) -> None:
        snapshot = self.ac.create_checkpoint(self.root, paths)
        (self.store / f"{ident}.json").write_text(snapshot)

    def restore(self, ident: int) -> None:
        snapshot = (self.store / f"{ident}.json").read_text()
        result = self.ac.rollback(self.root, snapshot, durable=False)
        if not result.ok:
            raise RuntimeError(f"rollback not ok: {result!r}")


def main() -> None:
    kind, root, store = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    impl = Backup(root, store) if kind == "backup" else Package(root, store)
    for line in sys.stdin:
        message = json.loads(line)
        start = time.perf_counter()
        try:
            if message["op"] == "checkpoint":
                impl.checkpoint(message["id"], message["paths"])
            elif message["op"] == "restore":
                impl.restore(message["id"])
            reply = {"seconds": time.perf_counter() - start}
        except Exception as error:  # reported to the runner, which stops
            reply = {"error": f"{type(error).__name__}: {error}"}
        reply["peak_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
