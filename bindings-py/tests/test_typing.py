"""The stubs type-check real usage: the README example passes mypy --strict."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_type_checks_strictly() -> None:
    api = pytest.importorskip("mypy.api")
    code = "\n".join(re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S))
    stdout, stderr, status = api.run(["--strict", "--no-incremental", "-c", code])
    assert status == 0, stdout + stderr


def test_wrong_usage_is_a_type_error() -> None:
    api = pytest.importorskip("mypy.api")
    code = "import agent_checkpoint as ac\nx: int = ac.rollback('.', '{}').restored\nac.rollback('.', '{}', on_conflict='merge')\n"
    stdout, _, status = api.run(["--strict", "--no-incremental", "-c", code])
    assert status == 1
    assert 'Incompatible types in assignment (expression has type "list[str]"' in stdout
    assert "on_conflict" in stdout
