"""The checkpoint mechanisms, each as its project implements it.

Every contender checkpoints the tree before a round's edits and restores it
after them. Git mechanisms run the real `git`, one process per command, as
the peers do; ours run the release CLI (one process per command, as a hook
does) or the packages in a long-lived worker (as an agent embeds them).
`store_dirs` is what `du -sb` measures for the bytes a checkpoint adds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from procs import ContenderError, Timing, run


class Round:
    """One round's paths: `edit` are edited in place; `delete` removed and
    `create` made by a shell command. `touched` is all of them."""

    def __init__(self, number: int, edit: list[str], delete: list[str], create: list[str]):
        self.number = number
        self.edit = edit
        self.delete = delete
        self.create = create

    @property
    def touched(self) -> list[str]:
        return self.edit + self.delete + self.create

    @property
    def shell(self) -> bool:
        return bool(self.delete or self.create)


class Mechanism:
    """A contender. `name` is its row in the tables."""

    name = ""
    label = ""

    def __init__(self, repo: Path, store: Path):
        self.repo = repo
        self.store = store

    def setup(self) -> Timing | None:
        """Untimed preparation; a mechanism whose first checkpoint is special
        (a shadow repository's initial commit) returns its cost."""
        self.store.mkdir(parents=True, exist_ok=True)
        return None

    def store_dirs(self) -> list[Path]:
        return [self.store]

    def checkpoint(self, rnd: Round) -> tuple[object, Timing]:
        raise NotImplementedError

    def after_edit(self, rnd: Round, handle: object) -> Timing | None:
        """A step after the edits, when the mechanism needs one to restore."""
        return None

    def restore(self, rnd: Round, handle: object) -> Timing:
        raise NotImplementedError

    def close(self) -> None:
        pass


def git(repo: Path, *args: str, env: dict | None = None) -> Timing:
    return run(["git", *args], cwd=str(repo), env=env)


class ShadowGit(Mechanism):
    """Cline / Roo Code / Gemini CLI / OpenCode: a separate git dir whose work
    tree is the project; `git add -A` + `git commit` per checkpoint; restore
    by `reset --hard` to that commit and `clean -fd` (what the tree lacks)."""

    name = "shadow-git"
    label = "shadow git repository (Cline, Roo, Gemini CLI, OpenCode)"

    def env(self) -> dict:
        return {"GIT_DIR": str(self.store / "git"), "GIT_WORK_TREE": str(self.repo)}

    def setup(self) -> Timing:
        if self.store.exists():
            shutil.rmtree(self.store)
        self.store.mkdir(parents=True)
        total = Timing()
        env = self.env()
        total.add(run(["git", "init", "-q"], cwd=str(self.repo), env=env))
        for key, value in (("core.worktree", str(self.repo)), ("gc.auto", "0"), ("commit.gpgsign", "false")):
            total.add(run(["git", "config", key, value], env=env))
        total.add(run(["git", "add", "-A"], cwd=str(self.repo), env=env))
        total.add(run(["git", "commit", "-q", "--allow-empty", "-m", "initial"], cwd=str(self.repo), env=env))
        return total

    def checkpoint(self, rnd: Round) -> tuple[object, Timing]:
        env = self.env()
        total = Timing()
        total.add(run(["git", "add", "-A"], cwd=str(self.repo), env=env))
        total.add(run(["git", "commit", "-q", "--allow-empty", "-m", f"round {rnd.number}"], cwd=str(self.repo), env=env))
        head = run(["git", "rev-parse", "HEAD"], cwd=str(self.repo), env=env)
        total.add(head)
        return head.stdout.decode().strip(), total

    def restore(self, rnd: Round, handle: object) -> Timing:
        env = self.env()
        total = Timing()
        total.add(run(["git", "reset", "-q", "--hard", str(handle)], cwd=str(self.repo), env=env))
        total.add(run(["git", "clean", "-q", "-f", "-d"], cwd=str(self.repo), env=env))
        return total


class GhostCommit(Mechanism):
    """Codex: a temporary index seeded from HEAD (`read-tree HEAD`),
    `add -A`, `write-tree`, `commit-tree` without a ref; restore by reading
    that tree back (files the tree lacks removed, the rest from the tree)."""

    name = "ghost-commit"
    label = "ghost commit (Codex)"

    def store_dirs(self) -> list[Path]:
        return [self.repo / ".git"]

    def checkpoint(self, rnd: Round) -> tuple[object, Timing]:
        total = Timing()
        with tempfile.TemporaryDirectory(dir=self.store) as tmp:
            env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
            total.add(git(self.repo, "read-tree", "HEAD", env=env))
            total.add(git(self.repo, "add", "-A", env=env))
            tree = git(self.repo, "write-tree", env=env)
            total.add(tree)
            commit = run(
                ["git", "commit-tree", tree.stdout.decode().strip(), "-p", "HEAD", "-m", f"ghost {rnd.number}"],
                cwd=str(self.repo),
            )
            total.add(commit)
        return commit.stdout.decode().strip(), total

    def restore(self, rnd: Round, handle: object) -> Timing:
        total = Timing()
        with tempfile.TemporaryDirectory(dir=self.store) as tmp:
            env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
            total.add(git(self.repo, "read-tree", str(handle), env=env))
            extra = git(self.repo, "ls-files", "-z", "--others", "--exclude-standard", env=env)
            total.add(extra)
        # What the snapshot's tree lacks goes (as Codex removes untracked
        # files that were not there at the snapshot), timed with the rest.
        t0 = time.perf_counter()
        for rel in filter(None, extra.stdout.decode().split("\0")):
            path = self.repo / rel
            path.unlink()
            parent = path.parent
            while parent != self.repo and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
        total.add(Timing(time.perf_counter() - t0))
        total.add(git(self.repo, "restore", f"--source={handle}", "--worktree", "--", "."))
        return total


class OursCli(Mechanism):
    """Ours, the release CLI: `capture` of the touched paths into a snapshot
    file, `rollback` of it (`--no-durable`: git does not fsync either)."""

    name = "ours-cli"
    label = "ours: CLI capture + rollback"

    def __init__(self, repo: Path, store: Path, binary: str):
        super().__init__(repo, store)
        self.binary = binary

    def checkpoint(self, rnd: Round) -> tuple[object, Timing]:
        out = self.store / f"round-{rnd.number}.json"
        t = run([self.binary, "capture", "--quiet", "--root", str(self.repo), *rnd.touched, "-o", str(out)])
        return out, t

    def restore(self, rnd: Round, handle: object) -> Timing:
        return run([self.binary, "rollback", "--quiet", "--no-durable", "--root", str(self.repo), str(handle)])


class OursShadow(Mechanism):
    """Ours, the shadow branch: a `shadow step` naming the touched files
    before the edits and one naming them after (as the hooks do around a
    tool), `shadow rewind` to the first. Both steps count as checkpoints."""

    name = "ours-shadow"
    label = "ours: shadow step naming the files + rewind"

    def __init__(self, repo: Path, store: Path, binary: str, session: str):
        super().__init__(repo, store)
        self.binary = binary
        self.session = session

    def store_dirs(self) -> list[Path]:
        return [self.repo / ".git"]

    def step(self, files: list[str], deleted: list[str], message: str) -> tuple[str, Timing]:
        args = [self.binary, "--json", "shadow", "--repo", str(self.repo), "step", "--session", self.session]
        for f in files:
            args += ["--file", f]
        for f in deleted:
            args += ["--deleted", f]
        t = run([*args, "--message", message])
        return json.loads(t.stdout)["commit"], t

    def setup(self) -> Timing:
        super().setup()
        _, t = self.step([], [], "session start")
        return t

    def checkpoint(self, rnd: Round) -> tuple[object, Timing]:
        return self.step(rnd.edit + rnd.delete, [], f"before round {rnd.number}")

    def after_edit(self, rnd: Round, handle: object) -> Timing:
        return self.step(rnd.edit + rnd.create, rnd.delete, f"after round {rnd.number}")[1]

    def restore(self, rnd: Round, handle: object) -> Timing:
        return run([self.binary, "--quiet", "shadow", "--repo", str(self.repo), "rewind", str(handle)])


class Worker(Mechanism):
    """A long-lived process that checkpoints and restores in-process and
    reports its own timings (JSON lines on stdin/stdout)."""

    def __init__(self, repo: Path, store: Path, cmd: list[str]):
        super().__init__(repo, store)
        self.cmd = cmd
        self.proc: subprocess.Popen | None = None

    def setup(self) -> None:
        super().setup()
        self.proc = subprocess.Popen(
            [*self.cmd, str(self.repo), str(self.store)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.ask({"op": "ping"})
        return None

    def ask(self, message: dict) -> dict:
        if self.proc is None or self.proc.stdin is None or self.proc.stdout is None:
            raise ContenderError(f"{self.name}: worker not started")
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise ContenderError(f"{self.name}: worker exited ({self.proc.wait()})")
        reply = json.loads(line)
        if "error" in reply:
            raise ContenderError(f"{self.name}: {reply['error']}")
        return reply

    def timed(self, message: dict) -> Timing:
        reply = self.ask(message)
        return Timing(reply["seconds"], reply["peak_kb"], b"", [message["op"]])

    def checkpoint(self, rnd: Round) -> tuple[object, Timing]:
        return rnd.number, self.timed({"op": "checkpoint", "id": rnd.number, "paths": rnd.touched})

    def restore(self, rnd: Round, handle: object) -> Timing:
        return self.timed({"op": "restore", "id": handle})

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait()
            self.proc = None


class FileBackup(Worker):
    """Claude Code / Copilot CLI / Kiro / Cursor: before a file is written its
    bytes are copied to a backup directory; restore copies them back (and
    removes what did not exist). In-process, like the agents."""

    name = "file-backup"
    label = "per-file backup (Claude Code, Copilot CLI, Kiro, Cursor)"


class OursPython(Worker):
    name = "ours-python"
    label = "ours: Python create_checkpoint + rollback"


class OursNode(Worker):
    name = "ours-node"
    label = "ours: Node createCheckpoint + rollback"
