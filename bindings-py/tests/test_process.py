"""A snapshot outlives the process that captured it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import agent_checkpoint as ac


def test_rollback_after_the_capturing_process_exited(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("before")
    script = textwrap.dedent(
        """
        import sys, agent_checkpoint as ac
        sys.stdout.write(ac.create_checkpoint(sys.argv[1], ["a.txt", "gen/b.txt"]))
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    snapshot = done.stdout
    assert ac.snapshot_paths(snapshot) == ["a.txt", "gen/b.txt"]
    (tmp_path / "a.txt").write_text("after")
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "b.txt").write_text("b")
    result = ac.rollback(tmp_path, snapshot)
    assert result.ok
    assert (tmp_path / "a.txt").read_text() == "before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
