"""`with agent_checkpoint.guard(...)`: a batch rolled back when its block raises.

Every case edits real files in a temp dir and checks them afterwards.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import pytest

import agent_checkpoint as ac


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("v1\n")
    (project / "notes.md").write_text("notes 1\n")
    return project


def batch(root: Path) -> None:
    """Modify a file, create one in a new directory."""
    (root / "src" / "app.py").write_text("v2\n")
    (root / "gen").mkdir()
    (root / "gen" / "new.py").write_text("x = 1\n")


def assert_as_before(root: Path) -> None:
    assert (root / "src" / "app.py").read_text() == "v1\n"
    assert not (root / "gen").exists()


PATHS = ["src/app.py", "gen/new.py"]


class Boom(Exception):
    pass


def test_an_exception_rolls_back_exactly_those_paths_and_is_reraised(root: Path) -> None:
    with pytest.raises(Boom, match="half way"):
        with ac.guard(root, PATHS) as g:
            batch(root)
            (root / "notes.md").write_text("notes 2\n")  # not guarded
            raise Boom("half way")
    assert_as_before(root)
    assert (root / "notes.md").read_text() == "notes 2\n"
    assert g.report is not None and g.report.ok
    assert g.report.restored == ["gen/new.py", "src/app.py"]
    assert g.rolled_back and g.rollback_error is None
    # The report's redo brings the batch's result back, as after any rollback.
    assert g.report.redo is not None and ac.rollback(root, g.report.redo).ok
    assert (root / "gen" / "new.py").read_text() == "x = 1\n"


def test_a_normal_exit_keeps_the_edits_and_the_snapshot_for_later(root: Path) -> None:
    with ac.guard(root, PATHS) as g:
        batch(root)
    assert (root / "src" / "app.py").read_text() == "v2\n"
    assert g.report is None and not g.rolled_back
    assert g.snapshot is not None and ac.snapshot_paths(g.snapshot) == ["gen/new.py", "src/app.py"]

    report = g.rollback()
    assert report.ok and g.report is report
    assert_as_before(root)
    # At most once: a second call returns the same report and touches nothing.
    (root / "src" / "app.py").write_text("v3\n")
    assert g.rollback() is report
    assert (root / "src" / "app.py").read_text() == "v3\n"


def test_keep_never_rolls_back_even_on_an_exception(root: Path) -> None:
    with pytest.raises(Boom):
        with ac.guard(root, PATHS) as g:
            batch(root)
            g.keep()
            raise Boom
    assert g.kept and g.report is None
    assert (root / "src" / "app.py").read_text() == "v2\n"
    assert (root / "gen" / "new.py").exists()
    # An explicit rollback still rolls back.
    assert g.rollback().ok
    assert_as_before(root)


def test_discard_rolls_back_now_and_the_block_goes_on(root: Path) -> None:
    with pytest.raises(Boom):
        with ac.guard(root, PATHS) as g:
            batch(root)
            report = g.discard()
            assert report.ok
            assert_as_before(root)
            # What the block writes after the rollback is its own: the exit
            # does not roll back a second time.
            (root / "src" / "app.py").write_text("after discard\n")
            raise Boom
    assert g.report is report
    assert (root / "src" / "app.py").read_text() == "after discard\n"


def test_keyboard_interrupt_rolls_back_too(root: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        with ac.guard(root, PATHS) as g:
            batch(root)
            raise KeyboardInterrupt
    assert_as_before(root)
    assert g.report is not None and g.report.ok


def test_nested_guards_each_roll_back_their_own_paths(root: Path) -> None:
    with pytest.raises(Boom):
        with ac.guard(root, ["notes.md"]) as outer:
            (root / "notes.md").write_text("notes 2\n")
            with pytest.raises(ValueError):
                with ac.guard(root, PATHS) as inner:
                    batch(root)
                    raise ValueError("inner")
            # The inner block's paths are back; the outer's edit is not touched.
            assert_as_before(root)
            assert (root / "notes.md").read_text() == "notes 2\n"
            assert inner.report is not None and inner.report.restored == ["gen/new.py", "src/app.py"]
            raise Boom
    assert (root / "notes.md").read_text() == "notes 1\n"
    assert outer.report is not None and outer.report.restored == ["notes.md"]


def test_a_guard_over_paths_another_guard_holds(root: Path) -> None:
    app = root / "src" / "app.py"
    with pytest.raises(Boom):
        with ac.guard(root, ["src/app.py"]):
            app.write_text("outer edit\n")
            with pytest.raises(Boom):
                with ac.guard(root, ["./src/app.py", "src/app.py"]):
                    app.write_text("inner edit\n")
                    raise Boom
            # The inner guard restores what it captured: the outer's edit.
            assert app.read_text() == "outer edit\n"
            with ac.guard(root, ["src/app.py"]):  # a normal exit keeps
                app.write_text("inner kept\n")
            assert app.read_text() == "inner kept\n"
            raise Boom
    # The outer guard restores what it captured, whatever the inner ones did.
    assert app.read_text() == "v1\n"


def test_a_rollback_that_leaves_paths_unrestored_is_attached_to_the_exception(root: Path) -> None:
    (root / "gen").mkdir()
    (root / "gen" / "old.py").write_text("old\n")
    with pytest.raises(Boom) as raised:
        with ac.guard(root, ["gen/old.py", "src/app.py"]) as g:
            # The batch turns the directory into a file: not a captured path,
            # so the rollback may not remove it to restore gen/old.py.
            shutil.rmtree(root / "gen")
            (root / "gen").write_text("a file now\n")
            (root / "src" / "app.py").write_text("v2\n")
            raise Boom
    assert g.report is not None and not g.report.ok
    assert g.report.unrestored == ["gen/old.py"]
    assert g.report.restored == ["src/app.py"]
    assert (root / "src" / "app.py").read_text() == "v1\n"
    assert (root / "gen").read_text() == "a file now\n"
    notes = getattr(raised.value, "__notes__", [])
    assert len(notes) == 1 and "did not restore everything: gen/old.py (" in notes[0], notes


def test_a_rollback_that_raises_never_replaces_the_exception(root: Path) -> None:
    with pytest.raises(Boom) as raised:
        with ac.guard(root, PATHS) as g:
            shutil.rmtree(root)  # the root is gone: the rollback cannot open it
            raise Boom
    assert g.report is None and g.rolled_back
    assert isinstance(g.rollback_error, ac.CheckpointError)
    notes = getattr(raised.value, "__notes__", [])
    assert len(notes) == 1 and "the rollback failed" in notes[0], notes


def test_a_refused_capture_raises_on_entry_and_the_block_never_runs(root: Path) -> None:
    ran = False
    with pytest.raises(ac.PathEscapesRootError):
        with ac.guard(root, ["../outside.txt"]):
            ran = True
    assert not ran


def test_a_guard_is_entered_once_and_rolls_back_only_after_entry(root: Path) -> None:
    g = ac.guard(root, PATHS)
    with pytest.raises(RuntimeError):
        g.rollback()
    with g:
        pass
    with pytest.raises(RuntimeError):
        with g:
            pass


def test_options_reach_the_capture_and_the_rollback(root: Path) -> None:
    key = b"the agent's key"
    with pytest.raises(Boom):
        with ac.guard(root, PATHS, key=key, redo=False) as g:
            batch(root)
            raise Boom
    assert g.snapshot is not None and '"mac"' in g.snapshot  # sealed
    assert not ac.rollback(root, g.snapshot, key=b"another key").valid
    assert g.report is not None and g.report.ok and g.report.redo is None
    assert_as_before(root)


def git_root(root: Path) -> Path:
    import subprocess

    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_a_kept_batch_is_written_to_the_store_and_undone_from_it_later(root: Path) -> None:
    store = ac.CheckpointStore(git_root(root))
    with ac.guard(root, PATHS, store=store, session={"agent": "my-agent", "prompts": ["make gen"]}) as g:
        batch(root)
    assert g.checkpoint_id is not None and g.report is None
    assert (root / "gen" / "new.py").read_text() == "x = 1\n"  # kept
    session = store.read_session(g.checkpoint_id)
    assert session["metadata"]["agent"] == "my-agent"
    assert session["metadata"]["files_touched"] == sorted(PATHS)
    assert session["prompts"] == ["make gen"]
    assert store.snapshot(g.checkpoint_id) == g.snapshot
    # Undone later, from the store alone.
    assert store.rollback(g.checkpoint_id).ok
    assert_as_before(root)


def test_a_rolled_back_batch_writes_nothing_to_the_store(root: Path) -> None:
    store = ac.CheckpointStore(git_root(root))
    with pytest.raises(Boom):
        with ac.guard(root, PATHS, store=store) as g:
            batch(root)
            raise Boom
    assert g.checkpoint_id is None and store.list() == []
    with ac.guard(root, PATHS, store=store) as g:
        batch(root)
        g.discard()
    assert g.checkpoint_id is None and store.list() == []
    assert_as_before(root)


def test_a_store_write_that_fails_is_noted_on_a_kept_blocks_exception(root: Path) -> None:
    store = ac.CheckpointStore(git_root(root))
    with pytest.raises(Boom) as caught:
        with ac.guard(root, PATHS, store=store, session_id="bad/../id") as g:
            g.keep()
            batch(root)
            raise Boom
    assert g.checkpoint_id is None and g.store_error is not None
    assert (root / "gen" / "new.py").exists()  # kept
    if hasattr(caught.value, "__notes__"):
        assert "writing the checkpoint failed" in caught.value.__notes__[0]
    # After a normal exit the failure is raised.
    with pytest.raises(ac.CheckpointError):
        with ac.guard(root, PATHS, store=store, session_id="bad/../id"):
            pass
    with pytest.raises(TypeError, match="CheckpointStore"):
        ac.guard(root, PATHS, store="not a store")  # type: ignore[arg-type]


def test_a_store_needs_the_root_to_be_its_working_tree(root: Path) -> None:
    # store.rollback(id) restores into the working tree: a snapshot taken
    # below it would be rolled back onto other files.
    store = ac.CheckpointStore(git_root(root))
    assert store.work_dir is not None and store.work_dir.resolve() == root.resolve()
    with pytest.raises(ac.InvalidArgumentError, match="working tree"):
        ac.guard(root / "src", ["app.py"], store=store)
    assert store.list() == []
    for own in ("session_id", "checkpoint_id", "snapshot"):
        with pytest.raises(ac.InvalidArgumentError, match=own):
            ac.guard(root, PATHS, store=store, session={own: "x"})


def test_the_stored_files_are_the_snapshots_paths_however_they_were_spelled(root: Path) -> None:
    store = ac.CheckpointStore(git_root(root))
    with ac.guard(root, [str(root / "src" / "app.py"), "./gen/../gen/new.py"], store=store) as g:
        batch(root)
    assert g.checkpoint_id is not None
    touched = store.read_session(g.checkpoint_id)["metadata"]["files_touched"]
    assert touched == ["gen/new.py", "src/app.py"]


def test_async_with_writes_the_kept_batch_to_the_store(root: Path) -> None:
    store = ac.CheckpointStore(git_root(root))

    async def run() -> str | None:
        async with ac.guard(root, PATHS, store=store) as g:
            batch(root)
        return g.checkpoint_id

    checkpoint_id = asyncio.run(run())
    assert checkpoint_id is not None
    assert [c["checkpoint_id"] for c in store.list()] == [checkpoint_id]


def test_async_with_rolls_back_off_the_event_loop(root: Path) -> None:
    threads: set[int] = set()

    def progress(stage: str, done: int, total: int) -> None:
        threads.add(threading.get_ident())

    async def main() -> ac.Guard:
        with pytest.raises(Boom):
            async with ac.guard(root, PATHS, progress=progress) as g:
                batch(root)
                await asyncio.sleep(0)
                raise Boom
        return g

    g = asyncio.run(main())
    assert_as_before(root)
    assert g.report is not None and g.report.ok
    # The capture and the rollback ran in worker threads, not the loop's.
    assert threads and threading.get_ident() not in threads


def test_async_with_keeps_on_a_normal_exit(root: Path) -> None:
    async def main() -> ac.Guard:
        async with ac.guard(root, PATHS) as g:
            batch(root)
        return g

    g = asyncio.run(main())
    assert (root / "src" / "app.py").read_text() == "v2\n"
    assert g.report is None and g.rollback().ok
    assert_as_before(root)


def test_a_cancelled_task_rolls_back(root: Path) -> None:
    guards: list[ac.Guard] = []

    async def agent(edited: asyncio.Event) -> None:
        async with ac.guard(root, PATHS) as g:
            guards.append(g)
            batch(root)
            edited.set()
            await asyncio.sleep(3600)  # cancelled here

    async def main() -> None:
        edited = asyncio.Event()
        task = asyncio.create_task(agent(edited))
        await edited.wait()
        assert (root / "gen" / "new.py").exists()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()

    asyncio.run(main())
    assert_as_before(root)
    assert guards[0].report is not None and guards[0].report.ok


def test_a_cancellation_during_the_rollback_waits_for_it(root: Path) -> None:
    guards: list[ac.Guard] = []
    in_rollback = threading.Event()
    cancel_sent = threading.Event()

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "check" and not in_rollback.is_set():
            in_rollback.set()
            cancel_sent.wait(10)  # holds the rollback until the task is cancelled

    async def agent() -> None:
        async with ac.guard(root, PATHS, progress=progress) as g:
            guards.append(g)
            batch(root)
            raise Boom

    async def main() -> None:
        task = asyncio.create_task(agent())
        while not in_rollback.is_set():
            await asyncio.sleep(0.001)
        task.cancel()  # while the rollback runs in its thread
        await asyncio.sleep(0.05)  # the cancellation reaches the task
        assert not task.done()
        cancel_sent.set()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert_as_before(root)
    assert guards[0].report is not None and guards[0].report.ok


def test_the_readme_guard_examples_type_check_strictly() -> None:
    import re

    api = pytest.importorskip("mypy.api")
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Python: a batch as a `with` block", 1)[1].split("\n### ", 1)[0]
    programs = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(programs) == 2
    for code in programs:
        stdout, stderr, status = api.run(["--strict", "--no-incremental", "-c", code])
        assert status == 0, stdout + stderr


def test_the_guard_type_checks_strictly() -> None:
    api = pytest.importorskip("mypy.api")
    good = """
import asyncio
from pathlib import Path
import agent_checkpoint as ac

def sync(root: Path) -> str | None:
    with ac.guard(root, ["a.txt"], key=b"k", durable=False) as g:
        g.keep()
    report: ac.RollbackReport = g.rollback()
    print(report.ok, g.kept, g.rolled_back, g.rollback_error)
    with ac.guard(root, ["a.txt"], store=ac.CheckpointStore(root), session={"agent": "a"}) as s:
        pass
    cid: str | None = s.checkpoint_id
    print(cid, s.store_error)
    return g.snapshot

async def run(root: str) -> bool:
    async with ac.guard(root, ["a.txt"]) as g:
        pass
    return g.discard().ok
"""
    stdout, stderr, status = api.run(["--strict", "--no-incremental", "-c", good])
    assert status == 0, stdout + stderr
    bad = "import agent_checkpoint as ac\nac.guard('.', ['a'], on_conflict='skip')\nx: int = ac.guard('.', []).snapshot\n"
    stdout, _, status = api.run(["--strict", "--no-incremental", "-c", bad])
    assert status == 1
    assert 'Unexpected keyword argument "on_conflict"' in stdout, stdout
    assert 'has type "str | None"' in stdout, stdout
