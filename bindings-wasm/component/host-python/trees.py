"""Vector trees on the real filesystem: write, read back (never following links), mutate."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path
from typing import Any


def node_bytes(node: dict[str, Any]) -> bytes:
    if "text" in node:
        return node["text"].encode()
    return base64.b64decode(node["b64"], validate=True)


def normalize(node: dict[str, Any]) -> tuple:
    """A comparable form of a vector node."""
    if "link" in node:
        return ("link", node["link"])
    if node.get("dir"):
        return ("dir",)
    if node.get("special"):
        return ("special",)
    return ("file", node_bytes(node), node.get("mode", 0o644))


def with_parents(tree: dict[str, Any]) -> dict[str, tuple]:
    """The tree in comparable form plus every parent directory its paths imply."""
    out = {path: normalize(node) for path, node in tree.items()}
    for path in tree:
        parts = path.split("/")
        for i in range(1, len(parts)):
            out.setdefault("/".join(parts[:i]), ("dir",))
    return out


def write_tree(root: Path, tree: dict[str, Any]) -> None:
    for path, node in tree.items():
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        kind = normalize(node)
        if kind[0] == "file":
            full.write_bytes(kind[1])
            os.chmod(full, kind[2])
        elif kind[0] == "dir":
            full.mkdir(parents=True, exist_ok=True)
        elif kind[0] == "link":
            os.symlink(kind[1], full)
        else:
            os.mkfifo(full)


def read_tree(root: Path) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir",)
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", full.read_bytes(), st.st_mode & 0o7777)
            else:
                out[rel] = ("special",)
    return out


def _replace(full: Path) -> None:
    """Like the core's atomic replace: a link at the path is replaced, not followed."""
    if full.is_symlink():
        full.unlink()


def mutate(root: Path, step: dict[str, Any]) -> None:
    if "write" in step:
        full = root / step["write"]
        full.parent.mkdir(parents=True, exist_ok=True)
        _replace(full)
        full.write_bytes(node_bytes(step))
        os.chmod(full, step.get("mode", 0o644))
    elif "delete" in step:
        os.unlink(root / step["delete"])
    elif "rmdir" in step:
        os.rmdir(root / step["rmdir"])
    elif "mkdir" in step:
        (root / step["mkdir"]).mkdir(parents=True)
    elif "symlink" in step:
        full = root / step["symlink"]
        full.parent.mkdir(parents=True, exist_ok=True)
        _replace(full)
        os.symlink(step["target"], full)
    else:
        raise ValueError(f"unknown mutation {step}")


def show_diff(want: dict[str, tuple], got: dict[str, tuple]) -> str:
    diffs = []
    for path, node in sorted(want.items()):
        if path not in got:
            diffs.append(f"{path}: missing")
        elif got[path] != node:
            diffs.append(f"{path}: expected {node!r}, got {got[path]!r}")
    for path in sorted(set(got) - set(want)):
        diffs.append(f"{path}: unexpected {got[path]!r}")
    return "; ".join(diffs)
