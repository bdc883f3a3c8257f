#!/bin/sh
# SPDX-License-Identifier: MIT
# pcluster.sh - big physical clusters (--pcluster-size, mkfs.erofs's
# -C): lz4 and lz4hc images of 64 KiB and 1 MiB clusters from the tree
# of tests/erofs/mktree.sh plus files whose clusters run to many blocks
# (text over two 8 MiB segments), alternate with clusters stored as
# they are (random runs between text) and end a file in a pcluster of
# several blocks. Judged by the kernel's mount and by fsck.erofs (when
# it reads mkfs.erofs's own image with the same -C) against the source;
# img2tar gives the SquashFS image's tar; the same bytes for -j 1 and 3
# and with the tree spilled (--mem 1M); sqpack-mkfs.erofs -C gives the
# same bytes; no larger than Debian's mkfs.erofs with the same -z and
# -C; sizes that are not a multiple of 4K up to 1M are refused.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool tar "$PYTHON3"
codec_built lz4 || skip "lz4 not built"
DIR2IMG="$top_builddir/bin/dir2img"
MKFS="$top_builddir/bin/sqpack-mkfs.erofs"
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
with open(d + "/endsbig", "wb") as f:
    f.write(os.urandom(5000))
    f.write(b"".join(b"tail line %d\n" % j for j in range(30000)))' "$1"
}
run "make the tree" erofs_tree "$T/src" || finish
run "add files of long clusters" long_clusters "$T/src" || finish
run "the SquashFS image" "$DIR2IMG" -q "$T/ref.sqfs" "$T/src" || finish
"$IMG2TAR" "$T/ref.sqfs" > "$T/ref.tar" 2> /dev/null || fail "img2tar of the SquashFS image"

# fsck.erofs judges big pclusters where it reads mkfs.erofs's own.
fsck_big=no
if command -v mkfs.erofs > /dev/null 2>&1 && judge_ok "fsck.erofs" fsck.erofs erofs; then
	if mkfs.erofs --quiet -zlz4 -C65536 "$T/probe.erofs" "$T/src" > "$T/err" 2>&1 &&
	   fsck.erofs --extract="$T/probe" "$T/probe.erofs" > "$T/err" 2>&1; then
		fsck_big=yes
	else
		skipc "fsck.erofs: it does not read mkfs.erofs -C65536's image: $(head -c 200 "$T/err")"
	fi
fi

for codec in lz4 lz4hc; do
	copt="-c lz4" zopt=-zlz4
	[ $codec = lz4 ] || copt="-c lz4 -X hc" zopt=-zlz4hc
	for size in 65536 1048576; do
		name=$codec-$size
		img=$T/$name.erofs
		# shellcheck disable=SC2086
		"$DIR2IMG" -q -j 1 --format erofs $copt --pcluster-size $size "$T/$name.1.erofs" "$T/src" 2> "$T/err" &&
		"$DIR2IMG" -q -j 3 --format erofs $copt --pcluster-size $size "$img" "$T/src" 2>> "$T/err" &&
		"$DIR2IMG" -j 2 --mem 1M --format erofs $copt --pcluster-size $size "$T/$name.m.erofs" \
			"$T/src" > "$T/mem.out" 2>> "$T/err" ||
			{ fail "$name: dir2img: $(head -c 300 "$T/err")"; continue; }
		check "$name: the same bytes for -j 1 and 3" cmp -s "$T/$name.1.erofs" "$img"
		check "$name: the same bytes spilled (--mem 1M)" cmp -s "$T/$name.m.erofs" "$img"
		# shellcheck disable=SC2086
		run "$name: sqpack-mkfs.erofs -C$size" "$MKFS" --quiet $zopt -C$size "$T/$name.k.erofs" "$T/src"
		check "$name: sqpack-mkfs.erofs -C gives dir2img's bytes" cmp -s "$T/$name.k.erofs" "$img"
		if "$IMG2TAR" "$img" > "$T/z.tar" 2> "$T/err"; then
			check "$name: img2tar gives the SquashFS image's bytes" cmp -s "$T/z.tar" "$T/ref.tar"
		else
			fail "$name: img2tar refuses it: $(head -c 300 "$T/err")"
		fi
		if judge_ok "the kernel's EROFS mount" kernel erofs; then
			mkdir -p "$T/m"
			if mount -t erofs -o loop,ro "$img" "$T/m" 2> "$T/err"; then
				same_tree "$name: the kernel's mount equals the source" "$T/m" "$T/src"
				umount "$T/m"
			else
				fail "$name: the kernel does not mount it: $(head -c 200 "$T/err")"
			fi
		fi
		if [ $fsck_big = yes ]; then
			rm -rf "$T/f"
			if fsck.erofs --extract="$T/f" "$img" > "$T/err" 2>&1; then
				# Debian's 1.5 extracts no xattrs and no hard links.
				same_tree "$name: fsck.erofs accepts it and extracts the source" "$T/f" "$T/src" \
					--no-xattrs --no-hardlinks --exclude=sock
			else
				fail "$name: fsck.erofs refuses it: $(head -c 300 "$T/err")"
			fi
		fi
		if command -v mkfs.erofs > /dev/null 2>&1 &&
		   mkfs.erofs --quiet $zopt -C$size "$T/peer.erofs" "$T/src" > "$T/err" 2>&1; then
			ours=$(wc -c < "$img") theirs=$(wc -c < "$T/peer.erofs")
			check "$name: $ours bytes, no more than mkfs.erofs's $theirs" test "$ours" -le "$theirs"
		else
			skipc "$name: mkfs.erofs to compare sizes with: $(head -c 200 "$T/err")"
		fi
	done
done
ls -l "$T"/lz4-65536.erofs "$T"/lz4-1048576.erofs
check "1 MiB clusters: smaller than 64 KiB ones" \
	test "$(wc -c < "$T/lz4-1048576.erofs")" -lt "$(wc -c < "$T/lz4-65536.erofs")"

refused() {
	what=$1; shift
	"$@" > "$T/out" 2>&1
	rc=$?
	[ $rc -eq 2 ] && grep -q "$what" "$T/out" && pass "refused: $(head -1 "$T/out")" ||
		fail "expected exit 2 and '$what': exit $rc: $(head -c 200 "$T/out")"
}
refused "a multiple of 4K up to 1M" "$DIR2IMG" --format erofs -c lz4 --pcluster-size 6000 "$T/r.erofs" "$T/src"
refused "a multiple of 4K up to 1M" "$DIR2IMG" --format erofs -c lz4 --pcluster-size 2M "$T/r.erofs" "$T/src"
finish
