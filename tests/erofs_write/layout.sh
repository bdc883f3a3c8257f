#!/bin/sh
# SPDX-License-Identifier: MIT
# layout.sh - the EROFS writer's layout options and their combinations:
# big physical clusters (--pcluster-size, mkfs.erofs's -C) of 64 KiB and
# 1 MiB, the last cluster inline (--ztailpacking, -E ztailpacking), and
# both; lz4 and lz4hc (level 3), from the tree of tests/erofs/mktree.sh plus files
# whose clusters run to many blocks (text over two 16 MiB segments),
# alternate with clusters stored as they are (random runs between text,
# a random run of some pclusters before text),
# end a file in a pcluster of several blocks, small text files that
# compress inline, and a random file of less than a block that fits
# neither compressed nor beside its inode. Judged by the kernel's mount and by fsck.erofs (when
# it reads mkfs.erofs's own image with the same options) against the
# source; img2tar gives the SquashFS image's tar; the same bytes for
# -j 1 and 3 and with the tree spilled (--mem 1M); sqpack-mkfs.erofs
# with mkfs.erofs's spelling gives the same bytes; within 0.2% of
# Debian's mkfs.erofs's size with the same options (no larger so far,
# but a file over 16 MiB may lose a block at a segment seam, and the
# tree's content is random), and the files' data blocks no more than in
# mkfs.erofs's; cluster sizes that are not a multiple of the block size up to 1M are refused.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool tar "$PYTHON3"
codec_built lz4 || skip "lz4 not built"
DIR2IMG="$SQP_BIN/dir2img"
# SOURCE_DATE_EPOCH as dir2img reads it (mkfs.erofs 1.9 clamps the
# tree's times to it): the images compared are dir2img's.
MKFS=$(mkfs_build_time_only) || { fail "the mkfs.erofs wrapper"; finish; }
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

long_clusters() {
	$PYTHON3 -c 'import os, sys
d = sys.argv[1]
with open(d + "/text17m", "wb") as f:
    i = 0
    while f.tell() < (17 << 20) + 1234:
        f.write(b"%08d the same words again and again, %d\n" % (i, i % 97))
        i += 1
with open(d + "/striped", "wb") as f:
    for i in range(40):
        f.write(os.urandom(3000 + 701 * i))
        f.write(b"x" * (20000 + 3001 * i))
with open(d + "/randhead", "wb") as f:
    f.write(os.urandom(46 << 12))
    f.write(b"".join(b"after random %d\n" % j for j in range(12000)))
with open(d + "/endsbig", "wb") as f:
    f.write(os.urandom(5000))
    f.write(b"".join(b"tail line %d\n" % j for j in range(30000)))
os.mkdir(d + "/small")
with open(d + "/small/random4090", "wb") as f:
    f.write(os.urandom(4090))
for i in range(60):
    with open(d + "/small/t%d" % i, "wb") as f:
        f.write(b"".join(b"small %d line %d\n" % (i, j) for j in range(10 + 3 * i)))' "$1"
}
run "make the tree" erofs_tree "$T/src" || finish
run "add files of long clusters" long_clusters "$T/src" || finish
run "whole seconds" whole_seconds "$T/src" || finish
# (its codec is not what is tested: lz4, cheap)
run "the SquashFS image" "$DIR2IMG" -q -c lz4 "$T/ref.sqfs" "$T/src" || finish
"$IMG2TAR" "$T/ref.sqfs" > "$T/ref.tar" 2> /dev/null || fail "img2tar of the SquashFS image"

# data_blocks DIR: the blocks (512-byte units) of the regular files of
# less than 16 MiB under DIR. A larger file is cut into 16 MiB segments
# (the same bytes for any -j), each of which may end in a block that a
# stream as mkfs.erofs's would have filled: text17m takes 1 to 3 blocks
# more.
data_blocks() { find "$1" -type f -size -16777216c -printf '%b\n' | awk '{ n += $1 } END { print n + 0 }'; }

# fsck.erofs judges an option where it reads mkfs.erofs's own image
# made with it (fsck_ok OPTIONS...).
fsck_ok() {
	command -v mkfs.erofs > /dev/null 2>&1 && judge_can fsck.erofs erofs || return 1
	rm -rf "$T/probe" "$T/probe.erofs"
	mkfs.erofs --quiet -zlz4 "$@" "$T/probe.erofs" "$T/src" > "$T/err" 2>&1 &&
	fsck.erofs --extract="$T/probe" "$T/probe.erofs" > "$T/err" 2>&1
}

