#!/bin/sh
# SPDX-License-Identifier: MIT
# seams.sh - compressed EROFS files of several 16 MiB segments, whose
# segments are cut in parallel and then re-cut across each seam
# (lib/erofs/erofs_seam.c). Files: text of 36 MiB (two seams) and of
# 17 MiB (one, the re-cut may run to the file's end). Without the
# re-cut a file took exactly the blocks of its 16 MiB pieces packed as
# files of their own (each segment's cut is a piece's); with it, for
# lz4, lz4hc and 64 KiB lz4 clusters, it takes no more for each file
# and fewer for the two together. With 1 MiB clusters a segment is
# 32 MiB (erofs_w_segment), so text17m is cut as one and takes fewer
# bytes than its pieces, and text36m (32 MiB and 4) no more (with
# 8 MiB segments lz4's took exactly theirs: its clusters of 2 MiB of
# input left none short enough to hold for a re-cut). With those and
# with ztailpacking and
# fragments (whose tails stay the last segment's own): the same bytes
# for -j 1, 2 and 3, the kernel's mount and fsck.erofs (where it reads
# mkfs.erofs's own image with the options) read the source, and
# imginfo check finds nothing wrong. lzma's segments are 8 MiB, and its
# re-cut covers 256 KiB past a seam at most: text (9 MiB) whose whole
# re-cut saved a block at the file's end takes exactly its pieces'
# bytes, the same for -j 1 and 2; and it goes no further than its first
# cluster when that stands less than a quarter cluster ahead: text of
# 8 MiB and 20,000 bytes, whose re-cut saved a block at the file's end,
# takes its pieces' bytes too.
# lz4hc in 64 KiB clusters: a re-cut that cannot reach the file's end
# stops 4 MiB past its seam, text of 36 MiB takes exactly its first 16
# MiB's bytes and its rest's. --max-extent-bytes across a seam:
# the same bytes for -j 1 and 2, the kernel reads it.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
codec_built lz4 || skip "lz4 not built"
DIR2IMG="$SQP_BIN/dir2img"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

