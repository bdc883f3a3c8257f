#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check `imginfo --json` of an image against unsquashfs -s, unsquashfs
-lln and the source tree. Usage: summary_check.py JSON UNSQ_S UNSQ_LLN SRC.
Prints one line per mismatch and exits 1 when there is any."""
import json
import os
import re
import stat
import sys

j = json.load(open(sys.argv[1]))
s = open(sys.argv[2], errors="replace").read()
lines = open(sys.argv[3], errors="replace").read().splitlines()
src = sys.argv[4]
bad = []


def expect(what, got, want):
    if got != want:
        bad.append("%s: imginfo says %r, expected %r" % (what, got, want))


def field(pattern):
    m = re.search(pattern, s, re.M)
    return m.group(1) if m else None


expect("codec", j["codec"], field(r"^Compression (\w+)"))
expect("block_size", j["block_size"], int(field(r"^Block size (\d+)")))
expect("bytes_used", j["bytes_used"], int(field(r"^Filesystem size (\d+) bytes")))
expect("inode_count", j["inode_count"], int(field(r"^Number of inodes (\d+)")))
expect("fragment_blocks", j["fragment_blocks"], int(field(r"^Number of fragments (\d+)")))
expect("ids", j["ids"], int(field(r"^Number of ids (\d+)")))
expect("exportable", j["exportable"], "Filesystem is exportable" in s)
xids = field(r"^Number of xattr ids (\d+)")
expect("xattr_sets", j["xattr_sets"], int(xids) if xids else 0)
expect("inodes reached", j["inodes"], j["inode_count"])

# Every part accounted for: superblock, options, data, fragments, tables.
expect("sum of the parts", 96 + j["options_bytes"] + j["data_bytes"] +
       j["fragment_bytes"] + j["metadata_bytes"], j["bytes_used"])

kinds = {"d": "directories", "l": "symlinks", "b": "block_devices",
         "c": "char_devices", "p": "fifos", "s": "sockets"}
count = {}
for ln in lines:
    if ln[:1] in "-dlbcps" and len(ln) > 10 and ln[1] in "r-":
        count[ln[0]] = count.get(ln[0], 0) + 1
expect("entries", j["entries"], sum(count.values()))
for k, name in kinds.items():
    expect(name, j[name], count.get(k, 0))
expect("files + hardlinks", j["files"] + j["hardlinks"], count.get("-", 0))

sizes, seen = 0, set()
for root, dirs, files in os.walk(src):
    for f in files:
        st = os.lstat(os.path.join(root, f))
        if stat.S_ISREG(st.st_mode) and (st.st_ino not in seen or not j["hardlinks"]):
            seen.add(st.st_ino)
            sizes += st.st_size
expect("file_bytes", j["file_bytes"], sizes)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
