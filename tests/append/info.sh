#!/bin/sh
# SPDX-License-Identifier: MIT
# info.sh - what sqpack-mksquashfs prints on stdout when it appends is
# what Debian's mksquashfs prints (scripts may read it): the superblock
# it found (codec, flags, size, counts) and the lines about appending,
# from images of several kinds, with -quiet too. Both tools append to
# copies of the same image, so the lines must be equal but for DEST's
# name and mksquashfs's "Parallel mksquashfs" line (its thread count).
. "$top_srcdir/tests/append/both.sh"
mkdir -p "$T/base/d" "$T/new" || exit 99
printf 'one\n' > "$T/base/d/one"
seq 1 20000 > "$T/base/big"
printf 'new\n' > "$T/new/file"
cd "$T" || exit 99

# lines NAME: the append's lines of ref.out and our.out, compared.
lines() {
	sed -n '/^Found a valid/,/^If appending is not wanted/p' ref.out |
		grep -v '^Parallel mksquashfs' | sed 's/ref\.img/DEST/g' > ref.lines
	sed -n '/^Found a valid/,/^If appending is not wanted/p' our.out |
		sed 's/our\.img/DEST/g' > our.lines
	if [ -s ref.lines ] && diff ref.lines our.lines > lines.diff; then
		pass "$1: the same lines ($(wc -l < our.lines))"
	else
		fail "$1: the lines differ (< mksquashfs, > ours)"; head -20 lines.diff
	fi
}
# kind NAME OPTIONS...: an image made by mksquashfs, appended to by both.
kind() {
	name=$1; shift
	rm -f ref.img our.img
	mksquashfs base ref.img -noappend -no-progress -all-time 1 "$@" > /dev/null 2>&1 ||
		{ skipc "$name: mksquashfs cannot make it"; return; }
	cp ref.img our.img || exit 99
	# -all-time 1 for the image and the append: unpinned, mksquashfs
	# gives the appended root its clock's time and ours the image time
	# (the newest of the input: roottime.sh), which may fall in
	# different minutes
	step "$name: append" new -keep-as-directory -no-progress -all-time 1
	lines "$name"
}
kind "a gzip image"
kind "uncompressed tables and data" -noI -noD -noF -noX
kind "no fragments, xattrs or dedup" -no-fragments -no-xattrs -no-duplicates
kind "xz, always fragments, not exportable" -comp xz -always-use-fragments -no-exports
rm -f ref.img our.img
mksquashfs base ref.img -noappend -no-progress -all-time 1 > /dev/null 2>&1 && cp ref.img our.img || exit 99
step "-quiet: append" new -keep-as-directory -quiet -all-time 1
lines "-quiet"
finish
