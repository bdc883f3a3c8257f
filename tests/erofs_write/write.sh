#!/bin/sh
# SPDX-License-Identifier: MIT
# write.sh - EROFS images written by dir2img and tar2img (--format erofs)
# from the tree of tests/erofs/mktree.sh plus the shapes the writer must
# lay out by hand: names that sort before "." and "..", a file whose tail
# cannot sit beside its inode (a large xattr), a directory whose last
# block cannot either, a symlink of 4000 bytes, a file of exactly two
# blocks, owners past 16 bits, and files whose mtime is the build time
# (compact inodes), a file of zeros, one of two 16 MiB segments and
# one whose last bytes, stored as they are, would cross into another
# logical cluster (compressed). Judged by the kernel's mount and fsck.erofs (its
# extraction too) against the source; read back equal by img2dir and
# img2tar (the same tar bytes as from the SquashFS image of the same
# tree); the same bytes for -j 1, 2 and 3 and for tar2img from that tar;
# --uuid and --label land in the superblock (a zero UUID and --uuid
# clear as zeros), a derived UUID follows the
# content; lz4 and lz4hc images judged alike, the same bytes for -j 1
# and 3, and with the tree and metadata spilled (--mem 1M); options EROFS
# cannot take yet are refused with exit 2.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool tar "$PYTHON3" od
IMG2DIR="$SQP_BIN/img2dir"
DIR2IMG="$SQP_BIN/dir2img"
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

more_shapes() {
	mkdir -p "$1/bigx" "$1/-dash" &&
	for n in '!bang' '+plus' '-minus' '.-dotdash' '.a'; do echo "$n" > "$1/$n" || return 1; done &&
	echo x > "$1/-dash/!inner" &&
	for i in $(seq 1 40); do echo "$i" > "$1/bigx/entry_$i" || return 1; done &&
	head -c 6000 /dev/urandom > "$1/tailblock" &&
	head -c 8192 /dev/urandom > "$1/two_blocks" &&
	ln "$1/two_blocks" "$1/bigx/two_link" &&
	ln -s "$(printf '%04000d' 0)" "$1/sym4000" &&
	touch -d @$SOURCE_DATE_EPOCH "$1/!bang" "$1/d/exact4k" &&
	head -c 5000000 /dev/zero > "$1/zeros" &&
	{ head -c 6000 /dev/zero && head -c 8000 /dev/urandom; } > "$1/crossing" &&
	$PYTHON3 -c 'import base64, os, sys
open(sys.argv[1], "wb").write(base64.b64encode(os.urandom(13 << 20)))' "$1/text17m" &&
	$PYTHON3 -c 'import os, sys
r = sys.argv[1]
os.setxattr(r + "/tailblock", "user.big", b"x" * 3000)
os.setxattr(r + "/bigx", "user.big", b"y" * 3500)' "$1" || return 1
	if [ "$(id -u)" = 0 ]; then
		chown 100000:100001 "$1/two_blocks" || return 1
	fi
}
run "make the tree" erofs_tree "$T/src" || finish
run "add the layout's hard shapes" more_shapes "$T/src" || finish
run "whole seconds" whole_seconds "$T/src" || finish
run "the SquashFS image" "$DIR2IMG" -q "$T/ref.sqfs" "$T/src" || finish
"$IMG2TAR" "$T/ref.sqfs" > "$T/ref.tar" 2> /dev/null || fail "img2tar of the SquashFS image"

for j in 1 2 3; do
	run "dir2img --format erofs -j $j" "$DIR2IMG" -q -j $j --format erofs "$T/j$j.erofs" "$T/src" || finish
done
check "the same bytes for -j 1 and 2" cmp -s "$T/j1.erofs" "$T/j2.erofs"
check "the same bytes for -j 1 and 3" cmp -s "$T/j1.erofs" "$T/j3.erofs"
img=$T/j2.erofs
"$DIR2IMG" --mem 1M --format erofs "$T/mem.erofs" "$T/src" > "$T/mem.out" 2>&1 ||
	fail "dir2img --format erofs --mem 1M: $(head -c 300 "$T/mem.out")"
check "--mem 1M spills" grep -q "spilled to a temporary file" "$T/mem.out"
run "dir2img --format erofs" "$DIR2IMG" -q --format erofs "$T/nomem.erofs" "$T/src"
check "spilling (--mem 1M) changes no byte" cmp -s "$T/mem.erofs" "$T/nomem.erofs"

rm -rf "$T/x"
if "$IMG2DIR" -j 2 "$img" "$T/x" 2> "$T/err"; then
	same_tree "img2dir equals the source" "$T/x" "$T/src"
else
	fail "img2dir: $(head -c 300 "$T/err")"
fi
"$IMG2TAR" "$img" > "$T/e.tar" 2> "$T/err" || fail "img2tar: $(head -c 300 "$T/err")"
check "img2tar gives the same bytes as from the SquashFS image" cmp -s "$T/e.tar" "$T/ref.tar"

