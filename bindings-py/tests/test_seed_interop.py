"""Interop with the seed's Python implementation, in both directions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import agent_checkpoint as ac
import seed_checkpoint as seed
from seed_checkpoint import Operation


def make_tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("print('a')\n")
    (root / "src" / "bin.dat").write_bytes(bytes(range(256)))
    (root / "gone.txt").write_text("deleted by the batch")
    (root / "empty").mkdir()


OPERATIONS = [
    Operation("src/a.py"),
    Operation("./src/a.py"),
    Operation("src/bin.dat"),
    Operation("gone.txt"),
    Operation("gen/deep/new.py"),
    Operation("empty/new.txt"),
]


def apply_batch(root: Path) -> None:
    (root / "src" / "a.py").write_text("print('changed')\n")
    (root / "src" / "bin.dat").write_bytes(b"")
    (root / "gone.txt").unlink()
    (root / "gen" / "deep").mkdir(parents=True)
    (root / "gen" / "deep" / "new.py").write_text("new")
    (root / "empty" / "new.txt").write_text("new")


def files(root: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root).as_posix()
        for d in dirnames:
            out[f"{d}" if rel == "." else f"{rel}/{d}"] = None
        for f in filenames:
            out[f"{f}" if rel == "." else f"{rel}/{f}"] = (Path(dirpath) / f).read_bytes()
    return out


def test_our_rollback_accepts_seed_snapshots(tmp_path: Path) -> None:
    make_tree(tmp_path)
    before = files(tmp_path)
    snapshot = seed.create_checkpoint(tmp_path, OPERATIONS)
    assert json.loads(snapshot)["created_dirs"] == ["gen", "gen/deep"]
    assert ac.snapshot_paths(snapshot) == sorted(seed.snapshot_paths(snapshot))
    apply_batch(tmp_path)
    result = ac.rollback(tmp_path, snapshot)
    assert result.ok, result
    assert result.restored == sorted(seed.snapshot_paths(snapshot))
    assert files(tmp_path) == before


def test_seed_rollback_restores_our_snapshots(tmp_path: Path) -> None:
    make_tree(tmp_path)
    before = files(tmp_path)
    snapshot = ac.create_checkpoint(tmp_path, OPERATIONS)
    assert "modes" in json.loads(snapshot)  # an extension the seed ignores
    assert seed.snapshot_paths(snapshot) == ac.snapshot_paths(snapshot)
    apply_batch(tmp_path)
    result = seed.rollback(tmp_path, snapshot)
    assert result.ok and result.valid
    assert sorted(result.restored) == ac.snapshot_paths(snapshot)
    assert files(tmp_path) == before


def test_same_snapshot_content_both_ways(tmp_path: Path) -> None:
    make_tree(tmp_path)
    ours = json.loads(ac.create_checkpoint(tmp_path, OPERATIONS))
    theirs = json.loads(seed.create_checkpoint(tmp_path, OPERATIONS))
    assert ours["version"] == theirs["version"] == 1
    assert ours["entries"] == theirs["entries"]
    assert ours["created_dirs"] == theirs["created_dirs"]


def test_malformed_snapshots_agree_on_validity(tmp_path: Path) -> None:
    for bad in ["{", "null", "[]", "{}", '{"version":1,"entries":[]}']:
        assert ac.rollback(tmp_path, bad).valid is seed.rollback(tmp_path, bad).valid is False
        assert ac.snapshot_paths(bad) == seed.snapshot_paths(bad) == []
