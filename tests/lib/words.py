# SPDX-License-Identifier: MIT
"""words.py - text of lines of words from fixed seeds, for the EROFS
tests: lz4 compresses it about 2:1, in clusters of many sizes, and a
seed gives the same bytes on every run, so a failure can be replayed
(tests/erofs_write/seams.sh, ztail_long.sh, dedupe.sh; the words of
tests/tar2img/mktar.py). Imported with
sys.dont_write_bytecode set: nothing is written into the source tree."""
import random
import sys
from array import array

_R = random.Random(26)
WORDS = [bytes(_R.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(_R.randint(2, 9)))
         for _ in range(400)]


def _outputs(r):
    """r's 32-bit Mersenne Twister outputs in order, fetched 64 Ki at a
    time: getrandbits(32 * N) holds N of them, the first the lowest."""
    while True:
        yield from array("I", r.getrandbits(32 << 16).to_bytes(4 << 16, sys.byteorder))


def batches(r, seq):
    """Lists of picks of seq (at most 2^32 items), in the order of
    r.choice(seq)'s picks (as in lines below), from 256 outputs' worth,
    twice as many each time up to 64 Ki: a call per pick cost four
    times as much."""
    m = len(seq)
    shift = 32 - m.bit_length()
    count = 256
    while True:
        got = array("I", r.getrandbits(32 * count).to_bytes(4 * count, sys.byteorder))
        yield [seq[v] for v in [u >> shift for u in got] if v < m]
        count = min(2 * count, 1 << 16)


def lines(r, words, n):
    """n bytes of lines of 3 to 14 of words (at most 2^32 of them), drawn
    from r as r.randint(3, 14) and r.choice(words) draw them: CPython's
    _randbelow(m) takes the top m.bit_length() bits of one output, again
    while they are m or more. The same bytes as those calls in half the
    time (they cost 2.5 s of CPU for 20 MiB; the scripts make 90 MiB),
    from outputs fetched in bulk: r is left further on than they leave it."""
    nw = len(words)
    wshift = 32 - nw.bit_length()
    nxt = _outputs(r).__next__
    out, size = [], 0
    while size < n:
        k = nxt() >> 28
        while k >= 12:
            k = nxt() >> 28
        line = []
        for _ in range(k + 3):
            w = nxt() >> wshift
            while w >= nw:
                w = nxt() >> wshift
            line.append(words[w])
        line = b" ".join(line) + b"\n"
        out.append(line)
        size += len(line)
    return b"".join(out)[:n]


def text(n, seed):
    """n bytes of lines of 3 to 14 words, from seed."""
    return lines(random.Random(seed), WORDS, n)
