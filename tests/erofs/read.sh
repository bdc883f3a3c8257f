#!/bin/sh
# SPDX-License-Identifier: MIT
# read.sh - images made by mkfs.erofs (Debian's 1.5: every layout and
# option it has that keeps data uncompressed: compact and extended
# inodes, inline tails or none, chunk-based files with 4-byte block maps
# and 8-byte chunk indexes, -T, --all-root, --force-uid/gid) read equal
# through img2dir and img2tar to the source tree (treecmp), to the
# kernel's EROFS mount (a judge), and to the equivalent SquashFS image:
# (compact inodes have no time of their own: the image's build time)
# the same tar bytes from img2tar, and imginfo diff finds no difference.
# Compressed images (lz4, lz4hc; full and compact indexes, 4 KiB to
# 64 KiB pclusters, tail packing) read equal the same ways, and
# imginfo check finds no problem in any of them.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool mkfs.erofs tar "$PYTHON3"
IMG2DIR="$SQP_BIN/img2dir"
IMGINFO="$SQP_BIN/imginfo"
DIR2IMG="$SQP_BIN/dir2img"
T=$SCRATCH
run "make the tree" erofs_tree "$T/src" || finish
run "the SquashFS image" "$DIR2IMG" -q "$T/ref.sqfs" "$T/src" || finish
"$IMG2TAR" "$T/ref.sqfs" > "$T/ref.tar" 2> /dev/null || fail "img2tar of the SquashFS image"

# extract TAR DIR: GNU tar's extraction (xattrs, owners, devices).
extract() {
	mkdir -p "$2" && tar -C "$2" --xattrs --xattrs-include='*' \
		--numeric-owner -xpf "$1"
}

kernel_ok=no
judge_ok "the kernel's EROFS mount" kernel erofs && kernel_ok=yes

# case NAME TREECMP-OPTIONS -- MKFS-OPTIONS
while read -r name topts mopts; do
	[ -n "$name" ] || continue
	[ "$topts" = - ] && topts=
	[ "$mopts" = - ] && mopts=
	img=$T/$name.erofs
	run "mkfs.erofs $mopts" peer_mkfs_erofs "--quiet $mopts" "$img" "$T/src" > /dev/null || continue
	rm -rf "$T/x"
	if "$IMG2DIR" -j 2 "$img" "$T/x" 2> "$T/err"; then
		# shellcheck disable=SC2086
		same_tree "$name: img2dir equals the source" "$T/x" "$T/src" --ignore-dir-mtime $topts
	else
		fail "$name: img2dir: $(head -c 300 "$T/err")"
	fi
	rm -rf "$T/t"
	if "$IMG2TAR" -j 2 "$img" > "$T/e.tar" 2> "$T/err" && extract "$T/e.tar" "$T/t"; then
		# shellcheck disable=SC2086
		same_tree "$name: img2tar equals the source" "$T/t" "$T/src" --ignore-dir-mtime --exclude=sock $topts
	else
		fail "$name: img2tar: $(head -c 300 "$T/err")"
	fi
	check "$name: imginfo check finds no problem" "$IMGINFO" check "$img"
	[ $kernel_ok = no ] || judge_same_tree "$name" kernel erofs "$img" "$T/x"
done <<CASES
default - -
compact --ignore=mtime -Eforce-inode-compact
extended - -Eforce-inode-extended
noinline - -Enoinline_data
chunk64k - --chunksize=65536
chunk4k-map - --chunksize=4096 -Eforce-inode-blockmap
chunk1m-idx - --chunksize=1048576 -Eforce-chunk-indexes
fixed --ignore=mtime -T1700000000
allroot --ignore=owner --all-root
forceid --ignore=owner --force-uid=42 --force-gid=43
lz4 - -zlz4
lz4hc9 - -zlz4hc,9
lz4-legacy - -zlz4 -Elegacy-compress
lz4-tail - -zlz4hc -Eztailpacking
lz4-big64k - -zlz4hc,12 -C65536
lz4-big16k-tail-ext - -zlz4 -C16384 -Eztailpacking -Eforce-inode-extended
lz4-compact-noinline --ignore=mtime -zlz4 -Eforce-inode-compact -Enoinline_data
lz4-legacy-big - -zlz4 -C32768 -Elegacy-compress
lz4-extent8k - -zlz4hc --max-extent-bytes=8192
lz4-fixed --ignore=mtime,owner -zlz4 -T1700000000 --all-root
CASES

# The same tree as SquashFS and EROFS: the same tar, no difference.
img=$T/default.erofs
"$IMG2TAR" "$img" > "$T/e.tar" 2> /dev/null
check "img2tar gives the same bytes for EROFS as for SquashFS" cmp -s "$T/e.tar" "$T/ref.tar"
check "imginfo diff finds the two images equal" "$IMGINFO" diff "$T/ref.sqfs" "$img"
check "imginfo cat reads a chunked file" sh -c \
	'"$1" cat "$2" d/r10k | cmp -s - "$3"' - "$IMGINFO" "$T/chunk64k.erofs" "$T/src/d/r10k"

d_inode=$("$IMGINFO" stat "$img" d | sed -n 's/^inode: //p')
check "imginfo stat names a directory's parent from its '..'" \
	sh -c '"$1" stat "$2" d/sub | grep -qx "parent: $3"' - "$IMGINFO" "$img" "${d_inode:-none}"
check "imginfo cat reads a compressed file" sh -c \
	'"$1" cat "$2" mixed | cmp -s - "$3"' - "$IMGINFO" "$T/lz4-big64k.erofs" "$T/src/mixed"
finish
