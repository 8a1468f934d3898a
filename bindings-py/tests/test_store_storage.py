"""CheckpointStore.du / gc from Python: typed reports, the dry run changing
nothing, retention removing the oldest undo snapshots, the user's refs kept,
errors typed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import List

import pytest

import agent_checkpoint as ac

IDS = ["a1b2c3d4e5f1", "a1b2c3d4e5f2", "a1b2c3d4e5f3"]


def git(repo: Path, *args: str) -> str:
    home = repo.parent / "home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "HOME": str(home),
        "LC_ALL": "C",
    }
    out = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)
    return out.stdout.decode()


def captured(tmp_path: Path) -> tuple[Path, ac.CheckpointStore]:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "Test User")
    git(repo, "config", "user.email", "test@example.com")
    (repo / "user.txt").write_text("the user's work\n")
    git(repo, "add", "user.txt")
    git(repo, "commit", "-q", "-m", "user commit")
    store = ac.CheckpointStore(repo)
    for i, cid in enumerate(IDS):
        (repo / "a.txt").write_text(f"version {i}\n" * (100 * (i + 1)))
        store.write_session(cid, "s1", snapshot=ac.create_checkpoint(repo, ["a.txt"]))
    return repo, store


def snapshot_refs(repo: Path) -> List[str]:
    return git(repo, "for-each-ref", "--format=%(refname)", "refs/entire/snapshots/").split()


def test_du_reports_and_gc_keeps_the_newest_its_dry_run_changing_nothing(tmp_path: Path) -> None:
    repo, store = captured(tmp_path)
    user_refs = git(repo, "for-each-ref", "refs/heads/", "refs/tags/")

    du = store.du()
    assert isinstance(du, ac.DuReport)
    assert du.snapshots == du.snapshots and isinstance(du.snapshots, ac.StorageUsage)
    assert du.snapshots.refs == 3 and du.snapshots.bytes > 0
    assert du.total_bytes == du.object_bytes + du.snapshot_file_bytes
    assert [(s.session_id, s.snapshots) for s in du.sessions] == [("s1", 3)]
    assert all(isinstance(e, ac.DuEntry) for e in du.largest)
    assert {e.kind for e in du.largest} <= {"checkpoint", "checkpoint_branch", "snapshot", "shadow_branch"}
    assert len(store.du(top=1).largest) == 1

    dry = store.gc(keep=2, dry_run=True)
    assert isinstance(dry, ac.GcReport) and dry.dry_run and dry.keep == 2
    assert [(s.checkpoint_id, s.session_id, s.reason) for s in dry.removed_snapshots] == [
        (IDS[0], "s1", "beyond_retention")
    ]
    assert len(snapshot_refs(repo)) == 3
    assert store.du().total_bytes == du.total_bytes

    done = store.gc(keep=2)
    assert not done.dry_run
    assert [s.checkpoint_id for s in done.removed_snapshots] == [IDS[0]]
    assert all(isinstance(s, ac.RemovedSnapshot) for s in done.removed_snapshots)
    assert done.snapshot_files_removed == 1 and done.snapshot_file_bytes_freed > 0
    assert len(snapshot_refs(repo)) == 2
    assert store.snapshot(IDS[0]) is None
    assert store.snapshot(IDS[2]) is not None
    assert store.du().snapshots.refs == 2
    assert git(repo, "for-each-ref", "refs/heads/", "refs/tags/") == user_refs
    assert "GcReport(" in repr(done) and "DuReport(" in repr(du)


def test_a_bad_older_than_is_refused_and_nothing_goes(tmp_path: Path) -> None:
    repo, store = captured(tmp_path)
    with pytest.raises(ac.InvalidArgumentError):
        store.gc(keep=1, older_than="soon")
    assert len(snapshot_refs(repo)) == 3
    report = store.gc(keep=0, older_than="never")
    assert report.removed_snapshots == [] and report.keep is None and report.older_than_seconds is None
