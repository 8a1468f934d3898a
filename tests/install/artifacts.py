#!/usr/bin/env python3
"""Checks a built artifact's structure for its target, without running it.

    artifacts.py TARGET KIND FILE

TARGET is one of the seven Rust targets scripts/dist builds for; KIND is
`wheel` (FILE is a .whl), `napi` (an npm platform package .tgz) or `cli` (a
CLI archive, .tar.gz or .zip; or a bare binary of either). Every native
file inside is read:

- ELF (Linux): 64-bit little-endian, `e_machine` of the target; glibc
  targets need no symbol version newer than GLIBC_2.17 (manylinux2014) and
  no musl; musl targets need musl's libc (`libc.musl-*.so.1`) and no glibc
  version, or, for the CLI, no program interpreter at all (static);
- Mach-O (macOS): 64-bit, the target's CPU type, a minimum OS version
  (LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX) no newer than the target's
  deployment target and equal to the wheel tag's, on arm64 a code
  signature whose hashes match every page, and links to nothing
  outside /usr/lib and /System/Library (the addons find Node's and Python's
  symbols at load time);
- PE (Windows): PE32+ for x86-64, a DLL for the addons and an executable for
  the CLI, importing only DLLs a stock Windows 10 has (plus python3.dll for
  the Python module and node.exe for the Node addon: their hosts).

A wheel also has the target's platform tag, in its name and in its WHEEL
file, `cp310-abi3`, `Root-Is-Purelib: false`, and the metadata name
`agent-checkpoint-rs`. Prints one line per check; exits 1 if one fails.
"""

from __future__ import annotations

import io
import re
import struct
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field

DIST_NAME = "agent-checkpoint-rs"


@dataclass(frozen=True)
class Target:
    """What the artifacts of one Rust target must look like."""

    format: str  # elf, macho, pe
    machine: str  # x86_64, aarch64
    wheel_tags: tuple[str, ...]  # every platform tag the wheel may carry
    libc: str | None = None  # glibc, musl (Linux)
    macos_min: tuple[int, int] | None = None


TARGETS = {
    "x86_64-unknown-linux-gnu": Target("elf", "x86_64", ("manylinux_2_17_x86_64", "manylinux2014_x86_64"), "glibc"),
    "aarch64-unknown-linux-gnu": Target("elf", "aarch64", ("manylinux_2_17_aarch64", "manylinux2014_aarch64"), "glibc"),
    "x86_64-unknown-linux-musl": Target("elf", "x86_64", ("musllinux_1_2_x86_64",), "musl"),
    "aarch64-unknown-linux-musl": Target("elf", "aarch64", ("musllinux_1_2_aarch64",), "musl"),
    "x86_64-apple-darwin": Target("macho", "x86_64", ("macosx_10_12_x86_64",), macos_min=(10, 12)),
    "aarch64-apple-darwin": Target("macho", "aarch64", ("macosx_11_0_arm64",), macos_min=(11, 0)),
    "x86_64-pc-windows-gnu": Target("pe", "x86_64", ("win_amd64",)),
}
GLIBC_MAX = (2, 17)
ELF_MACHINES = {"x86_64": 62, "aarch64": 183}
MACHO_CPU = {"x86_64": 0x01000007, "aarch64": 0x0100000C}
PE_MACHINES = {"x86_64": 0x8664, "aarch64": 0xAA64}
# DLLs every Windows 10 (and later) installation has, lower case. Rust's std
# needs kernel32, ntdll, bcryptprimitives (ProcessPrng), ws2_32, userenv and
# the api-ms-win-core-synch API set; the rest is what a crate may add.
STOCK_WINDOWS_DLLS = {
    "advapi32.dll", "bcrypt.dll", "bcryptprimitives.dll", "crypt32.dll", "dbghelp.dll", "gdi32.dll",
    "iphlpapi.dll", "kernel32.dll", "kernelbase.dll", "msvcrt.dll", "mswsock.dll", "ncrypt.dll",
    "netapi32.dll", "ntdll.dll", "ole32.dll", "oleaut32.dll", "powrprof.dll", "psapi.dll", "rpcrt4.dll",
    "secur32.dll", "shell32.dll", "shlwapi.dll", "ucrtbase.dll", "user32.dll", "userenv.dll",
    "version.dll", "winmm.dll", "ws2_32.dll", "synchronization.dll",
}
STOCK_WINDOWS_PREFIXES = ("api-ms-win-core-", "api-ms-win-crt-")


@dataclass
class Checks:
    failed: int = 0
    lines: list[str] = field(default_factory=list)

    def __call__(self, ok: bool, what: str) -> None:
        self.failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}")


