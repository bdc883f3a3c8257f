#!/bin/sh
# SPDX-License-Identifier: MIT
# metazone.sh - dir2img and tar2img --erofs-metazone (mkfs.erofs 1.9's
# --MZ, issue 39) on the EROFS fixture (xattrs, hard links, devices,
# holes): every inode in a zone of its own, none in the superblock's
# block (the root's nid 0, the zone's block in meta_blkaddr), where
# without it the root's inode follows the superblock (nid 36, the
# area from block 0). The images are mounted by the kernel and read by
# img2dir equal to the tree, checked by fsck.erofs 1.9.3
# (EROFS_UTILS_193: its build tree); dir2img's are sqpack-mkfs.erofs
# --MZ's bytes, and tar2img's of the tree's tar hold the tree.
# SquashFS has no such zone: the option is refused there.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool "$PYTHON3"
DIR2IMG="$SQP_BIN/dir2img"
MKFS=$(mkfs_build_time_only) || { fail "the mkfs.erofs wrapper"; finish; }
T=$SCRATCH
P193=${EROFS_UTILS_193:-/work/peers/erofs-utils}
run "make the tree" erofs_tree "$T/src" || finish
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

# sb_field OFFSET BYTES IMAGE: the superblock's little-endian field.
sb_field() {
	od -An -tu"$2" -j$((1024 + $1)) -N"$2" "$3" | tr -d ' '
}

# zone_checks WHAT IMAGE [treecmp options]: IMAGE's inodes in a zone
# of their own, read back as the tree by the kernel, img2dir and
# fsck.erofs 1.9.3.
zone_checks() {
	zc_what=$1 zc_img=$2; shift 2
	check "$zc_what: the root's nid 0" test "$(sb_field 14 2 "$zc_img")" = 0
	check "$zc_what: the zone after block 0" test "$(sb_field 40 4 "$zc_img")" -gt 0
	judge_same_tree "$zc_what" kernel erofs "$zc_img" "$T/src" "$@"
	rm -rf "$T/x"
	run "$zc_what: img2dir" "$SQP_BIN/img2dir" -q "$zc_img" "$T/x" &&
		same_tree "$zc_what: img2dir reads the tree" "$T/x" "$T/src" "$@"
	if [ ! -x "$P193/fsck/fsck.erofs" ]; then
		skipc "$zc_what: fsck.erofs 1.9.3: none at $P193"
		return
	fi
	"$P193/fsck/fsck.erofs" "$zc_img" > "$T/fsck.err" 2>&1 &&
		pass "$zc_what: fsck.erofs 1.9.3 checks it" ||
		fail "$zc_what: fsck.erofs 1.9.3 refuses it: $(grep -m1 -i err "$T/fsck.err")"
}

run "dir2img --format erofs" "$DIR2IMG" -q --format erofs "$T/plain.erofs" "$T/src" &&
	check "without it the root's inode follows the superblock" \
		test "$(sb_field 14 2 "$T/plain.erofs")" -gt 0 -a "$(sb_field 40 4 "$T/plain.erofs")" = 0
sets="none"
codec_built lz4 && sets="$sets lz4"
for c in $sets; do
	copt="-c $c" mopt="-z$c"
	[ "$c" != none ] || { copt="" mopt=""; }
	# shellcheck disable=SC2086
	run "dir2img --erofs-metazone $copt" "$DIR2IMG" -q -f --format erofs $copt \
		--erofs-metazone "$T/z.erofs" "$T/src" || continue
	zone_checks "dir2img --erofs-metazone $copt" "$T/z.erofs"
	# shellcheck disable=SC2086
	run "sqpack-mkfs.erofs --MZ $mopt" "$MKFS" --quiet $mopt --MZ "$T/m.erofs" "$T/src" &&
		check "dir2img --erofs-metazone $copt: sqpack-mkfs.erofs --MZ's bytes" \
			cmp -s "$T/z.erofs" "$T/m.erofs"
done

# The tree's tar (xattrs and all; no socket, which a tar cannot hold).
run "img2tar" "$IMG2TAR" "$T/plain.erofs" > "$T/src.tar" &&
	run "tar2img --erofs-metazone" "$TAR2IMG" -q --format erofs --erofs-metazone \
		"$T/t.erofs" "$T/src.tar" &&
	zone_checks "tar2img --erofs-metazone" "$T/t.erofs" --exclude=sock

usage_refused "--erofs-metazone: an EROFS option" "$DIR2IMG" -q --erofs-metazone \
	"$T/s.sqfs" "$T/src"
usage_refused "--erofs-metazone: an EROFS option" "$TAR2IMG" -q --erofs-metazone \
	"$T/s.sqfs" "$T/src.tar"
check "nothing left behind by the refusals" test ! -e "$T/s.sqfs"
finish
