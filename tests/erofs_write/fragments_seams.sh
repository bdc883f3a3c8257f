#!/bin/sh
# SPDX-License-Identifier: MIT
# fragments_seams.sh - deflate's seam re-cut within its budget, and a
# deflate packed inode of several 8 MiB segments. Deflate's cut is
# costly (each is a search of whole compressions: costly_cut in
# lib/codec/gzip.c), so its re-cut covers 256 KiB past a seam at most
# and stops after its first cluster when that stands less than a
# quarter cluster ahead (erofs_seam.c), as lzma's does: text of 20 MiB
# in 64 KiB clusters at level 1, whose whole re-cut saved a block, now
# takes exactly the blocks of its 8 MiB pieces packed as files of their
# own, the same bytes for -j 1 and 2. With fragments, that text and
# 9.6 MiB of small files (whole fragments: the packed inode spans two
# segments, and its seam is re-cut within that budget too): the same
# bytes for -j 1, 2 and 3, the kernel's mount reads the source, and
# imginfo check finds nothing wrong; and the same in 1 MiB clusters.
# The packed inode's own seams are not re-cut with a costly cut
# (erofs_seam_hold says why): a file of 8 MiB and 100,000 bytes of that
# text, wholly in the packed inode (sqpack-mkfs.erofs -Eall-fragments),
# whose seam's re-cut saved a block with deflate and with lzma, now
# takes exactly the blocks of its two pieces packed as files of their
# own, the same bytes for --workers 1, 2 and 3, read back by the kernel.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
codec_built gzip || skip "gzip not built"
DIR2IMG="$SQP_BIN/dir2img"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH
Z="--format erofs -c gzip -X level=1 --pcluster-size 64K"

# big/text20m, its 8 MiB pieces in pieces/, and 780 files of 12,345
# bytes in small/ (text of another seed); whole/text, text20m's first
# 8 MiB and 100,000 bytes, and its halves there in halves/.
mkdir -p "$T/big" "$T/pieces" "$T/small" "$T/whole" "$T/halves" || finish
run "make the tree" $PYTHON3 -c 'import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from words import text
d = sys.argv[1]
n = (20 << 20) + 777
data = text(n, 1)
open(d + "/big/text20m", "wb").write(data)
for k in range(0, n, 8 << 20):
    open("%s/pieces/text20m.%d" % (d, k >> 23), "wb").write(data[k:k + (8 << 20)])
m = (8 << 20) + 100000
open(d + "/whole/text", "wb").write(data[:m])
open(d + "/halves/h0", "wb").write(data[:8 << 20])
open(d + "/halves/h1", "wb").write(data[8 << 20:m])
# before SOURCE_DATE_EPOCH, which sqpack-mkfs.erofs clamps mtimes to
for f in ("/whole/text", "/whole"):
    os.utime(d + f, (1500000000, 1500000000))
small = text(780 * 12345, 4)
for i in range(780):
    open("%s/small/f%03d" % (d, i), "wb").write(small[i * 12345:(i + 1) * 12345])' \
	"$T" "$top_srcdir/tests/lib" || finish

# stored IMAGE PATH: the bytes of PATH's data in IMAGE (its blocks).
stored() {
	"$IMGINFO" stat "$1" "$2" 2> "$T/err" | sed -n 's/.*, \([0-9]*\) bytes stored,.*/\1/p'
}

for j in 1 2; do
	# shellcheck disable=SC2086
	run "deflate, -j $j" "$DIR2IMG" -q -f -j $j $Z "$T/big.$j.erofs" "$T/big"
done
# shellcheck disable=SC2086
run "deflate, the pieces" "$DIR2IMG" -q -f $Z "$T/pieces.erofs" "$T/pieces"
check "deflate: the same bytes for -j 1 and 2" cmp -s "$T/big.1.erofs" "$T/big.2.erofs"
big=$(stored "$T/big.1.erofs" /text20m)
sum=0
for k in 0 1 2; do
	n=$(stored "$T/pieces.erofs" /text20m.$k)
	[ -n "$n" ] || { fail "imginfo stat text20m.$k: $(head -c 200 "$T/err")"; n=0; }
	sum=$((sum + n))
