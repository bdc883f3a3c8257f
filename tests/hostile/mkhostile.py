#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write hostile variants of a SquashFS image into a directory.

usage: mkhostile.py RAW.img OUTDIR

RAW.img was made by mksquashfs with uncompressed metadata (-noI -noD -noF
-noX) from a tree whose root holds: evil (a symlink out of the tree),
evim/ (a directory holding payload), k (a file), kk/ (a directory holding
escape). Each variant renames one root entry in place, keeping the name
length, so the listing stays well formed but says something hostile:
two entries called evil (a symlink, then a directory written through
it: CVE-2021-41072's shape), an unsorted listing, the names ".", "..",
one holding '/' and one holding a NUL byte. OUTDIR/cases.txt lists them.
"""
import os
import struct
import sys

SB = "<IIIIIHHHHHHQQQQQQQQ"


def root_listing(img):
    """(file offset, size) of the root directory's listing."""
    f = struct.unpack_from(SB, img, 0)
    root, inode_table, dir_table = f[11], f[15], f[16]
    ipos = inode_table + (root >> 16) + 2 + (root & 0xFFFF)
    itype = struct.unpack_from("<H", img, ipos)[0]
    if itype == 1:
        start, _nlink, size, off = struct.unpack_from("<IIHH", img, ipos + 16)
    elif itype == 8:
        _nlink, size, start, _parent, _idx, off = struct.unpack_from(
            "<IIIIHH", img, ipos + 16)
    else:
        sys.exit("mkhostile: the root is not a directory")
    # uncompressed metadata: a 2-byte header, then the bytes
    if start != 0 or off + size - 3 > 8192:
        sys.exit("mkhostile: the root listing must sit in the first block")
    return dir_table + 2 + off, size - 3


def entries(img):
    """{name: file offset of its name bytes} of the root listing."""
    pos, size = root_listing(img)
    end = pos + size
    out = {}
    while pos < end:
        count = struct.unpack_from("<I", img, pos)[0] + 1
        pos += 12
        for _ in range(count):
            nsize = struct.unpack_from("<H", img, pos + 6)[0] + 1
            out[img[pos + 8:pos + 8 + nsize]] = pos + 8
            pos += 8 + nsize
    return out


def rename(img, old, new):
    assert len(old) == len(new)
    at = entries(img)[old]
    out = bytearray(img)
    out[at:at + len(new)] = new
    return bytes(out)


def main():
    raw = open(sys.argv[1], "rb").read()
    outdir = sys.argv[2]
    names = entries(raw)
    for need in (b"evil", b"evim", b"k", b"kk"):
        if need not in names:
            sys.exit("mkhostile: no root entry %r" % need)
    cases = {
        "duplicate-name": rename(raw, b"evim", b"evil"),
        "unsorted": rename(raw, b"evim", b"evik"),
        "dot": rename(raw, b"k", b"."),
        "dotdot": rename(raw, b"kk", b".."),
        "slash": rename(raw, b"kk", b"k/"),
        "nul-byte": rename(raw, b"kk", b"k\0"),
    }
    with open(os.path.join(outdir, "cases.txt"), "w") as fh:
        for name, data in sorted(cases.items()):
            with open(os.path.join(outdir, name + ".img"), "wb") as img:
                img.write(data)
            fh.write(name + ".img\n")


if __name__ == "__main__":
    main()
