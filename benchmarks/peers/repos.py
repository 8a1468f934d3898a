"""The generated repositories: small text files across nested directories,
committed with one `git add -A` + `git commit`, then packed; optionally one
1 GiB untracked file of random bytes. Generated once per cache directory
(a marker file says what is there) and reused by later runs."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

from procs import run

FORMAT = 1
BIG_FILE = "assets/big-untracked.bin"
BIG_BYTES = 1 << 30


def leaf_dirs(files: int) -> list[str]:
    """100 files per leaf directory, leaves two levels below `src/`."""
    leaves = max(1, files // 100)
    top = max(1, math.isqrt(leaves - 1) + 1)
    return [f"src/p{i // top:03}/q{i % top:03}" for i in range(leaves)]


def file_paths(files: int) -> list[str]:
    dirs = leaf_dirs(files)
    return [f"{dirs[i // 100]}/f{i:06}.txt" for i in range(files)]


def content(i: int) -> bytes:
    """A few hundred bytes of text, different per file."""
    return (f"// file {i}\n" + f"let value_{i} = {i * 7919 % 100003};\n" * (4 + i % 24)).encode()


def generate(where: Path, files: int, big: bool) -> Path:
    """The repository under `where` (made if the marker does not match)."""
    marker = where / "generated.json"
    wanted = {"format": FORMAT, "files": files, "big": big}
    repo = where / "repo"
    try:
        if json.loads(marker.read_text()) == wanted:
            return repo
    except (OSError, ValueError):
        pass
    if where.exists():
        shutil.rmtree(where)
    repo.mkdir(parents=True)
    for d in leaf_dirs(files):
        (repo / d).mkdir(parents=True, exist_ok=True)
    for i, rel in enumerate(file_paths(files)):
        (repo / rel).write_bytes(content(i))
    (repo / ".gitignore").write_text("build/\n*.log\n")
    run(["git", "init", "-q", str(repo)])
    run(["git", "config", "gc.auto", "0"], cwd=str(repo))
    run(["git", "add", "-A"], cwd=str(repo))
    run(["git", "commit", "-q", "-m", "base"], cwd=str(repo))
    run(["git", "repack", "-a", "-d", "-q"], cwd=str(repo))
    run(["git", "prune-packed"], cwd=str(repo))
    if big:
        path = repo / BIG_FILE
        path.parent.mkdir(parents=True)
        with open(path, "wb") as f:
            block = 16 << 20
            for _ in range(BIG_BYTES // block):
                f.write(os.urandom(block))
    marker.write_text(json.dumps(wanted))
    return repo


def listing(repo: Path) -> list[str]:
    """Every file, link and directory below `repo` but `.git`, sorted."""
    out: list[str] = []
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(repo / rel if rel else repo) as entries:
            for entry in entries:
                sub = f"{rel}/{entry.name}" if rel else entry.name
                if sub == ".git":
                    continue
                if entry.is_dir(follow_symlinks=False):
                    out.append(sub + "/")
                    stack.append(sub)
                else:
                    out.append(sub)
    out.sort()
    return out
