#!/bin/sh
# SPDX-License-Identifier: MIT
# fragments.sh - EROFS fragments (--erofs-fragments, mkfs.erofs's
# -E fragments): compressed files' tails, and whole files of a pcluster
# or less, in one packed inode. From the tree of tests/erofs/mktree.sh
# plus a text file over two 16 MiB segments (its tail is a fragment of
# the second), one that alternates random runs and text, small text
# files (whole fragments) and one of a pcluster and a byte. Per codec
# and layout: the superblock says FRAGMENTS and names a packed inode;
# the same bytes at -j 1 and 3 and with the tree spilled (--mem 1M, the
# packed inode's data spilled too); the kernel's mount reads every file
# equal to the source; img2tar gives the SquashFS image's tar;
# `imginfo check` finds no problem; smaller than without fragments.
# sqpack-mkfs.erofs -Efragments gives dir2img's bytes; tar2img and
# img2img write them too; without a codec the option changes nothing.
# fsck.erofs judges ours only where it reads mkfs.erofs's own
# fragments image (Debian 12's 1.5 refuses feature 0x20 and its
# mkfs.erofs writes no fragments), and our reader must read that image
# as the source.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
need_tool tar "$PYTHON3" od
codec_built lz4 || skip "lz4 not built"
DIR2IMG="$SQP_BIN/dir2img"
IMG2IMG="$SQP_BIN/img2img"
IMGINFO="$SQP_BIN/imginfo"
# SOURCE_DATE_EPOCH as dir2img reads it (mkfs.erofs 1.9 clamps the
# tree's times to it): the images compared are dir2img's.
MKFS=$(mkfs_build_time_only) || { fail "the mkfs.erofs wrapper"; finish; }
T=$SCRATCH
SOURCE_DATE_EPOCH=1600000000
export SOURCE_DATE_EPOCH

more_shapes() {
	$PYTHON3 -c 'import os, sys
d = sys.argv[1]
with open(d + "/text17m", "wb") as f:
    i = 0
    while f.tell() < (17 << 20) + 777:
        f.write(b"%08d words that come back, %d\n" % (i, i % 89))
        i += 1
with open(d + "/striped", "wb") as f:
    for i in range(20):
        f.write(os.urandom(2000 + 501 * i))
        f.write(b"y" * (9000 + 2001 * i))
with open(d + "/pcl64k1", "wb") as f:
    f.write(b"".join(b"row %d\n" % j for j in range(20000))[:65537])
os.mkdir(d + "/small")
for i in range(80):
    with open(d + "/small/t%d" % i, "wb") as f:
        f.write(b"".join(b"small %d line %d\n" % (i, j) for j in range(5 + 7 * i)))' "$1"
}
run "make the tree" erofs_tree "$T/src" || finish
run "add the fragment shapes" more_shapes "$T/src" || finish
run "whole seconds" whole_seconds "$T/src" || finish
# (its codec is not what is tested: lz4, cheap, where built)
ref_c=
! codec_built lz4 || ref_c="-c lz4"
# shellcheck disable=SC2086
run "the SquashFS image" "$DIR2IMG" -q $ref_c "$T/ref.sqfs" "$T/src" || finish
"$IMG2TAR" "$T/ref.sqfs" > "$T/ref.tar" 2> /dev/null || fail "img2tar of the SquashFS image"

# The superblock's feature_incompat (1024 + 80) and packed_nid (+ 96).
incompat_of() { od -An -tu4 -j 1104 -N 4 "$1" | tr -d ' '; }
packed_nid_of() { od -An -tu8 -j 1120 -N 8 "$1" | tr -d ' '; }

# read_back WHAT IMAGE [treecmp options]: the kernel, img2tar and the
# checker read IMAGE as the source.
read_back() {
	rb_what=$1 rb_img=$2; shift 2
	judge_same_tree "$rb_what" kernel erofs "$rb_img" "$T/src" "$@"
	if "$IMG2TAR" "$rb_img" > "$T/z.tar" 2> "$T/err"; then
		check "$rb_what: img2tar gives the SquashFS image's bytes" cmp -s "$T/z.tar" "$T/ref.tar"
	else
		fail "$rb_what: img2tar refuses it: $(head -c 300 "$T/err")"
	fi
	check "$rb_what: imginfo check finds no problem" "$IMGINFO" check "$rb_img"
}

# fsck.erofs judges where it reads mkfs.erofs's own fragments image
# (Debian's mkfs.erofs 1.5 takes -Efragments and writes none: then no
# peer's image shows that fsck.erofs can read them); our reader reads
# that image as the source.
fsck_frag=no
if command -v mkfs.erofs > /dev/null 2>&1 && judge_can fsck.erofs erofs; then
	if ! env -u SOURCE_DATE_EPOCH mkfs.erofs --quiet -zlz4 -Efragments "$T/peer.erofs" "$T/src" > "$T/err" 2>&1; then
		skipc "fsck.erofs: mkfs.erofs -Efragments: $(head -c 200 "$T/err")"
	elif [ $(($(incompat_of "$T/peer.erofs") & 32)) -eq 0 ]; then
		skipc "fsck.erofs: mkfs.erofs -Efragments writes no fragments here, so nothing shows fsck.erofs reads them"
	elif fsck.erofs --extract="$T/probe" "$T/peer.erofs" > "$T/err" 2>&1; then
		fsck_frag=yes
	else
		skipc "fsck.erofs: it does not read mkfs.erofs -Efragments's own image: $(grep -v '^ *$' "$T/err" | head -1)"
	fi
	if [ $(($(incompat_of "$T/peer.erofs") & 32)) -eq 32 ]; then
		if "$IMG2TAR" "$T/peer.erofs" > "$T/p.tar" 2> "$T/err"; then
			rm -rf "$T/pt" && mkdir "$T/pt" && tar -xf "$T/p.tar" -C "$T/pt" &&
				same_tree "img2tar reads mkfs.erofs -Efragments's image as the source" \
					"$T/pt" "$T/src" --exclude=sock --exclude=fifo --no-xattrs
		else
			fail "img2tar refuses mkfs.erofs -Efragments's image: $(head -c 300 "$T/err")"
		fi
	fi
