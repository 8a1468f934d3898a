#!/usr/bin/env python3
"""Runs a README's examples against an *installed* package, as a user would.

The programs are tests/readme/blocks.py's (the blocks of one section,
joined). Each runs in a fresh temporary directory; the lines it shows
(`#> ...`, `//> ...`) must be exactly what it prints. Python programs run
with `--python` (a venv the wheel was installed into); js programs are
written into `--project` (an npm project the tarballs were installed into,
so `import 'agent-checkpoint'` resolves there) and run with `node`.
`--rewrite OLD=NEW` replaces a string in every program first (the wasm
README imports the package from the clone's build directory). `--node CMD`
runs the js programs with CMD instead of `node` (tests/install/wine-node:
Windows' node.exe under Wine). `--skip-section NAME` leaves out the programs
of a section (said as skipped, with the section's name).

Usage: readme.py LANG --only GLOB [--only GLOB]... (--python PY | --project DIR)
                 [--rewrite OLD=NEW]... [--node CMD] [--skip-section NAME]...
Prints one line per program and `N passed, N failed`; exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "readme"))
import blocks  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("lang", choices=["python", "js"])
    parser.add_argument("--only", action="append", required=True)
    parser.add_argument("--python")
    parser.add_argument("--project")
    parser.add_argument("--rewrite", action="append", default=[])
    parser.add_argument("--node", default="node")
    parser.add_argument("--skip-section", action="append", default=[])
    args = parser.parse_args()
    programs = blocks.programs(args.lang, args.only, [])
    if not programs:
        print(f"readme.py: no {args.lang} programs in {args.only}", file=sys.stderr)
        return 1
    passed = failed = skipped = 0
    for i, program in enumerate(programs):
        if program["section"] in args.skip_section:
            skipped += 1
            print(f"skip {program['file']}:{program['line']} ({program['section']})")
            continue
        code = program["code"]
        for rule in args.rewrite:
            old, new = rule.split("=", 1)
            code = code.replace(old, new)
        where = f"{program['file']}:{program['line']} ({program['section']})"
        with tempfile.TemporaryDirectory(prefix="install-readme-") as cwd:
            if args.lang == "python":
                command = [args.python, "-c", code]
            else:
                script = Path(args.project) / f"readme-{i}.mjs"
                script.write_text(code)
                command = [args.node, str(script)]
            done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)
        problem = None
        if done.returncode != 0:
            problem = f"exit {done.returncode}\n{done.stderr}"
        elif program["shown"] and done.stdout.splitlines() != program["shown"]:
            problem = f"printed:\n{done.stdout}\nshown:\n" + "\n".join(program["shown"])
        if problem:
            failed += 1
            print(f"FAIL {where}: {problem}")
        else:
            passed += 1
            print(f"ok   {where}")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
