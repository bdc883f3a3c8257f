#!/bin/sh
# SPDX-License-Identifier: MIT
# hostile.sh - hostile SquashFS images (tests/hostile/mkhostile.py: a
# root listing with a name twice, unsorted, or holding ".", "..", '/' or
# NUL) and corrupt and hostile EROFS images (tests/erofs/mkbad.py, made
# from mkfs.erofs's images of several layouts) under sqpack-fuse: each
# is refused at mount with one line and exit 1, or mounts and a read of
# the whole tree (contents and xattrs) meets EIO where it touches the
# damage (ELOOP for a directory in itself, which the kernel finds);
# never a hang, never a dead daemon.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fuse/fuse.sh"
fuse_usable
need_tool mksquashfs mkfs.erofs "$PYTHON3"
T=$SCRATCH
mkdir -p "$T/m" "$T/h" "$T/e/src/d/sub" "$T/e/src/e" "$T/e/bad" || exit 99
refused=0 eio=0
if run "the hostile SquashFS images" hostile_set "$T/h"; then
	for img in "$T"/h/bad/*.img; do
		broken_mount "squashfs ${img##*/}" "$img" "$T/m/s.${img##*/}"
	done
fi

# hostile.sh's tree and images (tests/erofs), then mkbad.py's cases.
S=$T/e/src
echo hello > "$S/a.txt" && echo a > "$S/aa" && echo z > "$S/zz" &&
echo f > "$S/d/sub/f" && head -c 100000 /dev/urandom > "$S/d/big" &&
seq 1 40000 > "$S/d/seq" && ln -s a.txt "$S/link" &&
truncate -s 5M "$S/sparse" &&
printf abc | dd of="$S/sparse" bs=1 seek=2097152 conv=notrunc 2>/dev/null &&
$PYTHON3 -c 'import os, sys
os.setxattr(sys.argv[1], "user.x", b"1")' "$S/e" || exit 99
run "mkfs.erofs" mkfs.erofs --quiet -Eforce-inode-extended "$T/e/plain.erofs" "$S" > /dev/null &&
run "mkfs.erofs --chunksize" peer_mkfs_erofs "--quiet -Eforce-inode-extended --chunksize=65536
	-Eforce-chunk-indexes" "$T/e/chunk.erofs" "$S" > /dev/null &&
run "mkfs.erofs -zlz4hc" mkfs.erofs --quiet -zlz4hc -C16384 -Elegacy-compress \
	"$T/e/full.erofs" "$S" > /dev/null &&
run "mkfs.erofs -zlz4" mkfs.erofs --quiet -zlz4 -Eztailpacking "$T/e/compact.erofs" "$S" > /dev/null &&
run "mkbad.py" $PYTHON3 "$top_srcdir/tests/erofs/mkbad.py" "$T/e/plain.erofs" "$T/e/chunk.erofs" \
	"$T/e/full.erofs" "$T/e/compact.erofs" "$top_srcdir/tests/erofs/fixtures/lz4frag.img" "$T/e/bad" &&
while read -r name path; do
	broken_mount "erofs $name" "$T/e/bad/$name" "$T/m/e.$name"
done < "$T/e/bad/cases.txt"
broken_read
note "broken images: $refused refused at mount, $eio mounted with EIO on read"
finish
