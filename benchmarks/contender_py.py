"""Runs one Python contender (the package or the baseline) on a workload.

usage: contender_py.py package|baseline capture|rollback|rollback-durable DIR REPS [INNER]
Prints one JSON line: times_s (one per rep, each the mean of INNER calls),
snapshot_bytes, peak_rss_kb.

The package is called with its default options (``redo`` on). Before each
timed rollback every captured file is edited in place (untimed: its first
byte inverted), so that every rollback has every file to restore.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path


def edit(root: Path, paths: list[str]) -> None:
    for p in paths:
        fd = os.open(root / p, os.O_RDWR)
        try:
            first = os.pread(fd, 1, 0)
            if first:
                os.pwrite(fd, bytes([first[0] ^ 0xFF]), 0)
        finally:
            os.close(fd)


def main() -> None:
    impl, op, directory, reps = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
    inner = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    root = directory / "root"
    paths = [p for p in (directory / "paths.txt").read_text().splitlines() if p]
    if impl == "baseline":
        sys.path.insert(0, str(Path(__file__).parent))
        import baseline as mod

        capture = lambda: mod.create_checkpoint(root, paths)  # noqa: E731
        restore = lambda s, durable: mod.rollback(root, s, durable=durable)  # noqa: E731
    else:
        import agent_checkpoint as mod  # type: ignore[import-not-found]

        capture = lambda: mod.create_checkpoint(root, paths)  # noqa: E731

        def restore(s: str, durable: bool) -> bool:
            result = mod.rollback(root, s, durable=durable)
            if not result.ok:
                raise SystemExit(f"rollback not ok: {result!r}")
            return True

    snapshot = "" if op == "capture" else capture()
    times = []
    size = len(snapshot)
    for rep in range(reps + 1):  # the first run warms the cache, untimed
        total = 0.0
        for _ in range(inner):
            if op == "capture":
                start = time.perf_counter()
                snapshot = capture()
            else:
                edit(root, paths)
                start = time.perf_counter()
                restore(snapshot, op == "rollback-durable")
            total += time.perf_counter() - start
        if rep:
            times.append(total / inner)
        size = len(snapshot)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"contender": impl, "op": op, "times_s": times, "snapshot_bytes": size, "peak_rss_kb": peak}))


if __name__ == "__main__":
    main()
