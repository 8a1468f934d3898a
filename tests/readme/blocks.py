#!/usr/bin/env python3
"""The code blocks of every Markdown file in the repository, as programs.

Every fenced block has a language. Blocks in `python`, `js`, `sh` and `rust`
are examples a user would paste, and the test suites run them exactly as
written: `python` (bindings-py/tests/test_readme.py), `js` (the Node and wasm
packages' readme tests), `sh` (cli/tests/readme.rs, with the built
`agent-checkpoint` first on PATH), `rust` (doctests: the crate that owns the
file includes it). Blocks of one language in one section (the text between
two `#`/`##` headings) form one program, run in a fresh temporary directory. Lines an
example shows as output (`#> ...` in python and sh, `//> ...` in js) must be
exactly the program's standard output, in order. A section is what lies
between two `#` or `##` headings (`###` subsections belong to their section);
a block whose first line of code is an `import` starts a new program.

A block whose info string says `no-run` is not run; the line right above it
must be an HTML comment `<!-- no-run: <why> -->` saying why (for example: it
installs packages). A block whose comment says ``excerpt of `FILE` `` (a
fragment of a host program, an interface) is checked line by line against
that file, so it cannot drift from the code the tests run.
Other languages (`json`, `text`, `wit`, `ts`, `toml`, ...) are data.

Usage: blocks.py LANG [--only GLOB]... [--skip GLOB]...
prints a JSON list of programs: {"file", "section", "line", "code", "shown"}.
`blocks.py --check` checks the rules above for every file and prints the
skipped blocks with their reasons. It also checks links: every relative
Markdown link (`[text](path)`, `[text](path#anchor)`) outside code blocks
names a file or directory of the repository, and every `*.md` file a
tracked text file cites by name (`STORE.md §4`, `docs/STORE.md`) is one.
"""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = {"python", "js", "sh", "rust"}
SHOWN = {"python": "#> ", "sh": "#> ", "js": "//> "}
FENCE = re.compile(r"^(```+)(.*)$")
NO_RUN_REASON = re.compile(r"^<!-- no-run: (.+?) -->$")
COMMENT = re.compile(r"^<!-- (.+?) -->$")
EXCERPT = re.compile(r"excerpt of `([^`]+)`")
DOC_PREFIX = re.compile(r"^(//!|///|//|#)\s?")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# A cited document: an upper-case name (`STORE.md`, `docs/FORMAT.md`), as
# the docs and comments cite specs; lower-case ones are example files.
CITED_MD = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[A-Z][A-Z0-9_-]*\.md)\b")
# Text files whose citations of `*.md` files are checked (besides Markdown).
CITING = ("*.rs", "*.py", "*.pyi", "*.sh", "*.ts", "*.mjs", "*.toml")


