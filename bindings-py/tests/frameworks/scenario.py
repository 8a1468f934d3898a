"""The scripted run every framework test plays, and the files it edits.

The agent first calls ``write_files`` (argument ``paths``: the default path
shape), which writes two files, one in a new directory; then ``rewrite``
(argument ``targets``: declared with ``path_args``), which writes two of its
three files and fails. After the run the failed call's edits are gone, the
first call's kept; the run's checkpoint then undoes everything.
"""

from __future__ import annotations

from pathlib import Path

#: The project before the run.
BEFORE = {"a.txt": b"a0\n", "b.txt": b"b0\n", "keep.txt": b"not a tool's\n"}
#: What the first call writes, and where.
FIRST = {"paths": ["a.txt", "gen/new.txt"], "text": "one\n"}
#: What the failing call is asked to write: it writes the first two, then fails.
SECOND = {"targets": ["a.txt", "b.txt", "c.txt"], "text": "two\n"}
#: The project after the run: the first call's edits only.
AFTER_RUN = {"a.txt": b"one\n", "b.txt": b"b0\n", "gen/": None, "gen/new.txt": b"one\n", "keep.txt": b"not a tool's\n"}


class Failed(RuntimeError):
    """What ``rewrite`` raises half way."""


def make_project(root: Path) -> None:
    for name, data in BEFORE.items():
        (root / name).write_bytes(data)


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (``None``, name ending in ``/``) under ``root``."""
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_dir():
            found[name + "/"] = None
        else:
            found[name] = path.read_bytes()
    return found


def write_files(root: Path, paths: list[str], text: str) -> str:
    for name in paths:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return f"wrote {len(paths)} files"


def rewrite(root: Path, targets: list[str], text: str, failure: BaseException | None = None) -> str:
    for name in targets[:-1]:
        (root / name).write_text(text)
    raise failure if failure is not None else Failed(f"could not write {targets[-1]}")
