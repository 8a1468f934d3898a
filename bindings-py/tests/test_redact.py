"""Secret redaction from Python: the functions, the Redactor class, findings, errors, threads."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, List

import pytest

import agent_checkpoint as ac
from test_threads import progress_during

GITHUB = "ghp_7Hq2Lx9Vb4Nc8Rt1Yw5Ze3Ka6Md0Pf2Sg4Jx"
AWS = "AKIAYRWQG5EJLPZLBYNP"


def test_redact_text_replaces_secrets_and_keeps_the_rest() -> None:
    assert ac.redact_text(f"my token is {GITHUB} ok") == "my token is REDACTED ok"
    # `=` belongs to a high-entropy run: the name goes with the value.
    assert ac.redact_text(f"token={GITHUB}") == "REDACTED"
    assert ac.redact_text("DATABASE_URL=postgres://app:pwd123@db.example.com:5432/app") == "DATABASE_URL=REDACTED"
    assert ac.redact_text("PGPASSWORD='secret123'") == "PGPASSWORD='REDACTED'"
    assert ac.redact_text("DB_PASSWORD=${DB_PASSWORD}") == "DB_PASSWORD=${DB_PASSWORD}"


def test_nothing_found_gives_back_the_same_object() -> None:
    text = "hello world, this is normal text " * 1000
    assert ac.redact_text(text) is text
    assert ac.redact_json(text) is text
    data = text.encode()
    assert ac.redact_blob("notes.txt", data) is data
    redactor = ac.Redactor()
    assert redactor.redact_text(text) is text
    assert redactor.redact_text_with_findings(text).output is text
    assert redactor.redact_blob_with_findings("notes.txt", data).output is data


def test_redact_json_edits_string_values_in_place() -> None:
    line = '{"type": "text",  "content": "key ' + GITHUB + '", "session_id": "q8Zr2LmX0vB7nK4tY1wE9cH6jP3sD5fGaQ"}'
    jsonl = line + "\n\n" + '{"ok": true}\n'
    out = ac.redact_json(jsonl)
    assert out == jsonl.replace(GITHUB, "REDACTED")
    assert json.loads(out.splitlines()[0])["content"] == "key REDACTED"


def test_redact_blob_by_path() -> None:
    doc = json.dumps({"text": f"key {GITHUB}"}).encode()
    assert ac.redact_blob("a/full.jsonl", doc) == doc.replace(GITHUB.encode(), b"REDACTED")
    assert ac.redact_blob(Path("a") / "meta.JSON", doc) == doc.replace(GITHUB.encode(), b"REDACTED")
    png = b"\x89PNG\r\n\x1a\n\0\0key=" + AWS.encode()
    assert ac.redact_blob("image.png", png) is png
    not_utf8 = b"\xff\xfe token=" + GITHUB.encode()
    # Text that is not UTF-8 is still text: redacted, its invalid bytes kept.
    assert ac.redact_blob("notes.txt", not_utf8) == b"\xff\xfe REDACTED"


def test_options_on_the_functions() -> None:
    text = "TICKET-123456 from jane@example.com, not noreply@github.com"
    assert ac.redact_text(text) == text
    assert ac.redact_text(text, personal_data=True) == "TICKET-123456 from [REDACTED_EMAIL], not noreply@github.com"
    assert (
        ac.redact_text(text, personal_data=True, rules={"ticket": r"TICKET-[0-9]{6}"})
        == "REDACTED from [REDACTED_EMAIL], not noreply@github.com"
    )
    assert ac.redact_json('{"t": "TICKET-123456"}', rules=[("ticket", r"TICKET-[0-9]{6}")]) == '{"t": "REDACTED"}'
    assert ac.redact_blob("t.txt", b"TICKET-123456", rules=[("ticket", r"TICKET-\d{6}")]) == b"REDACTED"


@pytest.mark.parametrize(
    "rules",
    [
        {"ticket": r"TICKET-[0-9]{6}", "host": r"[a-z0-9-]+\.corp\.internal"},
        [("ticket", r"TICKET-[0-9]{6}"), ("host", r"[a-z0-9-]+\.corp\.internal")],
        [["ticket", r"TICKET-[0-9]{6}"], ["host", r"[a-z0-9-]+\.corp\.internal"]],
        (pair for pair in [("ticket", r"TICKET-[0-9]{6}"), ("host", r"[a-z0-9-]+\.corp\.internal")]),
    ],
)
def test_rules_as_a_mapping_or_pairs(rules: Any) -> None:
    r = ac.Redactor(rules=rules)
    assert r.rule_names == ["ticket", "host"]
    found = r.redact_text_with_findings("TICKET-123456 on build-7.corp.internal")
    assert found.output == "REDACTED on REDACTED"
    assert [f.rule for f in found.findings] == ["ticket", "host"]


@pytest.mark.parametrize("rules", ["ticket", b"x", [("only-a-name",)], [("a", 1)], 42, [42]])
def test_rules_of_the_wrong_shape_are_a_type_error(rules: Any) -> None:
    with pytest.raises(TypeError):
        ac.Redactor(rules=rules)
    with pytest.raises(TypeError):
        ac.redact_text("x", rules=rules)


def test_an_invalid_pattern_raises_invalid_pattern_error() -> None:
    with pytest.raises(ac.InvalidPatternError) as raised:
        ac.Redactor(rules={"broken": "(unclosed"})
    error = raised.value
    assert error.code == "invalid_pattern"
    assert isinstance(error, ValueError) and isinstance(error, ac.CheckpointError)
    assert ac.error_class("invalid_pattern") is ac.InvalidPatternError
    assert str(error) == 'invalid pattern "(unclosed": rule "broken": unclosed group at byte 0'
    for call in (
        lambda: ac.redact_text("x", rules={"broken": "(unclosed"}),
        lambda: ac.redact_json("x", rules=[("ok", "a"), ("broken", "a{2,1}")]),
        lambda: ac.redact_blob("x.txt", b"x", rules=[("broken", "[z-a]")]),
    ):
        with pytest.raises(ac.InvalidPatternError):
            call()


def test_findings_are_rules_and_utf8_byte_ranges() -> None:
    text = f"é key={AWS} and {AWS}"
    r = ac.Redactor().redact_text_with_findings(text)
    assert r.output == "é key=REDACTED and REDACTED"
    assert r.findings == ac.Redactor().redact_text_with_findings(text).findings  # equal by value
    first, second = r.findings
    assert (first.rule, first.start, first.end) == ("aws_access_key_id", 7, 27)
    assert text.encode()[first.start : first.end] == AWS.encode()
    assert (second.start, second.end) == (32, 52)
    assert repr(first) == "Finding(rule='aws_access_key_id', start=7, end=27)"
    assert first != second and len({first, second, r.findings[0]}) == 2
    assert repr(r) == "Redaction(output='é key=REDACTED and REDACTED', findings=2)"


def test_findings_of_json_and_blobs() -> None:
    r = ac.Redactor()
    doc = '{"db":{"password":"correct-horse-db","host":"db.example.com","user":"svc"}}'
    found = r.redact_json_with_findings(doc)
    assert found.output == doc.replace("correct-horse-db", "REDACTED")
    assert [(f.rule, f.start, f.end) for f in found.findings] == [("json_credential_field", 19, 35)]
    blob = r.redact_blob_with_findings("prompt.txt", f"token: {GITHUB}\n".encode())
    assert blob.output == b"token: REDACTED\n"
    assert [(f.rule, f.start, f.end) for f in blob.findings] == [("github_pat", 7, 47)]
    assert repr(blob) == "BlobRedaction(findings=1)"
    binary = r.redact_blob_with_findings("a.bin", b"\0" + GITHUB.encode())
    assert (binary.output, binary.findings) == (b"\0" + GITHUB.encode(), [])


def test_redactor_surface() -> None:
    r = ac.Redactor(personal_data=True, rules={"ticket": "TICKET-[0-9]+"})
    assert r.personal_data is True
    assert repr(r) == "Redactor(personal_data=True, rules=['ticket'])"
    assert repr(ac.Redactor()) == "Redactor(personal_data=False, rules=[])"
    assert r.redact_text("mail jane@example.com") == "mail [REDACTED_EMAIL]"
    with pytest.raises(TypeError):
        ac.Redactor(True)  # type: ignore[misc]


def test_argument_types() -> None:
    with pytest.raises(TypeError):
        ac.redact_text(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ac.redact_blob("a.txt", "text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ac.redact_blob(42, b"x")  # type: ignore[arg-type]
    # A str with a lone surrogate has no UTF-8 form: refused, never altered silently.
    with pytest.raises(UnicodeEncodeError):
        ac.redact_text("bad \udcff " + GITHUB)


def big_transcript(mib: int) -> str:
    line = json.dumps({"type": "tool_result", "content": "ok " * 60 + f"token={GITHUB}"})
    lines: List[str] = []
    size = 0
    while size < mib << 20:
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


def test_gil_is_released_while_a_large_input_is_redacted() -> None:
    text = big_transcript(16)
    out: List[str] = []
    assert progress_during(lambda: out.append(ac.redact_json(text))) > 0
    assert GITHUB not in out[0] and out[0].count("REDACTED") == text.count(GITHUB)
    data = text.encode()
    assert progress_during(lambda: ac.Redactor().redact_blob("t.jsonl", data)) > 0
    assert progress_during(lambda: ac.Redactor().redact_text_with_findings(text)) > 0


def test_a_shared_redactor_from_many_threads() -> None:
    r = ac.Redactor(rules={"ticket": "TICKET-[0-9]{6}"})
    inputs = [f"n={n} TICKET-{n:06d} key={AWS}" for n in range(200)]
    barrier = threading.Barrier(8)

    def work(chunk: List[str]) -> List[str]:
        barrier.wait()
        return [r.redact_text(t) for t in chunk]

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, [inputs[i::8] for i in range(8)]))
    flat = sorted(t for chunk in results for t in chunk)
    assert flat == sorted(f"n={n} REDACTED key=REDACTED" for n in range(200))
