#!/bin/sh
# SPDX-License-Identifier: MIT
# reroute_gap.sh - a run of shared blocks that breaks is rerouted only to
# an earlier copy whose blocks lie back to back on disk. Files, in order:
# X=[P,Q,R]; a tail that nearly fills a fragment block; A=[Y,P]+tail (P
# stored again, then the fragment block, full, goes out); B=[Q,W] (Q
# copied after that fragment block); C=[P,Q,W]. C's run from X breaks at
# W; A's P and B's Q hold the same bytes as X's and are followed by W,
# but the fragment block lies between them, so C must not share them.
# Before the dedup store owned its state, a reroute took that copy, and
# C read the fragment block's bytes as its second block. At -j 1 and 2.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" unsquashfs
codec=
for c in $ALL_CODECS; do codec_built "$c" && codec=$c; done
[ -n "$codec" ] || skip "no codec built"

T=$SCRATCH
$PYTHON3 - "$T/gap.tar" "$T/in" <<'PY' || exit 99
import io, os, random, sys, tarfile
BS = 4096
def text(seed):
    r = random.Random(seed); out = bytearray()
    while len(out) < BS:
        out += r.choice([b"alpha ", b"beta ", b"gamma ", b"delta ", b"eta "])
    return bytes(out[:BS])
P, Q, R, Y, W = (text(s) for s in "PQRYW")
files = [("a_X", P + Q + R), ("b_tail", text("F")[:BS - 100]),
         ("c_A", Y + P + text("T")[:200]), ("d_B", Q + W), ("e_C", P + Q + W)]
os.mkdir(sys.argv[2])
with tarfile.open(sys.argv[1], "w", format=tarfile.GNU_FORMAT) as t:
    for name, data in files:
        i = tarfile.TarInfo(name); i.size = len(data); i.mtime = 1
        t.addfile(i, io.BytesIO(data))
        with open(os.path.join(sys.argv[2], name), "wb") as f:
            f.write(data)
PY

for j in 1 2; do
	rm -rf "$T/u"
	run "tar2img -j $j" "$TAR2IMG" -q -f -b 4K -c "$codec" -j "$j" "$T/gap.img" "$T/gap.tar" &&
	run "unsquashfs (-j $j)" unsquashfs -q -n -d "$T/u" "$T/gap.img" > /dev/null 2>&1 &&
	for f in a_X b_tail c_A d_B e_C; do
		check "$codec -j $j: $f extracts exactly" cmp -s "$T/in/$f" "$T/u/$f"
	done
done
finish
