#!/bin/sh
# SPDX-License-Identifier: MIT
# ztail_long.sh - with --ztailpacking, the tail of a compressed file
# whose index record is longer than a block goes inline where the
# record ends, as mkfs.erofs puts it: files of text from 8 to 9.5 MiB
# (one seam each, re-cut on to the file's end with the tail inline),
# and "edge", of 2,006 blocks, whose record with the compact inode ends
# 32 bytes before a block boundary, so that the tail fits only after
# the extended inode, which the writer then gives it. Against Debian's
# mkfs.erofs with the same options (-zlz4 and -zlz4hc, 4 KiB clusters,
# -Eztailpacking; our --clamp-mtime for its SOURCE_DATE_EPOCH times,
# which the files have):
# imginfo diff finds the trees equal, each file stores no more bytes
# than in mkfs.erofs's image and the image is no larger; edge's tail
# is inline (its bytes stored not a multiple of the block). The same
# bytes for -j 1, 2 and 3, the kernel's mount and fsck.erofs read the
# source, and imginfo check finds nothing wrong.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
codec_built lz4 || skip "lz4 not built"
command -v mkfs.erofs > /dev/null 2>&1 || skip "mkfs.erofs is not installed"
DIR2IMG="$SQP_BIN/dir2img"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

# Lines of words from fixed seeds (lz4 compresses them about 2:1).
make_tree() {
	$PYTHON3 -c 'import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from words import text
d = sys.argv[1]
for k in range(4):
    open("%s/t%d" % (d, k), "wb").write(text((8 << 20) + 301111 * k + 5, k))
open(d + "/edge", "wb").write(text(2005 * 4096 + 1520, 7))' "$1" "$top_srcdir/tests/lib"
}
mkdir -p "$T/src" || finish
run "make the tree" make_tree "$T/src" || finish
# The image time: every inode may be the compact one.
touch -d @$SOURCE_DATE_EPOCH "$T/src"/* "$T/src" || finish

# stored IMAGE PATH: the bytes of PATH's data in IMAGE.
stored() {
	"$IMGINFO" stat "$1" "$2" 2> "$T/err" | sed -n 's/.*, \([0-9]*\) bytes stored,.*/\1/p'
}

for set in "lz4|-c lz4" "lz4hc|-c lz4 -X hc"; do
	name=${set%%|*} ours=${set#*|}
	peer=$T/mkfs.$name.erofs img=$T/$name.erofs
	mkfs.erofs --quiet -z"$name" -Eztailpacking "$peer" "$T/src" > "$T/err" 2>&1 ||
		{ fail "$name: mkfs.erofs: $(head -c 300 "$T/err")"; continue; }
	for j in 1 2 3; do
		# shellcheck disable=SC2086
		"$DIR2IMG" -q -f -j $j --format erofs $ours --ztailpacking --clamp-mtime \
			"$T/$name.$j.erofs" "$T/src" 2> "$T/err" ||
			{ fail "$name: dir2img -j $j: $(head -c 300 "$T/err")"; continue 2; }
	done
	check "$name: the same bytes for -j 1 and 2" cmp -s "$T/$name.1.erofs" "$T/$name.2.erofs"
	check "$name: the same bytes for -j 1 and 3" cmp -s "$T/$name.1.erofs" "$T/$name.3.erofs"
	cp "$T/$name.1.erofs" "$img" || finish
	check "$name: imginfo diff finds mkfs.erofs's tree the same" "$IMGINFO" diff -q "$img" "$peer"
	for f in t0 t1 t2 t3 edge; do
		o=$(stored "$img" "/$f") m=$(stored "$peer" "/$f")
		check "$name: /$f stores $o bytes, mkfs.erofs's $m" test -n "$o" -a -n "$m" -a "${o:-1}" -le "${m:-0}"
	done
	o=$(stored "$img" /edge)
	check "$name: edge's tail is inline ($o bytes stored)" test -n "$o" -a $((${o:-0} % 4096)) -ne 0
	os=$(stat -c %s "$img") ms=$(stat -c %s "$peer")
	check "$name: the image is $os bytes, mkfs.erofs's $ms" test "$os" -le "$ms"
	check "$name: imginfo check" "$IMGINFO" check "$img"
	judge_same_tree "$name" kernel erofs "$img" "$T/src"
	if judge_can fsck.erofs erofs && fsck.erofs "$peer" > "$T/err" 2>&1; then
		judge_same_tree "$name" fsck.erofs erofs "$img" "$T/src" --no-xattrs --no-hardlinks
	else
		skipc "$name: fsck.erofs cannot read mkfs.erofs's own image here"
	fi
done
finish
