#!/bin/sh
# SPDX-License-Identifier: MIT
# dedup.sh - deduplication is visible and exact. A tar holding the same
# data several times (whole files, runs of blocks, tails, far apart) must
# pack to about the size of a tar holding each piece once, and be smaller
# than --no-dedup by at least the duplicated incompressible bytes; near
# copies (one byte changed in a block or a tail) must not be merged. With
# 4-bit hashes (a test hook: every hash collides) the read-back must refuse
# every false candidate: the image extracts to exactly the input, and true
# duplicates are still shared. When a run of shared blocks breaks, other
# copies are tried: of files A=[X,Y], B=[X,Z], C=[X,Z], C shares B's blocks
# (it costs no data blocks). --no-dedup hashes nothing (the summary's
# counter says 0). All of it for -j 1 and -j 2. With workers, read-backs
# run on the proof workers while the file goes on; when one refutes a
# hash the file is decided again, and the image is the same as -j 1's.
# A run that breaks is rerouted only to an earlier copy whose stored bytes
# are proven equal, even while that copy is still being compressed.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" unsquashfs bsdtar
HOOKED=$top_builddir/tests/unit/hooked_tar2img
[ -x "$HOOKED" ] || skip "tests/unit/hooked_tar2img not built"

T=$(fast_dir) || exit 99
$PYTHON3 - "$T/dup.tar" "$T/uniq.tar" "$T/abc.tar" "$T/ab.tar" "$T/trip.tar" <<'PY' || exit 99
import io, random, sys, tarfile
r = random.Random(7)
BS = 131072
def rnd(n): return r.getrandbits(8 * n).to_bytes(n, "little")
def text(n, seed):
    q = random.Random(seed); out = bytearray()
    while len(out) < n:
        out += q.choice([b"alpha ", b"beta ", b"gamma\n", b"%d " % q.randrange(999)])
    return bytes(out[:n])
def flip(b, at): return b[:at] + bytes([b[at] ^ 1]) + b[at + 1:]
base = [text(8 * BS + 777, i) for i in range(4)]   # compressible, distinct
noise = [rnd(2 * BS + 55) for i in range(4)]       # incompressible
filler = [text(3000 + i, 1000 + i) for i in range(50)]
files = []                                          # (name, data, duplicate?)
for i in range(4):
    files += [("orig/text%d" % i, base[i], 0), ("orig/noise%d" % i, noise[i], 0)]
files += [("filler/%d" % i, filler[i], 0) for i in range(50)]
for i in range(4):
    files += [("copy/text%d" % i, base[i], 1), ("copy/noise%d" % i, noise[i], 1),
              ("run/noise%d" % i, noise[i][:2 * BS], 1),     # whole blocks
              ("tail/t%d" % i, base[i][-777:], 1),            # equal to a tail
              ("near/block%d" % i, flip(noise[i], BS + 7), 0),
              ("near/tail%d" % i, flip(base[i], 8 * BS + 776), 0)]
def write(name, keep):
    t = tarfile.open(name, "w", format=tarfile.PAX_FORMAT)
    for path, data, dup in files:
        if keep(dup):
            ti = tarfile.TarInfo(path); ti.size = len(data); ti.mtime = 1700000000
            t.addfile(ti, io.BytesIO(data))
    t.close()
write(sys.argv[1], lambda dup: True)
write(sys.argv[2], lambda dup: not dup)
X, Y, Z = rnd(BS), rnd(BS), rnd(BS)
for name, abc in (sys.argv[3], ["A", "B", "C"]), (sys.argv[4], ["A", "B"]):
    files = [(n, d, 0) for n, d in (("A", X + Y), ("B", X + Z), ("C", X + Z))
             if n in abc]
    write(name, lambda dup: True)
# Triples a=[X,Y], b=[W,Z], c=[X,Z]: c's run from a breaks at Z; with weak
# hashes W often passes for X, and b's run must then be refused because W
# is not X, even while b's blocks are still in flight.
files = []
for i in range(24):
    X, Y, W, Z = rnd(BS), rnd(BS), rnd(BS), rnd(BS)
    files += [("a%d" % i, X + Y, 0), ("b%d" % i, W + Z, 0), ("c%d" % i, X + Z, 0)]
write(sys.argv[5], lambda dup: True)
PY
mkdir "$T/ref" "$T/tref"
bsdtar -xpf "$T/dup.tar" --numeric-owner -C "$T/ref" || exit 99
bsdtar -xpf "$T/trip.tar" --numeric-owner -C "$T/tref" || exit 99
size() { stat -c %s "$1"; }
# extracts_exactly WHAT IMAGE
extracts_exactly() {
	rm -rf "$T/u"
	if unsquashfs -q -n -d "$T/u" "$2" > /dev/null 2>&1 &&
	   $TREECMP --ignore-root-mtime --ignore-dir-mtime "$T/u" "$T/ref" > "$T/diff"; then
		pass "$1 extracts to exactly the input"
	else
		fail "$1 does not extract to the input"; head -20 "$T/diff"
	fi
}

