#!/bin/sh
# SPDX-License-Identifier: MIT
# mkseeds.sh OUTDIR TAR2IMG - seed corpora for the fuzz harnesses, made
# fresh: small tars (one-block records) in several dialects and
# compressions, small images for every codec, compressed blocks, and
# images of both formats behind fuzz_fuse's option byte.
set -u
out=$1 tar2img=$2
mkdir -p "$out/tar" "$out/image" "$out/codec" "$out/src/d"
src=$out/src
printf 'hello\n' > "$src/d/a"
seq 1 400 > "$src/d/b"
ln -s a "$src/d/l"
ln "$src/d/a" "$src/h"
mkdir -p "$src/$(printf 'n%.0s' $(seq 1 60))/$(printf 'm%.0s' $(seq 1 60))"
printf 'long\n' > "$src/$(printf 'n%.0s' $(seq 1 60))/$(printf 'm%.0s' $(seq 1 60))/f"
command -v setfattr >/dev/null 2>&1 && setfattr -n user.seed -v 1 "$src/d/a" 2>/dev/null &&
	setfattr -n user.dir -v 'a longer value' "$src/d" 2>/dev/null
dd if=/dev/zero of="$src/sp" bs=1 count=1 seek=9000 2>/dev/null
for fmt in gnu oldgnu ustar posix v7; do
	tar -b 1 -C "$src" --format=$fmt -cf "$out/tar/$fmt.tar" . 2>/dev/null
done
tar -b 1 -C "$src" --format=posix --sparse -cf "$out/tar/sparse.tar" . 2>/dev/null
tar -b 1 -C "$src" --format=gnu --sparse -cf "$out/tar/gnusparse.tar" . 2>/dev/null
tar -b 1 -C "$src" --format=posix --xattrs -cf "$out/tar/xattrs.tar" . 2>/dev/null
for z in gzip xz zstd lz4 bzip2; do
	command -v $z >/dev/null 2>&1 && $z -c < "$out/tar/posix.tar" > "$out/tar/posix.$z"
done
for c in gzip lzma lzo xz lz4 zstd; do
	"$tar2img" -q -f -b 4K -c $c "$out/image/$c.img" "$out/tar/posix.tar" 2>/dev/null
	# the codec harness: byte 0 picks the codec (id - 1), byte 1 the
	# block size (0 = 4 KiB), then a data block cut from the image
	id=$(( $(printf '%s\n' gzip lzma lzo xz lz4 zstd | grep -n "^$c\$" | cut -d: -f1) - 1 ))
	[ -f "$out/image/$c.img" ] &&
		{ printf "\\$(printf '%03o' $id)\\000"; dd if="$out/image/$c.img" bs=1 skip=96 count=200 2>/dev/null; } \
			> "$out/codec/$c.bin"
done
# images with uncompressed inodes, directories, fragments and xattrs, so
# byte mutations reach the table, inode and directory parsers instead of
# dying in the decompressor
if command -v mksquashfs >/dev/null 2>&1; then
	mksquashfs "$src" "$out/image/plain.img" -noI -noD -noF -noX -no-progress \
		-quiet -all-root >/dev/null 2>&1
	mksquashfs "$src" "$out/image/plain-noexp.img" -noI -noD -noF -noX \
		-no-progress -quiet -no-exports -no-fragments >/dev/null 2>&1
fi
# EROFS images for fuzz_erofs: every uncompressed layout mkfs.erofs has
mkdir -p "$out/erofs"
if command -v mkfs.erofs >/dev/null 2>&1; then
	mkfs.erofs --quiet "$out/erofs/plain.img" "$src" >/dev/null 2>&1
	mkfs.erofs --quiet -Eforce-inode-extended -Enoinline_data \
		"$out/erofs/extended.img" "$src" >/dev/null 2>&1
	mkfs.erofs --quiet --chunksize=4096 -Eforce-chunk-indexes \
		"$out/erofs/chunk.img" "$src" >/dev/null 2>&1
	# Compressed: compact indexes and an inline tail; full indexes
	# and big pclusters. (tests/erofs/fixtures/*.img, from a newer
	# mkfs.erofs, are seeds for the other codecs.)
	mkfs.erofs --quiet -zlz4 -Eztailpacking \
		"$out/erofs/lz4.img" "$src" >/dev/null 2>&1
	mkfs.erofs --quiet -zlz4hc -C16384 -Elegacy-compress \
		"$out/erofs/lz4full.img" "$src" >/dev/null 2>&1
fi
# fuzz_fuse: byte 0 the mount's options (bits 0-1 the cache's budget, 2
# -o subdir=d, 3 uid, gid and masks), then an image of either format.
mkdir -p "$out/fuse"
for f in squashfs erofs; do
	"$tar2img" -q -f -b 4K -c zstd --format $f "$out/fuse/$f.img" \
		"$out/tar/xattrs.tar" 2>/dev/null
done
opt=0
for img in image/gzip image/xz image/plain fuse/squashfs fuse/erofs \
	erofs/plain erofs/lz4 erofs/chunk erofs/extended; do
	[ -f "$out/$img.img" ] || continue
	for o in $opt $((opt + 5)); do
		{ printf "\\$(printf '%03o' $((o % 16)))"; cat "$out/$img.img"; } \
			> "$out/fuse/$(echo "$img" | tr / -)-$((o % 16)).bin"
	done
	opt=$((opt + 3))
done
rm -f "$out/fuse/"*.img
rm -rf "$src"
