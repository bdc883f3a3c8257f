#!/bin/sh
# SPDX-License-Identifier: MIT
# chunks.sh - chunk-based EROFS files (dir2img/tar2img --chunk-size,
# sqpack-mkfs.erofs --chunksize) and their blob (--blobdev). The tree:
# a file of 5 blocks and a bit, its copy, a file of two random blocks,
# two blocks of zeros and the first file again (chunk aligned), a 1 MiB
# hole, a short file, an empty one, a symlink. With 4 KiB chunks: the
# kernel's mount and img2dir read the tree; the copies' 10 blocks are
# shared and the 258 zero blocks are holes (the summary, and imginfo's
# dedup savings); the same bytes for -j 1 and -j 2, and from
# sqpack-mkfs.erofs; with every hash cut to 2 bits (the writer's test
# hook) refutations are counted and the tree still reads back;
# -E force-chunk-indexes gives 8-byte indexes the kernel reads. With
# --blobdev the image holds no file data: the kernel mounts it with the
# blob as -o device= and with the blob appended, img2dir reads the
# appended form, and with the blob as --device (imginfo, img2tar too).
# Debian's fsck.erofs 1.5 checks both layouts (its
# --extract writes holes in chunk maps wrong, mkfs.erofs 1.9.3's images
# too: not used). With a compressor, as mkfs.erofs 1.9: what compresses
# is compressed, the rest chunk based (dump.erofs's layouts), a file of
# two segments that gains nothing too; the kernel reads it, fsck.erofs
# checks it, the same bytes for --workers=1 and 2. Refused: a chunk size
# not a power of two, --blobdev without --chunksize, with -E
# force-inode-blockmap or with a compressor, SquashFS, --verity with a
# blob (the tree would not cover the data), --ungzip=FILE;
# --ungzip takes a gzip'd tar.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar
DIR2IMG="$SQP_BIN/dir2img"
IMG2DIR="$SQP_BIN/img2dir"
IMGINFO="$SQP_BIN/imginfo"
MKFS="$SQP_BIN/sqpack-mkfs.erofs"
HOOKED="$top_builddir/tests/unit/hooked_tar2img"
T=$SCRATCH