fi

# codec (its library)|dir2img's codec options|the layout options. The
# slow codecs at their fastest levels: where the fragments go does not
# depend on the level, and the default ones took a minute more here.
while IFS='|' read -r lib copt layout; do
	codec_built "$lib" || { skipc "$copt: $lib not built"; continue; }
	name="$copt${layout:+ $layout}"
	img=$T/cur.erofs
	# shellcheck disable=SC2086
	# -j 1 spilled against -j 3 in memory: one comparison for both.
	"$DIR2IMG" -q -f -j 3 --format erofs $copt $layout --erofs-fragments "$img" "$T/src" 2> "$T/err" &&
	"$DIR2IMG" -f -j 1 --mem 1M --format erofs $copt $layout --erofs-fragments "$T/cur.m.erofs" \
		"$T/src" > "$T/mem.out" 2>> "$T/err" &&
	"$DIR2IMG" -q -f -j 2 --format erofs $copt $layout "$T/plain.erofs" "$T/src" 2>> "$T/err" ||
		{ fail "$name: dir2img: $(head -c 300 "$T/err")"; continue; }
	check "$name: the superblock says FRAGMENTS" test $(($(incompat_of "$img") & 32)) -eq 32
	check "$name: the superblock names a packed inode" test "$(packed_nid_of "$img")" -gt 0
	check "$name: --mem 1M spills" grep -q "spilled to a temporary file" "$T/mem.out"
	check "$name: the same bytes for -j 1 spilled (--mem 1M) and -j 3" cmp -s "$T/cur.m.erofs" "$img"
	ours=$(wc -c < "$img") plain=$(wc -c < "$T/plain.erofs")
	check "$name: $ours bytes, smaller than $plain without fragments" test "$ours" -lt "$plain"
	read_back "$name" "$img"
	# Debian's fsck.erofs 1.5 extracts no xattrs and no hard links.
	[ $fsck_frag = no ] ||
		judge_same_tree "$name" fsck.erofs erofs "$img" "$T/src" \
			--no-xattrs --no-hardlinks --exclude=sock
done <<EOF
lz4|-c lz4|
lz4|-c lz4|--pcluster-size 65536
lz4|-c lz4|--pcluster-size 1048576
lz4|-c lz4|--ztailpacking
lz4|-c lz4 -X level=3|
lzma|-c lzma -X level=0|
gzip|-c deflate -X level=1|
zstd|-c zstd -X level=1|
EOF

# sqpack-mkfs.erofs's spelling gives dir2img's bytes (^fragdedupe: its
# fragments share equal files by default, as mkfs.erofs's; dir2img's
# --erofs-fragments alone does not).
"$DIR2IMG" -q --format erofs -c lz4 --erofs-fragments "$T/d.erofs" "$T/src" 2> "$T/err" ||
	fail "dir2img --erofs-fragments: $(head -c 300 "$T/err")"
"$DIR2IMG" -q --format erofs -c lz4 --ztailpacking --pcluster-size 65536 --erofs-fragments \
	"$T/dz.erofs" "$T/src" 2> "$T/err" || fail "dir2img: $(head -c 300 "$T/err")"
for set in "-Efragments,^fragdedupe|d" "-Eztailpacking,fragments,^fragdedupe -C65536|dz"; do
	# shellcheck disable=SC2086
	if "$MKFS" --quiet -zlz4 ${set%|*} "$T/k.erofs" "$T/src" 2> "$T/err"; then
		check "sqpack-mkfs.erofs -zlz4 ${set%|*} gives dir2img's bytes" cmp -s "$T/k.erofs" "$T/${set#*|}.erofs"
	else
		fail "sqpack-mkfs.erofs -zlz4 ${set%|*}: $(head -c 300 "$T/err")"
	fi
done

# tar2img (the socket is not in a tar) and img2img (from the SquashFS
# image, without unpacking it).
if "$TAR2IMG" -q --format erofs -c lz4 --erofs-fragments "$T/t.erofs" "$T/ref.tar" 2> "$T/err"; then
	check "tar2img: the superblock says FRAGMENTS" test $(($(incompat_of "$T/t.erofs") & 32)) -eq 32
	read_back "tar2img" "$T/t.erofs" --exclude=sock
else
	fail "tar2img --erofs-fragments: $(head -c 300 "$T/err")"
fi
if "$IMG2IMG" -q --format erofs -c lz4 --erofs-fragments "$T/i.erofs" "$T/ref.sqfs" 2> "$T/err"; then
	check "img2img: the superblock says FRAGMENTS" test $(($(incompat_of "$T/i.erofs") & 32)) -eq 32
	read_back "img2img" "$T/i.erofs" --exclude=sock
else
	fail "img2img --erofs-fragments: $(head -c 300 "$T/err")"
fi

# Without a codec there is nothing to pack, as with mkfs.erofs.
"$DIR2IMG" -q --format erofs "$T/n.erofs" "$T/src" 2> "$T/err" &&
"$DIR2IMG" -q --format erofs --erofs-fragments "$T/nf.erofs" "$T/src" 2>> "$T/err" ||
	fail "dir2img without a codec: $(head -c 300 "$T/err")"
check "without a codec --erofs-fragments changes no byte" cmp -s "$T/n.erofs" "$T/nf.erofs"
finish
