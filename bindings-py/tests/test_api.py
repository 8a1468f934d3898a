"""The host surface: argument forms, result types, reprs, the naming layer, the queue."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

import agent_checkpoint as ac


@dataclass
class Replace:
    """Shaped like the seed's operation models: the target is in `file`."""

    file: Any
    new: str = ""


class FsPath:
    """A bare os.PathLike."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return self.path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a")
    (tmp_path / "b.txt").write_text("b")
    return tmp_path


@pytest.mark.parametrize("as_root", [str, Path, FsPath], ids=["str", "Path", "PathLike"])
def test_root_forms(root: Path, as_root: Any) -> None:
    snapshot = ac.create_checkpoint(as_root(str(root)), ["b.txt"])
    (root / "b.txt").write_text("changed")
    assert ac.rollback(as_root(str(root)), snapshot).ok
    assert (root / "b.txt").read_text() == "b"


def test_operation_forms(root: Path) -> None:
    operations = [
        "src/a.py",
        Path("b.txt"),
        PurePosixPath("new/one.py"),
        FsPath("new/two.py"),
        Replace(file="src/a.py"),
        Replace(file=Path("new/three.py")),
        Replace(file=FsPath("new/four.py")),
        str(root / "b.txt"),
    ]
    snapshot = ac.create_checkpoint(root, operations)
    assert ac.snapshot_paths(snapshot) == [
        "b.txt",
        "new/four.py",
        "new/one.py",
        "new/three.py",
        "new/two.py",
        "src/a.py",
    ]


def test_operations_any_iterable(root: Path) -> None:
    expected = ac.create_checkpoint(root, ["b.txt", "src/a.py"])
    assert ac.create_checkpoint(root, ("b.txt", "src/a.py")) == expected
    assert ac.create_checkpoint(root, (p for p in ["src/a.py", "b.txt"])) == expected
    assert ac.create_checkpoint(root, {"b.txt": 1, "src/a.py": 2}) == expected
    assert ac.create_checkpoint(root, []) == ac.create_checkpoint(root, iter(()))


def test_bad_operations_are_type_errors(root: Path) -> None:
    with pytest.raises(TypeError, match="not a single path"):
        ac.create_checkpoint(root, "b.txt")
    with pytest.raises(TypeError, match="not a single path"):
        ac.create_checkpoint(root, Path("b.txt"))
    with pytest.raises(TypeError, match="`file` attribute"):
        ac.create_checkpoint(root, [42])
    with pytest.raises(TypeError, match="`file` attribute"):
        ac.create_checkpoint(root, [Replace(file=None)])
    with pytest.raises(TypeError):
        ac.create_checkpoint(root, 42)  # type: ignore[arg-type]


def test_options_are_keyword_only(root: Path) -> None:
    with pytest.raises(TypeError):
        ac.create_checkpoint(root, ["b.txt"], True)  # type: ignore[misc]
    with pytest.raises(TypeError):
        ac.rollback(root, "{}", False)  # type: ignore[misc]


def test_allow_git_dir(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]")
    with pytest.raises(ac.InvalidPathError):
        ac.create_checkpoint(root, [".git/config"])
    snapshot = ac.create_checkpoint(root, [".git/config"], allow_git_dir=True)
    (root / ".git" / "config").write_text("changed")
    refused = ac.rollback(root, snapshot)
    assert not refused.valid and refused.error_code == "invalid_path"
    assert (root / ".git" / "config").read_text() == "changed"
    assert ac.rollback(root, snapshot, allow_git_dir=True).ok
    assert (root / ".git" / "config").read_text() == "[core]"


def test_max_file_bytes(root: Path) -> None:
    assert ac.snapshot_paths(ac.create_checkpoint(root, ["b.txt"], max_file_bytes=1)) == ["b.txt"]
    skipped = ac.create_checkpoint(root, ["b.txt"], max_file_bytes=0)
    assert ac.snapshot_paths(skipped) == []
    assert json.loads(skipped)["skipped"] == {"b.txt": 1}


def test_durable_false_still_restores(root: Path) -> None:
    snapshot = ac.create_checkpoint(root, ["b.txt"])
    (root / "b.txt").unlink()
    assert ac.rollback(root, snapshot, durable=False).ok
    assert (root / "b.txt").read_text() == "b"


def test_non_utf8_names_are_invalid_paths(root: Path) -> None:
    undecodable = os.fsdecode(b"bad-\xff.txt")
    with pytest.raises(ac.InvalidPathError):
        ac.create_checkpoint(root, [undecodable])
    with pytest.raises(ac.InvalidPathError):
        ac.create_checkpoint(root, [Replace(file=FsPathBytes(b"bad-\xff.txt"))])
    assert ac.create_checkpoint(root, [FsPathBytes(b"b.txt")]) == ac.create_checkpoint(root, ["b.txt"])


class FsPathBytes:
    def __init__(self, path: bytes) -> None:
        self.path = path

    def __fspath__(self) -> bytes:
        return self.path


def test_rollback_result_shape(root: Path) -> None:
    snapshot = ac.create_checkpoint(root, ["b.txt", "gen/x.py"])
    result = ac.rollback(root, snapshot)
    assert isinstance(result, ac.RollbackResult)
    assert result.restored == ["b.txt", "gen/x.py"]
    assert result.unrestored == [] and result.failures == {}
    assert result.valid is True and result.ok is True
    assert result.error_code is None and result.error is None
    assert repr(result) == (
        "RollbackResult(ok=True, valid=True, restored=['b.txt', 'gen/x.py'], "
        "unrestored=[], conflicts=[], error_code=None, error=None)"
    )
    with pytest.raises(AttributeError):
        result.restored = []  # type: ignore[misc]
    with pytest.raises(TypeError):
        ac.RollbackResult()  # type: ignore[call-arg]


def test_malformed_rollback_result(root: Path) -> None:
    result = ac.rollback(root, '{"version": 1}')
    assert (result.valid, result.ok, result.restored, result.unrestored) == (False, False, [], [])
    assert result.error_code == "malformed_snapshot"
    assert result.error and "malformed snapshot" in result.error
    assert re.fullmatch(
        r"RollbackResult\(ok=False, valid=False, restored=\[\], unrestored=\[\], conflicts=\[\], "
        r"error_code='malformed_snapshot', error='malformed snapshot: .*'\)",
        repr(result),
    )


def test_inspect_snapshot(root: Path) -> None:
    os.chmod(root / "b.txt", 0o640)
    os.symlink("b.txt", root / "cur")
    snapshot = ac.create_checkpoint(root, ["b.txt", "cur", "n/new.py"])
    items = ac.inspect_snapshot(snapshot)
    digest_b = hashlib.sha256(b"b").hexdigest()
    assert [(i.path, i.kind, i.size, i.mode, i.link_target, i.digest) for i in items] == [
        ("b.txt", "file", 1, 0o640, None, digest_b),
        ("cur", "link", None, None, "b.txt", None),
        ("n/new.py", "new", None, None, None, None),
    ]
    assert repr(items[0]) == (
        f"CapturedPath(path='b.txt', kind='file', size=1, mode=0o640, link_target=None, digest='{digest_b}')"
    )
    assert items == ac.inspect_snapshot(snapshot)
    assert items[0] != items[1]


def test_snapshot_paths_is_best_effort() -> None:
    for bad in ["", "null", "[]", "{", '{"version":1}', '{"version":1,"entries":[]}', '{"version":9,"entries":{}}']:
        assert ac.snapshot_paths(bad) == []
    with pytest.raises(TypeError):
        ac.snapshot_paths(None)  # type: ignore[arg-type]


def test_ids() -> None:
    legacy = ac.new_checkpoint_id()
    assert re.fullmatch(r"[0-9a-f]{12}", legacy)
    assert ac.checkpoint_id_kind(legacy) == "legacy"
    assert len({ac.new_checkpoint_id() for _ in range(100)}) == 100
    assert ac.validate_checkpoint_id(legacy) == legacy
    ulid = ac.new_ulid()
    assert ac.checkpoint_id_kind(ulid) == "ulid"
    assert ac.display_short(ulid) == ulid
    fixed = ac.new_ulid(1_700_000_000_123)
    assert ac.ulid_timestamp_ms(fixed) == 1_700_000_000_123
    assert ac.new_ulid(timestamp_ms=0).startswith("0000000000")
    assert ac.ulid_timestamp_ms(legacy) is None
    with pytest.raises(OverflowError):
        ac.new_ulid(-1)
    assert ac.shard_for("a1b2c3d4e5f6") == "f6"
    assert ac.checkpoint_path("a1b2c3d4e5f6") == "a1/b2c3d4e5f6"


def test_refs_and_branches() -> None:
    assert ac.ref_name("a1b2c3d4e5f6") == ac.CHECKPOINT_REF_PREFIX + "f6/a1b2c3d4e5f6"
    assert ac.parse_ref("refs/entire/checkpoints/f6/a1b2c3d4e5f6") == "a1b2c3d4e5f6"
    assert ac.parse_ref("refs/heads/main") is None
    name = ac.shadow_branch_name("abcdef1234567", "wt")
    assert name.startswith(ac.SHADOW_BRANCH_PREFIX + "abcdef1-")
    assert ac.parse_shadow_branch_name(name) == ("abcdef1", ac.hash_worktree_id("wt"))
    assert ac.shadow_branch_name("abcdef1234567") == "entire/abcdef1-e3b0c4"
    assert ac.is_shadow_branch(name) and not ac.is_shadow_branch(ac.METADATA_BRANCH)
    assert ac.METADATA_BRANCH == "entire/checkpoints/v1"


def test_prompts() -> None:
    assert ac.PROMPT_SEPARATOR == "\n\n---\n\n"
    prompts = ["one", "two\n\nlines", ""]
    joined = ac.join_prompts(prompts)
    assert joined == ac.PROMPT_SEPARATOR.join(prompts)
    assert ac.split_prompts(joined) == ["one", "two\n\nlines"]
    assert ac.join_prompts(iter(["a", "b"])) == "a" + ac.PROMPT_SEPARATOR + "b"
    assert ac.split_prompts("") == []
    with pytest.raises(TypeError):
        ac.join_prompts("ab")
    with pytest.raises(TypeError):
        ac.join_prompts([1])  # type: ignore[list-item]


def test_push_queue(tmp_path: Path) -> None:
    queue = ac.PushQueue(tmp_path)
    assert queue.path == tmp_path / "entire-checkpoint-push-queue.jsonl"
    assert queue.directory == tmp_path
    assert repr(queue) == f"PushQueue({str(tmp_path)!r})"
    assert queue.drain() == [] and queue.peek() == []
    a, b, c = (ac.ref_name(ac.new_checkpoint_id()) for _ in range(3))
    queue.enqueue(a)
    queue.enqueue_all([b, a])
    queue.enqueue_all(iter([c]))
    assert queue.peek() == [a, b, c]
    assert queue.drain() == [a, b, c]
    assert queue.path.read_text().splitlines() == [f'{{"ref":"{r}"}}' for r in (a, b, c)]
    queue.remove([a, c])
    assert queue.drain() == [b]
    queue.remove((r for r in [b]))
    assert not queue.path.exists()
    with pytest.raises(ac.InvalidRefNameError):
        queue.enqueue_all([a, "bad ref"])
    assert queue.peek() == []  # nothing written when one ref is invalid


def test_push_queue_in_missing_directory(tmp_path: Path) -> None:
    queue = ac.PushQueue(str(tmp_path / "missing"))
    assert queue.drain() == [] and queue.peek() == []
    ref = ac.ref_name("a1b2c3d4e5f6")
    queue.remove([ref])
    with pytest.raises(ac.NotFoundError) as raised:
        queue.enqueue(ref)
    assert isinstance(raised.value, FileNotFoundError)


def test_version() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", ac.__version__)
    assert set(ac.__all__) <= set(dir(ac))


def test_redo_undoes_the_rollback(root: Path) -> None:
    snapshot = ac.create_checkpoint(root, ["b.txt", "gen/x.py"])
    (root / "b.txt").write_text("batch")
    (root / "gen").mkdir()
    (root / "gen" / "x.py").write_text("batch")
    result = ac.rollback(root, snapshot)
    assert result.ok and result.redo is not None
    assert ac.rollback(root, result.redo).ok
    assert (root / "b.txt").read_text() == "batch" and (root / "gen" / "x.py").read_text() == "batch"
    assert ac.rollback(root, snapshot, redo=False).redo is None


def test_redo_is_made_once_when_read(root: Path) -> None:
    snapshot = ac.create_checkpoint(root, ["b.txt"])
    (root / "b.txt").write_text("batch")
    result = ac.rollback(root, snapshot)
    # Made on the first read (the interpreter released), then the same str.
    texts = []
    threads = [threading.Thread(target=lambda: texts.append(result.redo)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(texts)) == 1 and result.redo is result.redo
    assert ac.snapshot_paths(result.redo) == ["b.txt"]
    assert json.loads(result.redo)["entries"]["b.txt"] == base64.b64encode(b"batch").decode()


def test_plan_rollback_touches_nothing(root: Path) -> None:
    snapshot = ac.create_checkpoint(root, ["b.txt", "src/a.py", "gen/x.py"])
    (root / "b.txt").write_text("batch")
    (root / "gen").mkdir()
    (root / "gen" / "x.py").write_text("batch")
    plan = ac.plan_rollback(root, snapshot)
    assert [(i.path, i.action, i.conflict) for i in plan] == [
        ("b.txt", "write", False),
        ("gen", "rmdir", False),
        ("gen/x.py", "remove", False),
        ("src/a.py", "keep", False),
    ]
    assert repr(plan[0]) == "PlanItem(path='b.txt', action='write', conflict=False, code=None)"
    assert plan == ac.plan_rollback(str(root), snapshot)
    assert (root / "b.txt").read_text() == "batch"
    with pytest.raises(ac.MalformedSnapshotError):
        ac.plan_rollback(root, "{")


def test_human_edit_guard(root: Path) -> None:
    snapshot = ac.create_checkpoint(root, ["b.txt", "src/a.py"])
    (root / "b.txt").write_text("batch")
    (root / "src" / "a.py").write_text("batch")
    snapshot = ac.record_applied(root, snapshot)
    (root / "b.txt").write_text("a human edit")
    result = ac.rollback(root, snapshot, on_conflict="skip")
    assert result.conflicts == ["b.txt"] and result.restored == ["src/a.py"]
    assert (root / "b.txt").read_text() == "a human edit"
    assert (root / "src" / "a.py").read_text() == "a"
    with pytest.raises(ValueError, match="on_conflict"):
        ac.rollback(root, snapshot, on_conflict="merge")  # type: ignore[arg-type]


@pytest.mark.parametrize("key", [b"secret", bytearray(b"secret"), "secret"], ids=["bytes", "bytearray", "str"])
def test_sealed_snapshots(root: Path, key: Any) -> None:
    sealed = ac.create_checkpoint(root, ["b.txt"], key=key)
    assert sealed == ac.create_checkpoint(root, ["b.txt"], key=b"secret")
    (root / "b.txt").write_text("batch")
    refused = ac.rollback(root, sealed, key=b"wrong")
    assert not refused.valid and refused.error_code == "unauthenticated"
    assert (root / "b.txt").read_text() == "batch"
    with pytest.raises(ac.UnauthenticatedError):
        ac.plan_rollback(root, sealed, key="wrong")
    with pytest.raises(ac.UnauthenticatedError):
        ac.record_applied(root, sealed)
    assert ac.rollback(root, ac.record_applied(root, sealed, key=key), key=key).ok
    assert (root / "b.txt").read_text() == "b"
    with pytest.raises(TypeError, match="key must be bytes or str"):
        ac.create_checkpoint(root, ["b.txt"], key=42)  # type: ignore[arg-type]
