"""The BENCHMARKS.md section: the peer table per filesystem and the goals."""

from __future__ import annotations

import os
import platform
from pathlib import Path

PEERS = ["shadow-git", "ghost-commit"]
OURS = ["ours-cli", "ours-python", "ours-node", "ours-shadow"]
LABELS = {
    "file-backup": "per-file backup (Claude Code, Copilot CLI, Kiro, Cursor)",
    "shadow-git": "shadow git repository (Cline, Roo Code, Gemini CLI, OpenCode)",
    "ghost-commit": "ghost commit (Codex)",
    "ours-cli": "ours: CLI `capture` + `rollback`",
    "ours-python": "ours: Python `create_checkpoint` + `rollback`",
    "ours-node": "ours: Node `createCheckpoint` + `rollback`",
    "ours-shadow": "ours: `shadow step` naming the files + `shadow rewind`",
}
FS_NAMES = {"disk": "disk (ext4)", "shm": "tmpfs (/dev/shm)"}


def seconds(t: float | None) -> str:
    if t is None:
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.0f} µs"
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def size(n: float | None) -> str:
    if n is None:
        return "-"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores"


def variant_name(variant: str, r: dict) -> str:
    name = f"{r['files']:,} files"
    return name + " + 1 GiB untracked" if r["big_untracked_bytes"] else name


def table(fs: str, variants: dict) -> list[str]:
    lines = [
        f"#### {FS_NAMES.get(fs, fs)}",
        "",
        "| repository | mechanism | checkpoint | restore | bytes / checkpoint | peak RSS | first checkpoint |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for variant, r in variants.items():
        for name, c in r["contenders"].items():
            first = "-" if c["first_s"] is None else f"{seconds(c['first_s'])}, {size(c['first_bytes'])}"
            lines.append(
                f"| {variant_name(variant, r)} | {LABELS.get(name, name)} | {seconds(c['checkpoint_s'])} |"
                f" {seconds(c['restore_s'])} | {size(c['bytes'])} | {c['peak_kb'] / 1024:.0f} MiB | {first} |"
            )
    return lines + [""]


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def goal_cell(value: float | None, ok: bool | None, shown: str) -> str:
    if value is None:
        return "n/a"
    return f"{shown} {'met' if ok else '**NOT met**'}"


def goals(fs: str, r: dict) -> list[str]:
    """The issue's goals on the largest repository, one column per ours."""
    c = r["contenders"]
    ours = [o for o in OURS if o in c]
    lines = [
        f"Goals on {variant_name('', r)}, {FS_NAMES.get(fs, fs)} (medians; a ratio is theirs / ours unless said):",
        "",
        "| goal | " + " | ".join(LABELS[o].split(": ", 1)[1] for o in ours) + " |",
        "|---|" + "---:|" * len(ours),
    ]

    def row(goal: str, cell) -> None:
        lines.append(f"| {goal} | " + " | ".join(cell(c[o]) for o in ours) + " |")

    for peer in PEERS:
        if peer not in c:
            continue
        p = c[peer]

        def faster(o: dict, key: str = "checkpoint_s", times: float = 100) -> str:
            x = ratio(p[key], o[key])
            return goal_cell(x, x is not None and x >= times, f"{x:,.0f}x" if x else "")

        row(f"checkpoint >= 100x faster than {peer}", faster)
        row(f"restore >= 10x faster than {peer}", lambda o: faster(o, "restore_s", 10))

        def smaller(o: dict) -> str:
            x = ratio(o["bytes"], p["bytes"])
            return goal_cell(x, x is not None and x <= 0.01, f"{x * 100:.1f}%" if x is not None else "")

        row(f"bytes / checkpoint <= 1% of {peer}'s (ours / theirs)", smaller)
    if "file-backup" in c:
        b = c["file-backup"]
        for key, what in (("checkpoint_s", "checkpoint"), ("restore_s", "restore")):

            def within(o: dict, key: str = key) -> str:
                x = ratio(o[key], b[key])
                return goal_cell(x, x is not None and x <= 1.5, f"{x:.2f}x" if x else "")

            row(f"{what} within 1.5x of per-file backup (ours / theirs)", within)
    return lines + [""]


def write_report(results: dict) -> str:
    load = results.get("load_average", [0, 0])
    out = [
        "Made by `scripts/bench-peers` (benchmarks/peers/): "
        f"{results['rounds']} timed rounds per repository after one untimed warm-up round, "
        "contenders taking turns; the last round deletes and creates files through one shell "
        "command, the others edit 10 files across 10 directories. Medians over the rounds; "
        "peak RSS is the largest process's. "
        f"Machine: {machine()}, **shared with six other builds and benchmarks while this ran** "
        f"(load average {load[0]:.1f} at the start, {load[1]:.1f} at the end, on 2 cores): "
        "absolute times are pessimistic, and every contender met the same load. "
        f"Whole run: {results.get('wall_s', 0) / 60:.0f} min.",
        "",
        "![time per checkpoint and per restore vs repository size, log scale](benchmarks/peers.png)",
        "",
    ]
    for fs, variants in results["fs"].items():
        out += table(fs, variants)
    for fs, variants in results["fs"].items():
        largest = max(variants.values(), key=lambda r: (r["files"], -r["big_untracked_bytes"]))
        out += goals(fs, largest)
    return "\n".join(out)