# Lines of words from a fixed seed (compressible about 2:1 by lz4, with
# clusters of many sizes), and the same bytes cut in pieces of the
# codec's segment (lz4's 16 MiB, lzma's 8).
# make_tree DIR MIB NAME:BYTES:SEED...: each file in DIR/big, and in
# DIR/pieces cut every MIB MiB.
make_tree() {
	d=$1 mib=$2; shift 2
	$PYTHON3 -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from words import text
d = sys.argv[1]
seg = int(sys.argv[3]) << 20
for spec in sys.argv[4:]:
    name, n, seed = spec.split(":")
    n, seed = int(n), int(seed)
    data = text(n, seed)
    open(d + "/big/" + name, "wb").write(data)
    for k in range(0, n, seg):
        open("%s/pieces/%s.%d" % (d, name, k // seg), "wb").write(data[k:k + seg])' \
		"$d" "$top_srcdir/tests/lib" "$mib" "$@"
}
mkdir -p "$T/src/big" "$T/src/pieces" || finish
run "make the tree" make_tree "$T/src" 16 text36m:$(((36 << 20) + 777)):1 \
	text17m:$(((17 << 20) + 300001)):2 || finish

# fsck.erofs judges an option where it reads mkfs.erofs's own image
# made with it (fsck_ok OPTIONS...).
fsck_ok() {
	command -v mkfs.erofs > /dev/null 2>&1 && judge_can fsck.erofs erofs || return 1
	rm -rf "$T/probe" "$T/probe.erofs"
	mkfs.erofs --quiet -zlz4 "$@" "$T/probe.erofs" "$T/src/pieces" > "$T/err" 2>&1 &&
	fsck.erofs --extract="$T/probe" "$T/probe.erofs" > "$T/err" 2>&1
}

# stored IMAGE PATH: the bytes of PATH's data in IMAGE (its blocks).
stored() {
	"$IMGINFO" stat "$1" "$2" 2> "$T/err" | sed -n 's/.*, \([0-9]*\) bytes stored,.*/\1/p'
}

# The blocks of big/NAME against those of its pieces ($pieces_dir's)
# in pieces.erofs: no more (fewer with a third argument, each).
pieces_dir=$T/src/pieces
compare() {
	cmp_name=$1 cmp_file=$2 cmp_each=${3:-}
	big=$(stored "$T/big.erofs" "/$cmp_file")
	sum=0
	for piece in "$pieces_dir/$cmp_file".*; do
		n=$(stored "$T/pieces.erofs" "/${piece##*/}")
		[ -n "$n" ] || { fail "$cmp_name: imginfo stat ${piece##*/}: $(head -c 200 "$T/err")"; return 1; }
		sum=$((sum + n))
	done
	[ -n "$big" ] || { fail "$cmp_name: imginfo stat $cmp_file: $(head -c 200 "$T/err")"; return 1; }
	if [ -n "$cmp_each" ]; then
		check "$cmp_name: $cmp_file takes $big bytes, fewer than its pieces' $sum" \
			test "$big" -lt "$sum"
	else
		check "$cmp_name: $cmp_file takes $big bytes, no more than its pieces' $sum" \
			test "$big" -le "$sum"
	fi
	all_big=$((all_big + big)) all_sum=$((all_sum + sum))
}

for set in "-c lz4|-zlz4|less" "-c lz4 -X hc|-zlz4hc|less" \
	   "-c lz4 --pcluster-size 65536|-C65536|less" \
	   "-c lz4 --pcluster-size 1M|-C1048576|each" \
	   "-c lz4 --ztailpacking|-Eztailpacking|" "-c lz4 --erofs-fragments||"; do
	ours=${set%%|*} rest=${set#*|} peer=${rest%%|*} less=${rest#*|}
	name=$ours
	# shellcheck disable=SC2086
	for j in 1 2 3; do
		"$DIR2IMG" -q -f -j $j --format erofs $ours "$T/big.$j.erofs" "$T/src/big" \
			2> "$T/err" || { fail "$name: dir2img -j $j: $(head -c 300 "$T/err")"; continue 2; }
	done
	check "$name: the same bytes for -j 1 and 2" cmp -s "$T/big.1.erofs" "$T/big.2.erofs"
	check "$name: the same bytes for -j 1 and 3" cmp -s "$T/big.1.erofs" "$T/big.3.erofs"
	cp "$T/big.3.erofs" "$T/big.erofs" || finish
	judge_same_tree "$name" kernel erofs "$T/big.erofs" "$T/src/big"
	# Debian's fsck.erofs 1.5 knows no fragments.
	# shellcheck disable=SC2086
	[ -z "$peer" ] || ! fsck_ok $peer ||
		judge_same_tree "$name" fsck.erofs erofs "$T/big.erofs" "$T/src/big" --no-xattrs --no-hardlinks
	check "$name: imginfo check" "$IMGINFO" check "$T/big.erofs"
	[ -n "$less" ] || continue
	# shellcheck disable=SC2086
	"$DIR2IMG" -q -f --format erofs $ours "$T/pieces.erofs" "$T/src/pieces" 2> "$T/err" ||
		{ fail "$name: dir2img of the pieces: $(head -c 300 "$T/err")"; continue; }
	all_big=0 all_sum=0 each=
	[ "$less" = each ] && each=each
	# text36m is two segments of 32 MiB clusters too: no more
	compare "$name" text36m
	compare "$name" text17m $each
	check "$name: the two files take $all_big bytes, fewer than their pieces' $all_sum" \
		test "$all_big" -lt "$all_sum"
done

# lzma's re-cut covers 256 KiB past a seam at most (recut_budget in
# erofs_seam.c: it would cost as much again as the cut): text whose
# whole re-cut, run on to the file's end 1 MiB past its seam, saved a
# block takes exactly its pieces' bytes, the same for -j 1 and 2.
if codec_built lzma; then
	mkdir -p "$T/lz/big" "$T/lz/pieces" || finish
	run "make the lzma tree" make_tree "$T/lz" 8 text9m:$(((9 << 20) + 123)):3 \
		text8m:$(((8 << 20) + 20000)):1
	for j in 1 2; do
		run "lzma, -j $j" "$DIR2IMG" -q -f -j $j --format erofs -c lzma -X level=0 \
			"$T/lz.$j.erofs" "$T/lz/big"
	done
	run "lzma, the pieces" "$DIR2IMG" -q -f --format erofs -c lzma -X level=0 \
		"$T/pieces.erofs" "$T/lz/pieces"
	check "lzma: the same bytes for -j 1 and 2" cmp -s "$T/lz.1.erofs" "$T/lz.2.erofs"
	cp "$T/lz.1.erofs" "$T/big.erofs" || finish
	all_big=0 all_sum=0 pieces_dir=$T/lz/pieces
	big=$(stored "$T/big.erofs" /text9m)
	compare lzma text9m
	check "lzma: text9m takes $big bytes, its pieces' $all_sum: the re-cut stopped" \
		test "${big:-0}" -eq "$all_sum"
	# text8m's re-cut, to the file's end 20,000 bytes past its seam,
	# saved a block, but its first cluster stood less than a quarter of
	# a cluster ahead of the segment's cut (ahead_enough in
	# erofs_seam.c): it stops there, and the file takes its pieces'.
	big=$(stored "$T/big.erofs" /text8m)
	p0=$(stored "$T/pieces.erofs" /text8m.0) p1=$(stored "$T/pieces.erofs" /text8m.1)
	sum=$((${p0:-0} + ${p1:-0}))
	check "lzma: text8m takes $big bytes, its pieces' $sum: the re-cut stopped at its first cluster" \
		test "${big:-0}" -eq "$sum" -a -n "$p0" -a -n "$p1"
fi

# lz4hc in 64 KiB clusters: a re-cut that cannot run on to the file's
# end covers 4 MiB past its seam at most (recut_budget in erofs_seam.c):
# in clusters this large it never falls in step with the next segment's
# cut, and ran the whole segment for a block found by chance. text36m's
# first seam's re-cut stops so, saving nothing, and its second runs on
# to the end as in a file of the last 20 MiB alone: text36m takes
# exactly the bytes of its first 16 MiB and of the rest packed as files
# of their own, the same for -j 1 and 2, and the kernel reads it.
mkdir "$T/hc" "$T/hcpart" && ln "$T/src/big/text36m" "$T/hc/text36m" &&
	head -c 16777216 "$T/src/big/text36m" > "$T/hcpart/head" &&
	tail -c +16777217 "$T/src/big/text36m" > "$T/hcpart/rest" || finish
for j in 1 2; do
	run "lz4hc 64K, -j $j" "$DIR2IMG" -q -j $j --format erofs -c lz4 -X hc \
		--pcluster-size 64K "$T/hc.$j.erofs" "$T/hc"
done
run "lz4hc 64K, in two" "$DIR2IMG" -q --format erofs -c lz4 -X hc --pcluster-size 64K \
	"$T/hcpart.erofs" "$T/hcpart"
check "lz4hc 64K: the same bytes for -j 1 and 2" cmp -s "$T/hc.1.erofs" "$T/hc.2.erofs"
big=$(stored "$T/hc.1.erofs" /text36m)
p0=$(stored "$T/hcpart.erofs" /head) p1=$(stored "$T/hcpart.erofs" /rest)
sum=$((${p0:-0} + ${p1:-0}))
check "lz4hc 64K: text36m takes $big bytes, its two parts' $sum: the first re-cut stopped" \
	test "${big:-0}" -eq "$sum" -a -n "$p0" -a -n "$p1"
judge_same_tree "lz4hc 64K" kernel erofs "$T/hc.2.erofs" "$T/hc"

# --max-extent-bytes (mkfs.erofs's): no cluster holds more than 16 KiB
# of text17m, across its seam too: more bytes stored than with 64 KiB
# clusters alone, the same bytes for -j 1 and 2, the kernel reads it.
mkdir "$T/one" && ln "$T/src/big/text17m" "$T/one/text17m" || finish
for j in 1 2; do
	run "--max-extent-bytes 16K, -j $j" "$DIR2IMG" -q -j $j --format erofs -c lz4 \
		--pcluster-size 64K --max-extent-bytes 16K "$T/cap.$j.erofs" "$T/one"
done
run "without it" "$DIR2IMG" -q --format erofs -c lz4 --pcluster-size 64K "$T/nocap.erofs" "$T/one"
check "--max-extent-bytes: the same bytes for -j 1 and 2" cmp -s "$T/cap.1.erofs" "$T/cap.2.erofs"
capped=$(stored "$T/cap.1.erofs" /text17m) whole=$(stored "$T/nocap.erofs" /text17m)
check "--max-extent-bytes 16K: $capped bytes stored, more than $whole without" \
	test "${capped:-0}" -gt "${whole:-0}" -a "${whole:-0}" -gt 0
judge_same_tree "--max-extent-bytes" kernel erofs "$T/cap.1.erofs" "$T/one"
finish
