#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare a FUSE mount of an image with the kernel's mount of the same
image on what treecmp does not see: each entry's st_ino (--ino: the
kernel's squashfs numbers inodes as the image does, as sqpack-fuse
must, so hard links share it), and each regular file's holes as
SEEK_DATA and SEEK_HOLE report them, walked from the start and probed
at offsets through the file. Prints each difference (at most 20) and
the number of entries and of seeks compared.

usage: kernelsame.py [--ino] FUSE_DIR KERNEL_DIR
exit: 0 the same, 1 different, 2 bad usage
"""
import errno
import os
import stat
import sys


def seek(fd, off, whence):
    try:
        return os.lseek(fd, off, whence)
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def holes(path, size):
    """The answers to SEEK_DATA and SEEK_HOLE: from the start, alternating
    to the end, then at about 64 probes through the file and its ends.
    A file of one block (4 KiB) or less has no room for a hole: one
    seek of each kind."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if size <= 4096:
            return [seek(fd, 0, os.SEEK_DATA), seek(fd, 0, os.SEEK_HOLE)]
        got, off = [], 0
        while isinstance(off, int) and off < size and len(got) < 1000:
            off = seek(fd, off, os.SEEK_DATA)
            got.append(off)
            if isinstance(off, int):
                off = seek(fd, off, os.SEEK_HOLE)
                got.append(off)
        step = max(size // 64, 4096)
        for off in list(range(0, size, step)) + [size - 1, size]:
            got += [seek(fd, off, os.SEEK_DATA), seek(fd, off, os.SEEK_HOLE)]
        return got
    finally:
        os.close(fd)


def main(argv):
    ino = argv[1:2] == ["--ino"]
    dirs = argv[2:] if ino else argv[1:]
    if len(dirs) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    fuse, kern = dirs
    diffs, entries, seeks = [], 0, 0
    for root, subdirs, files in os.walk(kern):
        subdirs.sort()
        for name in sorted(subdirs + files) + ([] if root != kern else ["."]):
            k = os.path.normpath(os.path.join(root, name))
            rel = os.path.relpath(k, kern)
            f = os.path.join(fuse, rel)
            entries += 1
            try:
                ks, fs = os.lstat(k), os.lstat(f)
            except OSError as e:
                diffs.append(f"{rel}: {e}")
                continue
            if ino and ks.st_ino != fs.st_ino:
                diffs.append(f"{rel}: st_ino: {fs.st_ino} vs the kernel's {ks.st_ino}")
            if stat.S_ISREG(ks.st_mode) and ks.st_size > 0:
                fh, kh = holes(f, fs.st_size), holes(k, ks.st_size)
                seeks += len(kh)
                if fh != kh:
                    diffs.append(f"{rel}: SEEK_DATA/SEEK_HOLE: {fh[:12]} vs the kernel's {kh[:12]}")
    for d in diffs[:20]:
        print(d)
    print(f"{len(diffs)} differences in {entries} entries, {seeks} seeks")
    return 1 if diffs else 0


sys.exit(main(sys.argv))
