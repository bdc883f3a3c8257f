#!/bin/sh
# SPDX-License-Identifier: MIT
# erofs.sh - img2img between the formats (--format): a SquashFS image of
# tests/erofs/mktree.sh's tree becomes an EROFS image (lz4, and stored as
# it is) without unpacking to disk, and that EROFS image a SquashFS image
# again. Each reads equal to the base (img2tar bytes); the EROFS result
# is mounted by the kernel and accepted by fsck.erofs, both equal to the
# source, also from a base of 4 KiB blocks (whose stored blocks must not
# be copied as they are); the same bytes at -j 1, 2 and 3 both ways; a layer over the
# base lands in the EROFS result; a base whose codec EROFS cannot write
# needs -c (exit 2), and -b other than 4K is refused for EROFS.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool tar "$PYTHON3"
DIR2IMG="$SQP_BIN/dir2img"
IMG2IMG="$SQP_BIN/img2img"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH
codec_built lz4 || skip "lz4 not built"

run "make the tree" erofs_tree "$T/src" || finish
run "the SquashFS base (lz4)" "$DIR2IMG" -q -c lz4 "$T/base.sqfs" "$T/src" || finish
"$IMG2TAR" "$T/base.sqfs" > "$T/ref.tar" 2> "$T/err" || fail "img2tar of the base"

# tar_of NAME IMAGE: the image's tar equals the base's.
tar_of() {
	if "$IMG2TAR" "$2" > "$T/x.tar" 2> "$T/err"; then
		check "$1: img2tar gives the base's bytes" cmp -s "$T/x.tar" "$T/ref.tar"
	else
		fail "$1: img2tar refuses it: $(head -c 300 "$T/err")"
	fi
}

# judged NAME IMAGE: the kernel's mount and fsck.erofs against the source.
judged() {
	judge_same_tree "$1" kernel erofs "$2" "$T/src"
	# Debian's fsck.erofs 1.5 extracts no xattrs and no hard links.
	judge_same_tree "$1" fsck.erofs erofs "$2" "$T/src" \
		--no-xattrs --no-hardlinks --exclude=sock
}

# SquashFS -> EROFS: the base's lz4 kept.
for j in 1 2 3; do
	run "img2img --format erofs -j $j" "$IMG2IMG" -q -j $j --format erofs \
		"$T/j$j.erofs" "$T/base.sqfs" || finish
done
check "SquashFS to EROFS: the same bytes for -j 1 and 2" cmp -s "$T/j1.erofs" "$T/j2.erofs"
check "SquashFS to EROFS: the same bytes for -j 1 and 3" cmp -s "$T/j1.erofs" "$T/j3.erofs"
check "the EROFS image is compressed (smaller than the base's data)" \
	test "$(wc -c < "$T/j2.erofs")" -lt "$(wc -c < "$T/ref.tar")"
tar_of "SquashFS to EROFS (lz4)" "$T/j2.erofs"
judged "SquashFS to EROFS (lz4)" "$T/j2.erofs"

# A base of EROFS's block size: its SquashFS blocks are not EROFS's.
run "a base of 4 KiB blocks" "$DIR2IMG" -q -c lz4 -b 4K "$T/b4k.sqfs" "$T/src" || finish
run "img2img --format erofs of it" "$IMG2IMG" -q --format erofs "$T/b4k.erofs" "$T/b4k.sqfs" || finish
tar_of "SquashFS of 4 KiB blocks to EROFS" "$T/b4k.erofs"
judged "SquashFS of 4 KiB blocks to EROFS" "$T/b4k.erofs"

run "img2img --format erofs -c none" "$IMG2IMG" -q --format erofs -c none \
	"$T/none.erofs" "$T/base.sqfs" || finish
tar_of "SquashFS to EROFS (stored as it is)" "$T/none.erofs"
judged "SquashFS to EROFS (stored as it is)" "$T/none.erofs"

# EROFS -> SquashFS: the EROFS image's lz4, in 128 KiB blocks.
for j in 1 2 3; do
	run "img2img from EROFS -j $j" "$IMG2IMG" -q -j $j "$T/b$j.sqfs" "$T/j2.erofs" || finish
done
check "EROFS to SquashFS: the same bytes for -j 1 and 2" cmp -s "$T/b1.sqfs" "$T/b2.sqfs"
check "EROFS to SquashFS: the same bytes for -j 1 and 3" cmp -s "$T/b1.sqfs" "$T/b3.sqfs"
tar_of "SquashFS to EROFS to SquashFS" "$T/b2.sqfs"
check "EROFS to SquashFS keeps the codec and takes 128 KiB blocks" \
	sh -c '"$1" "$2" | grep -q "^codec: *lz4" && "$1" "$2" | grep -q "^block size: *131072"' \
	- "$IMGINFO" "$T/b2.sqfs"
run "img2img EROFS to EROFS" "$IMG2IMG" -q --format erofs "$T/ee.erofs" "$T/none.erofs" || finish
tar_of "EROFS to EROFS" "$T/ee.erofs"

# A layer over the base, written as EROFS.
mkdir -p "$T/layer/d" && echo layered > "$T/layer/d/new" && echo changed > "$T/layer/a.txt"
run "img2img --format erofs with a layer" "$IMG2IMG" -q --format erofs \
	"$T/lay.erofs" "$T/base.sqfs" "$T/layer" || finish
check "the layer's new file is in the EROFS image" \
	sh -c '"$1" cat "$2" d/new | grep -qx layered' - "$IMGINFO" "$T/lay.erofs"
check "the layer's file replaces the base's" \
	sh -c '"$1" cat "$2" a.txt | grep -qx changed' - "$IMGINFO" "$T/lay.erofs"
kernel_check erofs "$T/lay.erofs" "the kernel reads the layered image's files" \
	cmp -s "$KMNT/d/seq" "$T/src/d/seq"

# What EROFS cannot take from the base, refused as bad usage.
if codec_built xz; then
	run "an xz base" "$DIR2IMG" -q -c xz "$T/xz.sqfs" "$T/src" || finish
	"$IMG2IMG" -q --format erofs "$T/no.erofs" "$T/xz.sqfs" 2> "$T/err"
	check "an xz base without -c: exit 2" test $? = 2
	check "... naming the base's compressor" grep -q "compressor 'xz'" "$T/err"
	run "an xz base with -c lz4" "$IMG2IMG" -q --format erofs -c lz4 "$T/xz.erofs" "$T/xz.sqfs"
	tar_of "an xz base to EROFS with -c lz4" "$T/xz.erofs"
else
	skipc "xz not built"
fi
"$IMG2IMG" -q --format erofs -b 64K "$T/no.erofs" "$T/base.sqfs" 2> /dev/null
check "--format erofs -b 64K: exit 2" test $? = 2
finish