S=$T/src
mkdir -p "$S/d" "$T/m"
head -c 20000 /dev/urandom > "$S/a"
cp "$S/a" "$S/d/a2"
{ head -c 8192 /dev/urandom; head -c 8192 /dev/zero; cat "$S/a"; } > "$S/b"
truncate -s 1M "$S/hole"
printf hello > "$S/small"
: > "$S/empty"
ln -s d/a2 "$S/link"
touch -d @1000000 "$S" "$S"/* "$S/d"/* 2> /dev/null
touch -h -d @1000000 "$S/link"

run "dir2img --chunk-size 4K" "$DIR2IMG" --format erofs --chunk-size 4K -j 1 \
	--image-time 1000000 "$T/c.img" "$S" > "$T/sum" || finish
check "the copies' 10 blocks shared, 258 zero blocks holes, 8 stored" \
	grep -q "8 stored .*258 sparse, 10 shared" "$T/sum"
"$IMGINFO" "$T/c.img" > "$T/info" 2>&1
check "imginfo: the dedup savings" grep -Eq "^dedup savings: +[1-9]" "$T/info"
run "dir2img -j 2" "$DIR2IMG" --format erofs --chunk-size 4K -j 2 -q \
	--image-time 1000000 "$T/c2.img" "$S" &&
	check "-j 1 and -j 2: the same bytes" cmp -s "$T/c.img" "$T/c2.img"
run "sqpack-mkfs.erofs --chunksize=4096" "$MKFS" --quiet --chunksize=4096 -T1000000 \
	"$T/m.img" "$S" && check "sqpack-mkfs.erofs: dir2img's bytes" cmp -s "$T/c.img" "$T/m.img"
rm -rf "$T/x" && run "img2dir" "$IMG2DIR" "$T/c.img" "$T/x" &&
	same_tree "img2dir: the source" "$T/x" "$S"
# -E force-chunk-indexes: 8-byte indexes where a block map would do;
# the last chunk form given wins.
run "-Eforce-chunk-indexes" "$MKFS" --quiet --chunksize=4096 -Eforce-chunk-indexes \
	-T1000000 "$T/ci.img" "$S" &&
	run "-Eforce-chunk-indexes,force-inode-blockmap" "$MKFS" --quiet --chunksize=4096 \
		-Eforce-chunk-indexes,force-inode-blockmap -T1000000 "$T/bm.img" "$S" &&
	check "-Eforce-inode-blockmap last: the block map's bytes" cmp -s "$T/bm.img" "$T/c.img" &&
	check "-Eforce-chunk-indexes: other bytes" sh -c '! cmp -s "$1" "$2"' - "$T/ci.img" "$T/c.img" &&
	rm -rf "$T/x" && run "img2dir, chunk indexes" "$IMG2DIR" "$T/ci.img" "$T/x" &&
	same_tree "img2dir, chunk indexes: the source" "$T/x" "$S"

# 64 KiB chunks: a file's chunk of 5 blocks and a bit is read back whole.
run "--chunk-size 64K" "$DIR2IMG" --format erofs --chunk-size 64K -q \
	--image-time 1000000 "$T/c64.img" "$S" &&
	rm -rf "$T/x" && run "img2dir, 64K chunks" "$IMG2DIR" "$T/c64.img" "$T/x" &&
	same_tree "img2dir, 64K chunks: the source" "$T/x" "$S"

# A compressor: the text, the hole and b (two blocks of zeros in it)
# compressed; the random files, the short one and one of 16 MiB and a block (its first segment stored as it
# is before its last is tried) chunk based, as mkfs.erofs 1.9.3 lays
# them out (0 flat, 3 compressed, 4 chunk based).
Z=$T/zsrc
cp -a "$S" "$Z"
seq 1 20000 > "$Z/text"
head -c 16781312 /dev/urandom > "$Z/long"
touch -d @1000000 "$Z/text" "$Z/long"
for j in 1 2; do
	run "-zlz4 --chunksize=4096 --workers=$j" "$MKFS" --quiet -zlz4 --chunksize=4096 \
		--workers=$j -T1000000 "$T/z$j.img" "$Z" || finish
done
check "-zlz4 --chunksize: the same bytes for --workers=1 and 2" cmp -s "$T/z1.img" "$T/z2.img"
if command -v dump.erofs > /dev/null 2>&1; then
	for p in text hole a b d/a2 long small empty; do
		echo "$p $(dump.erofs --path="/$p" "$T/z1.img" | sed -n 's/.*Layout: \([0-9]*\).*/\1/p')"
	done > "$T/layouts"
	printf '%s\n' "text 3" "hole 3" "a 4" "b 3" "d/a2 4" "long 4" "small 4" "empty 0" > "$T/want"
	check "-zlz4 --chunksize: compressed, else chunk based" cmp -s "$T/want" "$T/layouts" ||
		cat "$T/layouts"
else
	skipc "dump.erofs not installed: the layouts of -zlz4 --chunksize unchecked"
fi
judge_same_tree "-zlz4 --chunksize" kernel erofs "$T/z1.img" "$Z"

# Collisions: every chunk nominated for every other of its size.
if [ -x "$HOOKED" ]; then
	tar -C "$S" --format=gnu --mtime=@1000000 -cf "$T/src.tar" . &&
	run "hooked_tar2img, 2-bit hashes" "$HOOKED" -E chunks -c none -H 2 -P \
		"$T/h.img" "$T/src.tar" > "$T/proofs" &&
	check "2-bit hashes: refutations counted" grep -Eq "[1-9][0-9]* refuted" "$T/proofs" &&
	rm -rf "$T/x" && run "img2dir of it" "$IMG2DIR" "$T/h.img" "$T/x" &&
	same_tree "2-bit hashes: the source" "$T/x" "$S"
else
	skipc "tests/unit/hooked_tar2img not built: no collision check"
fi

run "--blobdev" "$MKFS" --quiet --chunksize=4096 --blobdev="$T/c.blob" -T1000000 \
	"$T/b.img" "$S" || finish
check "--blobdev: the image holds no file data (one block)" \
	test "$(wc -c < "$T/b.img")" = 4096
cat "$T/b.img" "$T/c.blob" > "$T/flat.img"
rm -rf "$T/x" && run "img2dir, the blob appended" "$IMG2DIR" "$T/flat.img" "$T/x" &&
	same_tree "img2dir, the blob appended: the source" "$T/x" "$S"
rm -rf "$T/x" && run "img2dir --device BLOB" "$IMG2DIR" --device "$T/c.blob" "$T/b.img" "$T/x" &&
	same_tree "img2dir --device BLOB: the source" "$T/x" "$S"
