#!/bin/sh
# SPDX-License-Identifier: MIT
# zstd_split.sh - EROFS zstd at its default level (15) with pclusters of
# 16 and 32 KiB, over machine code: the first 512 KiB of the library as
# built (of the static tar2img where no shared one is). There zstd's
# parse for a cluster's tries ran its block splitter (btopt and stronger,
# windows of 128 KiB and more), with which libzstd before 1.5.6 wrote
# sequences past the array it was given: dir2img crashed on most
# binaries over 128 KiB. dir2img makes the images, -j 1 and -j 2 give
# the same bytes, imginfo check finds nothing, and the kernel's mount
# reads the file equal.
. "$top_srcdir/tests/lib/common.sh"
DIR2IMG="$SQP_BIN/dir2img"
IMGINFO="$SQP_BIN/imginfo"
T=$SCRATCH
codec_built zstd || skip "zstd not built"
code=$top_builddir/.libs/libsqpack.so.0
[ -f "$code" ] || code=$TAR2IMG
mkdir -p "$T/src" && head -c 524288 "$code" > "$T/src/code" || { fail "copy $code"; finish; }
check "the machine code is 512 KiB" test "$(wc -c < "$T/src/code")" -eq 524288

for pcl in 16384 32768; do
	img=$T/z.$pcl
	for j in 1 2; do
		"$DIR2IMG" -q -j $j --format erofs -c zstd --pcluster-size $pcl "$img.$j.erofs" \
			"$T/src" 2> "$T/err" ||
			{ fail "-C $pcl: dir2img -j $j: $(head -c 300 "$T/err")"; continue 2; }
	done
	check "-C $pcl: the same bytes for -j 1 and 2" cmp -s "$img.1.erofs" "$img.2.erofs"
	check "-C $pcl: imginfo check finds no problem" "$IMGINFO" check -q "$img.1.erofs"
	check "-C $pcl: compressed (under 3/4 of the input)" \
		test "$(wc -c < "$img.1.erofs")" -lt 393216
	kernel_check erofs "$img.1.erofs" "-C $pcl: the kernel's mount reads the file equal" \
		cmp -s "$KMNT/code" "$T/src/code"
done
finish
