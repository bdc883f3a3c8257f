#!/bin/sh
# SPDX-License-Identifier: MIT
# fixtures.sh - EROFS images made by mkfs.erofs 1.8.10 (fixtures/README:
# lzma, deflate, zstd, two algorithms in one file, fragments and whole
# files in the packed inode, deduplicated extents, interlaced raw
# pclusters, long xattr prefixes) and 1.9.3 (the 48-bit layout, its
# encoded extents and pclusters at any byte) read equal to the tree they were made
# from (fixtures/fixtree.py makes it again) through img2dir, img2tar and
# imginfo cat and sqpack-unsquashfs -d, and imginfo check finds no
# problem; the kernel's mount is a judge where its configuration
# says it has the codec. A build without a codec's library refuses that
# image with exit 1, naming the library, never misreads it.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar "$PYTHON3"
IMG2DIR="$SQP_BIN/img2dir"
IMGINFO="$SQP_BIN/imginfo"
UNSQUASHFS="$SQP_BIN/sqpack-unsquashfs"
F=$top_srcdir/tests/erofs/fixtures
T=$SCRATCH
run "make the tree" "$PYTHON3" "$F/fixtree.py" "$T/small" &&
run "make the big tree" "$PYTHON3" "$F/fixtree.py" "$T/big" big || finish

kernel_ok=no
judge_ok "the kernel's EROFS mount" kernel erofs && kernel_ok=yes

# NAME: the codecs it needs, as SquashFS names them (codec_built) and
# as the kernel's configuration does; the tree it was made from and a
# file of it for imginfo cat.
while read -r name codecs kcodecs tree file; do
	img=$F/$name.img
	missing=
	for c in $(echo "$codecs" | tr , ' '); do
		codec_built "$c" || missing=$c
	done
	rm -rf "$T/x" "$T/t"
	if [ -n "$missing" ]; then
		"$IMG2DIR" "$img" "$T/x" > /dev/null 2> "$T/err"
		rc=$?
		[ $rc -eq 1 ] && grep -q "not built with" "$T/err" &&
			pass "$name: refused without $missing: $(head -c 120 "$T/err")" ||
			fail "$name: without $missing: exit $rc: $(head -c 200 "$T/err")"
		continue
	fi
	if "$IMG2DIR" -j 2 "$img" "$T/x" 2> "$T/err"; then
		same_tree "$name: img2dir equals the tree" "$T/x" "$T/$tree" --ignore=owner
	else
		fail "$name: img2dir: $(head -c 300 "$T/err")"
	fi
	mkdir -p "$T/t"
	if "$IMG2TAR" -j 2 "$img" > "$T/e.tar" 2> "$T/err" &&
	   tar -C "$T/t" --xattrs --xattrs-include='*' --numeric-owner -xpf "$T/e.tar"; then
		same_tree "$name: img2tar equals the tree" "$T/t" "$T/$tree" --ignore=owner
	else
		fail "$name: img2tar: $(head -c 300 "$T/err")"
	fi
	check "$name: imginfo cat reads $file" sh -c \
		'"$1" cat "$2" "$3" | cmp -s - "$4/$3"' - "$IMGINFO" "$img" "$file" "$T/$tree"
	check "$name: imginfo check finds no problem" "$IMGINFO" check "$img"
	rm -rf "$T/u"
	if "$UNSQUASHFS" -n -d "$T/u" "$img" > /dev/null 2> "$T/err"; then
		same_tree "$name: sqpack-unsquashfs -d equals the tree" "$T/u" "$T/$tree" --ignore=owner
	else
		fail "$name: sqpack-unsquashfs: $(head -c 300 "$T/err")"
	fi
	[ $kernel_ok = yes ] || continue
	missing=
	for c in $(echo "$kcodecs" | tr , ' '); do
		kernel_erofs_has "$c" || missing=$c
	done
	if [ -n "$missing" ]; then
		skipc "$name: the kernel's configuration has no EROFS $missing"
		continue
	fi
	judge_same_tree "$name" kernel erofs "$img" "$T/x"
done <<CASES
lzma lzma lzma small mixed
deflate gzip deflate small mixed
zstd zstd zstd small mixed
lz4frag lz4 lz4 small mixed
multi lz4,lzma lz4,lzma small mixed
interlaced lz4 lz4 small mixed
bigfrag lzma lzma big big
e48zstd zstd zstd small mixed
e48unaligned zstd zstd small mixed
CASES
finish
