#!/bin/sh
# SPDX-License-Identifier: MIT
# prefix.sh - EROFS extents that are deduplicated prefixes of their
# pcluster (prefix/README: made by mkfs.erofs 1.9.3 -Ededupe), at zstd
# and deflate. Those decoders first decode a whole pcluster in one pass
# (lib/codec/erofs_unz.c) and must fall back to streaming where it
# decodes to more than the extent: img2dir at -j 1 and -j 2, img2tar,
# imginfo cat and check read each image equal to the tree it was made
# from; the kernel's mount is a judge where it has the codec.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar
IMG2DIR="$SQP_BIN/img2dir"
IMGINFO="$SQP_BIN/imginfo"
F=$top_srcdir/tests/read/prefix
T=$SCRATCH

# The tree the images were made from: b is a's first 50000 bytes, c
# a's first 12288 and then bytes of its own.
mk_tree() {
	mkdir "$1" &&
	LC_ALL=C seq 1 6000 | sed 's/$/ line of text for the dedup test/' > "$1/a" &&
	head -c 50000 "$1/a" > "$1/b" &&
	{ head -c 12288 "$1/a" && LC_ALL=C seq 5 3000; } > "$1/c" &&
	chmod 644 "$1/a" "$1/b" "$1/c" && chmod 755 "$1" &&
	touch -d @1700000000 "$1/a" "$1/b" "$1/c" "$1"
}
run "make the tree" mk_tree "$T/src" || finish

kernel_ok=no
judge_ok "the kernel's EROFS mount" kernel erofs && kernel_ok=yes

# NAME: the codec as SquashFS names it (codec_built) and as the kernel's
# configuration does.
while read -r name codec kcodec; do
	img=$F/$name.img
	if ! codec_built "$codec"; then
		skipc "$name: not built with $codec"
		continue
	fi
	for j in 1 2; do
		rm -rf "$T/x"
		if "$IMG2DIR" -j "$j" "$img" "$T/x" 2> "$T/err"; then
			same_tree "$name: img2dir -j $j equals the tree" "$T/x" "$T/src" --ignore=owner
		else
			fail "$name: img2dir -j $j: $(head -c 300 "$T/err")"
		fi
	done
	rm -rf "$T/t" && mkdir "$T/t"
	if "$IMG2TAR" -j 2 "$img" > "$T/e.tar" 2> "$T/err" &&
	   tar -C "$T/t" --numeric-owner -xpf "$T/e.tar"; then
		same_tree "$name: img2tar equals the tree" "$T/t" "$T/src" --ignore=owner
	else
		fail "$name: img2tar: $(head -c 300 "$T/err")"
	fi
	for f in b c; do
		check "$name: imginfo cat reads $f" sh -c \
			'"$1" cat "$2" "$3" | cmp -s - "$4/$3"' - "$IMGINFO" "$img" "$f" "$T/src"
	done
	check "$name: imginfo check finds no problem" "$IMGINFO" check "$img"
	[ $kernel_ok = yes ] || continue
	if ! kernel_erofs_has "$kcodec"; then
		skipc "$name: the kernel's configuration has no EROFS $kcodec"
		continue
	fi
	judge_same_tree "$name" kernel erofs "$img" "$T/src" --ignore=owner
done <<CASES
zstd zstd zstd
deflate gzip deflate
CASES
finish
