#!/bin/sh
# SPDX-License-Identifier: MIT
# e48bit.sh - EROFS's 48-bit layout (mkfs.erofs -E48bit, issue 39) on
# the EROFS fixture (xattrs, hard links, devices, holes, files of many
# blocks) with times before 1970, with nanoseconds and whole seconds
# other than the build time: sqpack-mkfs.erofs -E48bit, uncompressed,
# lz4 with its tail inline and zstd with fragments, is mounted by the
# kernel (6.15 and later read the layout) and read by img2dir equal to
# the tree, times included; fsck.erofs 1.9.3 (EROFS_UTILS_193: its
# build tree) checks it; the same bytes for --workers=1 and 2;
# SOURCE_DATE_EPOCH is the build time, stored after an epoch base of
# 0; compact inodes keep the whole-second times, so the image is
# smaller than without the layout. Then our readers read mkfs.erofs
# 1.9.3's -E48bit images (lz4; zstd and lzma mapped by encoded
# extents) equal to the tree.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool "$PYTHON3"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
T=$SCRATCH
P193=${EROFS_UTILS_193:-/work/peers/erofs-utils}
run "make the tree" erofs_tree "$T/src" || finish
touch -d @-86400 "$T/src/d/r10k" && touch -d @1500000000.25 "$T/src/e" &&
	touch -d @1234567890 "$T/src/mixed" || exit 99
SOURCE_DATE_EPOCH=1800000000
export SOURCE_DATE_EPOCH

# read_back WHAT IMAGE: the kernel's mount, img2dir (and fsck.erofs
# 1.9.3 when ours) read IMAGE as the tree, times and all.
read_back() {
	judge_same_tree "$1" kernel erofs "$2" "$T/src"
	rm -rf "$T/x"
	run "$1: img2dir" "$SQP_BIN/img2dir" -q "$2" "$T/x" &&
		same_tree "$1: img2dir reads the tree" "$T/x" "$T/src"
}

zopts="-znone"
codec_built lz4 && zopts="$zopts -zlz4,-Eztailpacking"
codec_built zstd && zopts="$zopts -zzstd,-Efragments"
for z in $zopts; do
	# shellcheck disable=SC2046
	run "-E48bit $z" "$MKFS" --quiet -E48bit $(echo "$z" | tr , ' ') \
		"$T/o.erofs" "$T/src" || continue
	read_back "-E48bit $z" "$T/o.erofs"
	if [ ! -x "$P193/fsck/fsck.erofs" ]; then
		skipc "-E48bit $z: fsck.erofs 1.9.3: none at $P193"
		continue
	fi
	"$P193/fsck/fsck.erofs" "$T/o.erofs" > "$T/err" 2>&1 &&
		pass "-E48bit $z: fsck.erofs 1.9.3 checks it" ||
		fail "-E48bit $z: fsck.erofs 1.9.3 refuses it: $(grep -m1 -i err "$T/err")"
done
check "the 48-bit feature bit" test $(($(od -An -tu1 -j1104 -N1 "$T/o.erofs") & 128)) -eq 128
check "SOURCE_DATE_EPOCH: an epoch base of 0" \
	test "$(od -An -tu8 -j1048 -N8 "$T/o.erofs" | tr -d ' ')" = 0
check "SOURCE_DATE_EPOCH: the build time after it" \
	test "$(od -An -tu4 -j1132 -N4 "$T/o.erofs" | tr -d ' ')" = 1800000000

if codec_built lz4; then
	for j in 1 2; do
		run "-E48bit -zlz4hc --workers=$j" "$MKFS" --quiet -E48bit -zlz4hc \
			--workers=$j "$T/w$j.erofs" "$T/src"
	done
	check "-E48bit: the same bytes for --workers=1 and 2" cmp -s "$T/w1.erofs" "$T/w2.erofs"
	run "-zlz4hc without -E48bit" "$MKFS" --quiet -zlz4hc "$T/w0.erofs" "$T/src" &&
		check "compact inodes keep their times: smaller than without -E48bit" \
			test "$(wc -c < "$T/w1.erofs")" -lt "$(wc -c < "$T/w0.erofs")"
fi

if [ ! -x "$P193/mkfs/mkfs.erofs" ]; then
	skipc "mkfs.erofs 1.9.3's -E48bit images: none at $P193"
	finish
fi
# mkfs.erofs 1.9.3 gives a time before 1970 the build time (it clamps
# as if unsigned): the kernel is the reference for its images' times.
for z in -zlz4 -zzstd:-Eztailpacking -zlzma,0:-Efragments; do
	codec_built "$(echo "${z#-z}" | sed 's/[,:].*//')" || continue
	rm -f "$T/p.erofs"
	# shellcheck disable=SC2046
	run "mkfs.erofs 1.9.3 -E48bit $z" "$P193/mkfs/mkfs.erofs" --quiet -E48bit \
		$(echo "$z" | tr : ' ') "$T/p.erofs" "$T/src" > /dev/null || continue
	rm -rf "$T/x"
	run "mkfs.erofs 1.9.3's $z: img2dir" "$SQP_BIN/img2dir" -q "$T/p.erofs" "$T/x" &&
		same_tree "mkfs.erofs 1.9.3's -E48bit $z: img2dir reads the tree" "$T/x" \
			"$T/src" --ignore=mtime &&
		judge_same_tree "mkfs.erofs 1.9.3's -E48bit $z, as img2dir reads it" kernel \
			erofs "$T/p.erofs" "$T/x"
	run "mkfs.erofs 1.9.3's $z: imginfo check" "$SQP_BIN/imginfo" check -q "$T/p.erofs"
done
finish
