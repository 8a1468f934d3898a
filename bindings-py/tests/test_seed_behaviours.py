"""The seed module's documented behaviours, on the drop-in replacement."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

import agent_checkpoint as ac
from seed_checkpoint import Operation


def test_aliased_spellings_dedup_to_one_entry(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.py").write_text("a")
    os.symlink("a.py", tmp_path / "alias.py")
    spellings = ["a.py", "./a.py", "sub/../a.py", "sub//../a.py", str(tmp_path / "a.py"), Path("a.py"), Operation("./a.py")]
    snapshot = ac.create_checkpoint(tmp_path, spellings)
    assert ac.snapshot_paths(snapshot) == ["a.py"]
    # A symlink inside the root resolves to its target's key (and the link is recorded).
    linked = ac.create_checkpoint(tmp_path, ["a.py", "alias.py"])
    assert [(i.path, i.kind) for i in ac.inspect_snapshot(linked)] == [("a.py", "file"), ("alias.py", "link")]


def test_pre_existing_empty_dir_survives(tmp_path: Path) -> None:
    (tmp_path / "gen").mkdir()
    snapshot = ac.create_checkpoint(tmp_path, ["gen/new.py"])
    (tmp_path / "gen" / "new.py").write_text("x")
    result = ac.rollback(tmp_path, snapshot)
    assert result.ok and result.restored == ["gen/new.py"]
    assert (tmp_path / "gen").is_dir()
    assert list((tmp_path / "gen").iterdir()) == []


def test_batch_created_dirs_are_pruned(tmp_path: Path) -> None:
    (tmp_path / "keep").mkdir()
    snapshot = ac.create_checkpoint(tmp_path, ["a/b/c.py", "keep/d/e.py"])
    for rel in ["a/b/c.py", "keep/d/e.py"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert ac.rollback(tmp_path, snapshot).ok
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep"]
    assert list((tmp_path / "keep").iterdir()) == []


def test_created_dir_holding_something_else_stays(tmp_path: Path) -> None:
    snapshot = ac.create_checkpoint(tmp_path, ["gen/new.py"])
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "new.py").write_text("x")
    (tmp_path / "gen" / "other.py").write_text("not captured")
    assert ac.rollback(tmp_path, snapshot).ok
    assert sorted(p.name for p in (tmp_path / "gen").iterdir()) == ["other.py"]


def test_modified_deleted_and_created_files(tmp_path: Path) -> None:
    (tmp_path / "mod.txt").write_bytes(b"\x00\xffbinary")
    (tmp_path / "del.txt").write_text("gone soon")
    snapshot = ac.create_checkpoint(tmp_path, ["mod.txt", "del.txt", "new.txt"])
    (tmp_path / "mod.txt").write_text("changed")
    (tmp_path / "del.txt").unlink()
    (tmp_path / "new.txt").write_text("new")
    result = ac.rollback(tmp_path, snapshot)
    assert result.ok and result.restored == ["del.txt", "mod.txt", "new.txt"]
    assert (tmp_path / "mod.txt").read_bytes() == b"\x00\xffbinary"
    assert (tmp_path / "del.txt").read_text() == "gone soon"
    assert not (tmp_path / "new.txt").exists()


def test_restored_and_unrestored_are_reported(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.txt").write_text("x")
    (tmp_path / "y.txt").write_text("y")
    snapshot = ac.create_checkpoint(tmp_path, ["d/x.txt", "y.txt"])
    # The batch turns the directory d into a file: d/x.txt cannot come back.
    (tmp_path / "d" / "x.txt").unlink()
    (tmp_path / "d").rmdir()
    (tmp_path / "d").write_text("a file now")
    (tmp_path / "y.txt").write_text("changed")
    result = ac.rollback(tmp_path, snapshot)
    assert result.valid and not result.ok
    assert result.restored == ["y.txt"]
    assert result.unrestored == ["d/x.txt"]
    assert list(result.failures) == ["d/x.txt"] and "not a directory" in result.failures["d/x.txt"]
    assert (tmp_path / "y.txt").read_text() == "y"
    assert (tmp_path / "d").read_text() == "a file now"


def test_rollback_twice_is_idempotent(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("a")
    snapshot = ac.create_checkpoint(tmp_path, ["a", "b/c"])
    (tmp_path / "a").write_text("z")
    first, second = ac.rollback(tmp_path, snapshot), ac.rollback(tmp_path, snapshot)
    assert first.ok and second.ok and first.restored == second.restored
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


@pytest.mark.parametrize("bad", ["", "null", "[]", "{", "{}", '{"version":1}', '{"version":1,"entries":[]}', '{"version":1,"entries":{"../x":null}}'])
def test_malformed_snapshot_is_reported_and_touches_nothing(tmp_path: Path, bad: str) -> None:
    (tmp_path / "a").write_text("a")
    result = ac.rollback(tmp_path, bad)
    assert not result.valid and not result.ok
    assert result.error_code in ("malformed_snapshot", "unsupported_version", "invalid_path")
    assert result.error
    assert [p.name for p in tmp_path.iterdir()] == ["a"]


def test_escaping_paths_are_errors_not_skipped(tmp_path: Path) -> None:
    # The seed silently skipped these; the spec makes them typed errors.
    inner = tmp_path / "root"
    inner.mkdir()
    os.symlink(str(tmp_path), inner / "out")
    for path in ["../x", str(tmp_path / "x"), "out/x"]:
        with pytest.raises(ac.PathEscapesRootError):
            ac.create_checkpoint(inner, [path])


def test_mode_is_restored(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(tmp_path / "run.sh", 0o755)
    snapshot = ac.create_checkpoint(tmp_path, ["run.sh"])
    (tmp_path / "run.sh").unlink()
    assert ac.rollback(tmp_path, snapshot).ok
    assert stat.S_IMODE(os.stat(tmp_path / "run.sh").st_mode) == 0o755


def _refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError("agent_checkpoint started a process")


def test_no_subprocess_is_ever_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("a")
    # A fake git that leaves a mark if anything (Python or native) runs it.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    mark = tmp_path / "git-was-run"
    (bin_dir / "git").write_text(f"#!/bin/sh\ntouch {mark}\n")
    os.chmod(bin_dir / "git", 0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    for module, name in [
        (subprocess, "Popen"),
        (os, "fork"),
        (os, "forkpty"),
        (os, "posix_spawn"),
        (os, "posix_spawnp"),
        (os, "system"),
        (os, "execv"),
        (os, "execve"),
    ]:
        if hasattr(module, name):
            monkeypatch.setattr(module, name, _refuse)

    snapshot = ac.create_checkpoint(root, ["a.py", "gen/b.py"])
    (root / "a.py").write_text("changed")
    (root / "gen").mkdir()
    (root / "gen" / "b.py").write_text("b")
    assert ac.rollback(root, snapshot).ok
    assert ac.snapshot_paths(snapshot) == ["a.py", "gen/b.py"]
    queue = ac.PushQueue(root)
    queue.enqueue(ac.ref_name(ac.new_checkpoint_id()))
    assert len(queue.drain()) == 1
    assert not mark.exists()
    assert not (root / ".git").exists()
    assert (root / "a.py").read_text() == "a"
