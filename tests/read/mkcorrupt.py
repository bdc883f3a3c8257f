#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write corrupted variants of SquashFS images into a directory.

usage: mkcorrupt.py GOOD.img UNCOMPRESSED.img OUTDIR

GOOD.img has compressed metadata (gzip); UNCOMPRESSED.img was made with
uncompressed metadata (mksquashfs -noI -noD -noF -noX), so its directory
entries can be rewritten to build a loop. Each variant is one defect;
OUTDIR/cases.txt lists the file names.
"""
import os
import struct
import sys

SB = "<IIIIIHHHHHHQQQQQQQQ"


def sb_fields(img):
    return list(struct.unpack_from(SB, img, 0))


def with_sb(img, **changes):
    names = ["magic", "inodes", "mtime", "block_size", "frags", "comp",
             "block_log", "flags", "ids", "vmajor", "vminor", "root",
             "bytes_used", "id_table", "xattr_table", "inode_table",
             "dir_table", "frag_table", "export_table"]
    f = sb_fields(img)
    for k, v in changes.items():
        f[names.index(k)] = v
    out = bytearray(img)
    struct.pack_into(SB, out, 0, *f)
    return bytes(out)


def flip(img, off, count=8):
    out = bytearray(img)
    for i in range(count):
        if off + i < len(out):
            out[off + i] ^= 0xA5
    return bytes(out)


def loop_image(img):
    """Point the root directory's first entry back at the root inode."""
    f = sb_fields(img)
    root, inode_table, dir_table = f[11], f[15], f[16]
    rblock, roff = root >> 16, root & 0xFFFF
    ipos = inode_table + rblock + 2 + roff       # uncompressed metadata
    itype = struct.unpack_from("<H", img, ipos)[0]
    if itype == 1:
        start, _nlink, _size, off = struct.unpack_from("<IIHH", img, ipos + 16)
    else:  # extended directory
        _nlink, _size, start, _parent, _idx, off = struct.unpack_from(
            "<IIIIHH", img, ipos + 16)
    dpos = dir_table + start + 2 + off
    out = bytearray(img)
    struct.pack_into("<I", out, dpos + 4, rblock)  # header: inode block
    struct.pack_into("<HhH", out, dpos + 12, roff, 0, 1)  # entry -> root
    return bytes(out)


def main():
    good = open(sys.argv[1], "rb").read()
    raw = open(sys.argv[2], "rb").read()
    out = sys.argv[3]
    f = sb_fields(good)
    size = len(good)
    used = f[12]  # bytes_used: what follows is padding
    cases = {}
    for cut in (0, 10, 95, 96, 150, 4096, used // 3, used // 2, used - 1,
                f[15] + 1, f[16] + 1, f[13] + 2):
        if 0 <= cut < used:
            cases["truncated-at-%d" % cut] = good[:cut]
    cases["bad-magic"] = with_sb(good, magic=0x12345678)
    cases["version-3.1"] = with_sb(good, vmajor=3, vminor=1)
    cases["block-size-not-power"] = with_sb(good, block_size=100000)
    cases["block-log-mismatch"] = with_sb(good, block_log=12)
    cases["bytes-used-past-end"] = with_sb(good, bytes_used=size * 4)
    cases["inode-table-past-end"] = with_sb(good, inode_table=size * 2)
    cases["dir-table-past-end"] = with_sb(good, dir_table=size * 2)
    cases["id-table-past-end"] = with_sb(good, id_table=size * 2)
    cases["frag-table-past-end"] = with_sb(good, frag_table=size * 2)
    cases["xattr-table-past-end"] = with_sb(good, xattr_table=size * 2)
    cases["root-inode-out-of-range"] = with_sb(good, root=(size << 16))
    cases["huge-id-count"] = with_sb(good, ids=65535)
    cases["huge-frag-count"] = with_sb(good, frags=0xFFFFFFFF)
    cases["zero-inode-count"] = with_sb(good, inodes=0)
    cases["unknown-compressor"] = with_sb(good, comp=9)
    cases["wrong-compressor"] = with_sb(good, comp=6)
    cases["flipped-inode-table"] = flip(good, f[15] + 20)
    cases["flipped-dir-table"] = flip(good, f[16] + 10)
    cases["flipped-first-data-block"] = flip(good, 96 + 300, 64)
    cases["zeroed-inode-block-header"] = flip(good, f[15], 2)
    cases["flipped-id-table-location"] = flip(good, f[13], 8)
    cases["directory-loop"] = loop_image(raw)
    raw_f = sb_fields(raw)
    cases["uncompressed-dir-garbage"] = flip(raw, raw_f[16] + 2, 40)
    cases["uncompressed-inode-garbage"] = flip(raw, raw_f[15] + 2, 64)
    cases["export-table-past-end"] = with_sb(good, export_table=size * 2)
    cases["export-table-in-superblock"] = with_sb(good, export_table=40)
    # the fragment table's block list points at itself
    ftab = raw_f[17]
    selfref = bytearray(raw)
    struct.pack_into("<Q", selfref, ftab, ftab)
    cases["fragment-table-self-reference"] = bytes(selfref)
    # the first fragment entry (uncompressed metadata) garbled
    floc = struct.unpack_from("<Q", raw, ftab)[0]
    cases["uncompressed-fragment-entry-garbage"] = flip(raw, floc + 2, 16)
    names = []
    for name, data in sorted(cases.items()):
        with open(os.path.join(out, name + ".img"), "wb") as fh:
            fh.write(data)
        names.append(name + ".img")
    with open(os.path.join(out, "cases.txt"), "w") as fh:
        fh.write("\n".join(names) + "\n")


if __name__ == "__main__":
    main()
