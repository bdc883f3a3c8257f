#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mkbadlist.py IMAGE START FRAG OFFSET SIZE OUTDIR: from an image with
uncompressed inodes, copies whose regular file (block list at START,
fragment FRAG at OFFSET, SIZE bytes) has a block list that does not fit:
a size word past the block size, blocks starting past the image's end,
a tail offset past its fragment block. Only the list is wrong: the
reader decompresses nothing that lies, so img2img's copy of stored
blocks must notice by itself."""
import os
import struct
import sys


def main():
    img = open(sys.argv[1], "rb").read()
    start, frag, offset, size = (int(a) for a in sys.argv[2:6])
    out = sys.argv[6]
    # a basic file inode: header (16 bytes), blocks_start, fragment,
    # offset, file_size, then the size words
    key = struct.pack("<IIII", start, frag, offset, size)
    at = img.find(key)
    if at < 0 or img.find(key, at + 1) >= 0:
        sys.exit("the inode is not found once")
    cases = {
        "word-past-block-size": (at + 16, struct.pack("<I", 0x00FFFFFF)),
        "blocks-past-end": (at, struct.pack("<I", len(img) + 4096)),
        "tail-past-fragment": (at + 8, struct.pack("<I", 131072 - 10)),
    }
    for name, (pos, data) in cases.items():
        bad = bytearray(img)
        bad[pos:pos + len(data)] = data
        with open(os.path.join(out, name + ".img"), "wb") as fh:
            fh.write(bad)


if __name__ == "__main__":
    main()
