"""Large files (issue 37.3) from Python: `create_checkpoint(max_file_bytes=)`
skips larger files unread (the snapshot's `skipped`), a rollback lists them
in `not_covered` and leaves them; `shadow_step(max_file_bytes=)` lists larger
untracked files in `too_large`."""

from __future__ import annotations

import json
from pathlib import Path

import agent_checkpoint as ac
from test_store_shadow import repo_41


def test_a_file_over_the_limit_is_skipped_and_not_covered(tmp_path: Path) -> None:
    (tmp_path / "big.bin").write_bytes(b"x" * 10)
    (tmp_path / "at.txt").write_bytes(b"y" * 9)
    snapshot = ac.create_checkpoint(tmp_path, ["big.bin", "at.txt"], max_file_bytes=9)
    assert json.loads(snapshot)["skipped"] == {"big.bin": 10}
    assert ac.snapshot_paths(snapshot) == ["at.txt"]
    (tmp_path / "big.bin").write_bytes(b"changed by the batch")
    (tmp_path / "at.txt").write_bytes(b"edit")
    result = ac.rollback(tmp_path, snapshot)
    assert result.ok and result.restored == ["at.txt"]
    assert result.not_covered == {"big.bin": 10}
    assert (tmp_path / "big.bin").read_bytes() == b"changed by the batch"
    assert (tmp_path / "at.txt").read_bytes() == b"y" * 9
    # Nothing skipped: an empty mapping.
    assert ac.rollback(tmp_path, ac.create_checkpoint(tmp_path, ["at.txt"])).not_covered == {}


def test_a_1_gib_sparse_file_is_skipped_by_default(tmp_path: Path) -> None:
    with open(tmp_path / "data.bin", "wb") as f:
        f.truncate(1 << 30)
    snapshot = ac.create_checkpoint(tmp_path, ["data.bin"])
    assert len(snapshot) < 4096
    assert json.loads(snapshot)["skipped"] == {"data.bin": 1 << 30}


def test_shadow_step_takes_max_file_bytes(tmp_path: Path) -> None:
    repo = repo_41(tmp_path)
    store = ac.CheckpointStore(repo)
    store.shadow_step("s1")
    (repo / "data.bin").write_bytes(b"d" * 100)
    step = store.shadow_step("s1", files=["data.bin"], max_file_bytes=99)
    assert step["too_large"] == [{"path": "data.bin", "size": 100}]
    taken = store.shadow_step("s1", files=["data.bin"], max_file_bytes=100)
    assert taken["too_large"] == [] and not taken["skipped"]