rm -rf "$T/x" && mkdir "$T/x" &&
	run "img2tar --device=BLOB" sh -c '"$1" --device="$2" "$3" > "$4"' - "$IMG2TAR" \
		"$T/c.blob" "$T/b.img" "$T/b.tar" &&
	run "GNU tar extracts it" tar -xf "$T/b.tar" -C "$T/x" &&
	same_tree "img2tar --device: the source" "$T/x" "$S" --ignore-dir-mtime
"$IMGINFO" --device "$T/c.blob" "$T/b.img" > "$T/info" 2>&1
check "imginfo --device: the dedup savings" grep -Eq "^dedup savings: +[1-9]" "$T/info"
check "imginfo check: the blob appended, no problem" sh -c \
	'"$1" check "$2" 2>&1 | grep -q " 0 problems"' - "$IMGINFO" "$T/flat.img"
usage_refused "--device is not taken" "$IMGINFO" --device "$T/c.blob" check "$T/b.img"
"$IMG2DIR" "$T/b.img" "$T/z" > "$T/err" 2>&1
check "the image alone: img2dir names the missing device" grep -q "extra device 1.*nor given" "$T/err"
"$IMG2DIR" --device "$T/c.blob" "$T/c.img" "$T/z" > "$T/err" 2>&1
check "a device for an image without one: refused" grep -q "no extra device" "$T/err"

if judge_ok "the kernel's EROFS mount" kernel erofs; then
	for img in c c64 ci; do
		if mount -t erofs -o loop,ro "$T/$img.img" "$T/m" 2> "$T/err"; then
			same_tree "the kernel reads $img.img: the source" "$T/m" "$S"
			umount "$T/m"
		else
			fail "the kernel does not mount $img.img: $(head -c 200 "$T/err")"
		fi
	done
	erofs_device_mounts "the blob" "$T/flat.img" "$T/b.img" "$T/c.blob" "$S" "$T/m"
fi
if judge_ok "fsck.erofs" fsck.erofs erofs; then
	check "fsck.erofs checks the chunk-based image" fsck.erofs "$T/c.img"
	check "fsck.erofs checks it with chunk indexes" fsck.erofs "$T/ci.img"
	check "fsck.erofs checks -zlz4 --chunksize's" fsck.erofs "$T/z1.img"
	check "fsck.erofs checks the image with --device=BLOB" \
		fsck.erofs --device="$T/c.blob" "$T/b.img"
fi

usage_refused "power of two" "$MKFS" --chunksize=6144 "$T/r.img" "$S"
usage_refused "together with --chunksize" "$MKFS" --blobdev="$T/r.blob" "$T/r.img" "$S"
usage_refused "cannot work with block map" "$MKFS" --chunksize=4096 -Eforce-inode-blockmap \
	--blobdev="$T/r.blob" "$T/r.img" "$S"
usage_refused "with a compressor is not done" "$MKFS" --chunksize=4096 -zlz4 \
	--blobdev="$T/r.blob" "$T/r.img" "$S"
usage_refused "power of two" "$DIR2IMG" --format erofs --chunk-size 5K "$T/r.img" "$S"
"$DIR2IMG" --format erofs --chunk-size 4K --blobdev "$T/r.blob" --verity "$T/r.img" \
	"$S" > "$T/err" 2>&1
check "--verity with a blob: refused" grep -q "not its blob device" "$T/err"
usage_refused "--chunk-size: an EROFS option" "$DIR2IMG" --chunk-size 4K "$T/r.img" "$S"
usage_refused "--blobdev: an EROFS option" "$TAR2IMG" --chunk-size 4K --blobdev "$T/r.blob" \
	"$T/r.img" "$T/src.tar"
check "nothing left behind" test ! -e "$T/r.img" -a ! -e "$T/r.blob"
usage_refused "decompressed tar to a file" "$MKFS" --tar=f --ungzip="$T/u.tar" \
	"$T/r.img" "$T/src.tar"
tar -C "$S" --format=gnu --mtime=@1000000 -czf "$T/src.tgz" .
run "--tar=f --ungzip, a gzip'd tar" "$MKFS" --quiet --tar=f --ungzip "$T/z.img" "$T/src.tgz" &&
	rm -rf "$T/x" && run "img2dir of it" "$IMG2DIR" "$T/z.img" "$T/x" &&
	same_tree "--ungzip: the tar's tree" "$T/x" "$S"
finish
