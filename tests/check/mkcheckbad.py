#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write images with one defect each, for the checker.

usage: mkcheckbad.py RAW.img GOOD.img OUTDIR

RAW.img: mksquashfs -noI -noD -noF -noX of a tree whose root holds d/
(a directory), f1 and f2 (hard links of one file), s (a symlink) and
big (a file of several blocks); GOOD.img: the same tree, compressed
(gzip). Each variant breaks one thing the checker must find; the lines
of OUTDIR/cases.txt are "IMAGE TABLE": the table the report must name.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "hostile"))
import mkhostile  # noqa: E402

SB = mkhostile.SB


def sb(img):
    return list(struct.unpack_from(SB, img, 0))


def listing(img):
    """{name: (entry offset, inode file offset, header offset)}."""
    pos, size = mkhostile.root_listing(img)
    f = sb(img)
    end, out = pos + size, {}
    while pos < end:
        count, start, _num = struct.unpack_from("<IIi", img, pos)
        hdr = pos
        pos += 12
        for _ in range(count + 1):
            off, _delta, _type, nsize = struct.unpack_from("<HhHH", img, pos)
            name = img[pos + 8:pos + 9 + nsize]
            out[name] = (pos, f[15] + start + 2 + off, hdr)
            pos += 9 + nsize
    return out


def patch(img, off, fmt, *vals):
    out = bytearray(img)
    struct.pack_into(fmt, out, off, *vals)
    return bytes(out)


def main():
    raw = open(sys.argv[1], "rb").read()
    good = open(sys.argv[2], "rb").read()
    out = sys.argv[3]
    ents = listing(raw)
    f = sb(raw)
    d_ent, d_ino, _ = ents[b"d"]
    f1_ent, f1_ino, _ = ents[b"f1"]
    s_ent, s_ino, _ = ents[b"s"]
    big_ino = ents[b"big"][1]
    assert struct.unpack_from("<H", raw, f1_ino)[0] == 9, "f1: extended file"
    assert struct.unpack_from("<H", raw, d_ino)[0] == 1, "d: basic directory"
    assert struct.unpack_from("<H", raw, big_ino)[0] == 2, "big: basic file"
    cases = {}
    # a hard link count that disagrees with the references
    cases["link-count"] = (patch(raw, f1_ino + 40, "<I", 3), "links")
    # a directory's link count
    cases["dir-link-count"] = (patch(raw, d_ino + 20, "<I", 9), "links")
    # the listing's inode number against the inode's
    cases["listing-inode-number"] = (patch(raw, f1_ent + 2, "<h", 1), "inode")
    # the listing's type against the inode's
    cases["listing-type"] = (patch(raw, s_ent + 4, "<H", 2), "directory")
    # a directory naming the wrong parent
    cases["wrong-parent"] = (patch(raw, d_ino + 28, "<I", 1), "inode")
    # one inode more than the tree holds
    cases["unreachable-inode"] = (patch(raw, 4, "<I", f[1] + 1), "inode")
    # a block size word larger than a block
    cases["block-too-large"] = (patch(raw, big_ino + 32, "<I", 0x00FFFFFF), "inode")
    # a block that decompresses to the wrong size: the file claims more
    cases["file-size"] = (patch(raw, big_ino + 28, "<I",
                                struct.unpack_from("<I", raw, big_ino + 28)[0] - 5000), "data")
    # a fragment entry past the end of the image
    floc = struct.unpack_from("<Q", raw, f[17])[0]
    cases["fragment-outside"] = (patch(raw, floc + 2, "<Q", f[12] + 4096), "fragment")
    # an export entry pointing at another inode
    eloc = struct.unpack_from("<Q", raw, f[18])[0]
    first = struct.unpack_from("<Q", raw, eloc + 2)[0]
    cases["export-entry"] = (patch(raw, eloc + 2 + 8, "<Q", first), "export")
    # an owner index out of range
    cases["uid-index"] = (patch(raw, s_ino + 4, "<H", 200), "inode")
    # a symlink target of no bytes
    cases["symlink-size"] = (patch(raw, s_ino + 20, "<I", 0), "inode")
    # a duplicate name and an unsorted listing
    cases["duplicate-name"] = (mkhostile.rename(raw, b"f1", b"f2"), "directory")
    cases["unsorted"] = (mkhostile.rename(raw, b"f2", b"f0"), "directory")
    # garbage in the first data block of a compressed image
    cases["data-garbage"] = (bytes(good[:200]) + bytes(64) + good[264:], "data")
    # the superblock: an unknown compressor
    cases["superblock-codec"] = (patch(good, 20, "<H", 9), "superblock")
    with open(os.path.join(out, "cases.txt"), "w") as fh:
        for name, (data, table) in sorted(cases.items()):
            with open(os.path.join(out, name + ".img"), "wb") as img:
                img.write(data)
            fh.write("%s.img %s\n" % (name, table))


if __name__ == "__main__":
    main()