def markdown_files() -> list[Path]:
    """Every tracked (or, outside git, every) Markdown file of the repository."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "*.md"],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
        files = [ROOT / line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        files = list(ROOT.rglob("*.md"))
    skip = ("node_modules", "target", ".venv", "/corpus/")
    return sorted(f for f in files if f.exists() and not any(s in f.as_posix() for s in skip))


def blocks(path: Path) -> list[dict]:
    """The fenced blocks of one file: language, flags, section, line, code."""
    found = []
    section = ""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = re.match(r"^(#{1,2}) (.*)$", line)
        if heading:
            section = heading.group(2).strip()
        fence = FENCE.match(line)
        if not fence:
            i += 1
            continue
        marker, info = fence.group(1), fence.group(2).split()
        start = i
        i += 1
        code = []
        while i < len(lines) and not lines[i].startswith(marker):
            code.append(lines[i])
            i += 1
        i += 1
        reason = NO_RUN_REASON.match(lines[start - 1]) if start > 0 else None
        comment = COMMENT.match(lines[start - 1]) if start > 0 else None
        excerpt = EXCERPT.search(comment.group(1)) if comment else None
        found.append({
            "file": path.relative_to(ROOT).as_posix(),
            "section": section,
            "line": start + 1,
            "lang": info[0] if info else "",
            "no_run": "no-run" in info[1:],
            "reason": reason.group(1) if reason else None,
            "excerpt_of": excerpt.group(1) if excerpt else None,
            "code": "\n".join(code) + "\n",
        })
    return found


def starts_a_program(code: str) -> bool:
    """Whether a block stands alone: its first line of code imports."""
    for line in code.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "//")):
            continue
        return stripped.startswith(("import ", "from "))
    return False


def programs(lang: str, only: list[str], skip: list[str]) -> list[dict]:
    """The programs of `lang`: blocks of one section joined, in order."""
    out: list[dict] = []
    for path in markdown_files():
        rel = path.relative_to(ROOT).as_posix()
        if only and not any(fnmatch.fnmatch(rel, g) for g in only):
            continue
        if any(fnmatch.fnmatch(rel, g) for g in skip):
            continue
        for block in blocks(path):
            if block["lang"] != lang or block["no_run"]:
                continue
            last = out[-1] if out else None
            same_section = (
                last is not None
                and last["file"] == block["file"]
                and last["section"] == block["section"]
            )
            if same_section and not starts_a_program(block["code"]):
                last["code"] += block["code"]
            else:
                out.append({k: block[k] for k in ("file", "section", "line", "code")})
    prefix = SHOWN.get(lang)
    for program in out:
        program["shown"] = [
            line.strip()[len(prefix):]
            for line in program["code"].splitlines()
            if prefix and line.strip().startswith(prefix)
        ]
    return out


def excerpt_problems(block: dict) -> list[str]:
    """The lines of a block marked `excerpt of `FILE`` that FILE lacks.

    Lines are compared stripped, and FILE's lines also without a leading
    comment marker (`//!`, `///`, `//`, `#`), so a README may quote code from
    a doc comment or a docstring; the quote cannot drift from its source.
    """
    source = ROOT / block["excerpt_of"]
    if not source.exists():
        return [f"excerpt of a missing file {block['excerpt_of']}"]
    known = set()
    for line in source.read_text(encoding="utf-8").splitlines():
        known.add(line.strip())
        known.add(DOC_PREFIX.sub("", line.strip()).strip())
    return [
        f"not in {block['excerpt_of']}: {line.strip()}"
        for line in block["code"].splitlines()
        if line.strip() and line.strip() not in known
    ]


def tracked(globs: tuple[str, ...]) -> list[Path]:
    """The tracked (and untracked, not ignored) files matching `globs`."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", *globs],
            cwd=ROOT, check=True, capture_output=True, text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    skip = ("node_modules", "target", ".venv", "/corpus/")
    return sorted(
        ROOT / line for line in out.splitlines()
        if line and (ROOT / line).is_file() and not any(s in line for s in skip)
    )


def prose(path: Path) -> list[tuple[int, str]]:
    """The lines of a Markdown file outside fenced code blocks, numbered."""
    out, fence = [], None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = FENCE.match(line)
        if match and (fence is None or line.startswith(fence)):
            fence = match.group(1) if fence is None else None
            continue
        if fence is None:
            out.append((number, line))
    return out


def link_problems() -> list[str]:
    """Relative links to nothing, and cited `*.md` files that are not here."""
    problems = []
    names = {p.name for p in tracked(("*.md",))}
    for path in markdown_files():
        rel = path.relative_to(ROOT).as_posix()
        for number, line in prose(path):
            # Inline code is not a link.
            text = re.sub(r"`[^`]*`", "", line)
            for target in LINK.findall(text):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue
                file_part = target.split("#", 1)[0]
                if not (path.parent / file_part).exists():
                    problems.append(f"{rel}:{number}: a link to a missing file: {target}")
    for path in markdown_files() + tracked(CITING):
        rel = path.relative_to(ROOT).as_posix()
        try:
            if path.suffix == ".md":
                lines = prose(path)
            else:
                lines = list(enumerate(path.read_text(encoding="utf-8").splitlines(), 1))
        except UnicodeDecodeError:
            continue
        for number, line in lines:
            for cited in CITED_MD.findall(line):
                here = (path.parent / cited).exists() or (ROOT / cited).exists()
                if not here and Path(cited).name not in names:
                    problems.append(f"{rel}:{number}: cites {cited}, which is not in the repository")
    return problems


def check() -> int:
    """Every block has a language; every no-run block says why; every
    excerpt is one; every relative link and cited Markdown file exists."""
    problems, skipped = link_problems(), []
    for path in markdown_files():
        for block in blocks(path):
            where = f"{block['file']}:{block['line']}"
            if block["excerpt_of"]:
                problems.extend(f"{where}: {p}" for p in excerpt_problems(block))
            if not block["lang"]:
                problems.append(f"{where}: a code block without a language")
            if block["no_run"]:
                if not block["reason"]:
                    problems.append(f"{where}: no-run without a <!-- no-run: why --> line above")
                skipped.append(f"{where} ({block['lang']}): {block['reason']}")
    for line in skipped:
        print(f"not run: {line}")
    for line in problems:
        print(f"error: {line}", file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        return check()
    if not argv or argv[0] not in RUN:
        print(__doc__, file=sys.stderr)
        return 2
    lang, only, skip = argv[0], [], []
    rest = argv[1:]
    while rest:
        flag, value, rest = rest[0], rest[1], rest[2:]
        (only if flag == "--only" else skip).append(value)
    json.dump(programs(lang, only, skip), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
