#!/bin/sh
# SPDX-License-Identifier: MIT
# mount.sh - sqpack-fuse mounts images of both formats, ours and the
# peers', and shows the tree they were made of: the edge-case tree
# (tests/tar2img/mktar.py: every entry type, holes, hard links across
# directories, xattrs of three namespaces with binary values, 60 levels,
# a 1200-entry directory, odd modes, owners and times), packed by
# tar2img as SquashFS (zstd) and EROFS (lz4), by mksquashfs (gzip) and
# by mkfs.erofs (lz4hc; of tests/erofs/mktree.sh's tree, since 1.5 cannot
# pack the edge-case one). treecmp compares contents, modes, owners,
# times, xattrs, symlinks, devices and hard links (by st_ino). Where
# root, the kernel's mount of one image of each format is a judge too:
# the same tree, the same holes (SEEK_DATA, SEEK_HOLE) and, for
# SquashFS, the same st_ino (kernelsame.py). The mounter prints nothing
# on success. The packers run at level 1: packing
# is not what is tested, and the default levels cost 1.2 CPU-s more.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fuse/fuse.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
fuse_usable
need_tool mksquashfs mkfs.erofs bsdtar "$PYTHON3"

T=$(fast_dir)
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/src"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/src" || exit 99

# mounted_same WHAT IMAGE CODEC [SOURCE]: mount IMAGE, compare with
# SOURCE ($T/src), then with the kernel's mount of IMAGE (CODEC: its
# codec, or erofs; "-": not judged by the kernel, which costs 1 CPU-s for
# the large tree: one image of each format is), unmount.
mounted_same() {
	if ! mount_img "$T/m" "$2"; then
		fail "$1: mount: $(head -c 300 "$SCRATCH/mount.err")"; return
	fi
	# First, on the fresh mount (later walks read the kernel's cache):
	# readdir's d_ino is st_ino (an entry of d_ino 0 is skipped by some
	# readers: Python's walk lost two thirds of the tree).
	dino=$($PYTHON3 -c 'import os, sys
bad = n = 0
for root, dirs, files in os.walk(sys.argv[1]):
    for e in os.scandir(root):
        n += 1
        bad += e.inode() != os.lstat(e.path).st_ino
print(bad, n)' "$T/m")
	want=$(find "${4:-$T/src}" -mindepth 1 | wc -l)
	check "$1: every entry listed, d_ino its st_ino (mismatched, listed: $dino of $want)" \
		[ "$dino" = "0 $want" ]
	same_tree "$1: the mount is the source tree" "$T/m" "${4:-$T/src}"
	[ "$3" = - ] || kernel_same "$1" "$2" "$3"
	[ -s "$SCRATCH/mount.out" ] || [ -s "$SCRATCH/mount.err" ] &&
		fail "$1: printed on success: $(head -c 200 "$SCRATCH/mount.out" "$SCRATCH/mount.err")"
	unmount "$T/m" || fail "$1: unmount"
}

# kernel_same WHAT IMAGE CODEC: the kernel's mount of IMAGE is the judge
# of the FUSE mount at $T/m: the same tree (treecmp), and what treecmp
# cannot see (kernelsame.py): the holes SEEK_DATA and SEEK_HOLE find and,
# for SquashFS, whose inode numbers the kernel takes from the image as we
# do, every st_ino.
kernel_same() {
	judge_ok "$1: kernel mount" kernel "$3" || return
	ks_fs=squashfs ks_ino=--ino
	[ "$3" != erofs ] || { ks_fs=erofs ks_ino=; }
	mkdir -p "$T/k"
	if ! mount -t $ks_fs -o loop,ro "$2" "$T/k" 2> "$SCRATCH/kmount.err"; then
		fail "$1: the kernel refuses the image: $(head -1 "$SCRATCH/kmount.err")"
		return
	fi
	same_tree "$1: the mount is the kernel's" "$T/m" "$T/k"
	# shellcheck disable=SC2086
	if $PYTHON3 "$top_srcdir/tests/fuse/kernelsame.py" $ks_ino "$T/m" "$T/k" \
		> "$SCRATCH/kernelsame.out" 2>&1; then
		pass "$1: holes${ks_ino:+ and st_ino} as the kernel's ($(tail -1 "$SCRATCH/kernelsame.out"))"
	else
		fail "$1: holes${ks_ino:+ or st_ino} unlike the kernel's"; head -21 "$SCRATCH/kernelsame.out"
	fi
	umount "$T/k" || fail "$1: kernel unmount"
}

if codec_built zstd; then
	run "tar2img -c zstd" "$TAR2IMG" -q -f -c zstd -X level=1 "$T/o.sqfs" "$T/in.tar" &&
		mounted_same "tar2img -c zstd" "$T/o.sqfs" zstd
else
	skipc "tar2img -c zstd: zstd not built"
fi
# 1 MiB pclusters: their files are served in 1 MiB chunks (fuse_fs.c),
# mkfs.erofs's image below in 128 KiB ones.
if codec_built lz4; then
	run "tar2img --format erofs -c lz4 --pcluster-size 1048576" "$TAR2IMG" -q -f \
		--format erofs -c lz4 --pcluster-size 1048576 "$T/o.erofs" "$T/in.tar" &&
		mounted_same "tar2img --format erofs -c lz4, 1 MiB pclusters" "$T/o.erofs" -
else
	skipc "tar2img --format erofs -c lz4: lz4 not built"
fi
if mksquashfs "$T/src" "$T/m.sqfs" -comp gzip -Xcompression-level 1 -noappend -quiet -no-progress \
	> /dev/null 2>&1; then
	mounted_same "mksquashfs -comp gzip" "$T/m.sqfs" -
else
	fail "mksquashfs -comp gzip"
fi
run "make the EROFS tree" erofs_tree "$T/esrc" &&
	run "mkfs.erofs -zlz4hc" peer_mkfs_erofs "-zlz4hc --quiet" "$T/m.erofs" "$T/esrc" &&
	mounted_same "mkfs.erofs -zlz4hc" "$T/m.erofs" erofs "$T/esrc"

finish
