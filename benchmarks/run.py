"""Runs every contender on every workload, side by side, and prints one table.

usage: python3 benchmarks/run.py --bench-bin PATH [--python PATH] [--node PATH]
                                 [--fs disk,shm] [--reps N] [--write BENCHMARKS.md]

Contenders: the Rust core and the two floors (ckpt-bench: temp + rename, and in
place), the Python package (in the interpreter given by --python), the
pure-Python baseline that behaves like the seed (benchmarks/baseline.py), the
Node package (bindings-node, built). The packages and the core run with their
default options (`durable=False`, `redo` on). A contender that cannot run is
shown as "n/a" with the reason. Each number is the median of --reps runs, each
run in a fresh process per (contender, workload, op), all on the same
generated data. Every workload runs on two filesystems: the project's disk
(`target/bench-data`) and a tmpfs (`/dev/shm/ckpt-bench-data`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = {
    "a": "1,000 x 4 KiB touched in a 20,000-file tree",
    "b": "16 x 16 MiB",
    "c-big": "100 x 4 KiB touched in a 100,000-file tree",
    "c-small": "the same 100 files in a 100-file tree",
    "d": "one 4 KiB file, per call",
}
OPS = ["capture", "rollback", "rollback-durable"]
CONTENDERS = ["core", "floor", "inplace", "python", "baseline", "node"]
FILESYSTEMS = {"disk": None, "shm": "/dev/shm/ckpt-bench-data"}


def inner_calls(workload: str) -> int:
    return 200 if workload == "d" else 1


def data_dir(args: argparse.Namespace, fs: str) -> Path:
    return Path(FILESYSTEMS[fs] or args.data)


def command(args: argparse.Namespace, fs: str, contender: str, workload: str, op: str, reps: int) -> list[str]:
    data = str(data_dir(args, fs) / workload)
    inner = str(inner_calls(workload))
    if contender in ("core", "floor", "inplace"):
        return [args.bench_bin, "run", contender, op, data, str(reps * int(inner))]
    if contender == "python":
        return [args.python, str(HERE / "contender_py.py"), "package", op, data, str(reps), inner]
    if contender == "baseline":
        return [sys.executable, str(HERE / "contender_py.py"), "baseline", op, data, str(reps), inner]
    return [args.node, str(HERE / "contender_node.mjs"), op, data, str(reps), inner]


def measure(args: argparse.Namespace, fs: str, contender: str, workload: str, op: str) -> dict:
    reps = args.reps if op != "rollback-durable" or workload in ("b", "d", "c-small", "c-big") else max(3, args.reps // 2)
    cmd = command(args, fs, contender, workload, op, reps)
    # Flush the previous contender's dirty pages so its writeback is not
    # charged to this one.
    os.sync()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    times = result["times_s"]
    if contender in ("core", "floor", "inplace") and inner_calls(workload) > 1:
        # ckpt-bench times single calls: group them like the other contenders.
        n = inner_calls(workload)
        times = [sum(times[i : i + n]) / n for i in range(0, len(times), n)]
    result["median_s"] = statistics.median(times)
    return result


def generate(args: argparse.Namespace, fs: str, workloads: list[str]) -> None:
    for workload in workloads:
        target = data_dir(args, fs) / workload
        if (target / "paths.txt").exists():
            continue
        print(f"generating workload {workload} in {target} ...", file=sys.stderr)
        subprocess.run([args.bench_bin, "gen", workload, str(target)], check=True)


def fmt_time(result: dict | None) -> str:
    if result is None:
        return "-"
    if "error" in result:
        return "n/a"
    t = result["median_s"]
    return f"{t * 1e6:.1f} µs" if t < 1e-3 else f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.3f} s"


def ratio(x: dict | None, y: dict | None) -> float | None:
    if not x or not y or "error" in x or "error" in y:
        return None
    return x["median_s"] / y["median_s"]


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} cores{mem}, Python {platform.python_version()}"


def goals(res: dict, filesystems: list[str]) -> list[tuple[str, str, str]]:
    """(goal, measured, verdict) rows: issue 16's goals, then the earlier ones."""
    rows: list[tuple[str, str, str]] = []

    def get(fs: str, c: str, w: str, op: str) -> dict | None:
        return res.get((fs, c, w, op))

    def check(goal: str, value: float | None, ok: bool | None, shown: str) -> None:
        verdict = "n/a" if value is None else ("met" if ok else "NOT met")
        rows.append((goal, shown if value is not None else "n/a", verdict))

    def faster(fs: str, w: str, op: str, times: float, who: str = "python") -> None:
        r = ratio(get(fs, "baseline", w, op), get(fs, who, w, op))
        check(f"[{fs}] {op} ({w}): {who} >= {times}x faster than the seed-like baseline", r,
              r is not None and r >= times, f"{r:.2f}x" if r else "")

    for fs in filesystems:
        seed_x = {"shm": {"b": 1.5, "a": 3}, "disk": {"b": 1.0, "a": 1.0}}.get(fs, {"b": 1.0, "a": 1.0})
        for w in ("b", "a"):
            for who in ("python", "node"):
                faster(fs, w, "rollback", seed_x[w], who)
        if fs == "shm":
            for who in ("python", "node"):
                faster(fs, "a", "capture", 10, who)
    for fs in filesystems:
        for c in ("python", "node"):
            for w in WORKLOADS:
                for op in ("capture", "rollback"):
                    r = ratio(get(fs, c, w, op), get(fs, "core", w, op))
                    if r is None and get(fs, c, w, op) is None:
                        continue
                    check(f"[{fs}] ({w}) {op}: {c} within 1.2x of the Rust core", r, r is not None and r <= 1.2, f"{r:.2f}x" if r else "")
    for fs in filesystems:
        for op in ("capture", "rollback", "rollback-durable"):
            r = ratio(get(fs, "core", "c-big", op), get(fs, "core", "c-small", op))
            if r is not None:
                check(f"[{fs}] {op} (c): 100,000-file tree within 10% of 100-file tree (core)", r, abs(r - 1) <= 0.10, f"{r:.3f}x")
        cap = get(fs, "core", "b", "capture")
        if cap and "error" not in cap and cap.get("peak_rss_kb"):
            peak = cap["peak_rss_kb"] * 1024
            limit = 1.6 * cap["snapshot_bytes"] + 50 * 2**20
            check(f"[{fs}] peak memory capturing (b) <= 1.6x snapshot + 50 MiB (core)", peak, peak <= limit,
                  f"{peak / 2**20:.0f} MiB for a {cap['snapshot_bytes'] / 2**20:.0f} MiB snapshot (limit {limit / 2**20:.0f} MiB)")
        for w in ("a", "b"):
            x = get(fs, "core", w, "rollback-durable")
            y = get(fs, "core", w, "rollback")
            files = 1000 if w == "a" else 16
            if x and y and "error" not in x and "error" not in y:
                per = (x["median_s"] - y["median_s"]) / files
                rows.append((f"[{fs}] durable=True cost per file ({w}, core)", f"{per * 1e3:.2f} ms", "reported"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bench-bin", required=True)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--node", default="node")
    parser.add_argument("--data", default=str(HERE.parent / "target" / "bench-data"))
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--fs", default=",".join(FILESYSTEMS), help="disk, shm or both")
    parser.add_argument("--write", help="also write the results into this markdown file")
    args = parser.parse_args()
    workloads = args.workloads.split(",")
    contenders = args.contenders.split(",")
    filesystems = args.fs.split(",")
    for fs in filesystems:
        generate(args, fs, workloads)
    res: dict = {}
    for fs in filesystems:
        for w in workloads:
            for op in OPS:
                for c in contenders:
                    res[(fs, c, w, op)] = measure(args, fs, c, w, op)
                    print(f"{fs:4} {w:8} {op:17} {c:9} {fmt_time(res[(fs, c, w, op)])}", file=sys.stderr, flush=True)
    lines = [f"Machine: {machine()}.", "", "| fs | workload | op | " + " | ".join(contenders) + " |",
             "| --- | --- | --- | " + " | ".join("---" for _ in contenders) + " |"]
    for fs in filesystems:
        for w in workloads:
            for op in OPS:
                lines.append(f"| {fs} | {w}: {WORKLOADS[w]} | {op} | " + " | ".join(fmt_time(res.get((fs, c, w, op))) for c in contenders) + " |")
    lines += ["", "| goal | measured | verdict |", "| --- | --- | --- |"]
    lines += [f"| {g} | {m} | {v} |" for g, m, v in goals(res, filesystems)]
    errors = [f"- [{fs}] {c} {w} {op}: {r['error']}" for (fs, c, w, op), r in res.items() if "error" in r]
    if errors:
        lines += ["", "Contenders that could not run:", *errors]
    table = "\n".join(lines)
    print(table)
    if args.write:
        path = Path(args.write)
        text = path.read_text() if path.exists() else "# Benchmarks\n"
        start, end = "<!-- results:start -->", "<!-- results:end -->"
        block = f"{start}\n{table}\n{end}"
        if start in text and end in text:
            text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
        path.write_text(text)


if __name__ == "__main__":
    main()