# --- ELF -------------------------------------------------------------------------


def elf_info(data: bytes) -> dict:
    """e_machine, the interpreter, DT_NEEDED and the GLIBC_ versions needed."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    machine = struct.unpack_from("<H", data, 18)[0]
    phoff, shoff = struct.unpack_from("<QQ", data, 32)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, 54)
    interp = None
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 3:  # PT_INTERP
            interp = data[p_offset:p_offset + p_filesz].rstrip(b"\0").decode()
    sections = []
    for i in range(shnum):
        sh = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        sections.append({"type": sh[1], "offset": sh[4], "size": sh[5], "link": sh[6], "info": sh[7]})

    def string(table: dict, at: int) -> str:
        start = table["offset"] + at
        return data[start:data.index(b"\0", start)].decode()

    needed, versions = [], set()
    for s in sections:
        if s["type"] == 6:  # SHT_DYNAMIC
            strtab = sections[s["link"]]
            for off in range(s["offset"], s["offset"] + s["size"], 16):
                tag, val = struct.unpack_from("<qQ", data, off)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    needed.append(string(strtab, val))
        if s["type"] == 0x6FFFFFFE:  # SHT_GNU_verneed
            strtab = sections[s["link"]]
            off = s["offset"]
            for _ in range(s["info"]):
                _, cnt, _, aux, nxt = struct.unpack_from("<HHIII", data, off)
                a = off + aux
                for _ in range(cnt):
                    _, _, _, name, anext = struct.unpack_from("<IHHII", data, a)
                    versions.add(string(strtab, name))
                    a += anext
                off += nxt
    return {"machine": machine, "interp": interp, "needed": needed, "versions": versions}


def check_elf(check: Checks, name: str, data: bytes, target: Target, static: bool) -> None:
    info = elf_info(data)
    check(info["machine"] == ELF_MACHINES[target.machine],
          f"{name}: ELF e_machine {info['machine']} ({target.machine} is {ELF_MACHINES[target.machine]})")
    glibc = sorted((tuple(int(x) for x in v[6:].split(".")) for v in info["versions"] if re.fullmatch(r"GLIBC_\d+(\.\d+)*", v)))
    if static:
        check(info["interp"] is None and not info["needed"], f"{name}: static (no interpreter, no DT_NEEDED)")
        return
    if target.libc == "glibc":
        newest = glibc[-1] if glibc else (0,)
        check(newest <= GLIBC_MAX, f"{name}: newest symbol version GLIBC_{'.'.join(map(str, newest))} "
              f"(manylinux2014 allows {'.'.join(map(str, GLIBC_MAX))})")
        check(not any("musl" in n for n in info["needed"]), f"{name}: links glibc, not musl ({', '.join(info['needed'])})")
    else:
        check(any(re.fullmatch(r"libc\.(musl-\w+\.so\.1|so)", n) for n in info["needed"]) and not glibc,
              f"{name}: links musl libc only ({', '.join(info['needed'])}; no GLIBC_ versions)")


# --- Mach-O ----------------------------------------------------------------------


def macho_info(data: bytes) -> dict:
    magic, cpu, _, filetype, ncmds, _, _, _ = struct.unpack_from("<IiiIIIII", data, 0)
    if magic != 0xFEEDFACF:
        raise ValueError(f"not a 64-bit little-endian Mach-O file (magic {magic:#x})")
    off, minos, dylibs, signature = 32, None, [], None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, off)
        if cmd == 0x1D:  # LC_CODE_SIGNATURE
            signature = struct.unpack_from("<II", data, off + 8)
        elif cmd == 0x32:  # LC_BUILD_VERSION
            minos = struct.unpack_from("<I", data, off + 12)[0]
        elif cmd == 0x24 and minos is None:  # LC_VERSION_MIN_MACOSX
            minos = struct.unpack_from("<I", data, off + 8)[0]
        elif cmd in (0xC, 0x80000018, 0x8000001F):  # LC_LOAD_DYLIB, _WEAK_, LC_REEXPORT_DYLIB
            at = off + struct.unpack_from("<I", data, off + 8)[0]
            dylibs.append(data[at:data.index(b"\0", at)].decode())
        off += size
    version = None if minos is None else (minos >> 16, (minos >> 8) & 0xFF)
    return {"cpu": cpu, "filetype": filetype, "minos": version, "dylibs": dylibs,
            "signature": None if signature is None else signature_valid(data, *signature)}


def signature_valid(data: bytes, offset: int, size: int) -> str:
    """Whether the code signature's CodeDirectory hashes every page as it is
    now ("valid", or what is wrong): arm64 macOS refuses to run or load code
    whose signature does not match (a linker signs ad hoc; a later strip
    that does not re-sign breaks it)."""
    blob = data[offset:offset + size]
    magic, _, count = struct.unpack_from(">III", blob, 0)
    if magic != 0xFADE0CC0:  # CSMAGIC_EMBEDDED_SIGNATURE
        return f"no embedded signature (magic {magic:#x})"
    for i in range(count):
        _, at = struct.unpack_from(">II", blob, 12 + i * 8)
        if struct.unpack_from(">I", blob, at)[0] != 0xFADE0C02:  # CSMAGIC_CODEDIRECTORY
            continue
        hash_offset, _, _, n_code, code_limit, hash_size, hash_type, _, page_log = struct.unpack_from(
            ">IIIIIBBBB", blob, at + 16)
        if hash_type != 2:  # SHA-256
            return f"hash type {hash_type}"
        import hashlib

        page = 1 << page_log
        for slot in range(n_code):
            start = slot * page
            chunk = data[start:min(start + page, code_limit)]
            want = blob[at + hash_offset + slot * hash_size:at + hash_offset + (slot + 1) * hash_size]
            if hashlib.sha256(chunk).digest()[:hash_size] != want:
                return f"page {slot} does not match its hash"
        return "valid"
    return "no CodeDirectory"


def check_macho(check: Checks, name: str, data: bytes, target: Target, kind: str, tag_min: tuple[int, int] | None) -> None:
    info = macho_info(data)
    check(info["cpu"] == MACHO_CPU[target.machine], f"{name}: Mach-O cputype {info['cpu']:#x} ({target.machine})")
    want_type = {"cli": 2}.get(kind, (6, 8))  # MH_EXECUTE; MH_DYLIB or MH_BUNDLE
    check(info["filetype"] in (want_type if isinstance(want_type, tuple) else (want_type,)),
          f"{name}: Mach-O filetype {info['filetype']} ({'executable' if kind == 'cli' else 'dylib/bundle'})")
    minos = info["minos"]
    shown = "none" if minos is None else f"{minos[0]}.{minos[1]}"
    check(minos is not None and minos <= target.macos_min,
          f"{name}: minimum macOS {shown} (deployment target {target.macos_min[0]}.{target.macos_min[1]})")
    if tag_min is not None:
        check(minos == tag_min, f"{name}: minimum macOS {shown} is the wheel tag's {tag_min[0]}.{tag_min[1]}")
    if target.machine == "aarch64":
        check(info["signature"] == "valid", f"{name}: code signature {info['signature'] or 'missing'} (arm64 needs one)")
    foreign = [d for d in info["dylibs"] if not d.startswith(("/usr/lib/", "/System/Library/"))]
    check(not foreign, f"{name}: links system libraries only ({', '.join(info['dylibs'])})")


# --- PE --------------------------------------------------------------------------


def pe_info(data: bytes) -> dict:
    if data[:2] != b"MZ":
        raise ValueError("not a PE file (no MZ header)")
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    if data[pe:pe + 4] != b"PE\0\0":
        raise ValueError("not a PE file (no PE signature)")
    machine, nsections, _, _, _, opt_size, characteristics = struct.unpack_from("<HHIIIHH", data, pe + 4)
    opt = pe + 24
    magic = struct.unpack_from("<H", data, opt)[0]
    subsystem = struct.unpack_from("<H", data, opt + 68)[0]
    import_rva = struct.unpack_from("<I", data, opt + 112 + 8)[0]  # data directory 1 (PE32+)
    sections = []
    for i in range(nsections):
        s = opt + opt_size + i * 40
        vsize, vaddr, rawsize, rawptr = struct.unpack_from("<IIII", data, s + 8)
        sections.append((vaddr, max(vsize, rawsize), rawptr))

    def at(rva: int) -> int:
        for vaddr, size, rawptr in sections:
            if vaddr <= rva < vaddr + size:
                return rva - vaddr + rawptr
        raise ValueError(f"RVA {rva:#x} in no section")

    dlls = []
    if import_rva:
        off = at(import_rva)
        while True:
            desc = struct.unpack_from("<IIIII", data, off)
            if not any(desc):
                break
            name_at = at(desc[3])
            dlls.append(data[name_at:data.index(b"\0", name_at)].decode())
            off += 20
    return {"machine": machine, "magic": magic, "dll": bool(characteristics & 0x2000),
            "subsystem": subsystem, "imports": dlls}


def check_pe(check: Checks, name: str, data: bytes, target: Target, kind: str) -> None:
    info = pe_info(data)
    check(info["machine"] == PE_MACHINES[target.machine] and info["magic"] == 0x20B,
          f"{name}: PE32+ machine {info['machine']:#x} ({target.machine})")
    check(info["dll"] == (kind != "cli"), f"{name}: {'a DLL' if info['dll'] else 'an executable'}"
          f" (subsystem {info['subsystem']})")
    host = {"wheel": {"python3.dll"}, "napi": {"node.exe"}}.get(kind, set())
    missing = [d for d in info["imports"] if d.lower() not in STOCK_WINDOWS_DLLS | host
               and not d.lower().startswith(STOCK_WINDOWS_PREFIXES)]
    check(not missing, f"{name}: imports only DLLs of a stock Windows{' and ' + ', '.join(sorted(host)) if host else ''} "
          f"({', '.join(info['imports'])}){'; not stock: ' + ', '.join(missing) if missing else ''}")


# --- artifacts -------------------------------------------------------------------


def members(path: str, kind: str) -> dict[str, bytes]:
    """The native files inside one artifact (or the file itself, when it is no archive)."""
    if not path.endswith((".whl", ".zip", ".tgz", ".tar.gz")):
        with open(path, "rb") as f:
            return {path: f.read()}
    if kind == "wheel" or path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            names = [n for n in z.namelist() if re.search(r"\.(so|pyd|dylib)$|/agent-checkpoint(\.exe)?$", n)]
            return {n: z.read(n) for n in names}
    with tarfile.open(path) as t:
        out = {}
        for m in t.getmembers():
            if m.isfile() and re.search(r"\.node$|/agent-checkpoint(\.exe)?$", m.name):
                f = t.extractfile(m)
                out[m.name] = f.read() if f else b""
        return out


def check_wheel_tags(check: Checks, path: str, target: Target) -> tuple[int, int] | None:
    """The wheel's name, WHEEL and METADATA; returns the macOS version of its tag."""
    base = path.rsplit("/", 1)[-1]
    m = re.fullmatch(r"(?P<dist>[^-]+)-(?P<ver>[^-]+)-cp310-abi3-(?P<plat>[^-]+)\.whl", base)
    check(m is not None and m["dist"] == DIST_NAME.replace("-", "_"),
          f"{base}: {DIST_NAME.replace('-', '_')}-<version>-cp310-abi3-<platform>.whl")
    if m is None:
        return None
    plats = m["plat"].split(".")
    check(set(plats) <= set(target.wheel_tags) and plats[0] in target.wheel_tags,
          f"{base}: platform tag {m['plat']} (the target's: {' or '.join(target.wheel_tags)})")
    with zipfile.ZipFile(path) as z:
        wheel = next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))
        meta = z.read(wheel.replace("WHEEL", "METADATA")).decode()
        text = z.read(wheel).decode()
        names = z.namelist()
    tags = sorted(line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("Tag: "))
    check(tags == sorted(f"cp310-abi3-{p}" for p in plats), f"{base}: WHEEL tags {', '.join(tags)}")
    check("Root-Is-Purelib: false" in text, f"{base}: Root-Is-Purelib: false")
    check(f"\nName: {DIST_NAME}\n" in meta and f"\nVersion: {m['ver']}\n" in meta,
          f"{base}: METADATA Name {DIST_NAME}, Version {m['ver']}")
    for need in ("agent_checkpoint/__init__.py", "agent_checkpoint/py.typed", "agent_checkpoint/_native.pyi"):
        check(need in names, f"{base}: has {need}")
    mac = re.fullmatch(r"macosx_(\d+)_(\d+)_\w+", plats[0])
    return (int(mac[1]), int(mac[2])) if mac else None


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in TARGETS or sys.argv[2] not in ("wheel", "napi", "cli"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    triple, kind, path = sys.argv[1:]
    target = TARGETS[triple]
    check = Checks()
    tag_min = check_wheel_tags(check, path, target) if kind == "wheel" else None
    natives = members(path, kind)
    check(len(natives) == 1, f"{path.rsplit('/', 1)[-1]}: one native file ({', '.join(natives) or 'none'})")
    for name, data in natives.items():
        try:
            if target.format == "elf":
                check_elf(check, name, data, target, static=kind == "cli")
            elif target.format == "macho":
                check_macho(check, name, data, target, kind, tag_min)
            else:
                check_pe(check, name, data, target, kind)
        except (ValueError, struct.error, IndexError) as e:
            check(False, f"{name}: unreadable as {target.format} ({e})")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main())
