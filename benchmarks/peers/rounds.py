"""One round of a contender: checkpoint, the edits, restore, and the check
that the restore gave back exactly the checkpointed tree."""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from mechanisms import Mechanism, Round
from procs import ContenderError, run
from repos import file_paths, leaf_dirs, listing


def make_round(number: int, files: int, shell: bool, salt: int = 0) -> Round:
    """10 paths across 10 directories, different each round and for each
    contender (`salt`): 10 files edited, or (a shell round) 5 deleted and
    5 created, one of them in a new directory."""
    dirs = leaf_dirs(files)
    paths = file_paths(files)
    per_dir = max(1, len(paths) // len(dirs))
    stride = max(1, len(dirs) // 10)
    chosen = []
    for k in range(10):
        d = (k * stride + number * 7 + salt * 3) % len(dirs)
        i = d * per_dir + (number * 13 + salt * 5 + k) % per_dir
        chosen.append(paths[min(i, len(paths) - 1)])
    chosen = list(dict.fromkeys(chosen))
    if not shell:
        return Round(number, chosen, [], [])
    created = [f"{Path(p).parent}/new-{number}-{k}.txt" for k, p in enumerate(chosen[5:9])]
    created.append(f"src/new-{number}-{salt}/sub/made.txt")
    return Round(number, [], chosen[:5], created)


def digests(repo: Path, paths: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for rel in paths:
        try:
            out[rel] = hashlib.sha256((repo / rel).read_bytes()).hexdigest()
        except FileNotFoundError:
            out[rel] = None
    return out


def apply_edits(repo: Path, rnd: Round, nonce: str, who: str) -> None:
    """The agent's work: appends to each edited file (new bytes every run
    and contender, so no store already holds them), or one shell command
    that deletes and creates files."""
    for rel in rnd.edit:
        with open(repo / rel, "a") as f:
            f.write(f"// edited by round {rnd.number} of run {nonce} for {who}\n")
    if rnd.shell:
        script = ["set -e"]
        script += [f"rm -- '{rel}'" for rel in rnd.delete]
        for rel in rnd.create:
            script.append(f"mkdir -p -- '{Path(rel).parent}'")
            script.append(f"printf 'made by round {rnd.number} of {nonce} for {who}\\n' > '{rel}'")
        run(["sh", "-c", "\n".join(script)], cwd=str(repo))


def du(paths: list[Path]) -> int:
    existing = [str(p) for p in paths if p.exists()]
    if not existing:
        return 0
    out = subprocess.run(["du", "-sb", "-c", *existing], check=True, capture_output=True, text=True)
    return int(out.stdout.strip().splitlines()[-1].split()[0])


@dataclass
class Samples:
    """A contender's figures over the rounds of one repository."""

    checkpoint_s: list[float] = field(default_factory=list)
    restore_s: list[float] = field(default_factory=list)
    bytes: list[int] = field(default_factory=list)
    peak_kb: int = 0
    first_s: float | None = None
    first_bytes: int | None = None
    checked: int = 0


def one_round(m: Mechanism, repo: Path, rnd: Round, tree: set[str], nonce: str, s: Samples, timed: bool = True) -> None:
    """Checkpoint, the edits, restore, the check; then the edits again (as
    an agent goes on), so the next checkpoint sees a changed tree. `tree`
    is the file list at the checkpoint; it is updated for the redone edits."""
    before = digests(repo, rnd.touched)
    size0 = du(m.store_dirs())
    handle, t = m.checkpoint(rnd)
    size1 = du(m.store_dirs())
    apply_edits(repo, rnd, nonce, m.name)
    edited = digests(repo, rnd.touched)
    if any(edited[p] == before[p] for p in rnd.touched):
        raise ContenderError(f"{m.name}: round {rnd.number}: an edit changed nothing")
    after = m.after_edit(rnd, handle)
    size2 = du(m.store_dirs())
    r = m.restore(rnd, handle)
    got = digests(repo, rnd.touched)
    if got != before:
        wrong = sorted(p for p in before if before[p] != got.get(p))
        raise ContenderError(f"{m.name}: round {rnd.number}: restore gave back other bytes for {wrong[:5]}")
    now = set(listing(repo))
    if now != tree:
        extra = sorted(now - tree)[:5]
        missing = sorted(tree - now)[:5]
        raise ContenderError(f"{m.name}: round {rnd.number}: tree differs after restore: extra {extra}, missing {missing}")
    s.checked += 1
    apply_edits(repo, rnd, nonce, m.name)
    if digests(repo, rnd.touched) != edited:
        raise ContenderError(f"{m.name}: round {rnd.number}: the edits, redone, gave other bytes")
    tree.difference_update(rnd.delete)
    for rel in rnd.create:
        tree.add(rel)
        parent = Path(rel).parent
        while str(parent) != ".":
            tree.add(f"{parent}/")
            parent = parent.parent
    if not timed:
        return
    s.checkpoint_s.append(t.seconds)
    s.bytes.append(size1 - size0)
    if after is not None:
        s.checkpoint_s.append(after.seconds)
        s.bytes.append(size2 - size1)
    s.restore_s.append(r.seconds)
    s.peak_kb = max(s.peak_kb, t.peak_kb, r.peak_kb, after.peak_kb if after else 0)
