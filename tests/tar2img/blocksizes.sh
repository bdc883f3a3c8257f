#!/bin/sh
# SPDX-License-Identifier: MIT
# blocksizes.sh - every block size packs the edge-case tar (mktar.py) into
# an image whose unsquashfs tree equals the tree bsdtar extracts from the
# tar, and whose superblock says that block size. The sizes come from
# $BLOCK_SIZES (default 8K .. 1M; block4k.sh runs 4K alone).
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" unsquashfs bsdtar

T=$(fast_dir) || exit 99
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/ref"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/ref" || exit 99

for b in ${BLOCK_SIZES:-8K 16K 32K 64K 256K 512K 1M}; do
	case $b in
	*K) bytes=$(( ${b%K} * 1024 )) ;;
	*M) bytes=$(( ${b%M} * 1048576 )) ;;
	esac
	rm -rf "$T/u" "$T/b.img"
	if ! "$TAR2IMG" -q -j 2 -b "$b" "$T/b.img" "$T/in.tar" 2> "$T/err"; then
		fail "-b $b: tar2img: $(grep -v warning "$T/err" | head -c 300)"
		continue
	fi
	check "-b $b: the superblock says $bytes" sh -c \
		"unsquashfs -s '$T/b.img' 2>/dev/null | grep -q 'Block size $bytes\$'"
	if unsquashfs -q -n -d "$T/u" "$T/b.img" > /dev/null 2>&1 &&
	   $TREECMP --ignore-root-mtime "$T/u" "$T/ref" > "$T/diff"; then
		pass "-b $b: unsquashfs tree equals the tar's"
	else
		fail "-b $b: unsquashfs tree differs"; head -20 "$T/diff"
	fi
done
finish