judge_same_tree "uncompressed" kernel erofs "$img" "$T/src"
# Debian's fsck.erofs 1.5 extracts no xattrs and no hard links.
judge_same_tree "uncompressed" fsck.erofs erofs "$img" "$T/src" \
	--no-xattrs --no-hardlinks --exclude=sock

# Compressed: lz4 and lz4hc, judged the same way, and read back by our
# own reader (lib/read/erofs_z*.c) to the SquashFS image's tar. text17m is two segments, zeros clusters of
# hundreds of logical clusters.
for codec in lz4 lz4hc; do
	codec_built lz4 || { skipc "$codec: lz4 not built"; continue; }
	copt="-c lz4"
	[ $codec = lz4 ] || copt="-c lz4 -X hc"
	# shellcheck disable=SC2086
	"$DIR2IMG" -q -j 1 --format erofs $copt "$T/$codec.1.erofs" "$T/src" 2> "$T/err" &&
	"$DIR2IMG" -q -j 3 --format erofs $copt "$T/$codec.erofs" "$T/src" 2>> "$T/err" ||
		{ fail "dir2img --format erofs $copt: $(head -c 300 "$T/err")"; continue; }
	check "$codec: the same bytes for -j 1 and 3" cmp -s "$T/$codec.1.erofs" "$T/$codec.erofs"
	check "$codec: smaller than uncompressed" test "$(wc -c < "$T/$codec.erofs")" -lt "$(wc -c < "$img")"
	if "$IMG2TAR" "$T/$codec.erofs" > "$T/z.tar" 2> "$T/err"; then
		check "$codec: img2tar gives the SquashFS image's bytes" cmp -s "$T/z.tar" "$T/ref.tar"
	else
		fail "$codec: img2tar refuses it: $(head -c 300 "$T/err")"
	fi
	judge_same_tree "$codec" kernel erofs "$T/$codec.erofs" "$T/src"
	judge_same_tree "$codec" fsck.erofs erofs "$T/$codec.erofs" "$T/src" \
		--no-xattrs --no-hardlinks --exclude=sock
done

# tar2img from the tar of the same tree: the same image but for the
# socket, which a tar cannot hold (the same tar back, then).
run "tar2img --format erofs" "$TAR2IMG" -q -j 2 --format erofs "$T/t.erofs" "$T/ref.tar" || finish
"$IMG2TAR" "$T/t.erofs" > "$T/t.tar" 2> "$T/err" || fail "img2tar of tar2img's: $(head -c 300 "$T/err")"
check "tar2img's EROFS image gives the tar back" cmp -s "$T/t.tar" "$T/ref.tar"
"$TAR2IMG" -q -j 1 --format erofs "$T/t1.erofs" "$T/ref.tar" 2> "$T/err" || fail "tar2img -j 1"
check "tar2img: the same bytes for -j 1 and 2" cmp -s "$T/t1.erofs" "$T/t.erofs"

# The superblock's UUID (at 1024 + 48) and label (+ 64).
uuid_of() { od -An -tx1 -j 1072 -N 16 "$1" | tr -d ' \n'; }
label_of() { dd if="$1" bs=1 skip=1088 count=16 2> /dev/null | tr -d '\0'; }
run "--uuid and --label" "$DIR2IMG" -q --format erofs --uuid 0123abcd-4567-89ef-0123-456789ABCDEF \
	--label rootfs-A "$T/u.erofs" "$T/src"
check "--uuid is the superblock's" test "$(uuid_of "$T/u.erofs")" = 0123abcd456789ef0123456789abcdef
check "--label is the superblock's" test "$(label_of "$T/u.erofs")" = rootfs-A
for u in 00000000-0000-0000-0000-000000000000 clear; do
	run "--uuid $u" "$DIR2IMG" -q -f --format erofs --uuid $u "$T/z.erofs" "$T/src" &&
		check "--uuid $u: zeros (no UUID), not a derived one" \
			test "$(uuid_of "$T/z.erofs")" = 00000000000000000000000000000000
done
run "another tree" "$DIR2IMG" -q --format erofs "$T/o.erofs" "$T/src/d"
check "a derived UUID is a version 4 UUID" sh -c 'case $1 in ????????????4???[89ab]*) ;; *) exit 1;; esac' - "$(uuid_of "$img")"
check "a derived UUID differs for another tree" test "$(uuid_of "$img")" != "$(uuid_of "$T/o.erofs")"

# Refused as bad usage, saying why.
usage_refused "cannot write EROFS" "$DIR2IMG" --format erofs -c xz "$T/r.erofs" "$T/src"
usage_refused "block size is 512 to 4K" "$DIR2IMG" --format erofs -b 64K "$T/r.erofs" "$T/src"
usage_refused "valid are squashfs and erofs" "$DIR2IMG" --format ext4 "$T/r.erofs" "$T/src"
usage_refused "is not a UUID" "$DIR2IMG" --format erofs --uuid 0123 "$T/r.erofs" "$T/src"
usage_refused "longer than 16" "$DIR2IMG" --format erofs --label 0123456789abcdefg "$T/r.erofs" "$T/src"
finish
