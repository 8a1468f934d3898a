"""Exception classes: one per code, `.code` on every instance, ValueError/OSError bases."""

from __future__ import annotations

import errno
import os
import pickle
from pathlib import Path

import pytest

import agent_checkpoint as ac
from agent_checkpoint import _native

CODES = {
    "invalid_checkpoint_id": (ac.InvalidCheckpointIdError, ValueError),
    "invalid_ref_name": (ac.InvalidRefNameError, ValueError),
    "invalid_path": (ac.InvalidPathError, ValueError),
    "path_escapes_root": (ac.PathEscapesRootError, ValueError),
    "not_a_file": (ac.NotAFileError, ValueError),
    "not_a_directory": (ac.CheckpointNotADirectoryError, ValueError),
    "malformed_snapshot": (ac.MalformedSnapshotError, ValueError),
    "unsupported_version": (ac.UnsupportedVersionError, ValueError),
    "too_large": (ac.TooLargeError, ValueError),
    "invalid_argument": (ac.InvalidArgumentError, ValueError),
    "invalid_pattern": (ac.InvalidPatternError, ValueError),
    "unauthenticated": (ac.UnauthenticatedError, None),
    "root_mismatch": (ac.RootMismatchError, None),
    "not_found": (ac.NotFoundError, FileNotFoundError),
    "no_transcript": (ac.NoTranscriptError, FileNotFoundError),
    "not_a_repository": (ac.NotARepositoryError, ValueError),
    "corrupt_object": (ac.CorruptObjectError, OSError),
    "ref_busy": (ac.RefBusyError, None),
    "conflict": (ac.ConflictError, None),
    "remote_unreachable": (ac.RemoteUnreachableError, OSError),
    "auth_failed": (ac.AuthFailedError, None),
    "rejected": (ac.RejectedError, None),
    "permission_denied": (ac.PermissionDeniedError, PermissionError),
    "io": (ac.IoError, OSError),
}


def test_error_codes_are_the_closed_set() -> None:
    assert list(ac.ERROR_CODES) == list(CODES)


@pytest.mark.parametrize("code", list(CODES))
def test_every_code_maps_to_its_class(code: str) -> None:
    cls, builtin = CODES[code]
    assert ac.error_class(code) is cls
    assert cls.code == code
    assert issubclass(cls, ac.CheckpointError)
    assert cls.__module__ == "agent_checkpoint"
    if builtin is not None:
        assert issubclass(cls, builtin)
    assert issubclass(cls, ValueError) == (builtin is ValueError)
    assert issubclass(cls, OSError) == (builtin is not None and issubclass(builtin, OSError))
    # Instances made by users carry the code too.
    assert cls("x").code == code


def test_unknown_code_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        ac.error_class("nope")


def test_no_class_shadows_a_builtin() -> None:
    import builtins

    for code in ac.ERROR_CODES:
        assert not hasattr(builtins, ac.error_class(code).__name__), code


def test_base_class_is_never_a_builtin_error() -> None:
    assert not issubclass(ac.CheckpointError, (ValueError, OSError))
    assert issubclass(ac.CheckpointError, Exception)


def raises(code: str, call, *args, **kwargs) -> ac.CheckpointError:  # type: ignore[no-untyped-def]
    with pytest.raises(ac.CheckpointError) as raised:
        call(*args, **kwargs)
    error = raised.value
    assert type(error) is CODES[code][0]
    assert error.code == code
    assert str(error)
    return error


def test_raised_value_errors(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "big").write_bytes(b"x" * 10)
    assert isinstance(raises("invalid_checkpoint_id", ac.validate_checkpoint_id, "nope"), ValueError)
    assert isinstance(raises("invalid_checkpoint_id", ac.ref_name, ""), ValueError)
    assert isinstance(raises("invalid_ref_name", ac.PushQueue(tmp_path).enqueue, "not a ref"), ValueError)
    assert isinstance(raises("invalid_path", ac.create_checkpoint, tmp_path, [".git/config"]), ValueError)
    assert isinstance(raises("path_escapes_root", ac.create_checkpoint, tmp_path, ["../x"]), ValueError)
    assert isinstance(raises("not_a_file", ac.create_checkpoint, tmp_path, ["d"]), ValueError)
    assert isinstance(raises("malformed_snapshot", ac.inspect_snapshot, "{"), ValueError)
    assert isinstance(raises("unsupported_version", ac.inspect_snapshot, '{"version":2,"entries":{}}'), ValueError)
    assert isinstance(raises("too_large", ac.new_ulid, 1 << 48), ValueError)


