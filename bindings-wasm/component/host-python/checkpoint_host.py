"""Embeds the agent-checkpoint WASI component in Python with the `wasmtime` package.

    host = ComponentHost(Path("agent_checkpoint_component.wasm"))
    with host.instantiate(Path("/tmp/project"), guest="/project") as component:
        snapshot = component.create_checkpoint("/project", ["src/a.py"], key=b"secret")
        ...
        applied = component.record_applied("/project", snapshot, key=b"secret")
        plan = component.plan_rollback("/project", applied, on_conflict="skip", key=b"secret")
        report = component.rollback("/project", applied, on_conflict="skip", key=b"secret")

Each `instantiate` makes a fresh store whose only preopen is the given host
directory, mounted at `guest`; every file function of the component stays
inside it. Errors of the component come back as values (wasmtime's component
API) and are raised here as `ComponentError` with the WIT code in `.code`.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Literal, Optional, Union

import wasmtime
from wasmtime import component as wc


class ComponentError(Exception):
    """A `checkpoint-error` returned by the component."""

    def __init__(self, code: str, message: str, path: Optional[str]) -> None:
        super().__init__(f"{code}: {message}")
        #: The kebab-case WIT code (`path-escapes-root`).
        self.code = code
        #: The snake_case code, as the other bindings spell it.
        self.snake_code = code.replace("-", "_")
        self.message = message
        self.path = path


#: A sealing key: bytes, or a str standing for its UTF-8 bytes (as in the Python package).
Key = Union[bytes, str]

#: The WIT `on-conflict` enum: what rollback does with a path changed after the batch.
OnConflict = Literal["overwrite", "skip"]


@dataclass
class DiffLine:
    """One line of a hunk."""

    #: `context`, `removed` or `added`.
    kind: str
    #: The line's text, without its line ending.
    text: str
    #: Its number in the current file, when it is there.
    old_line: Optional[int]
    #: Its number in the restored file, when it is there.
    new_line: Optional[int]


@dataclass
class Hunk:
    """One hunk of a unified diff, from the file as it is now to the restored one."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: list[DiffLine]


@dataclass
class PlanItem:
    """One line of `plan-rollback`: a path and what rollback would do to it."""

    path: str
    #: `keep`, `write`, `remove`, `rmdir`, `conflict` or `refuse`.
    action: str
    #: Whether the path changed after the batch (known after `record_applied`).
    conflict: bool
    #: For `refuse`: the snake_case code the rollback reports for the path.
    code: Optional[str] = None
    #: Why, when the action needs a word.
    reason: Optional[str] = None
    #: With `diff=True`, for a path the rollback changes: the unified diff
    #: when there is a line diff, else `diff_summary` (as in the Python package).
    diff: Optional[str] = None
    #: With `diff=True`, for a path the rollback changes: one line for people.
    diff_summary: Optional[str] = None
    #: The hunks of the line diff (empty without one).
    hunks: list[Hunk] = field(default_factory=list)


@dataclass
class RollbackResult:
    """The component's `rollback-report`, with the Python package's names."""

    restored: list[str]
    #: Paths that could not be restored, sorted.
    unrestored: list[str]
    #: Why each unrestored path was not restored.
    failures: dict[str, str]
    #: The snake_case code of each unrestored path.
    failure_codes: dict[str, str]
    valid: bool
    ok: bool
    error_code: Optional[str]
    error: Optional[str]
    #: Paths left alone because they changed after the batch (`on_conflict="skip"`).
    conflicts: list[str]
    #: The plan this rollback carried out (what `plan_rollback` says).
    plan: list[PlanItem]
    #: The snapshot that undoes this rollback (None when refused, or with `redo=False`).
    redo: Optional[str]
    #: Captured paths the redo cannot carry, and why.
    not_in_redo: dict[str, str]
    #: Path the capture skipped for its size -> that size: left as it is.
    not_covered: dict[str, int]
    #: The root the snapshot was taken under, when it is not this one.
    other_root: Optional[str]


def _field(record: Any, name: str) -> Any:
    return getattr(record, name)


