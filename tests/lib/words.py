# SPDX-License-Identifier: MIT
"""words.py - text of lines of words from fixed seeds, for the EROFS
tests: lz4 compresses it about 2:1, in clusters of many sizes, and a
seed gives the same bytes on every run, so a failure can be replayed
(tests/erofs_write/seams.sh, ztail_long.sh). Imported with
sys.dont_write_bytecode set: nothing is written into the source tree."""
import random

_R = random.Random(26)
WORDS = [bytes(_R.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(_R.randint(2, 9)))
         for _ in range(400)]


def text(n, seed):
    """n bytes of lines of 3 to 14 words, from seed."""
    r, out, size = random.Random(seed), [], 0
    while size < n:
        line = b" ".join(r.choice(WORDS) for _ in range(r.randint(3, 14))) + b"\n"
        out.append(line)
        size += len(line)
    return b"".join(out)[:n]
