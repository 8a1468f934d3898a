"""Runs every contender on every workload, side by side, and prints one table.

usage: python3 benchmarks/run.py --bench-bin PATH [--python PATH] [--node PATH]
                                 [--data DIR] [--reps N] [--write BENCHMARKS.md]

Contenders: the Rust core and the floor (ckpt-bench), the Python package (in the
interpreter given by --python), the pure-Python baseline (benchmarks/baseline.py),
the Node package (bindings-node, built). A contender that cannot run is shown as
"n/a" with the reason. Each number is the median of --reps runs, each run in a
fresh process per (contender, workload, op), all on the same generated data.
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
CONTENDERS = ["core", "floor", "python", "baseline", "node"]


def inner_calls(workload: str) -> int:
    return 200 if workload == "d" else 1


def command(args: argparse.Namespace, contender: str, workload: str, op: str, reps: int) -> list[str]:
    data = str(Path(args.data) / workload)
    inner = str(inner_calls(workload))
    if contender in ("core", "floor"):
        cmd = [args.bench_bin, "run", contender, op, data, str(reps * int(inner)), "--no-redo"]
        return cmd
    if contender == "python":
        return [args.python, str(HERE / "contender_py.py"), "package", op, data, str(reps), inner]
    if contender == "baseline":
        return [sys.executable, str(HERE / "contender_py.py"), "baseline", op, data, str(reps), inner]
    return [args.node, str(HERE / "contender_node.mjs"), op, data, str(reps), inner]


def measure(args: argparse.Namespace, contender: str, workload: str, op: str) -> dict:
    reps = args.reps if op != "rollback-durable" or workload in ("b", "d", "c-small", "c-big") else max(3, args.reps // 2)
    cmd = command(args, contender, workload, op, reps)
    # Flush the previous contender's dirty pages so its writeback is not
    # charged to this one.
    os.sync()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    times = result["times_s"]
    if contender in ("core", "floor") and inner_calls(workload) > 1:
        # ckpt-bench times single calls: group them like the other contenders.
        n = inner_calls(workload)
        times = [sum(times[i : i + n]) / n for i in range(0, len(times), n)]
    result["median_s"] = statistics.median(times)
    return result


def generate(args: argparse.Namespace) -> None:
    for workload in WORKLOADS:
        target = Path(args.data) / workload
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


def goals(res: dict) -> list[tuple[str, str, str]]:
    """(goal, measured, verdict) rows."""
    rows: list[tuple[str, str, str]] = []

    def get(c: str, w: str, op: str) -> dict | None:
        return res.get((c, w, op))

    def check(goal: str, value: float | None, ok: bool | None, shown: str) -> None:
        verdict = "n/a" if value is None else ("met" if ok else "NOT met")
        rows.append((goal, shown if value is not None else "n/a", verdict))

    for w, speedup, floor_x in (("a", 10, 2.0), ("b", 2, 1.3)):
        r = ratio(get("baseline", w, "capture"), get("python", w, "capture"))
        check(f"capture ({w}): Python >= {speedup}x faster than baseline", r, r is not None and r >= speedup, f"{r:.2f}x" if r else "")
        r = ratio(get("python", w, "capture"), get("floor", w, "capture"))
        check(f"capture ({w}): Python within {floor_x}x of the floor", r, r is not None and r <= floor_x, f"{r:.2f}x" if r else "")
    for w, speedup in (("a", 5), ("b", 1.5)):
        r = ratio(get("baseline", w, "rollback"), get("python", w, "rollback"))
        check(f"rollback durable=False ({w}): Python >= {speedup}x faster than baseline", r, r is not None and r >= speedup, f"{r:.2f}x" if r else "")
        r = ratio(get("python", w, "rollback"), get("floor", w, "rollback"))
        check(f"rollback durable=False ({w}): Python within 2x of the write floor", r, r is not None and r <= 2, f"{r:.2f}x" if r else "")
    for op in ("capture", "rollback", "rollback-durable"):
        r = ratio(get("core", "c-big", op), get("core", "c-small", op))
        check(f"{op} (c): 100,000-file tree within 10% of 100-file tree (core)", r, r is not None and abs(r - 1) <= 0.10, f"{r:.3f}x" if r else "")
    for c in ("python", "node"):
        for op in ("capture", "rollback"):
            x = get(c, "d", op)
            v = x["median_s"] if x and "error" not in x else None
            check(f"(d) {op}: under 50 µs per call from {c}", v, v is not None and v < 50e-6, f"{v * 1e6:.1f} µs" if v else "")
    for c in ("python", "node"):
        for w in ("a", "b"):
            for op in ("capture", "rollback"):
                r = ratio(get(c, w, op), get("core", w, op))
                check(f"({w}) {op}: {c} within 1.2x of the Rust core", r, r is not None and r <= 1.2, f"{r:.2f}x" if r else "")
    cap = get("core", "b", "capture")
    if cap and "error" not in cap and cap.get("peak_rss_kb"):
        peak = cap["peak_rss_kb"] * 1024
        limit = 1.6 * cap["snapshot_bytes"] + 50 * 2**20
        check("peak memory capturing (b) <= 1.6x snapshot + 50 MiB (core)", peak, peak <= limit,
              f"{peak / 2**20:.0f} MiB for a {cap['snapshot_bytes'] / 2**20:.0f} MiB snapshot (limit {limit / 2**20:.0f} MiB)")
    for w in ("a", "b"):
        x = get("core", w, "rollback-durable")
        y = get("core", w, "rollback")
        files = 1000 if w == "a" else 16
        if x and y and "error" not in x and "error" not in y:
            per = (x["median_s"] - y["median_s"]) / files
            rows.append((f"durable=True cost per file ({w}, core)", f"{per * 1e3:.2f} ms", "reported"))
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
    parser.add_argument("--write", help="also write the results into this markdown file")
    args = parser.parse_args()
    generate(args)
    workloads = args.workloads.split(",")
    contenders = args.contenders.split(",")
    res: dict = {}
    for w in workloads:
        for op in OPS:
            for c in contenders:
                res[(c, w, op)] = measure(args, c, w, op)
                print(f"{w:8} {op:17} {c:9} {fmt_time(res[(c, w, op)])}", file=sys.stderr, flush=True)
    lines = [f"Machine: {machine()}.", "", "| workload | op | " + " | ".join(contenders) + " |",
             "| --- | --- | " + " | ".join("---" for _ in contenders) + " |"]
    for w in workloads:
        for op in OPS:
            lines.append(f"| {w}: {WORKLOADS[w]} | {op} | " + " | ".join(fmt_time(res.get((c, w, op))) for c in contenders) + " |")
    lines += ["", "| goal | measured | verdict |", "| --- | --- | --- |"]
    lines += [f"| {g} | {m} | {v} |" for g, m, v in goals(res)]
    errors = [f"- {c} {w} {op}: {r['error']}" for (c, w, op), r in res.items() if "error" in r]
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
