"""Loading and playing the shared vectors of tests/vectors (format: tests/vectors/README.md).

A port of core/tests/common/mod.rs and core/tests/fs_vectors.rs: trees are
written to and read back from a real directory, mutations act like the core's
Root (atomic replace, never through a symlink at the target).
"""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path
from typing import Any, Dict, List, Tuple, Union

import pytest

VECTORS = Path(__file__).resolve().parents[2] / "tests" / "vectors"
TARGET = "python"

# A tree node: ("file", bytes, mode) | ("dir",) | ("link", target) | ("special",)
Node = Tuple[Any, ...]


def load_cases(prefix: str) -> List[Dict[str, Any]]:
    cases: List[Dict[str, Any]] = []
    names = set()
    for path in sorted(VECTORS.glob(f"{prefix}*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            assert case["name"] not in names, f"duplicate case name {case['name']}"
            names.add(case["name"])
            cases.append(case)
    assert cases, f"no {prefix}*.json vectors in {VECTORS}"
    return cases


def expected_failures(target: str = TARGET) -> set[str]:
    listed = set()
    path = VECTORS / "expected_failures.txt"
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        words = line.split("#", 1)[0].split()
        if len(words) >= 2 and words[0] == target:
            listed.add(words[1])
    return listed


def params(cases: List[Dict[str, Any]]) -> List[Any]:
    """One pytest param per case; a listed case must fail (strict xfail)."""
    listed = expected_failures()
    out = []
    for case in cases:
        marks = [pytest.mark.xfail(strict=True, reason="listed in expected_failures.txt")] if case["name"] in listed else []
        out.append(pytest.param(case, id=case["name"], marks=marks))
    return out


def node_from_json(v: Dict[str, Any]) -> Node:
    if "link" in v:
        return ("link", v["link"])
    if "dir" in v:
        return ("dir",)
    if "special" in v:
        return ("special",)
    if "text" in v:
        data = v["text"].encode("utf-8")
    elif "b64" in v:
        data = base64.b64decode(v["b64"], validate=True)
    else:
        raise AssertionError(f"node without content: {v}")
    return ("file", data, v.get("mode", 0o644))


def tree_from_case(case: Dict[str, Any], key: str) -> Dict[str, Node]:
    return {path: node_from_json(node) for path, node in case.get(key, {}).items()}


def with_parents(tree: Dict[str, Node]) -> Dict[str, Node]:
    full = dict(tree)
    for path in tree:
        parts = path.split("/")
        for i in range(1, len(parts)):
            full.setdefault("/".join(parts[:i]), ("dir",))
    return full


def write_node(root: Path, path: str, node: Node) -> None:
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    kind = node[0]
    if kind == "file":
        full.write_bytes(node[1])
        os.chmod(full, node[2])
    elif kind == "dir":
        full.mkdir(parents=True, exist_ok=True)
    elif kind == "link":
        os.symlink(node[1], full)
    elif kind == "special":
        os.mkfifo(full)
    else:
        raise AssertionError(kind)


def read_tree(root: Path) -> Dict[str, Node]:
    """The whole tree under root, never following symlinks."""
    out: Dict[str, Node] = {}

    def walk(directory: Path, prefix: str) -> None:
        for entry in os.scandir(directory):
            rel = f"{prefix}{entry.name}"
            st = os.lstat(entry.path)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(entry.path))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir",)
                walk(Path(entry.path), rel + "/")
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", Path(entry.path).read_bytes(), stat.S_IMODE(st.st_mode))
            else:
                out[rel] = ("special",)

    walk(root, "")
    return out


def _replace_atomically(full: Path, make: Any) -> None:
    tmp = full.parent / f".{full.name}.vector-tmp"
    make(tmp)
    os.replace(tmp, full)


def mutate(root: Path, step: Dict[str, Any]) -> None:
    """One mutation step, with the semantics of the core's Root methods."""
    if "write" in step:
        full = root / step["write"]
        full.parent.mkdir(parents=True, exist_ok=True)
        node = node_from_json(step)
        assert node[0] == "file", "write needs text or b64"

        def make(tmp: Path) -> None:
            tmp.write_bytes(node[1])
            os.chmod(tmp, node[2])

        _replace_atomically(full, make)
    elif "delete" in step:
        os.unlink(root / step["delete"])
    elif "rmdir" in step:
        os.rmdir(root / step["rmdir"])
    elif "mkdir" in step:
        full = root / step["mkdir"]
        full.parent.mkdir(parents=True, exist_ok=True)
        full.mkdir()
    elif "symlink" in step:
        full = root / step["symlink"]
        full.parent.mkdir(parents=True, exist_ok=True)
        _replace_atomically(full, lambda tmp: os.symlink(step["target"], tmp))
    else:
        raise AssertionError(f"unknown mutation {step}")


def show(node: Node) -> str:
    if node[0] == "file":
        return f"file {node[1]!r} mode {node[2]:o}"
    return " ".join(str(x) for x in node)


def check_tree(want: Dict[str, Node], got: Dict[str, Node]) -> None:
    diffs = []
    for path, node in sorted(want.items()):
        if path not in got:
            diffs.append(f"{path}: missing")
        elif got[path] != node:
            diffs.append(f"{path}: expected {show(node)}, got {show(got[path])}")
    for path in sorted(set(got) - set(want)):
        diffs.append(f"{path}: unexpected {show(got[path])}")
    assert not diffs, "tree differs: " + "; ".join(diffs)


Json = Union[None, bool, int, float, str, List[Any], Dict[str, Any]]
