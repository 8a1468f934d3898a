"""Running a contender's processes: wall time and peak memory of each child."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

TIME = "/usr/bin/time"

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_TERMINAL_PROMPT": "0",
}


class ContenderError(RuntimeError):
    """A contender's command failed or its restore gave back the wrong tree."""


@dataclass
class Timing:
    """What one checkpoint or restore cost: wall seconds, the peak resident
    set of its largest process (KiB), and what it printed last."""

    seconds: float = 0.0
    peak_kb: int = 0
    stdout: bytes = b""
    steps: list[str] = field(default_factory=list)

    def add(self, other: "Timing") -> None:
        self.seconds += other.seconds
        self.peak_kb = max(self.peak_kb, other.peak_kb)
        self.stdout = other.stdout
        self.steps.extend(other.steps)


def run(cmd: list[str], cwd: str | None = None, env: dict | None = None, stdin: bytes | None = None) -> Timing:
    """Runs `cmd` to completion; wall clock from spawn to exit, and the
    child's own peak RSS from wait4 (so no other child is charged)."""
    full_env = {**os.environ, **GIT_ENV, **(env or {})}
    # A child forked from this interpreter inherits its resident set until
    # exec, and Linux keeps that in the child's peak: /usr/bin/time, a small
    # process, reports the command's own peak instead (its exec is timed too).
    peak_file = None
    if os.access(TIME, os.X_OK):
        peak_file = tempfile.NamedTemporaryFile(prefix="peak-", delete=False)
        peak_file.close()
        cmd = [TIME, "-f", "%M", "-o", peak_file.name, *cmd]
    with tempfile.TemporaryFile() as out_file, tempfile.TemporaryFile() as err_file:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out_file,
            stderr=err_file,
        )
        if stdin is not None and proc.stdin is not None:
            proc.stdin.write(stdin)
            proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out_file.seek(0)
        err_file.seek(0)
        out, err = out_file.read(), err_file.read()
    peak = usage.ru_maxrss
    if peak_file is not None:
        try:
            peak = int(Path(peak_file.name).read_text().split()[-1])
        except (OSError, ValueError, IndexError):
            pass
        os.unlink(peak_file.name)
        cmd = cmd[5:]
    if proc.returncode != 0:
        shown = " ".join(cmd[:4])
        raise ContenderError(f"{shown} ...: exit {proc.returncode}: {err.decode(errors='replace')[-400:]}")
    return Timing(seconds, peak, out, [" ".join(cmd[:2])])
