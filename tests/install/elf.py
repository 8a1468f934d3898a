#!/usr/bin/env python3
"""Checks the machine type of a built ELF file without running it.

`elf.py FILE MACHINE` reads FILE's ELF header; FILE may also be
`WHEEL.whl` (then every `.so` inside it is read). MACHINE is `x86_64`
(e_machine 62) or `aarch64` (183). `--static` also requires no program
interpreter (PT_INTERP), i.e. a statically linked executable.
Prints what it found; exits 1 if anything differs.
"""

from __future__ import annotations

import struct
import sys
import zipfile

MACHINES = {"x86_64": 62, "aarch64": 183}
PT_INTERP = 3


def describe(name: str, data: bytes) -> tuple[int, bool]:
    """e_machine and whether a PT_INTERP segment exists (64-bit little-endian ELF)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"elf.py: {name} is not a 64-bit little-endian ELF file")
    machine = struct.unpack_from("<H", data, 18)[0]
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    interp = any(
        struct.unpack_from("<I", data, phoff + i * phentsize)[0] == PT_INTERP for i in range(phnum)
    )
    return machine, interp


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--static"]
    static = "--static" in sys.argv[1:]
    path, want = args[0], MACHINES[args[1]]
    if path.endswith(".whl"):
        with zipfile.ZipFile(path) as wheel:
            files = {n: wheel.read(n) for n in wheel.namelist() if n.endswith(".so")}
    else:
        with open(path, "rb") as f:
            files = {path: f.read()}
    if not files:
        print(f"elf.py: no ELF file in {path}", file=sys.stderr)
        return 1
    bad = 0
    for name, data in files.items():
        machine, interp = describe(name, data)
        ok = machine == want and not (static and interp)
        bad += not ok
        linked = (", static" if not interp else ", has an interpreter (dynamic)") if static else ""
        print(f"{'ok  ' if ok else 'FAIL'} {name}: e_machine {machine} (want {want}){linked}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
