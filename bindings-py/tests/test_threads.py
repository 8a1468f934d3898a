"""Threads: parallel calls are safe, and the GIL is released during file I/O."""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, List

import agent_checkpoint as ac


def one_round(root: Path, n: int) -> bool:
    (root / "f.txt").write_text(f"original {n}")
    snapshot = ac.create_checkpoint(root, ["f.txt", f"new/{n}.txt"])
    (root / "f.txt").write_text("changed")
    (root / "new").mkdir()
    (root / "new" / f"{n}.txt").write_text("x")
    result = ac.rollback(root, snapshot)
    return result.ok and (root / "f.txt").read_text() == f"original {n}" and not (root / "new").exists()


def test_parallel_calls_from_many_threads(tmp_path: Path) -> None:
    roots = []
    for i in range(8):
        roots.append(tmp_path / f"r{i}")
        roots[-1].mkdir()
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda args: all(one_round(args[1], args[0] * 100 + k) for k in range(10)), enumerate(roots)))
    assert results == [True] * 8


def test_parallel_push_queue_keeps_every_ref(tmp_path: Path) -> None:
    queue = ac.PushQueue(tmp_path)
    refs = [ac.ref_name(ac.new_checkpoint_id()) for _ in range(200)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(queue.enqueue, refs))
    assert sorted(queue.drain()) == sorted(refs)


def progress_during(call: Callable[[], object]) -> int:
    """How often another Python thread advanced while `call` ran.

    The switch interval is raised so that the calling thread never hands the
    GIL over on its own while it runs Python code: the other thread can only
    advance while `call` has released the GIL. The other thread sleeps(0)
    between steps, which releases the GIL, so `call` gets it back at once.
    """
    counter: List[int] = [0]
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)

    old = sys.getswitchinterval()
    worker = threading.Thread(target=spin)
    worker.start()
    try:
        while counter[0] == 0:
            time.sleep(0.001)
        sys.setswitchinterval(1000.0)
        # Let the other thread run once more, so that its wait for the GIL
        # starts again with the new interval (a wait begun under the old
        # 5 ms interval would still force one switch).
        time.sleep(0.01)
        before = counter[0]
        call()
        after = counter[0]
    finally:
        sys.setswitchinterval(old)
        stop.set()
        worker.join()
    return after - before


def test_gil_is_released_during_a_large_capture_and_rollback(tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    big.write_bytes(b"\x5a" * (64 << 20))
    snapshots: List[str] = []
    assert progress_during(lambda: snapshots.append(ac.create_checkpoint(tmp_path, ["big.bin"]))) > 0
    big.write_bytes(b"changed")
    assert progress_during(lambda: ac.rollback(tmp_path, snapshots[0])) > 0
    assert big.stat().st_size == 64 << 20


def test_progress_probe_sees_a_call_that_holds_the_gil() -> None:
    # The control for the test above: pure Python work that never releases
    # the GIL lets the other thread make no progress at all.
    assert progress_during(lambda: sum(range(2_000_000))) == 0
