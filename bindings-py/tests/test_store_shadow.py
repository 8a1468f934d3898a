"""CheckpointStore's shadow branches from Python: steps, log, rewind with
redo, condense, clean, errors, the GIL released. (The README's example runs
in test_readme.py.)"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import agent_checkpoint as ac
from test_threads import progress_during


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


def repo_41(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "Test User")
    git(repo, "config", "user.email", "test@example.com")
    (repo / "src" / "lib.rs").write_text("pub fn answer() -> u32 { 41 }\n")
    (repo / ".gitignore").write_text(".env\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def test_steps_log_rewind_redo(tmp_path: Path) -> None:
    repo = repo_41(tmp_path)
    store = ac.CheckpointStore(repo)
    (repo / "notes.txt").write_text("untracked before the session\n")
    (repo / ".env").write_text("API_KEY=1\n")
    first = store.shadow_step("s1")
    assert first["first"] and not first["skipped"]
    assert first["branch"] == store.shadow_branch()
    assert first["branch"].endswith("-e3b0c4")
    (repo / "src" / "lib.rs").write_text("changed\n")
    (repo / "src" / "new.rs").write_text("new\n")
    second = store.shadow_step("s1", files=["src/lib.rs", "src/new.rs", ".env"], message="edit")
    assert second["left_out"] == [".env"]
    assert store.shadow_step("s1", files=["src/lib.rs"])["skipped"]
    log = store.shadow_log(session_id="s1", limit=1)
    assert [s["commit"] for s in log] == [second["commit"]]
    assert log[0]["message"] == "edit" and log[0]["session_id"] == "s1"
    assert store.shadow_branches()[0]["tip"] == second["commit"]

    (repo / "notes.txt").write_text("the user's edit\n")
    plan = store.shadow_rewind_plan(first["commit"][:10])
    assert {(i.path, i.action) for i in plan} == {("src/lib.rs", "write"), ("src/new.rs", "remove")}
    assert all(i.diff is None for i in plan)
    diffs = {i.path: i.diff for i in store.shadow_rewind_plan(first["commit"], diff=True, diff_context=0)}
    assert diffs == {
        "src/lib.rs": "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-changed\n+pub fn answer() -> u32 { 41 }\n",
        "src/new.rs": "remove file of 4 bytes",
    }
    result = store.shadow_rewind(first["commit"], repo)
    assert result.ok and [i.path for i in result.plan] == [i.path for i in plan]
    assert (repo / "src" / "lib.rs").read_text() == "pub fn answer() -> u32 { 41 }\n"
    assert not (repo / "src" / "new.rs").exists()
    assert (repo / "notes.txt").read_text() == "the user's edit\n"
    assert (repo / ".env").read_text() == "API_KEY=1\n"
    assert ac.rollback(repo, result.redo).ok
    assert (repo / "src" / "lib.rs").read_text() == "changed\n"
    assert (repo / "src" / "new.rs").read_text() == "new\n"


def test_metadata_transcript_task_condense_clean(tmp_path: Path) -> None:
    repo = repo_41(tmp_path)
    store = ac.CheckpointStore(repo)
    meta = tmp_path / "meta"
    meta.mkdir()
    (meta / "full.jsonl").write_text('{"type":"user","text":"hi"}\n')
    (meta / "prompt.txt").write_text("do it")
    store.shadow_step("s1", metadata_dir=meta)
    assert store.shadow_transcript(store.shadow_log()[0]["commit"]) == b'{"type":"user","text":"hi"}\n'
    (repo / "src" / "lib.rs").write_text("by a subagent\n")
    task = store.shadow_step("s1", files=["src/lib.rs"], task="toolu_1", agent_id="a1")
    top = store.shadow_log()[0]
    assert top["commit"] == task["commit"] and top["is_task"] and top["tool_use_id"] == "toolu_1"
    done = store.shadow_condense("s1", "01KVBJCWYA4YW6J5M9GP655HZN", agent="Claude Code")
    assert done["steps"] == 2 and done["branch_deleted"]
    session = store.read_session("01KVBJCWYA4YW6J5M9GP655HZN", 0)
    assert session["prompts"] == ["do it"]
    assert store.shadow_branches() == [] and store.shadow_clean() == []


def test_errors_are_typed(tmp_path: Path) -> None:
    repo = repo_41(tmp_path)
    store = ac.CheckpointStore(repo)
    with pytest.raises(ac.InvalidArgumentError):
        store.shadow_step("a/b")
    with pytest.raises(ac.InvalidArgumentError):
        store.shadow_step("s", message="x\nEntire-Session: other")
    with pytest.raises(ac.NotFoundError):
        store.shadow_rewind("abcdef12")
    with pytest.raises(ac.NotFoundError):
        store.shadow_condense("nobody", "01KVBJCWYA4YW6J5M9GP655HZN")
    with pytest.raises(TypeError):
        store.shadow_step("s", files=3)  # type: ignore[arg-type]


def test_steps_release_the_gil(tmp_path: Path) -> None:
    repo = repo_41(tmp_path)
    for i in range(300):
        (repo / f"f{i}.txt").write_text("x" * 4096)
    store = ac.CheckpointStore(repo)
    ticks = progress_during(lambda: store.shadow_step("s1"))
    assert ticks > 0
