"""The component never reaches outside its preopen (wasmtime-py host).

`..`, absolute paths elsewhere and symlinks pointing out are refused with
`path-escapes-root`; hostile snapshots write nothing outside; a sentinel
directory beside the preopen hashes the same before and after.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from checkpoint_host import ComponentError, ComponentHost

GUEST = "/sandbox"


def fingerprint(root: Path) -> str:
    """SHA-256 over every path, kind, link target and file content under `root`."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        for name in sorted(dirnames + filenames):
            full = Path(dirpath) / name
            digest.update(str(full.relative_to(root)).encode() + b"\0")
            if full.is_symlink():
                digest.update(b"link:" + os.readlink(full).encode())
            elif full.is_file():
                digest.update(b"file:" + full.read_bytes())
    return digest.hexdigest()


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    preopen, sentinel = tmp_path / "preopen", tmp_path / "sentinel"
    (sentinel / "deep").mkdir(parents=True)
    (sentinel / "secret.txt").write_text("do not touch")
    (sentinel / "deep" / "x").write_text("x")
    preopen.mkdir()
    (preopen / "inside.txt").write_text("mine")
    os.symlink("../sentinel", preopen / "out")
    os.symlink(sentinel, preopen / "abs")
    os.symlink("../sentinel/secret.txt", preopen / "leaf")
    return preopen, sentinel


def test_escapes_are_refused(host: ComponentHost, layout: tuple[Path, Path]) -> None:
    preopen, sentinel = layout
    before = fingerprint(sentinel)
    with host.instantiate(preopen, GUEST) as component:
        for path in [
            "../sentinel/secret.txt",
            "a/../../sentinel/secret.txt",
            "/sentinel/secret.txt",
            "/sandbox/../sentinel/secret.txt",
            str(sentinel / "secret.txt"),
            "out/secret.txt",
            "abs/secret.txt",
            "leaf",
        ]:
            with pytest.raises(ComponentError) as info:
                component.create_checkpoint(GUEST, [path])
            assert info.value.code == "path-escapes-root", path
        for root in ["/sentinel", "/sandbox/../sentinel", str(sentinel)]:
            with pytest.raises(ComponentError):
                component.create_checkpoint(root, ["secret.txt"])
    assert fingerprint(sentinel) == before


def test_hostile_snapshots_write_nothing_outside(host: ComponentHost, layout: tuple[Path, Path]) -> None:
    preopen, sentinel = layout
    before = fingerprint(sentinel)
    with host.instantiate(preopen, GUEST) as component:
        dotdot = '{"version":1,"entries":{"../sentinel/secret.txt":"cHduZWQ="},"created_dirs":[]}'
        report = component.rollback(GUEST, dotdot)
        assert not report.valid and report.error_code == "malformed_snapshot"
        for key in ["out/secret.txt", "abs/secret.txt", "out/deep/x", "out/new.txt"]:
            text = '{"version":1,"entries":{"%s":"cHduZWQ="},"created_dirs":[]}' % key
            report = component.rollback(GUEST, text)
            assert report.valid and report.unrestored == [key], key
            # Refused by the plan, with the code the report gives the path;
            # the redo cannot carry what it could not look at.
            assert [(i.path, i.action, i.code) for i in report.plan] == [(key, "refuse", "not_a_directory")], key
            assert report.failure_codes == {key: "not_a_directory"}, key
            assert list(report.not_in_redo) == [key], key
        report = component.rollback(GUEST, '{"version":1,"entries":{"out/secret.txt":null},"created_dirs":[]}')
        assert not report.ok
        # The preview and the guard only read, and never through a link: the
        # preview refuses a key below a symlinked parent, the guard fails on
        # it; a link pointing out is recorded as a link, not as the sentinel's
        # content.
        through = '{"version":1,"entries":{"out/secret.txt":"cHduZWQ="},"created_dirs":[]}'
        plan = component.plan_rollback(GUEST, through, on_conflict="skip")
        assert [(i.path, i.action, i.code) for i in plan] == [("out/secret.txt", "refuse", "not_a_directory")]
        assert "symlink" in (plan[0].reason or "")
        with pytest.raises(ComponentError):
            component.record_applied(GUEST, through)
        recorded = component.record_applied(GUEST, '{"version":1,"entries":{"leaf":"cHduZWQ="},"created_dirs":[]}')
        assert hashlib.sha256(b"do not touch").hexdigest() not in recorded
    assert fingerprint(sentinel) == before
    assert (preopen / "inside.txt").read_text() == "mine"
