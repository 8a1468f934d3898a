"""CheckpointStore: the git store from Python — the shared store vectors, the
host surface (types, errors, defaults), threads and the GIL."""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List

import pytest

import agent_checkpoint as ac
from test_threads import progress_during
from vectors import load_cases

ULID = "01KVBJCWYA4YW6J5M9GP655HZN"


def git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    home = repo.parent / "home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "HOME": str(home),
        "LC_ALL": "C",
    }
    out = subprocess.run(["git", *args], cwd=repo, env=env, input=stdin, capture_output=True, check=True)
    return out.stdout.decode()


def new_repo(tmp_path: Path, name: str = "repo") -> Path:
    repo = tmp_path / name
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "Test User")
    git(repo, "config", "user.email", "test@example.com")
    return repo


# --- the shared vectors -----------------------------------------------------

CASES = load_cases("store_")


def play_writes(repo: Path, case: Dict[str, Any]) -> Dict[str, Any]:
    store = ac.CheckpointStore(repo, backend=case["backend"])
    cid = case["checkpoint_id"]
    for w in case["writes"]:
        fields = dict(w)
        session_id = fields.pop("session_id")
        try:
            store.write_session(cid, session_id, **fields)
        except ac.CheckpointError as e:
            assert git(repo, "for-each-ref") == "", "a failed write left refs"
            return {"expect_error": e.code}
    if case["backend"] == "git-refs":
        ref, prefix = ac.ref_name(cid), ""
    else:
        ref, prefix = "refs/heads/entire/checkpoints/v1", ac.checkpoint_path(cid) + "/"
    files = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", f"{ref}:{prefix.rstrip('/')}").splitlines():
        files[path] = git(repo, "cat-file", "-p", f"{ref}:{prefix}{path}")
    messages = [m for m in git(repo, "log", "--format=%B%x00", ref).split("\0\n") if m]
    return {"expect_files": files, "expect_messages": messages}


@pytest.mark.parametrize("case", [c for c in CASES if c["op"] == "write_sessions"], ids=lambda c: c["name"])
def test_store_vectors_write_sessions(tmp_path: Path, case: Dict[str, Any]) -> None:
    got = play_writes(new_repo(tmp_path), case)
    for key, value in got.items():
        assert case.get(key) == value, key


def test_store_vectors_are_there() -> None:
    assert len(CASES) >= 10
    # `reencode` cases exercise the Rust document layer directly; the
    # bindings reach the same code through read()/read_session().
    assert {c["op"] for c in CASES} == {"write_sessions", "reencode"}


# --- the host surface ---------------------------------------------------------