def _record(**fields: Any) -> wc.Record:
    rec = wc.Record()
    for name, value in fields.items():
        setattr(rec, name.replace("_", "-"), value)
    return rec


def _key(key: Optional[Key]) -> Optional[bytes]:
    return key.encode() if isinstance(key, str) else key


def _snake(code: Optional[str]) -> Optional[str]:
    return None if code is None else code.replace("-", "_")


def _hunk(raw: Any) -> Hunk:
    lines = [
        DiffLine(_field(line, "kind"), _field(line, "text"), _field(line, "old-line"), _field(line, "new-line"))
        for line in _field(raw, "lines")
    ]
    return Hunk(
        _field(raw, "old-start"), _field(raw, "old-lines"), _field(raw, "new-start"), _field(raw, "new-lines"), lines
    )


def _plan_item(item: Any) -> PlanItem:
    diff = _field(item, "diff")
    text = None if diff is None else _field(diff, "text")
    summary = None if diff is None else _field(diff, "summary")
    return PlanItem(
        _field(item, "path"),
        _field(item, "action"),
        _field(item, "conflict"),
        _snake(_field(item, "code")),
        _field(item, "reason"),
        diff=summary if text is None else text,
        diff_summary=summary,
        hunks=[] if diff is None else [_hunk(h) for h in _field(diff, "hunks")],
    )


def _error(record: Any) -> ComponentError:
    return ComponentError(_field(record, "code"), _field(record, "message"), _field(record, "path"))


def _is_error(value: Any) -> bool:
    return isinstance(value, wc.Record) and hasattr(value, "code") and hasattr(value, "message")


def _ok(value: Any) -> Any:
    """The ok value of a WIT `result`, raising its error (tagged or not)."""
    if isinstance(value, wc.Variant):
        if value.tag == "err":
            raise _error(value.payload)
        return value.payload
    if _is_error(value):
        raise _error(value)
    return value


