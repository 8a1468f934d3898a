#!/usr/bin/env python3
"""The peers benchmark cannot rot: its quick mode's correctness checks run
(every contender given, checkpoint + edits + restore, each restore compared
with the checkpointed tree), and the check itself catches a restore that
does less (a file left edited, a created file left behind).

usage: python3 tests/bench-peers/check.py --cli target/debug/agent-checkpoint
           [--python PY] [--node node]
Timings are not looked at (a debug CLI is fine)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "peers"))

from mechanisms import Mechanism, Round  # noqa: E402
from procs import ContenderError, Timing  # noqa: E402
from repos import generate, listing  # noqa: E402
from rounds import Samples, make_round, one_round  # noqa: E402
from run import replace_section  # noqa: E402

ARGS: argparse.Namespace


class Copies(Mechanism):
    """A per-file backup kept in memory; `skip` paths are not restored and
    `keep_created` leaves files the round created."""

    name = "copies"

    def __init__(self, repo: Path, store: Path, skip: int = 0, keep_created: bool = False):
        super().__init__(repo, store)
        self.skip = skip
        self.keep_created = keep_created

    def checkpoint(self, rnd: Round) -> tuple[object, Timing]:
        saved = {}
        for rel in rnd.touched:
            p = self.repo / rel
            saved[rel] = p.read_bytes() if p.exists() else None
        return saved, Timing()

    def restore(self, rnd: Round, handle: object) -> Timing:
        assert isinstance(handle, dict)
        for rel, data in list(handle.items())[self.skip :]:
            p = self.repo / rel
            if data is not None:
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(data)
            elif not self.keep_created and p.exists():
                p.unlink()
                parent = p.parent
                while parent != self.repo and not any(parent.iterdir()):
                    parent.rmdir()
                    parent = parent.parent
        return Timing()


class CheckCatchesLess(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="bench-peers-check-"))
        self.repo = generate(self.dir / "r", 300, False)
        self.tree = set(listing(self.repo))

    def tearDown(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_full_restore_passes_and_the_tree_moves_on(self) -> None:
        s = Samples()
        one_round(Copies(self.repo, self.dir / "s"), self.repo, make_round(1, 300, True), self.tree, "t", s)
        self.assertEqual(s.checked, 1)
        self.assertEqual(set(listing(self.repo)), self.tree)
        self.assertTrue(any(p.startswith("src/new-1-0/") for p in self.tree))

    def test_a_file_left_edited_is_caught(self) -> None:
        with self.assertRaisesRegex(ContenderError, "other bytes"):
            one_round(Copies(self.repo, self.dir / "s", skip=1), self.repo, make_round(1, 300, False), self.tree, "t", Samples())

    def test_a_created_file_left_behind_is_caught(self) -> None:
        m = Copies(self.repo, self.dir / "s", keep_created=True)
        with self.assertRaisesRegex(ContenderError, "other bytes"):
            one_round(m, self.repo, make_round(1, 300, True), self.tree, "t", Samples())

    def test_rounds_touch_ten_paths_in_ten_directories(self) -> None:
        for shell in (False, True):
            rnd = make_round(3, 20_000, shell, 2)
            self.assertEqual(len(set(rnd.touched)), 10)
            self.assertEqual(len({str(Path(p).parent) for p in rnd.touched}), 10)
        self.assertNotEqual(make_round(3, 20_000, False, 1).edit, make_round(3, 20_000, False, 2).edit)


class Section(unittest.TestCase):
    def test_the_section_is_replaced_and_the_rest_kept(self) -> None:
        doc = "a\n<!-- peers:start -->\nold\n<!-- peers:end -->\nb\n"
        self.assertEqual(replace_section(doc, "new\n"), "a\n<!-- peers:start -->\nnew\n<!-- peers:end -->\nb\n")
        self.assertIn("<!-- peers:start -->\nnew", replace_section("a\n", "new"))


class QuickMode(unittest.TestCase):
    def test_every_contender_restores_what_it_checkpointed(self) -> None:
        with tempfile.TemporaryDirectory(prefix="bench-peers-quick-") as data:
            cmd = [sys.executable, str(ROOT / "benchmarks" / "peers" / "run.py"), "--quick", "--check", "--fs", "disk", "--cli", ARGS.cli]
            contenders = ["file-backup", "shadow-git", "ghost-commit", "ours-cli", "ours-shadow"]
            if ARGS.python:
                cmd += ["--python", ARGS.python]
                contenders.append("ours-python")
            if ARGS.node:
                cmd += ["--node", ARGS.node]
                contenders.append("ours-node")
            cmd += ["--contenders", ",".join(contenders)]
            out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "BENCH_PEERS_DATA": data})
            self.assertEqual(out.returncode, 0, out.stderr[-2000:])
            # 2 timed rounds + the warm-up, per contender.
            self.assertIn(f"every restore checked ({3 * len(contenders)} rounds): ok", out.stdout)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--python")
    ap.add_argument("--node")
    ARGS, rest = ap.parse_known_args()
    ARGS.cli = os.path.abspath(ARGS.cli)
    unittest.main(argv=[sys.argv[0], *rest])
