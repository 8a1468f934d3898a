"""The shared redaction vectors (tests/vectors/redact.json, format in tests/vectors/README.md).

Every case runs twice: through the module function (``redact_text`` and its
keyword options) for the output, and through a ``Redactor`` with findings for
the output and the exact findings; then the expected output is redacted again
and must come back unchanged with no findings (idempotence).
"""

from __future__ import annotations

import base64
from typing import Any, Dict, List, Tuple, Union

import pytest

import agent_checkpoint as ac
from vectors import load_cases, params

REDACT = load_cases("redact")


def options(case: Dict[str, Any]) -> Dict[str, Any]:
    given = case.get("options", {})
    out: Dict[str, Any] = {}
    if "personal_data" in given:
        out["personal_data"] = given["personal_data"]
    if "rules" in given:
        out["rules"] = [tuple(rule) for rule in given["rules"]]
    return out


def input_of(case: Dict[str, Any]) -> Union[str, bytes]:
    if "input_b64" in case:
        return base64.b64decode(case["input_b64"])
    if case["op"] == "blob":
        return str(case["input"]).encode("utf-8")
    return str(case["input"])


def expected(case: Dict[str, Any]) -> Union[str, bytes]:
    if "expect_b64" in case:
        return base64.b64decode(case["expect_b64"])
    if case["op"] == "blob":
        return str(case["expect"]).encode("utf-8")
    return str(case["expect"])


def by_function(case: Dict[str, Any], value: Union[str, bytes]) -> Union[str, bytes]:
    kwargs = options(case)
    if case["op"] == "text":
        assert isinstance(value, str)
        return ac.redact_text(value, **kwargs)
    if case["op"] == "json":
        assert isinstance(value, str)
        return ac.redact_json(value, **kwargs)
    if case["op"] == "blob":
        assert isinstance(value, bytes)
        return ac.redact_blob(case["path"], value, **kwargs)
    raise AssertionError(f"unknown op {case['op']}")


def with_findings(
    redactor: ac.Redactor, case: Dict[str, Any], value: Union[str, bytes]
) -> Tuple[Union[str, bytes], List[Dict[str, Any]]]:
    r: Union[ac.Redaction, ac.BlobRedaction]
    if case["op"] == "text":
        assert isinstance(value, str)
        r = redactor.redact_text_with_findings(value)
    elif case["op"] == "json":
        assert isinstance(value, str)
        r = redactor.redact_json_with_findings(value)
    else:
        assert isinstance(value, bytes)
        r = redactor.redact_blob_with_findings(case["path"], value)
    return r.output, [{"rule": f.rule, "start": f.start, "end": f.end} for f in r.findings]


@pytest.mark.parametrize("case", params(REDACT))
def test_redact_vector(case: Dict[str, Any]) -> None:
    value = input_of(case)
    if "expect_error" in case:
        with pytest.raises(ac.CheckpointError) as raised:
            by_function(case, value)
        assert raised.value.code == case["expect_error"]
        with pytest.raises(ac.CheckpointError) as raised:
            ac.Redactor(**options(case))
        assert raised.value.code == case["expect_error"]
        return
    want = expected(case)
    assert by_function(case, value) == want
    redactor = ac.Redactor(**options(case))
    output, findings = with_findings(redactor, case, value)
    assert output == want
    if "expect_findings" in case:
        assert findings == case["expect_findings"]
    # Idempotent: the output is a fixed point, with nothing found in it.
    again, found_again = with_findings(redactor, case, want)
    assert (again, found_again) == (want, [])


def test_redact_vector_count() -> None:
    # Guards against an empty or truncated load.
    assert len(REDACT) >= 87
    assert {c["op"] for c in REDACT} == {"text", "json", "blob"}