class Component:
    """One instance of the component, with typed Python methods."""

    def __init__(self, store: wasmtime.Store, instance: wc.Instance) -> None:
        self._store = store
        self._instance = instance

    def call(self, name: str, *args: Any) -> Any:
        """Calls the world export `name` (kebab-case) and returns its raw value."""
        func = self._instance.get_func(self._store, name)
        if func is None:
            raise LookupError(f"the component exports no function {name!r}")
        result = func(self._store, *args)
        func.post_return(self._store)
        return result

    def create_checkpoint(
        self,
        root: str,
        paths: list[str],
        *,
        allow_git_dir: bool = False,
        max_file_bytes: Optional[int] = None,
        key: Optional[Key] = None,
        record_root: bool = True,
    ) -> str:
        """Snapshots `paths` under `root` (a guest path inside the preopen); sealed with `key`.

        With `record_root` the snapshot records the root's (guest) path, so a
        rollback under another root can tell.
        """
        options = _record(
            allow_git_dir=allow_git_dir, max_file_bytes=max_file_bytes, key=_key(key), record_root=record_root
        )
        return _ok(self.call("create-checkpoint", root, paths, options))

    def rollback(
        self,
        root: str,
        checkpoint: str,
        *,
        durable: bool = True,
        allow_git_dir: bool = False,
        on_conflict: OnConflict = "overwrite",
        key: Optional[Key] = None,
        redo: bool = True,
        restore_setid: bool = False,
        strict_root: bool = False,
        max_file_bytes: Optional[int] = None,
    ) -> RollbackResult:
        """Restores the captured paths; raises only when `root` cannot be opened or an option is unusable."""
        options = _record(
            durable=durable,
            allow_git_dir=allow_git_dir,
            on_conflict=on_conflict,
            key=_key(key),
            redo=redo,
            restore_setid=restore_setid,
            strict_root=strict_root,
            max_file_bytes=max_file_bytes,
        )
        raw = _ok(self.call("rollback", root, checkpoint, options))
        error = _field(raw, "error")
        unrestored = _field(raw, "unrestored")
        not_in_redo = _field(raw, "not-in-redo")
        return RollbackResult(
            restored=list(_field(raw, "restored")),
            unrestored=[_field(u, "path") for u in unrestored],
            failures={_field(u, "path"): _field(u, "reason") for u in unrestored},
            failure_codes={_field(u, "path"): _snake(_field(u, "code")) for u in unrestored},
            valid=_field(raw, "valid"),
            ok=_field(raw, "ok"),
            error_code=None if error is None else _snake(_field(error, "code")),
            error=None if error is None else _field(error, "message"),
            conflicts=list(_field(raw, "conflicts")),
            plan=[_plan_item(i) for i in _field(raw, "plan")],
            redo=_field(raw, "redo"),
            not_in_redo={_field(n, "path"): _field(n, "reason") for n in not_in_redo},
            not_covered={_field(n, "path"): _field(n, "size") for n in _field(raw, "not-covered")},
            other_root=_field(raw, "other-root"),
        )

    def plan_rollback(
        self,
        root: str,
        checkpoint: str,
        *,
        allow_git_dir: bool = False,
        on_conflict: OnConflict = "overwrite",
        key: Optional[Key] = None,
        restore_setid: bool = False,
        strict_root: bool = False,
        diff: bool = False,
        diff_context: int = 3,
        diff_max_bytes: int = 1048576,
    ) -> list[PlanItem]:
        """What `rollback` would do to each path, sorted; raises for a snapshot it would refuse.

        With `diff`, each path the rollback changes says how (`diff`,
        `diff_summary`, `hunks`), as `plan_rollback(..., diff=True)` of the
        Python package.
        """
        options = _record(
            allow_git_dir=allow_git_dir,
            on_conflict=on_conflict,
            key=_key(key),
            restore_setid=restore_setid,
            strict_root=strict_root,
            diff=_record(context=diff_context, max_bytes=diff_max_bytes) if diff else None,
        )
        items = _ok(self.call("plan-rollback", root, checkpoint, options))
        return [_plan_item(i) for i in items]

    def record_applied(
        self, root: str, checkpoint: str, *, allow_git_dir: bool = False, key: Optional[Key] = None
    ) -> str:
        """`checkpoint` with each path's post-batch state recorded (a sealed one needs its `key`)."""
        options = _record(allow_git_dir=allow_git_dir, key=_key(key))
        return _ok(self.call("record-applied", root, checkpoint, options))

    def snapshot_paths(self, checkpoint: str) -> list[str]:
        """The captured paths (best effort)."""
        return list(self.call("snapshot-paths", checkpoint))

    def inspect_snapshot(self, checkpoint: str) -> list[dict[str, Any]]:
        """One dict per captured path: path, kind, size, mode, link_target, digest."""
        items = _ok(self.call("inspect-snapshot", checkpoint))
        return [
            {
                "path": _field(i, "path"),
                "kind": _field(i, "kind"),
                "size": _field(i, "size"),
                "mode": _field(i, "mode"),
                "link_target": _field(i, "link-target"),
                "digest": _field(i, "digest"),
            }
            for i in items
        ]

    def pure(self, op: str, *args: Any) -> Any:
        """Calls a naming function by its snake_case name; results in the vectors' shapes."""
        result = _ok(self.call(op.replace("_", "-"), *args))
        if op == "parse_shadow_branch_name" and result is not None:
            return {"commit_prefix": _field(result, "commit-prefix"), "worktree_hash": _field(result, "worktree-hash")}
        if isinstance(result, list):
            return list(result)
        return result


class ComponentHost:
    """A compiled component, ready to be instantiated with a preopened directory."""

    def __init__(self, wasm: Path) -> None:
        self.engine = wasmtime.Engine()
        self.component = wc.Component.from_file(self.engine, str(wasm))
        self.linker = wc.Linker(self.engine)
        self.linker.add_wasip2()

    @contextmanager
    def instantiate(self, preopen: Path, guest: str = "/sandbox") -> Iterator[Component]:
        """A fresh instance whose only preopen is `preopen`, mounted at `guest`."""
        store = wasmtime.Store(self.engine)
        wasi = wasmtime.WasiConfig()
        wasi.preopen_dir(str(preopen), guest)
        store.set_wasi(wasi)
        instance = self.linker.instantiate(store, self.component)
        yield Component(store, instance)
