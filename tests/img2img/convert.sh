#!/bin/sh
# SPDX-License-Identifier: MIT
# convert.sh - img2img -c converts an image to another codec (xz to
# zstd, and gzip to lz4 with another block size): the result reads equal
# to the base (imginfo diff), and every judge - unsquashfs, sqfs2tar,
# 7zz, squashfuse, a kernel loop mount - reads from it the tree the base
# was packed from. A judge that reads mksquashfs's image of the codec
# here must read ours; one that cannot run is a counted skip.
. "$top_srcdir/tests/lib/common.sh"
need_tool bsdtar "$PYTHON3"
[ "$(id -u)" = 0 ] || skip "needs root: bsdtar must restore owners and trusted.* xattrs"
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}

T=$(fast_dir) || exit 99
S=$T/src
mkdir -p "$S/d/e" "$S/empty" "$S/many" || exit 99
seq 1 300000 > "$S/big" && head -c 700000 /dev/urandom > "$S/random" &&
for i in $(seq 1 100); do echo "small $i" > "$S/many/f$i"; done &&
echo linked > "$S/d/l1" && ln "$S/d/l1" "$S/d/e/l2" && ln -s ../big "$S/d/sym" &&
truncate -s 3M "$S/sparse" && echo tail >> "$S/sparse" &&
chmod 4755 "$S/d/e" && chown 12:34 "$S/d/l1" &&
setfattr -n user.note -v hello "$S/big" 2>/dev/null
touch -d @1600000000 "$S" "$S"/* "$S"/d/* "$S"/d/e/* "$S"/many/* || exit 99
tar -C "$S" --sort=name --xattrs -cf "$T/src.tar" . || exit 99
rm -rf "$T/ref" && mkdir "$T/ref" && bsdtar -xpf "$T/src.tar" --xattrs --numeric-owner -C "$T/ref" || exit 99

# convert FROM TO [OPTIONS]: a FROM image of the tar, converted to TO
for pair in "xz zstd" "gzip lz4 -b 64K"; do
	set -- $pair
	from=$1 to=$2; shift 2
	codec_built "$from" && codec_built "$to" || { skipc "$from or $to not built"; continue; }
	base=$T/$from.img img=$T/$from-$to.img
	run "$from: tar2img" "$TAR2IMG" -q -c "$from" "$base" "$T/src.tar" || continue
	run "$from to $to: img2img" "$IMG2IMG" -q -c "$to" "$@" "$img" "$base" || continue
	check "$from to $to: the image is $to" sh -c "'$IMGINFO' '$img' | grep -q '^codec: *$to'"
	check "$from to $to: reads equal to the base (imginfo diff)" "$IMGINFO" diff "$base" "$img"
	w="$from to $to"
	judge_same_tree "$w" unsquashfs "$to" "$img" "$T/ref"
	if judge_ok "$w: sqfs2tar" sqfs2tar "$to"; then
		rm -rf "$T/s" && mkdir "$T/s"
		if sqfs2tar "$img" > "$T/s.tar" 2> "$T/err" &&
		   bsdtar -xpf "$T/s.tar" --xattrs --numeric-owner -C "$T/s"; then
			same_tree "$w: sqfs2tar tree equals the source" "$T/s" "$T/ref"
		else
			fail "$w: sqfs2tar refuses our image: $(head -1 "$T/err")"
		fi
	fi
	# 7zz keeps no owners, modes or xattrs and shows hard links as copies;
	# squashfuse swaps the trusted./security. prefixes and, without
	# use_ino, hides hard links.
	judge_same_tree "$w" 7zz "$to" "$img" "$T/ref" --ignore=owner,perm,xattrs,hardlinks
	judge_same_tree "$w" squashfuse "$to" "$img" "$T/ref" --swap-xattr-prefixes --no-hardlinks
	judge_same_tree "$w" kernel "$to" "$img" "$T/ref"
done
finish
