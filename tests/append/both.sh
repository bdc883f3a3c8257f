# SPDX-License-Identifier: MIT
# both.sh - sourced by the append tests: run one mksquashfs line with
# Debian's mksquashfs (into $T/ref.img) and with sqpack-mksquashfs (into
# $T/our.img), then compare what each image holds: `unsquashfs -lln`
# (TZ=UTC) and the tree unsquashfs extracts. A sequence of appending
# lines is a sequence of steps on the same two images.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
MKSQ=$SQP_BIN/sqpack-mksquashfs
[ -x "$MKSQ" ] || skip "sqpack-mksquashfs not built ($MKSQ)"
need_tool mksquashfs unsquashfs "$PYTHON3"
export TZ=UTC
T=$(fast_dir) || exit 99

# compare NAME: the two images, listing and extracted tree; OFF is
# where the images start in their files.
OFF=0
compare() { unsquashfs_same "$1" "$OFF" "$T"; }
# step NAME "SOURCES" OPTIONS...: the line with each tool, then compare.
# A step that mksquashfs itself fails ends the sequence (skipped).
step() {
	name=$1 srcs=$2; shift 2
	if ! mksquashfs $srcs "$T/ref.img" "$@" > "$T/ref.out" 2> "$T/ref.err"; then
		skip "$name: mksquashfs itself fails here: $(tail -1 "$T/ref.err")"
	fi
	if ! "$MKSQ" $srcs "$T/our.img" "$@" > "$T/our.out" 2> "$T/our.err"; then
		fail "$name: sqpack-mksquashfs failed"; tail -5 "$T/our.err"
		finish
	fi
	compare "$name"
}
# renames WHAT: the last step's two runs printed the same rename lines
# ("Source directory entry x already used! - trying x_1"), and some.
renames() {
	grep '^Source directory entry' "$T/ref.err" > "$T/ref.ren"
	grep '^Source directory entry' "$T/our.err" > "$T/our.ren"
	if [ -s "$T/ref.ren" ] && diff "$T/ref.ren" "$T/our.ren" > "$T/ren.diff"; then
		pass "$1: the same rename lines ($(wc -l < "$T/our.ren"))"
	else
		fail "$1: the rename lines differ (< mksquashfs, > ours)"; cat "$T/ren.diff"
	fi
}
# settings: the codec, its options and the block size both images report.
settings() {
	for i in ref our; do
		unsquashfs -o "$OFF" -s "$T/$i.img" |
			sed -n '/^Compression/,/^Block size/p' > "$T/$i.s"
	done
	if diff "$T/ref.s" "$T/our.s" > "$T/s.diff"; then
		pass "$1: same compression and block size ($(tr '\n\t' '  ' < "$T/our.s"))"
	else
		fail "$1: unsquashfs -s differ (< mksquashfs, > ours)"; cat "$T/s.diff"
	fi
}
