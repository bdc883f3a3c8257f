#!/bin/sh
# SPDX-License-Identifier: MIT
# dedup.sh - deduplication is visible and exact. A tar holding the same
# data several times (whole files, runs of blocks, tails, far apart) must
# give an image smaller than --no-dedup by about the duplicated bytes;
# and with --debug-hash-bits=4 (every hash collides) the read-back must
# still refuse every false candidate: the image extracts to exactly the
# input, while true duplicates are still shared.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" unsquashfs bsdtar

T=$(fast_dir) || exit 99
$PYTHON3 - "$T/dup.tar" <<'PY' || exit 99
import io, random, sys, tarfile
r = random.Random(7)
BS = 131072
def rnd(n): return r.getrandbits(8 * n).to_bytes(n, "little")
def text(n, seed):
    q = random.Random(seed); out = bytearray()
    while len(out) < n: out += q.choice([b"alpha ", b"beta ", b"gamma\n", b"%d " % q.randrange(999)])
    return bytes(out[:n])
t = tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT)
def add(name, data):
    ti = tarfile.TarInfo(name); ti.size = len(data); ti.mtime = 1700000000
    t.addfile(ti, io.BytesIO(data))
base = [text(8 * BS + 777, i) for i in range(4)]   # compressible but distinct
noise = [rnd(2 * BS + 55) for i in range(4)]       # incompressible
for i in range(4):
    add("orig/text%d" % i, base[i]); add("orig/noise%d" % i, noise[i])
for i in range(50):                                 # unrelated filler between
    add("filler/%d" % i, text(3000 + i, 1000 + i))
for i in range(4):
    add("copy/text%d" % i, base[i]); add("copy/noise%d" % i, noise[i])
    add("run/noise%d" % i, noise[i][:2 * BS])       # a run of whole blocks
    add("tail/t%d" % i, base[i][-777:])            # equal to a tail
t.close()
PY
mkdir "$T/ref"; bsdtar -xpf "$T/dup.tar" --numeric-owner -C "$T/ref" || exit 99

"$TAR2IMG" -q -j 2 "$T/dedup.img" "$T/dup.tar" || fail "tar2img"
"$TAR2IMG" -q -j 2 --no-dedup "$T/nodedup.img" "$T/dup.tar" || fail "tar2img --no-dedup"
a=$(stat -c %s "$T/dedup.img"); b=$(stat -c %s "$T/nodedup.img")
note "image with dedup: $a bytes; without: $b bytes"
# The copies of noise are stored raw: 4 x (2 MiB + 256 KiB) at least.
check "dedup saves at least the duplicated incompressible data" \
	test $((b - a)) -ge $((4 * (2 * 131072 + 55) + 4 * 2 * 131072))
"$TAR2IMG" -q -j 2 --debug-hash-bits=4 "$T/weak.img" "$T/dup.tar" ||
	fail "tar2img --debug-hash-bits=4"
for img in dedup nodedup weak; do
	rm -rf "$T/u"
	unsquashfs -q -n -d "$T/u" "$T/$img.img" >/dev/null 2>&1 &&
		check "$img image extracts to exactly the input" \
			$TREECMP --ignore-root-mtime --ignore-dir-mtime "$T/u" "$T/ref"
done
w=$(stat -c %s "$T/weak.img")
note "with 4-bit hashes: $w bytes"
check "with colliding hashes true duplicates are still shared" test "$w" -le "$a"
finish
