"""A case-insensitive, normalising passthrough filesystem (FUSE, fusepy).

Mounts BACKING at MOUNTPOINT. A name is looked up by its key, NFC with
ASCII letters lowercased, as APFS does (case-insensitive, normalisation-
insensitive, case- and form-preserving): `README.md` finds `readme.md`,
`cafe\u0301` finds `caf\u00e9`. A created entry keeps the spelling it was
created with. A rename onto a name that finds another entry replaces that
entry; the entry then bears the new spelling (APFS, NTFS), or with
`--keep-replaced-spelling` the replaced entry's (ext4 `casefold`). A rename
onto a name that finds the entry itself changes only its spelling.

Used by tests/casefold/run only: single-threaded, no caching in the kernel
(entry, negative and attribute timeouts 0), inode numbers passed through.

Usage: foldfs.py [--keep-replaced-spelling] BACKING MOUNTPOINT
"""

import errno
import os
import sys
import unicodedata

from fuse import FUSE, FuseOSError, Operations


def key(name):
    """What two spellings of one name share here."""
    nfc = unicodedata.normalize("NFC", name)
    return "".join(c.lower() if c.isascii() else c for c in nfc)


class FoldFS(Operations):
    """The passthrough; every path is resolved through `real`."""

    def __init__(self, backing, keep_replaced_spelling):
        self.backing = os.path.realpath(backing)
        self.keep_replaced_spelling = keep_replaced_spelling

    def find(self, real_dir, name):
        """The entry of `real_dir` that `name` finds (its real spelling), or None."""
        try:
            names = os.listdir(real_dir)
        except OSError:
            return None
        if name in names:
            return name
        wanted = key(name)
        return next((n for n in names if key(n) == wanted), None)

    def real(self, path):
        """The backing path `path` names: existing components as stored."""
        real = self.backing
        parts = [p for p in path.split("/") if p]
        for i, part in enumerate(parts):
            found = self.find(real, part)
            if found is None:
                return os.path.join(real, *parts[i:])
            real = os.path.join(real, found)
        return real

    def parent_and_name(self, path):
        """The real parent of `path` and the entry in it `path` finds (or the name given)."""
        head, name = path.rsplit("/", 1)
        real_dir = self.real(head or "/")
        return real_dir, self.find(real_dir, name), name

    # Metadata and listing.

    def getattr(self, path, fh=None):
        try:
            st = os.lstat(self.real(path))
        except OSError as e:
            raise FuseOSError(e.errno) from e
        keys = ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size",
                "st_atime", "st_mtime", "st_ctime")
        return {k: getattr(st, k) for k in keys}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self.real(path))

    def readlink(self, path):
        return os.readlink(self.real(path))

    def statfs(self, path):
        st = os.statvfs(self.real(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail",
                "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")
        return {k: getattr(st, k) for k in keys}

    def chmod(self, path, mode):
        os.chmod(self.real(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self.real(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self.real(path), times, follow_symlinks=False)

    # Entries.

    def mkdir(self, path, mode):
        real_dir, found, name = self.parent_and_name(path)
        if found is not None:
            raise FuseOSError(errno.EEXIST)
        os.mkdir(os.path.join(real_dir, name), mode)

    def rmdir(self, path):
        os.rmdir(self.real(path))

    def unlink(self, path):
        os.unlink(self.real(path))

    def symlink(self, target, source):
        real_dir, found, name = self.parent_and_name(target)
        if found is not None:
            raise FuseOSError(errno.EEXIST)
        os.symlink(source, os.path.join(real_dir, name))

    def rename(self, old, new):
        real_old = self.real(old)
        if not os.path.lexists(real_old):
            raise FuseOSError(errno.ENOENT)
        real_dir, found, name = self.parent_and_name(new)
        spelled = os.path.join(real_dir, name)
        if found is None:
            os.rename(real_old, spelled)
            return
        existing = os.path.join(real_dir, found)
        if os.path.samefile(real_old, existing) if not os.path.islink(existing) \
                else real_old == existing:
            # The entry itself: only its spelling changes.
            os.rename(real_old, spelled)
            return
        os.rename(real_old, existing)
        if not self.keep_replaced_spelling and existing != spelled:
            os.rename(existing, spelled)

    # File contents.

    def open(self, path, flags):
        return os.open(self.real(path), flags)

    def create(self, path, mode, fi=None):
        real_dir, found, name = self.parent_and_name(path)
        real = os.path.join(real_dir, found if found is not None else name)
        return os.open(real, os.O_WRONLY | os.O_CREAT, mode)

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)

    def truncate(self, path, length, fh=None):
        if fh is None:
            os.truncate(self.real(path), length)
        else:
            os.ftruncate(fh, length)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        os.fsync(fh)

    def release(self, path, fh):
        os.close(fh)


def main(argv):
    keep = "--keep-replaced-spelling" in argv
    args = [a for a in argv if a != "--keep-replaced-spelling"]
    if len(args) != 2:
        sys.exit(__doc__)
    backing, mountpoint = args
    FUSE(FoldFS(backing, keep), mountpoint, foreground=True, nothreads=True,
         use_ino=True, entry_timeout=0, negative_timeout=0, attr_timeout=0)


if __name__ == "__main__":
    main(sys.argv[1:])