# lz4 where it is built (zstd otherwise): what is shared does not depend
# on the codec, and zstd's default level was half of the test's CPU.
zc=; ! codec_built lz4 || zc="-c lz4"
for j in 1 2; do
	# (their summaries are checked at the end)
	"$TAR2IMG" $zc -j $j "$T/dedup.img" "$T/dup.tar" > "$T/summary" || fail "-j $j: tar2img"
	"$TAR2IMG" -q $zc -j $j "$T/uniq.img" "$T/uniq.tar" || fail "-j $j: tar2img uniq"
	"$TAR2IMG" $zc -j $j --no-dedup "$T/nodedup.img" "$T/dup.tar" > "$T/nd.summary" ||
		fail "-j $j: tar2img --no-dedup"
	"$HOOKED" $zc -j $j -H 4 -P "$T/weak.img" "$T/dup.tar" > "$T/proofs" ||
		fail "-j $j: tar2img with 4-bit hashes"
	note "-j $j, 4-bit hashes: $(cat "$T/proofs")"
	if [ $j = 1 ]; then
		cp "$T/weak.img" "$T/weak1.ref"
		sed 's/[0-9]* on workers, //; s/, [0-9]* files replayed//' "$T/proofs" > "$T/counts1"
		check "-j 1: every read-back runs synchronously" \
			grep -q "^proofs: 0 on workers, [1-9][0-9]* refuted, 0 files" "$T/proofs"
	else
		# Matching decisions went on before their read-backs were back,
		# some were refuted and the files decided again: the image is
		# still the synchronous one, byte for byte.
		check "-j $j: read-backs ran on the proof workers and some files were replayed" \
			grep -q "^proofs: [1-9][0-9]* on workers, [1-9][0-9]* refuted, [1-9][0-9]* files" "$T/proofs"
		check "-j $j: with refuted hashes, the same bytes as -j 1" cmp -s "$T/weak1.ref" "$T/weak.img"
		# Replays undo what the undone decisions counted.
		sed 's/[0-9]* on workers, //; s/, [0-9]* files replayed//' "$T/proofs" > "$T/counts"
		check "-j $j: refuted, hashed and rerouted counts equal -j 1's" \
			cmp -s "$T/counts1" "$T/counts"
	fi
	a=$(size "$T/dedup.img") u=$(size "$T/uniq.img")
	b=$(size "$T/nodedup.img") w=$(size "$T/weak.img")
	note "-j $j: dedup $a, each piece once $u, --no-dedup $b, 4-bit hashes $w bytes"
	# The copies of noise are stored raw: 4 x (2 MiB + 256 KiB) at least.
	check "-j $j: dedup saves at least the duplicated incompressible data" \
		test $((b - a)) -ge $((4 * (2 * 131072 + 55) + 4 * 2 * 131072))
	# What the duplicates add is metadata: 16 inodes and names, a few KiB.
	check "-j $j: duplicates cost less than 16 KiB over each piece once" \
		test $((a - u)) -lt 16384
	check "-j $j: with colliding hashes true duplicates are still shared" \
		test "$w" -le $((a + 4096))
	for img in dedup nodedup weak; do
		extracts_exactly "-j $j: $img image" "$T/$img.img"
	done
	rm -rf "$T/u"
	"$HOOKED" $zc -j $j -H 4 "$T/trip.img" "$T/trip.tar" &&
		unsquashfs -q -n -d "$T/u" "$T/trip.img" > /dev/null 2>&1
	check "-j $j, 4-bit hashes: a run that only hashes like the matched blocks is refused" \
		$TREECMP --ignore-root-mtime --ignore-dir-mtime "$T/u" "$T/tref"
	"$TAR2IMG" -q $zc -j $j "$T/abc.img" "$T/abc.tar" || fail "-j $j: tar2img abc"
	"$TAR2IMG" -q $zc -j $j "$T/ab.img" "$T/ab.tar" || fail "-j $j: tar2img ab"
	c=$(size "$T/abc.img") ab=$(size "$T/ab.img")
	note "-j $j: A, B, C: $c bytes; A, B: $ab bytes"
	check "-j $j: C=[X,Z] shares B=[X,Z] though A=[X,Y] matched first" \
		test $((c - ab)) -lt 4096
	check "-j $j: --no-dedup hashes nothing" grep -q "dedup: 0 blocks and tails hashed" "$T/nd.summary"
	check "-j $j: dedup hashes (the counter counts)" \
		grep -q "dedup: [1-9][0-9]* blocks and tails hashed" "$T/summary"
	rm -f "$T"/*.img
done
finish
