#!/bin/sh
# SPDX-License-Identifier: MIT
# star.sh - archives written by star itself, in each of its header
# formats, read as star and the tar judges read them.
#
# The fixtures in tests/tar/star/ were written by star 1.7.0 (schilytools
# 2024-03-21, built from its sources; Debian has no star package) from
# one tree: "sparse", 258048 bytes, an 8 KiB hole, 30 data runs of 4 KiB
# each followed by a 4 KiB hole, and an 8 KiB hole at the end (30 runs:
# two of star's extension blocks of 21 map entries), a file, a symbolic
# and a hard link, a name split into prefix and name, a 200-byte name;
# every time 2020-01-01 00:00 UTC. Made with
#   star -c -sparse -numeric artype=FMT -C tree f=star-FMT.tar .
# for FMT in star (its original 1985 format: no ustar magic, the map in
# extension blocks counted in the size), xstar, xustar, exustar and
# gnutar, then gzip -9 -n. star's pax format keeps no holes (star writes
# the file whole), so it has no fixture. star-devices.tar.gz: the
# original format's device numbers (c 4,70; c 259,300000; b 8,1), where
# star keeps the whole number and the count of its minor bits:
#   star -c -numeric artype=star -C devs f=star-devices.tar .
#
# Judges: GNU tar and bsdtar extract star's GNU archive alike, GNU tar
# its xstar, xustar and exustar archives as the GNU one (bsdtar reads
# their extension blocks as file data); no judge here reads star's
# original format, so its image must hold the tree GNU tar extracts from
# the others, and the sparse file the source's bytes (sha256 below, as
# star -x gives them). Holes stay holes: unsquashfs's copy of a 4 KiB
# block image allocates the 30 runs alone, and imginfo counts the rest
# as sparse.
. "$top_srcdir/tests/lib/common.sh"
need_tool tar bsdtar gzip unsquashfs fsck.erofs sha256sum "$PYTHON3"

T=$SCRATCH
fx=$top_srcdir/tests/tar/star
sparse_sha=f2d33d8318459ca2b724e401cff5593620f224c6935551cb2f47120f2757fc8b
for f in star xstar xustar exustar gnutar devices; do
	gzip -dc "$fx/star-$f.tar.gz" > "$T/$f.tar" || exit 99
done

mkdir "$T/ref" "$T/bsd"
run "GNU tar -x of star's GNU archive" tar -xf "$T/gnutar.tar" -C "$T/ref" || finish
check "star's sparse file as GNU tar extracts it: the source's sha256" \
	test "$(sha256sum < "$T/ref/sparse" | cut -d' ' -f1)" = "$sparse_sha"
run "bsdtar -x of star's GNU archive" bsdtar -xf "$T/gnutar.tar" -C "$T/bsd" &&
	same_tree "bsdtar and GNU tar extract star's GNU archive alike" "$T/bsd" "$T/ref"
for f in xstar xustar exustar; do
	rm -rf "$T/x" && mkdir "$T/x"
	run "GNU tar -x of star's $f archive" tar -xf "$T/$f.tar" -C "$T/x" &&
		same_tree "GNU tar extracts star's $f archive as its GNU one" "$T/x" "$T/ref"
done

for f in star xstar xustar exustar gnutar; do
	rm -f "$T/sq.img" "$T/ero.img"
	if run "$f: tar2img" "$TAR2IMG" -q -b 4K "$T/sq.img" "$T/$f.tar"; then
		rm -rf "$T/u"
		if unsquashfs_ref "$f" ours gzip "$T/sq.img" "$T/u"; then
			same_tree "star's $f archive: the tree GNU tar extracts" "$T/u" "$T/ref"
			check "$f: unsquashfs's copy of the sparse file allocates the data runs alone" \
				test "$(stat -c %b "$T/u/sparse")" -le $((122880 / 512))
		fi
		check "$f: the image keeps the holes (imginfo: 135168 bytes sparse)" \
			sh -c '"$1" stat "$2" /sparse | grep -qx "sparse: 135168"' sh \
			"$SQP_BIN/imginfo" "$T/sq.img"
		judge_same_tree "$f (squashfs)" kernel gzip "$T/sq.img" "$T/ref"
	fi
	if run "$f: tar2img --format erofs" "$TAR2IMG" -q --format erofs \
		"$T/ero.img" "$T/$f.tar"; then
		# fsck.erofs 1.5 extracts hard links as copies
		judge_same_tree "$f (erofs)" fsck.erofs erofs "$T/ero.img" "$T/ref" \
			--no-hardlinks
		judge_same_tree "$f (erofs)" kernel erofs "$T/ero.img" "$T/ref"
	fi
done

# Device numbers of star's original format, as star -x makes them.
rm -f "$T/dev.img"
if run "devices: tar2img" "$TAR2IMG" -q "$T/dev.img" "$T/devices.tar"; then
	"$SQP_BIN/imginfo" ls -l "$T/dev.img" | awk '{ print $1, $3, $NF }' \
		> "$T/dev.ls"
	printf '%s\n' 'crw-r--r-- 259,300000 /big' 'brw-r--r-- 8,1 /blk' \
		'crw-r--r-- 4,70 /tty' > "$T/dev.want"
	check "star's original format: device numbers as star reads them" \
		cmp -s "$T/dev.ls" "$T/dev.want"
	# unsquashfs 4.5.1 lists minors past 255 wrongly (mksquashfs's
	# images too): the kernel judges them
	if judge_ok "devices: kernel mount" kernel gzip; then
		mkdir "$T/mnt"
		if run "devices: mount" mount -t squashfs -o loop,ro "$T/dev.img" "$T/mnt"; then
			(cd "$T/mnt" && stat -c '%F %t:%T %n' big blk tty) > "$T/dev.stat"
			umount "$T/mnt"
			printf '%s\n' 'character special file 103:493e0 big' \
				'block special file 8:1 blk' \
				'character special file 4:46 tty' > "$T/dev.want"
			check "devices: the kernel reads c 259,300000, b 8,1, c 4,70" \
				cmp -s "$T/dev.stat" "$T/dev.want"
		fi
	fi
fi
finish
