# SPDX-License-Identifier: MIT
"""headerball.py TAR OUT - the headers of TAR alone (pax ones whole),
each member's data left out, and the two zero blocks that end a tar:
what a builder passes to --tar=headerball to index data kept elsewhere
(tests/erofs_write/tarindex.sh, smallblocks.sh)."""
import sys
import tarfile

raw, out = open(sys.argv[1], "rb").read(), bytearray()
with tarfile.open(sys.argv[1]) as t:
    for m in t.getmembers():
        out += raw[m.offset:m.offset_data]
open(sys.argv[2], "wb").write(out + bytes(1024))
