"""Shared fixtures: the compiled component and the vector cases."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
VECTORS = REPO / "tests" / "vectors"
TARGET = "component-python"

sys.path.insert(0, str(HERE))

from checkpoint_host import ComponentHost  # noqa: E402


def load_cases(prefix: str) -> list[dict]:
    """Every case of every `<prefix>*.json` vector file, in file order."""
    cases = []
    for path in sorted(VECTORS.glob(f"{prefix}*.json")):
        cases.extend(json.loads(path.read_text())["cases"])
    return cases


def expected_failures() -> set[str]:
    """Case names listed for this target in expected_failures.txt."""
    names = set()
    for line in (VECTORS / "expected_failures.txt").read_text().splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 2 and words[0] == TARGET:
            names.add(words[1])
    return names


@pytest.fixture(scope="session")
def host() -> ComponentHost:
    wasm = os.environ.get("CHECKPOINT_COMPONENT_WASM") or str(
        REPO / "target" / "wasm32-wasip2" / "debug" / "agent_checkpoint_component.wasm"
    )
    if not Path(wasm).is_file():
        pytest.fail(f"component not built: {wasm} (run scripts/component)")
    return ComponentHost(Path(wasm))
