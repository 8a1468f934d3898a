"""Every Python example in the repository's Markdown files runs as written.

The programs come from tests/readme/blocks.py (the blocks of one section,
joined). Each runs in a fresh directory, in a new interpreter (this one's,
with the package installed); the lines it shows as `#> ...` must be exactly
what it prints.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "readme"))
import blocks  # noqa: E402

PROGRAMS = blocks.programs("python", [], [])


def test_there_are_examples() -> None:
    files = {p["file"] for p in PROGRAMS}
    assert {"README.md", "bindings-py/README.md"} <= files, files


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: f"{p['file']}:{p['line']}")
def test_example_runs_and_prints_what_it_shows(program: Dict[str, Any], tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", program["code"]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    where = f"{program['file']}:{program['line']} ({program['section']})"
    assert done.returncode == 0, f"{where} failed:\n{done.stderr}"
    if program["shown"]:
        assert done.stdout.splitlines() == program["shown"], where