def test_write_read_list_from_any_worktree_directory(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    sub = repo / "src" / "deep"
    sub.mkdir(parents=True)
    store = ac.CheckpointStore(sub)
    assert store.backend == "git-refs"
    assert Path(store.common_dir).resolve() == (repo / ".git").resolve()
    written = store.write_session(
        ULID,
        "s1",
        agent="Claude Code",
        prompts=["one", "two"],
        transcript=b'{"type":"user"}\n',
        files_touched=["src/lib.rs"],
        token_usage={"input_tokens": 3, "output_tokens": 4},
        created_at="2026-01-02T03:04:05.5Z",
        summary={"intent": "i", "outcome": "o"},
    )
    assert written["ref_name"] == ac.ref_name(ULID)
    assert written["session_index"] == 0
    assert written["snapshot_commit"] is None
    assert git(repo, "rev-parse", written["ref_name"]).strip() == written["commit"]
    summary = store.read(ULID)
    assert summary["files_touched"] == ["src/lib.rs"]
    assert summary["token_usage"]["output_tokens"] == 4
    assert store.read_raw(ULID) == git(repo, "cat-file", "-p", f"{ac.ref_name(ULID)}:metadata.json")
    session = store.read_session(ULID)
    assert session["prompts"] == ["one", "two"]
    assert session["transcript"] == b'{"type":"user"}\n'
    assert session["metadata"]["created_at"] == "2026-01-02T03:04:05.5Z"
    assert session["metadata"]["summary"]["intent"] == "i"
    listed = store.list()
    assert [c["checkpoint_id"] for c in listed] == [ULID]
    assert listed[0]["session_ids"] == ["s1"] and listed[0]["agent"] == "Claude Code"
    assert listed[0]["backend"] == "git-refs"
    assert "CheckpointStore(" in repr(store)


def test_errors_are_typed(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    store = ac.CheckpointStore(repo)
    with pytest.raises(ac.NotARepositoryError):
        ac.CheckpointStore(tmp_path / "nowhere-outside")
    with pytest.raises(ac.InvalidArgumentError):
        ac.CheckpointStore(repo, backend="svn")
    with pytest.raises(ac.InvalidCheckpointIdError) as bad_id:
        store.write_session("nope", "s1")
    assert isinstance(bad_id.value, ValueError) and bad_id.value.code == "invalid_checkpoint_id"
    with pytest.raises(ac.InvalidArgumentError):
        store.write_session(ULID, "../x")
    with pytest.raises(ac.InvalidArgumentError):
        store.write_session(ULID, "s1", no_such_field=1)
    with pytest.raises(ac.InvalidArgumentError):
        store.write_session("a1b2c3d4e5f6", "s1", task={"tool_use_id": "a/b"})
    with pytest.raises(ac.MalformedSnapshotError):
        store.write_session(ULID, "s1", snapshot="{")
    with pytest.raises(TypeError):
        store.write_session(ULID, "s1", transcript=123)
    assert git(repo, "for-each-ref") == ""
    with pytest.raises(ac.NotFoundError):
        store.read(ULID)
    store.write_session(ULID, "s1", prompts=["only a prompt"])
    # Written without a transcript: read back all the same, transcript None.
    session = store.read_session(ULID, 0)
    assert session["transcript"] is None
    assert session["prompts"] == ["only a prompt"]
    assert session["metadata"]["session_id"] == "s1"
    with pytest.raises(ac.NotFoundError):
        store.read_session(ULID, 1)
    with pytest.raises(ac.NotFoundError):
        store.rollback(ULID)
    assert store.snapshot(ULID) is None


def test_a_subdirectory_snapshot_is_not_rolled_back_onto_the_work_tree(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    (repo / "sub").mkdir()
    (repo / "a.txt").write_text("top")
    (repo / "sub" / "a.txt").write_text("sub")
    snapshot = ac.create_checkpoint(repo / "sub", ["a.txt"])
    (repo / "sub" / "a.txt").write_text("edited")
    store = ac.CheckpointStore(repo)
    cid = "01KVBJCWYA4YW6J5M9GP655HZN"
    store.write_session(cid, "s1", snapshot=snapshot)
    with pytest.raises(ac.RootMismatchError):
        store.rollback(cid, durable=False)
    with pytest.raises(ac.RootMismatchError):
        store.plan_rollback(cid)
    assert (repo / "a.txt").read_text() == "top"
    assert (repo / "sub" / "a.txt").read_text() == "edited"
    assert store.rollback(cid, repo / "sub", durable=False).ok
    assert (repo / "sub" / "a.txt").read_text() == "sub"


def test_snapshot_rollback_and_backfills(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    (repo / "a.txt").write_text("before")
    snapshot = ac.create_checkpoint(repo, ["a.txt", "b.txt"])
    branch = ac.CheckpointStore(repo, backend="git-branch")
    cid = "a1b2c3d4e5f6"
    written = branch.write_session(cid, "s1", snapshot=snapshot, transcript="{}\n")
    assert written["snapshot_commit"]
    assert branch.snapshot(cid) == snapshot
    (repo / "a.txt").write_text("after")
    (repo / "b.txt").write_text("new")
    plan = branch.plan_rollback(cid)
    assert {(p.path, p.action) for p in plan} == {("a.txt", "write"), ("b.txt", "remove")}
    assert all(p.diff is None for p in plan)
    diffs = {p.path: p.diff for p in branch.plan_rollback(cid, diff=True, diff_context=0)}
    assert diffs == {
        "a.txt": "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-after\n\\ No newline at end of file\n"
        "+before\n\\ No newline at end of file\n",
        "b.txt": "remove file of 3 bytes",
    }
    reports: List[tuple] = []
    result = branch.rollback(cid, durable=False, progress=lambda *r: reports.append(r))
    assert reports[0] == ("check", 0, 2) and reports[-1] == ("restore", 2, 2)
    assert result.ok and result.redo is not None
    assert (repo / "a.txt").read_text() == "before" and not (repo / "b.txt").exists()
    refused = branch.rollback(cid, repo, key=b"k")
    assert not refused.valid and refused.error_code == "unauthenticated"

    branch.backfill_transcript(cid, "s1", b'{"final":1}\n', ["p"])
    branch.backfill_summary(cid, "s1", {"intent": "x", "outcome": "y", "friction": ["slow"]})
    branch.backfill_attribution(cid, {"calculated_at": "2026-01-02T03:04:05Z", "agent_lines": 2, "agent_percentage": 50.0})
    session = branch.read_session(cid)
    assert session["transcript"] == b'{"final":1}\n' and session["prompts"] == ["p"]
    assert session["metadata"]["summary"]["friction"] == ["slow"]
    assert branch.read(cid)["combined_attribution"]["agent_percentage"] == 50
    subjects = git(repo, "log", "--format=%s", "entire/checkpoints/v1").splitlines()
    assert subjects[:3] == [
        f"Update checkpoint summary for {cid}",
        f"Update summary for checkpoint {cid} (session: s1)",
        f"Finalize transcript for Checkpoint: {cid}",
    ]
    git(repo, "fsck", "--strict")


def test_threads_share_one_store_and_lose_nothing(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    store = ac.CheckpointStore(repo)

    def write(n: int) -> int:
        return int(store.write_session(ULID, f"s{n}", files_touched=[f"f{n}"])["session_index"])

    with ThreadPoolExecutor(max_workers=8) as pool:
        slots = sorted(pool.map(write, range(40)))
    assert slots == list(range(40))
    assert len(store.read(ULID)["sessions"]) == 40
    git(repo, "fsck", "--strict")


def test_gil_is_released_during_git_work(tmp_path: Path) -> None:
    repo = new_repo(tmp_path)
    store = ac.CheckpointStore(repo)
    big = b'{"line":"' + b"x" * 200 + b'"}\n'
    transcript = big * 100_000  # ~20 MiB
    assert progress_during(lambda: store.write_session(ULID, "s1", transcript=transcript)) > 0
    assert progress_during(lambda: store.read_session(ULID, 0)) > 0
