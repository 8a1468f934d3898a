#!/usr/bin/env python3
"""Hook latency per event kind (issue 34): `agent-checkpoint hook claude-code`
run as Claude Code runs it (a fresh process per event, the event's JSON on
stdin), in repositories of 1,000 and 20,000 committed files, against
`git status --porcelain` in the same repository.

Each round, in each repository: a prompt (a turn step), a file tool (the
undo snapshot before it, the step after it, one file edited in between), a
shell command (a step and `git status` before it, `git status` and a step
naming what changed after it; the command itself, untimed, edits two files
and creates one), and `git status --porcelain` alone. The repositories
take turns and the order of the kinds rotates, so load on the machine hits
all alike. Wall clock of each process, start to exit (process start
included). Median and p99 (the nearest rank) per kind.

    python3 benchmarks/hooks.py --bin target/release/agent-checkpoint [--rounds 200] [--sizes 1000,20000]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def git(repo, *args):
    subprocess.run(
        ["git", "-c", "user.name=B", "-c", "user.email=b@example.com", *args],
        cwd=repo,
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
    )


def make_repo(parent, files):
    """`files` committed 1 KiB files, 100 per directory."""
    repo = os.path.join(parent, f"repo-{files}")
    os.makedirs(repo)
    git(repo, "init", "-q")
    git(repo, "config", "gc.auto", "0")
    for i in range(files):
        d = os.path.join(repo, "src", f"d{i // 100:04}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i:06}.txt"), "w") as f:
            f.write(f"file {i}\n" * 100)
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("build/\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def timed(cmd, repo, stdin=None):
    start = time.perf_counter()
    out = subprocess.run(
        cmd, cwd=repo, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - start
    if out.returncode != 0 or out.stderr:
        sys.exit(f"{cmd}: exit {out.returncode}: {out.stderr.decode()}")
    return elapsed


class Session:
    def __init__(self, binary, repo):
        self.binary = binary
        self.repo = repo
        self.base = {
            "session_id": "bench-session",
            "transcript_path": os.path.join(repo, ".git", "transcript.jsonl"),
            "cwd": repo,
        }
        self.calls = 0

    def hook(self, event, **fields):
        doc = {**self.base, "hook_event_name": event, **fields}
        return timed(
            [self.binary, "hook", "claude-code"], self.repo, json.dumps(doc).encode()
        )

    def check_log(self):
        log = os.path.join(self.repo, ".git", "agent-checkpoint", "hook.log")
        if os.path.exists(log):
            sys.exit(f"hook failures:\n{open(log).read()}")


def edit(repo, rel, text):
    with open(os.path.join(repo, rel), "a") as f:
        f.write(text)


def kinds(session, files, rnd):
    """One measurement of each kind; returns {kind: seconds}."""
    repo = session.repo
    out = {}
    target = f"src/d{(rnd * 7) % (files // 100):04}/f{(rnd * 7 % (files // 100)) * 100:06}.txt"
    absolute = os.path.join(repo, target)
    tool = {"file_path": absolute, "old_string": "x", "new_string": "y"}

    def prompt():
        out["prompt (turn step)"] = session.hook(
            "UserPromptSubmit", prompt=f"round {rnd}: make it better"
        )

    def file_tool():
        tid = f"toolu_f{rnd}"
        out["before file tool (capture)"] = session.hook(
            "PreToolUse", tool_name="Edit", tool_input=tool, tool_use_id=tid
        )
        edit(repo, target, f"agent edit {rnd}\n")
        out["after file tool (step)"] = session.hook(
            "PostToolUse", tool_name="Edit", tool_input=tool, tool_use_id=tid
        )

    def shell_tool():
        tid = f"toolu_s{rnd}"
        command = {"command": "make things"}
        out["before shell tool (status + step)"] = session.hook(
            "PreToolUse", tool_name="Bash", tool_input=command, tool_use_id=tid
        )
        edit(repo, f"src/d0000/f{rnd % 100:06}.txt", "shell\n")
        edit(repo, f"src/d0001/f{100 + rnd % 100:06}.txt", "shell\n")
        with open(os.path.join(repo, f"made-{rnd}.txt"), "w") as f:
            f.write("made\n")
        out["after shell tool (status + step)"] = session.hook(
            "PostToolUse", tool_name="Bash", tool_input=command, tool_use_id=tid
        )

    def status():
        out["git status --porcelain"] = timed(
            ["git", "status", "--porcelain"], repo
        )

    steps = [prompt, file_tool, shell_tool, status]
    k = rnd % len(steps)
    for step in steps[k:] + steps[:k]:
        step()
    return out


def pct(values, p):
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(round(p / 100 * len(ordered) + 0.5))))
    return ordered[rank - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--sizes", default="1000,20000")
    ap.add_argument("--dir", default=None, help="where to make the repositories")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    parent = tempfile.mkdtemp(prefix="hook-bench-", dir=args.dir)
    try:
        sessions = {}
        first = {}
        for n in sizes:
            repo = make_repo(parent, n)
            s = Session(os.path.abspath(args.bin), repo)
            first[n] = s.hook("SessionStart", source="startup")
            sessions[n] = s
        samples = {n: {} for n in sizes}
        for rnd in range(args.rounds):
            for n in sizes if rnd % 2 == 0 else reversed(sizes):
                for kind, secs in kinds(sessions[n], n, rnd).items():
                    samples[n].setdefault(kind, []).append(secs)
        for s in sessions.values():
            s.check_log()
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"rounds {args.rounds}, load average {load:.1f}, {os.cpu_count()} CPUs")
        print("| files | event | median | p99 | median / git status |")
        print("|---:|---|---:|---:|---:|")
        for n in sizes:
            status = statistics.median(samples[n]["git status --porcelain"])
            print(f"| {n:,} | session start (baseline step) | {first[n]*1e3:.1f} ms (once) | | |")
            for kind, values in samples[n].items():
                med = statistics.median(values)
                print(
                    f"| {n:,} | {kind} | {med*1e3:.1f} ms | {pct(values, 99)*1e3:.1f} ms |"
                    f" {med / status:.2f} |"
                )
    finally:
        shutil.rmtree(parent, ignore_errors=True)


if __name__ == "__main__":
    main()
