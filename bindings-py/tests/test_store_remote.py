"""CheckpointStore.push / fetch / fetch_all / list_remote against real servers
the tests start and stop: a bare repository over file:// and `git daemon`
on 127.0.0.1; the result classes, the error classes, the GIL released. (The
README examples run in test_readme.py.)"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

import agent_checkpoint as ac
from test_threads import progress_during

A = "01KVBJCWYA4YW6J5M9GP655HZN"
B = "01KVBJCWYA4YW6J5M9GP655HZP"


def git(cwd: Path, *args: str) -> str:
    home = cwd.parent / "home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "HOME": str(home),
        "LC_ALL": "C",
    }
    out = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, check=True)
    return out.stdout.decode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(params=["file", "daemon"])
def remote(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty bare repository, over file:// or git daemon."""
    git(tmp_path, "init", "-q", "--bare", "remote.git")
    if request.param == "file":
        yield f"file://{tmp_path / 'remote.git'}"
        return
    port = free_port()
    daemon = subprocess.Popen(
        [
            "git", "daemon", "--enable=receive-pack", "--reuseaddr", "--listen=127.0.0.1",
            "--export-all", f"--port={port}", f"--base-path={tmp_path}", str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        for _ in range(500):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.01)
        else:
            pytest.fail("git daemon did not listen")
        yield f"git://127.0.0.1:{port}/remote.git"
    finally:
        os.killpg(daemon.pid, signal.SIGKILL)
        daemon.wait()


def clones(tmp_path: Path, url: str, *names: str) -> List[Path]:
    out = []
    for name in names:
        repo = tmp_path / name
        repo.mkdir()
        git(repo, "init", "-q")
        git(repo, "config", "user.name", "Test User")
        git(repo, "config", "user.email", "test@example.com")
        git(repo, "remote", "add", "origin", url)
        out.append(repo)
    return out


def test_push_list_fetch_and_the_result_classes(tmp_path: Path, remote: str) -> None:
    a, b = clones(tmp_path, remote, "a", "b")
    store_a = ac.CheckpointStore(a)
    for cid in (A, B):
        store_a.write_session(cid, "s1", prompts=[f"prompt of {cid}"], transcript=b'{"t":1}\n')
    result = store_a.push()
    assert isinstance(result, ac.PushResult)
    assert result.ok and result.remote == "origin"
    assert sorted(result.pushed) == sorted(ac.ref_name(c) for c in (A, B))
    assert result.queued == [] and result.dropped == []
    assert "PushResult(remote=" in repr(result)
    assert ac.PushQueue(store_a.common_dir).peek() == []
    assert store_a.push().pushed == []

    store_b = ac.CheckpointStore(b)
    listed = store_b.list_remote()
    assert [c.checkpoint_id for c in listed] == [A, B]
    assert {c.local for c in listed} == {"absent"}
    assert listed[0].backend == "git-refs" and listed[0].ref_name == ac.ref_name(A)
    assert all(isinstance(c, ac.RemoteCheckpoint) for c in listed)

    fetched = store_b.fetch(A)
    assert isinstance(fetched, ac.FetchedRef)
    assert (fetched.ref_name, fetched.outcome) == (ac.ref_name(A), "created")
    assert store_b.read_session(A, 0)["prompts"] == [f"prompt of {A}"]
    assert store_b.fetch(A, remote="origin").outcome == "up_to_date"
    with pytest.raises(ac.NotFoundError):
        store_b.fetch("01KVBJCWYA4YW6J5M9GP655HZQ")

    everything = store_b.fetch_all()
    assert isinstance(everything, ac.FetchResult) and everything.ok
    assert {f.outcome for f in everything.fetched} == {"up_to_date", "created"}
    assert [c["checkpoint_id"] for c in store_b.list()].count(B) == 1


def test_a_conflict_stays_queued_with_its_code_and_nothing_is_lost(tmp_path: Path, remote: str) -> None:
    a, b = clones(tmp_path, remote, "a", "b")
    store_a, store_b = ac.CheckpointStore(a), ac.CheckpointStore(b)
    store_a.write_session(A, "same", prompts=["a's words"])
    assert store_a.push().ok
    store_b.write_session(A, "same", prompts=["b's words"])
    store_b.write_session(B, "other")
    before = git(b, "rev-parse", ac.ref_name(A))
    result = store_b.push()
    assert not result.ok
    assert result.pushed == [ac.ref_name(B)]
    [failure] = result.queued
    assert isinstance(failure, ac.RefFailure)
    assert (failure.ref_name, failure.code) == (ac.ref_name(A), "conflict")
    assert '"same"' in failure.reason
    assert ac.PushQueue(store_b.common_dir).peek() == [ac.ref_name(A)]
    assert git(b, "rev-parse", ac.ref_name(A)) == before, "nothing lost locally"
    with pytest.raises(ac.ConflictError) as raised:
        store_b.fetch(A)
    assert raised.value.code == "conflict"
    assert git(b, "rev-parse", ac.ref_name(A)) == before


def test_a_dry_run_lists_what_the_push_then_sends_and_changes_nothing(
    tmp_path: Path, remote: str
) -> None:
    [a] = clones(tmp_path, remote, "a")
    store = ac.CheckpointStore(a)
    store.write_session(A, "s1", agent="Claude Code", files_touched=["x.rs"], transcript=b"{}\n")
    assert store.push().ok
    store.write_session(B, "s2", agent="Codex", files_touched=["y.rs", "z.rs"], transcript=b"{}\n")
    queue = ac.PushQueue(store.common_dir)
    queue.enqueue(ac.ref_name(A))  # already on the remote
    before = (queue.peek(), git(a, "for-each-ref"), git(tmp_path / "remote.git", "for-each-ref"))

    plan = store.push(dry_run=True)
    assert isinstance(plan, ac.PushPlan)
    assert (queue.peek(), git(a, "for-each-ref"), git(tmp_path / "remote.git", "for-each-ref")) == before
    assert plan.remote == "origin" and plan.dropped == []
    first, second = plan.checkpoints
    assert isinstance(first, ac.OutgoingCheckpoint)
    assert (first.ref_name, first.checkpoint_id, first.on_remote) == (ac.ref_name(B), B, False)
    assert (first.session_ids, first.agent, first.files_touched) == (["s2"], "Codex", ["y.rs", "z.rs"])
    assert first.queued and first.upload_bytes > 0 and first.remote_commit is None
    assert first.damaged is None and first.commit == git(a, "rev-parse", ac.ref_name(B)).strip()
    assert (second.ref_name, second.on_remote, second.upload_bytes) == (ac.ref_name(A), True, 0)
    assert plan.upload_bytes == first.upload_bytes
    assert plan.to_send == [ac.ref_name(B)]
    assert "PushPlan(remote=" in repr(plan) and "OutgoingCheckpoint(" in repr(first)

    remote_before = git(tmp_path / "remote.git", "for-each-ref").splitlines()
    assert store.push(dry_run=False).ok
    changed = set(git(tmp_path / "remote.git", "for-each-ref").splitlines()) - set(remote_before)
    assert [line.split()[-1] for line in changed] == plan.to_send
    assert store.push(dry_run=True).checkpoints == []


def test_an_unreachable_remote_raises_and_keeps_the_queue(tmp_path: Path) -> None:
    [a] = clones(tmp_path, f"git://127.0.0.1:{free_port()}/remote.git", "a")
    store = ac.CheckpointStore(a)
    store.write_session(A, "s1")
    with pytest.raises(ac.RemoteUnreachableError) as raised:
        store.push()
    assert raised.value.code == "remote_unreachable"
    assert ac.PushQueue(store.common_dir).peek() == [ac.ref_name(A)]
    with pytest.raises(ac.RemoteUnreachableError):
        store.list_remote()
    with pytest.raises(ac.InvalidArgumentError):
        store.push("--upload-pack=touch /tmp/x")


def test_push_releases_the_gil(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "--bare", "remote.git")
    [a] = clones(tmp_path, f"file://{tmp_path / 'remote.git'}", "a")
    store = ac.CheckpointStore(a)
    store.write_session(A, "s1")
    assert progress_during(lambda: store.push()) > 0
    assert progress_during(lambda: store.list_remote()) > 0

