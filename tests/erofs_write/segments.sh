#!/bin/sh
# SPDX-License-Identifier: MIT
# segments.sh - compressed EROFS files of several 16 MiB segments where a
# segment gains no block: such a segment is stored as it is (a PLAIN
# cluster per block), and a file none of whose segments gains is stored
# uncompressed, its tail inline, as mkfs.erofs stores a file that does
# not gain a block. Files: random data over two segments (stored
# uncompressed), a random segment then text (PLAIN clusters, then
# compressed ones), text then a random segment ending in a part block,
# and 16 random blocks before data that compresses only in a window of
# more than a block (a whole pcluster is tried again after a run of
# plain clusters, as mkfs.erofs tries one at every block), and text of
# 150,000 bytes whose last cluster, with ztailpacking, is cut short to
# give its part block back (lz4's block trimmed, not compressed again).
# With lz4 and lz4hc (level 3), one-block clusters and 64 KiB ones with
# ztailpacking: the kernel's mount and fsck.erofs (where it reads
# mkfs.erofs's own image with the options) read the source; the same
# bytes for -j 1 and 3; the random file is uncompressed (imginfo stat:
# its size stored, not whole blocks); and the image of the random files alone is no
# larger than Debian's mkfs.erofs's with the same options (with lz4hc,
# of a smaller set of them: mkfs.erofs takes 40 s on the whole).
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
codec_built lz4 || skip "lz4 not built"
DIR2IMG="$SQP_BIN/dir2img"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

# Random bytes from a fixed seed, so that a failure can be replayed.
make_tree() {
	$PYTHON3 -c 'import random, sys
d, r = sys.argv[1], random.Random(26)
def rand(n): return r.getrandbits(8 * n).to_bytes(n, "little")
def text(n):
    lines = (b"%08d line of text, %d\n" % (i, i % 89) for i in range(n // 20 + 1))
    return b"".join(lines)[:n]
open(d + "/rand/random17m", "wb").write(rand((17 << 20) + 1000))
open(d + "/rand/randtext", "wb").write(rand(16 << 20) + text((2 << 20) + 333))
open(d + "/textrand", "wb").write(text(16 << 20) + rand((1 << 20) + 77))
# 16 random blocks, then a random 16 KiB repeated: it compresses only in
# a window larger than a block, so after the random blocks only a whole
# pcluster'"'"'s try finds it (mkfs.erofs tries one at every block).
open(d + "/rand/randwindow", "wb").write(rand(64 << 10) + rand(16 << 10) * 16)
words = [b"alpha", b"beta", b"gamma", b"delta", b"epsilon", b"zeta", b"eta"]
open(d + "/words", "wb").write(b"".join(b" ".join(r.choice(words)
    for _ in range(12)) + b"\n" for _ in range(3000))[:150000])' "$1"
}
mkdir -p "$T/src/rand" || finish
run "make the tree" make_tree "$T/src" || finish
# Debian's mkfs.erofs takes 40 s with lz4hc on the 35 MB of random
# files (its own lz4hc try at every block, whatever the level): its size
# is compared with lz4hc on a smaller set of random files, the window
# file and a random one of 1 MiB and a part block (lz4 keeps the whole).
mkdir -p "$T/hcrand" && cp "$T/src/rand/randwindow" "$T/hcrand/" &&
	head -c $(((1 << 20) + 1000)) "$T/src/rand/random17m" > "$T/hcrand/random1m" || finish

# fsck.erofs judges an option where it reads mkfs.erofs's own image
# made with it (fsck_ok OPTIONS...).
fsck_ok() {
	command -v mkfs.erofs > /dev/null 2>&1 && judge_can fsck.erofs erofs || return 1
	rm -rf "$T/probe" "$T/probe.erofs"
	mkfs.erofs --quiet -zlz4 "$@" "$T/probe.erofs" "$T/src/rand" > "$T/err" 2>&1 &&
	fsck.erofs --extract="$T/probe" "$T/probe.erofs" > "$T/err" 2>&1
}

for set in "|" "--pcluster-size 65536 --ztailpacking|-C65536 -Eztailpacking"; do
	ours_opt=${set%%|*} peer_opt=${set#*|}
	fsck_set=no
	# shellcheck disable=SC2086
	fsck_ok $peer_opt && fsck_set=yes
	for codec in lz4 lz4hc; do
		copt="-c lz4" zopt=-zlz4
		# lz4hc at level 3 (a level is not what is tested), the peer too
		[ $codec = lz4 ] || copt="-c lz4 -X level=3" zopt=-zlz4hc,3
		name="$codec${ours_opt:+ $ours_opt}"
		img=$T/cur.erofs
		# shellcheck disable=SC2086
		"$DIR2IMG" -q -f -j 1 --format erofs $copt $ours_opt "$T/cur.1.erofs" "$T/src" 2> "$T/err" &&
		"$DIR2IMG" -q -f -j 3 --format erofs $copt $ours_opt "$img" "$T/src" 2>> "$T/err" ||
			{ fail "$name: dir2img: $(head -c 300 "$T/err")"; continue; }
		check "$name: the same bytes for -j 1 and 3" cmp -s "$T/cur.1.erofs" "$img"
		judge_same_tree "$name" kernel erofs "$img" "$T/src"
		[ $fsck_set = no ] ||
			judge_same_tree "$name" fsck.erofs erofs "$img" "$T/src" --no-xattrs --no-hardlinks
		"$IMGINFO" stat "$img" /rand/random17m > "$T/stat" 2> "$T/err" ||
			fail "$name: imginfo stat: $(head -c 200 "$T/err")"
		# Uncompressed: its bytes stored are its size (the tail inline),
		# not whole blocks.
		check "$name: random17m is stored uncompressed" \
			grep -q ", $(((17 << 20) + 1000)) bytes stored," "$T/stat"
		rand=$T/src/rand
		[ $codec = lz4 ] || rand=$T/hcrand
		# shellcheck disable=SC2086
		"$DIR2IMG" -q -f --format erofs $copt $ours_opt "$T/rand.erofs" "$rand" 2> "$T/err" ||
			{ fail "$name: dir2img of the random files: $(head -c 300 "$T/err")"; continue; }
		# shellcheck disable=SC2086
		if command -v mkfs.erofs > /dev/null 2>&1 &&
		   mkfs.erofs --quiet $zopt $peer_opt "$T/peer.erofs" "$rand" > "$T/err" 2>&1; then
			ours=$(wc -c < "$T/rand.erofs") theirs=$(wc -c < "$T/peer.erofs")
			check "$name: the random files take $ours bytes, no more than mkfs.erofs's $theirs" \
				test "$ours" -le "$theirs"
		else
			skipc "$name: mkfs.erofs to compare sizes with: $(head -c 200 "$T/err")"
		fi
	done
done
finish
