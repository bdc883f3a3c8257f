#!/bin/sh
# SPDX-License-Identifier: MIT
# roottime.sh - an append's root directory is made anew, as mksquashfs
# makes it, never the old root kept: its time is -all-time's (which
# overrides -root-time), else -root-time's clamped to SOURCE_DATE_EPOCH,
# else SOURCE_DATE_EPOCH for a root of mksquashfs's own (several sources,
# -keep-as-directory), else one source directory's time. Each image is made by mksquashfs with -all-time 1,
# so the old root's time (1) differs from every time expected; Debian's
# mksquashfs and ours append to copies, and the listings and trees must
# be equal. Without any of these mksquashfs takes its clock; ours takes
# the image time (the newest time of the input), checked on its own.
. "$top_srcdir/tests/append/both.sh"
mkdir -p "$T/base/d" "$T/new/e" || exit 99
printf 'one\n' > "$T/base/d/one"
printf 'new\n' > "$T/new/e/file"
find "$T/new" -exec touch -h -d @1600000000 {} +
cd "$T" || exit 99
unset SOURCE_DATE_EPOCH

# fresh: the image both append to, its root (and all) at time 1.
fresh() {
	rm -f ref.img our.img
	mksquashfs base ref.img -noappend -no-progress -all-time 1 -mkfs-time 1 \
		> /dev/null 2>&1 && cp ref.img our.img || exit 99
}
# root_is WHAT T: our image's root directory has time T.
root_is() {
	"$SQP_BIN/imginfo" stat our.img / > root.stat 2>&1
	check "$1: the root's time is $2 ($(grep mtime root.stat))" \
		grep -q "^mtime: $2 " root.stat
}

fresh
SOURCE_DATE_EPOCH=1700000000 step "SOURCE_DATE_EPOCH, -keep-as-directory" new \
	-keep-as-directory -no-progress
root_is "SOURCE_DATE_EPOCH" 1700000000
fresh
SOURCE_DATE_EPOCH=1700000000 step "SOURCE_DATE_EPOCH, -root-becomes, one source" new \
	-root-becomes old -no-progress
root_is "the source directory's" 1600000000
fresh
step "-all-time" new -keep-as-directory -all-time 5 -no-progress
root_is "-all-time" 5
fresh
step "-root-time and -all-time" new -keep-as-directory -root-time 7 -all-time 9 -no-progress
root_is "-all-time over -root-time" 9
fresh
SOURCE_DATE_EPOCH=1700000000 step "-root-time after SOURCE_DATE_EPOCH" new \
	-keep-as-directory -root-time 1800000000 -no-progress
root_is "-root-time clamped" 1700000000
fresh
SOURCE_DATE_EPOCH=1700000000 step "-root-time before SOURCE_DATE_EPOCH" new \
	-keep-as-directory -root-time 1650000000 -no-progress
root_is "-root-time, not the image time" 1650000000
fresh
SOURCE_DATE_EPOCH=1700000000 step "one source, an older -root-time" new \
	-root-time 1650000000 -no-progress
root_is "-root-time, one source" 1650000000

# Nothing pins it: mksquashfs's clock there, the image time here, which
# is the newest time of the input (the new files'), not the old root's.
fresh
"$MKSQ" new our.img -keep-as-directory -no-progress > our.out 2> our.err ||
	{ fail "unpinned: sqpack-mksquashfs failed"; tail -3 our.err; }
root_is "unpinned" 1600000000
finish