done
check "deflate: text20m takes $big bytes, its pieces' $sum: the re-cut stopped" \
	test "${big:-0}" -eq "$sum" -a "$sum" -gt 0

# With fragments: text20m's tail and the small files in the packed inode.
mv "$T/small" "$T/big/small" || finish
for j in 1 2 3; do
	# shellcheck disable=SC2086
	run "deflate, fragments, -j $j" "$DIR2IMG" -q -f -j $j $Z --erofs-fragments \
		"$T/frag.$j.erofs" "$T/big"
done
check "fragments: the same bytes for -j 1 and 2" cmp -s "$T/frag.1.erofs" "$T/frag.2.erofs"
check "fragments: the same bytes for -j 1 and 3" cmp -s "$T/frag.1.erofs" "$T/frag.3.erofs"
judge_same_tree "deflate, fragments" kernel erofs "$T/frag.1.erofs" "$T/big"
check "fragments: imginfo check" "$IMGINFO" check "$T/frag.1.erofs"

# 1 MiB clusters, whose search aims to 1/64 of a cluster's input
# (deflate_span in lib/codec/gzip.c) by regula falsi (codec_dest.c):
# the same bytes for -j 1 and 3, read back by the kernel and by imginfo.
for j in 1 3; do
	# shellcheck disable=SC2086
	run "deflate, 1 MiB, fragments, -j $j" "$DIR2IMG" -q -f -j $j $Z --pcluster-size 1M \
		--erofs-fragments "$T/mib.$j.erofs" "$T/big"
done
check "1 MiB: the same bytes for -j 1 and 3" cmp -s "$T/mib.1.erofs" "$T/mib.3.erofs"
judge_same_tree "deflate, 1 MiB, fragments" kernel erofs "$T/mib.1.erofs" "$T/big"
check "1 MiB: imginfo check" "$IMGINFO" check "$T/mib.1.erofs"

# packed IMAGE: the bytes that IMAGE's packed inode stores.
packed() {
	"$IMGINFO" "$1" | sed -n 's/^packed inode: .* \([0-9]*\) stored (in data blocks)$/\1/p'
}

# The packed inode's seam, with deflate and, where built, lzma: the
# segments of the whole text (8 MiB each in 64 KiB clusters) cut as its
# halves are, with no re-cut between them.
for c in gzip lzma; do
	codec_built $c || { skipc "$c not built"; continue; }
	case $c in
	gzip) zline=-zdeflate,1 zopt="-c gzip -X level=1" ;;
	lzma) zline=-zlzma,0 zopt="-c lzma -X level=0" ;;
	esac
	for j in 1 2 3; do
		run "$c, the whole text in the packed inode, --workers=$j" "$MKFS" --quiet \
			--workers=$j $zline -C65536 -Eall-fragments "$T/whole.$c.$j.erofs" "$T/whole"
	done
	# shellcheck disable=SC2086
	run "$c, the halves" "$DIR2IMG" -q -f $zopt --format erofs --pcluster-size 64K \
		"$T/halves.$c.erofs" "$T/halves"
	check "$c: packed inode, the same bytes for --workers 1 and 2" \
		cmp -s "$T/whole.$c.1.erofs" "$T/whole.$c.2.erofs"
	check "$c: packed inode, the same bytes for --workers 1 and 3" \
		cmp -s "$T/whole.$c.1.erofs" "$T/whole.$c.3.erofs"
	whole=$(packed "$T/whole.$c.1.erofs")
	h0=$(stored "$T/halves.$c.erofs" /h0)
	h1=$(stored "$T/halves.$c.erofs" /h1)
	check "$c: the packed inode stores ${whole:-?} bytes, the halves ${h0:-?} + ${h1:-?}" \
		test -n "$whole" -a -n "$h0" -a -n "$h1" -a "${whole:-0}" -eq $((${h0:-0} + ${h1:-0}))
	check "$c: the whole text is in the packed inode, no blocks of its own" \
		test "$(stored "$T/whole.$c.1.erofs" /text)" = 0
	judge_same_tree "$c, the whole text in the packed inode" kernel erofs \
		"$T/whole.$c.1.erofs" "$T/whole"
	check "$c: packed inode, imginfo check" "$IMGINFO" check "$T/whole.$c.1.erofs"
done
finish
