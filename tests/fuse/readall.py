#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read everything below mounts: listings, stats, symlinks, xattrs,
and each file's contents until its end or its first error. Prints a
line per DIR: DIR, then the names of the errors met ("EIO ELOOP"), or
"none". One process for many mounts: a Python start per image cost
more than the reading.

usage: readall.py DIR...

Not tar: GNU tar pads a file whose read fails with zeros to its stated
size, which a corrupt image may put at a TiB.
"""
import errno
import os
import sys

seen = set()


def note(e):
    seen.add(errno.errorcode.get(e.errno, str(e.errno)))


def xattrs(path):
    try:
        for n in os.listxattr(path, follow_symlinks=False):
            os.getxattr(path, n, follow_symlinks=False)
    except OSError as e:
        note(e)


def contents(path):
    try:
        os.lstat(path)
        xattrs(path)
        if os.path.islink(path):
            os.readlink(path)
        elif os.path.isfile(path):
            with open(path, "rb", buffering=0) as f:
                while f.read(1 << 20):
                    pass
    except OSError as e:
        note(e)


for top in sys.argv[1:]:
    seen = set()
    for root, dirs, files in os.walk(top, onerror=note):
        xattrs(root)
        for name in files:
            contents(os.path.join(root, name))
    print(top, " ".join(sorted(seen)) or "none", flush=True)