def test_every_error_names_its_path_as_node_does(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert raises("path_escapes_root", ac.create_checkpoint, tmp_path, ["../x"]).path == "../x"
    assert raises("not_a_file", ac.create_checkpoint, tmp_path, ["d"]).path == "d"
    missing = raises("not_found", ac.create_checkpoint, tmp_path / "missing", ["a"])
    assert missing.path == missing.filename == str(tmp_path / "missing")
    assert raises("malformed_snapshot", ac.inspect_snapshot, "{").path is None
    assert raises("invalid_checkpoint_id", ac.validate_checkpoint_id, "nope").path is None
    copy = pickle.loads(pickle.dumps(raises("path_escapes_root", ac.create_checkpoint, tmp_path, ["../x"])))
    assert copy.path == "../x"


def test_missing_root_is_file_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    for call in (
        lambda: ac.create_checkpoint(missing, ["a"]),
        lambda: ac.rollback(missing, '{"version":1,"entries":{}}'),
    ):
        error = raises("not_found", call)
        assert isinstance(error, FileNotFoundError)
        assert error.errno == errno.ENOENT
        assert error.filename == str(missing)
        assert error.strerror


def test_root_that_is_a_file_is_not_a_directory(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    error = raises("not_a_directory", ac.create_checkpoint, file, ["a"])
    assert isinstance(error, ValueError)
    assert error.path == str(file)
    assert str(error) == f'"{file}" is a file, not a directory'


@pytest.mark.parametrize("code", list(CODES))
def test_str_of_every_error_class_is_its_message(code: str) -> None:
    """`str(e)` is the core's message for every class, whatever the
    built-in base (OSError printed `[Errno None] None: None` once
    `filename` was set)."""
    samples = getattr(_native, "_error_samples")(code)
    assert samples, f"no sample error for {code}"
    for error, message in samples:
        assert type(error) is CODES[code][0]
        assert str(error) == message
        assert "[Errno" not in str(error)
        assert str(pickle.loads(pickle.dumps(error))) == message


def test_store_errors_without_an_errno_print_their_message(tmp_path: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    store = ac.CheckpointStore(tmp_path)
    error = raises("not_found", store.read, "01KVBJCWYA4YW6J5M9GP655HZN")
    assert str(error) == "checkpoint 01KVBJCWYA4YW6J5M9GP655HZN not found"
    error = raises("remote_unreachable", store.push, "nosuch")
    assert "nosuch" in str(error) and "None" not in str(error)


def _permission_denied_dir(tmp_path: Path) -> Path:
    """A directory this process cannot create files in."""
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        return locked
    # root bypasses mode bits; sysfs still refuses to create files.
    try:
        open("/sys/agent-checkpoint-probe", "w").close()
    except PermissionError:
        return Path("/sys")
    except OSError:
        pass
    pytest.skip("no directory refuses root here")


def test_permission_denied_is_permission_error(tmp_path: Path) -> None:
    directory = _permission_denied_dir(tmp_path)
    error = raises("permission_denied", ac.PushQueue(directory).enqueue, ac.ref_name("a1b2c3d4e5f6"))
    assert isinstance(error, PermissionError)
    assert error.errno == errno.EACCES
    assert error.filename and str(directory) in error.filename


def test_errors_pickle_round_trip(tmp_path: Path) -> None:
    error = raises("not_found", ac.create_checkpoint, tmp_path / "missing", ["a"])
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is ac.NotFoundError and copy.code == "not_found"
    assert copy.errno == error.errno and copy.filename == error.filename
    value_error = raises("invalid_checkpoint_id", ac.validate_checkpoint_id, "x")
    assert str(pickle.loads(pickle.dumps(value_error))) == str(value_error)


def test_a_snapshot_with_a_lone_surrogate_is_malformed(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("a")
    snapshot = ac.create_checkpoint(tmp_path, ["a"])
    forged = snapshot.replace('"a"', '"\ud800"', 1)
    assert forged != snapshot
    result = ac.rollback(tmp_path, forged)
    assert not result.valid and result.error_code == "malformed_snapshot"
    assert raises("malformed_snapshot", ac.plan_rollback, tmp_path, forged)
    assert raises("malformed_snapshot", ac.record_applied, tmp_path, forged)
    assert (tmp_path / "a").read_text() == "a"


@pytest.mark.parametrize("key", ["", b"", bytearray(), "\ud800", "ok\udfff"])
def test_empty_keys_and_keys_that_are_not_unicode_are_refused(tmp_path: Path, key: object) -> None:
    (tmp_path / "a").write_text("a")
    error = raises("invalid_argument", ac.create_checkpoint, tmp_path, ["a"], key=key)
    assert isinstance(error, ValueError)
    snapshot = ac.create_checkpoint(tmp_path, ["a"])
    raises("invalid_argument", ac.rollback, tmp_path, snapshot, key=key)
    raises("invalid_argument", ac.plan_rollback, tmp_path, snapshot, key=key)
    raises("invalid_argument", ac.record_applied, tmp_path, snapshot, key=key)
