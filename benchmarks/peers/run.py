"""The benchmark against each peer's checkpoint mechanism (issue 39).

usage: python3 benchmarks/peers/run.py --cli PATH [--python PATH] [--node PATH]
         [--quick] [--check] [--variants 20k,250k] [--fs disk,shm] [--rounds N]
         [--write BENCHMARKS.md] [--plot-python PATH]

For each filesystem (the disk: $BENCH_PEERS_DATA, default target/bench-peers;
tmpfs: $BENCH_PEERS_SHM, default /dev/shm/ckpt-bench-peers) and each
repository (generated once, cached there), every contender runs one
untimed warm-up round and then --rounds rounds, contenders taking turns in
a rotating order: checkpoint, the round's edits, restore. Every round's
restore is checked (the touched files' SHA-256 and the whole file list
equal what was checkpointed) and a contender that fails stops the run.
`--check`: the same rounds, nothing reported (the test's mode).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mechanisms import FileBackup, GhostCommit, Mechanism, OursCli, OursNode, OursPython, OursShadow, ShadowGit  # noqa: E402
from procs import ContenderError, run  # noqa: E402
from repos import generate, listing  # noqa: E402
from report import write_report  # noqa: E402
from rounds import Samples, du, make_round, one_round  # noqa: E402

ROOT = HERE.parent.parent
VARIANTS = {"2k": (2_000, False), "20k": (20_000, False), "20k+1GiB": (20_000, True), "250k": (250_000, False)}
CONTENDERS = ["file-backup", "shadow-git", "ghost-commit", "ours-cli", "ours-python", "ours-node", "ours-shadow"]


def data_root(fs: str) -> Path:
    if fs == "shm":
        return Path(os.environ.get("BENCH_PEERS_SHM", "/dev/shm/ckpt-bench-peers"))
    return Path(os.environ.get("BENCH_PEERS_DATA", str(ROOT / "target" / "bench-peers")))


def reset(repo: Path) -> None:
    """Leaves of earlier runs go: shadow branches and unreachable objects."""
    refs = run(["git", "for-each-ref", "--format=%(refname)", "refs/heads/entire/"], cwd=str(repo))
    for ref in refs.stdout.decode().split():
        run(["git", "update-ref", "-d", ref], cwd=str(repo))
    shutil.rmtree(repo / ".git" / "entire-sessions", ignore_errors=True)
    run(["git", "prune", "--expire=now"], cwd=str(repo))


def contenders(args: argparse.Namespace, repo: Path, stores: Path, nonce: str) -> list[Mechanism]:
    made: dict[str, Mechanism] = {}
    wanted = args.contenders.split(",")
    py_worker = [args.python or sys.executable, str(HERE / "worker_py.py")]
    for name in wanted:
        store = stores / name
        if name == "file-backup":
            made[name] = FileBackup(repo, store, [sys.executable, str(HERE / "worker_py.py"), "backup"])
        elif name == "shadow-git":
            made[name] = ShadowGit(repo, store)
        elif name == "ghost-commit":
            made[name] = GhostCommit(repo, store)
        elif name == "ours-cli":
            made[name] = OursCli(repo, store, args.cli)
        elif name == "ours-shadow":
            made[name] = OursShadow(repo, store, args.cli, f"bench-{nonce}")
        elif name == "ours-python" and args.python:
            made[name] = OursPython(repo, store, [*py_worker, "package"])
        elif name == "ours-node" and args.node:
            made[name] = OursNode(repo, store, [args.node, str(HERE / "worker_node.mjs")])
        elif name not in CONTENDERS:
            raise SystemExit(f"unknown contender {name!r} (known: {', '.join(CONTENDERS)})")
        else:
            print(f"  {name}: skipped (no --{name.split('-')[1]})", file=sys.stderr)
    return list(made.values())


def bench_repo(args: argparse.Namespace, fs: str, variant: str, nonce: str) -> dict:
    files, big = VARIANTS[variant]
    where = data_root(fs) / variant
    print(f"[{fs}] {variant}: preparing {where} ...", file=sys.stderr, flush=True)
    repo = generate(where, files, big)
    reset(repo)
    tree = set(listing(repo))
    stores = where / "stores"
    shutil.rmtree(stores, ignore_errors=True)
    stores.mkdir()
    mechs = contenders(args, repo, stores, nonce)
    samples = {m.name: Samples() for m in mechs}
    try:
        for salt, m in enumerate(mechs):
            size0 = du(m.store_dirs())
            first = m.setup()
            if first is not None:
                samples[m.name].first_s = first.seconds
                samples[m.name].first_bytes = du(m.store_dirs()) - size0
            print(f"[{fs}] {variant}: {m.name}: warm-up round (checked, untimed)", file=sys.stderr, flush=True)
            one_round(m, repo, make_round(0, files, False, salt), tree, nonce, samples[m.name], timed=False)
        for number in range(1, args.rounds + 1):
            k = number % len(mechs)
            for m in mechs[k:] + mechs[:k]:
                rnd = make_round(number, files, number == args.rounds, mechs.index(m))
                started = time.perf_counter()
                one_round(m, repo, rnd, tree, nonce, samples[m.name])
                print(
                    f"[{fs}] {variant}: round {number}{' (shell)' if rnd.shell else ''}: {m.name}"
                    f" checkpoint {samples[m.name].checkpoint_s[-1] * 1e3:.1f} ms,"
                    f" restore {samples[m.name].restore_s[-1] * 1e3:.1f} ms"
                    f" ({time.perf_counter() - started:.1f} s with the checks)",
                    file=sys.stderr,
                    flush=True,
                )
        if set(listing(repo)) != tree:
            raise ContenderError(f"{variant}: the tree at the end is not the one the rounds made")
    finally:
        for m in mechs:
            m.close()
        shutil.rmtree(stores, ignore_errors=True)
    # The rounds' edits go (untimed), so the next run starts from the commit.
    run(["git", "reset", "-q", "--hard", "HEAD"], cwd=str(repo))
    run(["git", "clean", "-q", "-f", "-d"], cwd=str(repo))
    out = {}
    for name, s in samples.items():
        out[name] = {
            "checkpoint_s": statistics.median(s.checkpoint_s) if s.checkpoint_s else None,
            "restore_s": statistics.median(s.restore_s) if s.restore_s else None,
            "bytes": statistics.median(s.bytes) if s.bytes else None,
            "peak_kb": s.peak_kb,
            "first_s": s.first_s,
            "first_bytes": s.first_bytes,
            "rounds_checked": s.checked,
            "samples": {"checkpoint_s": s.checkpoint_s, "restore_s": s.restore_s, "bytes": s.bytes},
        }
    return {"files": files, "big_untracked_bytes": (1 << 30) if big else 0, "contenders": out}


def run_all(args: argparse.Namespace, nonce: str) -> dict:
    """Every variant on every filesystem (the largest last); the figures so
    far are saved after each, so a long run stopped early keeps them."""
    results: dict = {"rounds": args.rounds, "fs": {}}
    load_before = os.getloadavg()[0]
    started = time.time()
    try:
        for variant in args.variants.split(","):
            for fs in args.fs.split(","):
                results["fs"].setdefault(fs, {})[variant] = bench_repo(args, fs, variant, nonce)
                results["load_average"] = [load_before, os.getloadavg()[0]]
                results["wall_s"] = time.time() - started
                if not args.check:
                    Path(args.results).write_text(json.dumps(results, indent=1) + "\n")
    except ContenderError as error:
        raise SystemExit(f"bench-peers: {error}")
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the release agent-checkpoint binary")
    ap.add_argument("--python", help="a Python with agent_checkpoint installed (ours-python)")
    ap.add_argument("--node", help="node, with bindings-node built (ours-node)")
    ap.add_argument("--quick", action="store_true", help="2,000 files, 2 rounds, no 1 GiB file")
    ap.add_argument("--check", action="store_true", help="only the correctness checks; report nothing")
    ap.add_argument("--variants", help=f"comma-separated, of {', '.join(VARIANTS)}")
    ap.add_argument("--fs", default="disk,shm")
    ap.add_argument("--rounds", type=int, help="timed rounds (the last one a shell command); default 5")
    ap.add_argument("--report-from", help="no run: the report and plot from this results JSON")
    ap.add_argument("--contenders", default=",".join(CONTENDERS))
    ap.add_argument("--write", help="rewrite the peers section of this BENCHMARKS.md")
    ap.add_argument("--plot-python", help="a Python with matplotlib: draws benchmarks/peers.png")
    ap.add_argument("--results", help="where the figures go (JSON; default: benchmarks/peers/results.json"
                    " with --write, else results.json in the disk's data directory)")
    args = ap.parse_args()
    if args.quick:
        args.variants = args.variants or "2k"
        args.rounds = args.rounds or 2
    args.variants = args.variants or "20k,20k+1GiB,250k"
    args.rounds = args.rounds or 5
    if args.rounds < 1:
        raise SystemExit("--rounds must be at least 1")
    for v in args.variants.split(","):
        if v not in VARIANTS:
            raise SystemExit(f"unknown variant {v!r} (known: {', '.join(VARIANTS)})")
    nonce = secrets.token_hex(4)
    if not args.results:
        args.results = str(HERE / "results.json") if args.write else str(data_root("disk") / "results.json")
    if args.report_from:
        results = json.loads(Path(args.report_from).read_text())
    else:
        results = run_all(args, nonce)
    if args.check:
        checked = sum(c["rounds_checked"] for v in results["fs"].values() for r in v.values() for c in r["contenders"].values())
        print(f"bench-peers: every restore checked ({checked} rounds): ok")
        return
    Path(args.results).write_text(json.dumps(results, indent=1) + "\n")
    print(f"bench-peers: figures in {args.results}", file=sys.stderr)
    if args.plot_python and args.write:
        png = ROOT / "benchmarks" / "peers.png"
        run([args.plot_python, str(HERE / "plot.py"), args.results, str(png)])
        print(f"bench-peers: plot in {png}", file=sys.stderr)
    text = write_report(results)
    if args.write:
        path = Path(args.write)
        path.write_text(replace_section(path.read_text(), text))
        print(f"bench-peers: {path} rewritten", file=sys.stderr)
    else:
        print(text)


START, END = "<!-- peers:start -->", "<!-- peers:end -->"


def replace_section(document: str, body: str) -> str:
    """The text between the peers markers replaced (appended if absent)."""
    block = f"{START}\n{body.rstrip()}\n{END}"
    if START in document and END in document:
        head, rest = document.split(START, 1)
        return head + block + rest.split(END, 1)[1]
    return document.rstrip() + "\n\n" + block + "\n"


if __name__ == "__main__":
    main()