# Each set: our options, then mkfs.erofs's spelling.
for set in "--pcluster-size 65536|-C65536" "--pcluster-size 1048576|-C1048576" \
	   "--ztailpacking|-Eztailpacking" "--ztailpacking --pcluster-size 65536|-Eztailpacking -C65536"; do
	ours_opt=${set%%|*} peer_opt=${set#*|}
	fsck_set=no
	if fsck_ok $peer_opt; then
		fsck_set=yes
	elif judge_ok "fsck.erofs" fsck.erofs erofs; then
		skipc "fsck.erofs: it does not read mkfs.erofs $peer_opt's own image: $(head -c 200 "$T/err")"
	fi
	for codec in lz4 lz4hc; do
		copt="-c lz4" zopt=-zlz4
		# lz4hc at level 3 (a level is not what is tested), the peer too
		[ $codec = lz4 ] || copt="-c lz4 -X level=3" zopt=-zlz4hc,3
		name="$codec $ours_opt"
		img=$T/cur.erofs
		# shellcheck disable=SC2086
		# -j 1 spilled against -j 3 in memory: one comparison for both.
		"$DIR2IMG" -q -f -j 3 --format erofs $copt $ours_opt "$img" "$T/src" 2> "$T/err" &&
		"$DIR2IMG" -f -j 1 --mem 1M --format erofs $copt $ours_opt "$T/cur.m.erofs" \
			"$T/src" > "$T/mem.out" 2>> "$T/err" ||
			{ fail "$name: dir2img: $(head -c 300 "$T/err")"; continue; }
		check "$name: --mem 1M spills" grep -q "spilled to a temporary file" "$T/mem.out"
		check "$name: the same bytes for -j 1 spilled (--mem 1M) and -j 3" cmp -s "$T/cur.m.erofs" "$img"
		# A try that gains nothing covers its input (randhead's: some
		# 16 blocks at 64 KiB), which follows as it is, untried, as in
		# mkfs.erofs 1.9.
		case $ours_opt in *65536*)
			check "$name: blocks within a try's input that gained nothing go untried" \
				grep -Eq "uncompressed, [1-9][0-9]* of them not worth trying" "$T/mem.out" ;;
		esac
		# shellcheck disable=SC2086
		run "$name: sqpack-mkfs.erofs $peer_opt" "$MKFS" --quiet $zopt $peer_opt "$T/cur.k.erofs" "$T/src"
		check "$name: sqpack-mkfs.erofs $peer_opt gives dir2img's bytes" cmp -s "$T/cur.k.erofs" "$img"
		if "$IMG2TAR" "$img" > "$T/z.tar" 2> "$T/err"; then
			check "$name: img2tar gives the SquashFS image's bytes" cmp -s "$T/z.tar" "$T/ref.tar"
		else
			fail "$name: img2tar refuses it: $(head -c 300 "$T/err")"
		fi
		judge_same_tree "$name" kernel erofs "$img" "$T/src"
		# Debian's fsck.erofs 1.5 extracts no xattrs and no hard links.
		[ $fsck_set = no ] ||
			judge_same_tree "$name" fsck.erofs erofs "$img" "$T/src" \
				--no-xattrs --no-hardlinks --exclude=sock
		# shellcheck disable=SC2086
		if command -v mkfs.erofs > /dev/null 2>&1 &&
		   mkfs.erofs --quiet $zopt $peer_opt "$T/peer.erofs" "$T/src" > "$T/err" 2>&1; then
			ours=$(wc -c < "$img") theirs=$(wc -c < "$T/peer.erofs")
			# Within 0.2%: text17m's segments are cut in parallel, and
			# a seam may end in a partly filled block that mkfs.erofs's
			# serial cut does not have.
			check "$name: $ours bytes, within 0.2% of mkfs.erofs's $theirs" \
				test $((ours * 1000)) -le $((theirs * 1002))
			# The files' own blocks (st_blocks, as the kernel reports
			# them: compressed blocks, inline tails not counted).
			if judge_can kernel erofs && mkdir -p "$T/m" "$T/p" &&
			   mount -t erofs -o loop,ro "$img" "$T/m" 2> "$T/err"; then
				if mount -t erofs -o loop,ro "$T/peer.erofs" "$T/p" 2>> "$T/err"; then
					ob=$(data_blocks "$T/m") pb=$(data_blocks "$T/p")
					check "$name: files under 16 MiB take $ob blocks, no more than in mkfs.erofs's ($pb)" \
						test "$ob" -le "$pb"
					umount "$T/p"
				fi
				umount "$T/m"
			fi
		else
			skipc "$name: mkfs.erofs to compare sizes with: $(head -c 200 "$T/err")"
		fi
		cp "$img" "$T/$codec$(echo "$ours_opt" | tr -d ' -').erofs"
	done
done
check "1 MiB clusters: smaller than 64 KiB ones" \
	test "$(wc -c < "$T/lz4pclustersize1048576.erofs")" -lt "$(wc -c < "$T/lz4pclustersize65536.erofs")"
check "--ztailpacking: smaller than without" \
	test "$(wc -c < "$T/lz4ztailpackingpclustersize65536.erofs")" -lt "$(wc -c < "$T/lz4pclustersize65536.erofs")"

# Refused as bad usage, saying why.
usage_refused "a multiple of the block size up to 1M" "$DIR2IMG" --format erofs -c lz4 --pcluster-size 6000 "$T/r.erofs" "$T/src"
usage_refused "a multiple of the block size up to 1M" "$DIR2IMG" --format erofs -c lz4 --pcluster-size 2M "$T/r.erofs" "$T/src"
finish
