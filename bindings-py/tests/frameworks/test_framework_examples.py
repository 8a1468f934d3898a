"""The integration examples (examples/python/) run and print what they show,
and they and the integration modules pass mypy --strict."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples" / "python"
# Type-checked from the source tree: mypy reads the package beside its stubs.
PACKAGE = REPO / "bindings-py" / "python" / "agent_checkpoint"
FRAMEWORK = {
    "pydantic_ai_agent.py": "pydantic_ai",
    "langchain_agent.py": "langgraph",
    "openai_agents_agent.py": "agents",
}
MODULES = ["run_checkpoint.py", "pydantic_ai.py", "langchain.py", "openai_agents.py"]


def test_every_example_is_listed() -> None:
    assert sorted(path.name for path in EXAMPLES.glob("*.py")) == sorted(FRAMEWORK)


@pytest.mark.parametrize("name", sorted(FRAMEWORK))
def test_example_runs_and_prints_what_it_shows(name: str, tmp_path: Path) -> None:
    pytest.importorskip(FRAMEWORK[name])
    source = EXAMPLES / name
    shown = [line[3:] for line in source.read_text().splitlines() if line.startswith("#> ")]
    assert shown
    done = subprocess.run(
        [sys.executable, str(source)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == shown


def test_modules_and_examples_type_check_strictly() -> None:
    api = pytest.importorskip("mypy.api")
    for module in FRAMEWORK.values():
        pytest.importorskip(module)
    files = [str(PACKAGE / name) for name in MODULES] + [str(EXAMPLES / name) for name in sorted(FRAMEWORK)]
    stdout, stderr, status = api.run(["--strict", "--no-incremental", "--cache-dir=/dev/null", *files])
    assert status == 0, stdout + stderr
