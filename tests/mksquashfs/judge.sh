#!/bin/sh
# SPDX-License-Identifier: MIT
# judge.sh - sqpack-mksquashfs against the real mksquashfs, for the flag
# lines distro build systems pass (each written down below with where it
# comes from). For each line both pack the same edge-case tree (every file
# type, xattrs, hard links, a sparse file, duplicates, odd names, several
# owners and modes) and must give: the same `unsquashfs -lln` listing, the
# same tree after `unsquashfs -d` (contents, owners, modes, times, xattrs,
# hard links), and the same superblock settings from `unsquashfs -s`
# (compressor and its options, block size, export table, fragments and
# tail-ends, xattrs, what is compressed). Then what mksquashfs's command
# line promises beyond that: an unknown option is exit 2 naming it, -e
# takes every later argument, -Xdict-size N% is N% of the block size, and
# an existing DEST that is not an image is refused without -noappend
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
MKSQ=$SQP_BIN/sqpack-mksquashfs
[ -x "$MKSQ" ] || skip "sqpack-mksquashfs not built ($MKSQ)"
need_tool mksquashfs unsquashfs "$PYTHON3"
[ "$(id -u)" = 0 ] || skip "needs root: the tree has devices, owners and trusted.* xattrs"

T=$(fast_dir) || exit 99
export SOURCE_DATE_EPOCH=1750000000

# The tree: 128K blocks make big.bin three blocks and a tail.
mk_tree() {
	d=$1
	mkdir -p "$d/etc" "$d/usr/bin" "$d/usr/share/doc" "$d/boot" "$d/var/tmp" \
		"$d/odd names/ü" "$d/dev" || return 1
	printf 'host\n' > "$d/etc/hostname"
	ln "$d/etc/hostname" "$d/etc/hardlink"
	head -c 300000 /dev/urandom > "$d/usr/bin/big.bin"
	seq 1 40000 > "$d/usr/share/doc/numbers.txt"
	cp "$d/usr/share/doc/numbers.txt" "$d/usr/share/doc/copy.txt"
	printf 'kernel\n' > "$d/boot/vmlinuz"
	printf 'readme\n' > "$d/README.md"
	printf 'deep\n' > "$d/usr/share/doc/deep.md"
	printf 'x' > "$d/odd names/ü/a*b [c]"
	: > "$d/empty"
	truncate -s 1M "$d/sparse" && printf 'z' | dd of="$d/sparse" bs=1 seek=700000 conv=notrunc 2>/dev/null
	ln -s ../etc/hostname "$d/usr/rel-link"
	ln -s /etc/passwd "$d/abs-link"
	ln -s nowhere "$d/dangling"
	mkfifo "$d/var/fifo"
	mknod "$d/dev/null" c 1 3 && mknod "$d/dev/loop0" b 7 0
	chmod 4755 "$d/usr/bin/big.bin"; chmod 1777 "$d/var/tmp"; chmod 700 "$d/boot"
	chown 1000:100 "$d/usr/share/doc/numbers.txt"; chown 0:5 "$d/dev/null"
	chown -h 42:42 "$d/dangling"
	$PYTHON3 -c 'import os, sys
d = sys.argv[1]
os.setxattr(d + "/etc/hostname", "user.comment", b"hello")
os.setxattr(d + "/usr/bin/big.bin", "trusted.t", b"\x00\x01binary")
os.setxattr(d + "/usr/share/doc", "user.dir", b"on a directory")' "$d" || return 1
	find "$d" -exec touch -h -d @1700000000 {} +
	touch -h -d @1760000000 "$d/usr/share/doc/deep.md"   # newer than SOURCE_DATE_EPOCH
}
mk_tree "$T/src" || exit 99
mkdir -p "$T/two" && printf 'reg\n' > "$T/two/registration" &&
	touch -d @1700000000 "$T/two/registration" "$T/two"
printf '*.md\n... fifo\n' > "$T/snap-excludes"

# The superblock settings unsquashfs -s reports, without sizes and counts.
settings() {
	unsquashfs -o "$1" -s "$2" 2>/dev/null | grep -Ev '^(Found|Creation|Filesystem size|Number of)'
}
# compare NAME OFFSET: $T/ref.img (mksquashfs) against $T/our.img.
compare() {
	unsquashfs_same "$1" "$2" "$T"
	settings "$2" "$T/ref.img" > "$T/ref.s"; settings "$2" "$T/our.img" > "$T/our.s"
	if diff "$T/ref.s" "$T/our.s" > "$T/s.diff"; then
		pass "$1: same settings in unsquashfs -s"
	else
		fail "$1: unsquashfs -s settings differ (< mksquashfs, > ours)"; cat "$T/s.diff"
	fi
}
# line NAME OFFSET "SOURCES" FLAGS...: both tools, the same arguments.
line() {
	name=$1 off=$2 srcs=$3; shift 3
	rm -f "$T/ref.img" "$T/our.img"
	if ! mksquashfs $srcs "$T/ref.img" "$@" > "$T/ref.out" 2>&1; then
		skipc "$name: mksquashfs itself fails here"; tail -3 "$T/ref.out"; return
	fi
	if ! "$MKSQ" $srcs "$T/our.img" "$@" > "$T/our.out" 2>&1; then
		fail "$name: sqpack-mksquashfs failed"; tail -5 "$T/our.out"; return
	fi
	compare "$name" "$off"
}
cd "$T" || exit 99

# Buildroot, fs/squashfs/squashfs.mk: ROOTFS_SQUASHFS_ARGS with the
# default 128K block size and gzip.
line buildroot 0 src -noappend -processors 2 -b 128K -comp gzip
# Buildroot with BR2_TARGET_ROOTFS_SQUASHFS4_LZ4 and no padding.
line buildroot-lz4 0 src -noappend -processors 2 -b 128K -comp lz4 -Xhc -nopad
# Yocto/OE, meta/classes-recipe/image_types.bbclass: IMAGE_CMD:squashfs-xz.
line yocto-xz 0 src -noappend -comp xz
# Yocto/OE, IMAGE_CMD:squashfs-zstd (meta layers adding the zstd type).
line yocto-zstd 0 src -noappend -comp zstd
# archiso, mkarchiso _run_mksquashfs with the releng profile's
# airootfs_image_tool_options.
line archiso 0 src -noappend -comp xz -Xbcj x86 -b 1M -Xdict-size 1M -no-progress
# snapd, snap/squashfs/squashfs.go Build (its test's line, with excludes).
line snapd 0 src -noappend -comp xz -no-fragments -no-progress -wildcards -ef snap-excludes
# NixOS, nixos/lib/make-squashfs.nix (two sources, kept as directories):
# the older line, where mksquashfs's own root for them is 0777, and the
# current one, which sets -root-mode.
line nixos-old 0 "two src" -keep-as-directory -all-root -b 1048576 \
	-comp xz -Xdict-size 100%
line nixos 0 "two src" -no-hardlinks -keep-as-directory -all-root -b 1048576 \
	-comp xz -Xdict-size 100% -processors 2 -root-mode 0755
# AppImage, appimagetool: the image behind the runtime (without -fstime,
# which mksquashfs refuses together with SOURCE_DATE_EPOCH).
line appimage 8192 src -offset 8192 -comp gzip -root-owned -noappend
# Ubuntu livecd-rootfs (live-build hooks), 030-root-squashfs.binary
# (there run in the tree as "mksquashfs . FILE ...").
line livecd-rootfs 0 src -no-progress -xattrs -comp xz
# A live-build remaster (lb binary after rebuilding the root): -e takes
# the kernel and initrd names after it.
line live-build-remaster 0 src -e boot initrd.img vmlinuz

# Pseudo definitions (-p, -pf): a directory, a device, a symlink, a fifo
# and the modify form, as rootless builds use them; and a sort file.
printf 'dev/console c 600 0 5 5 1\nvar/pipe i 644 1 1 f\n' > pseudo
printf 'usr/bin/big.bin 100\netc/hostname -5\n' > sortfile
line pseudo 0 src -noappend -p "newdir d 750 1 2" -p "link s 777 0 0 etc/hostname" \
	-p "etc m 700 3 4" -pf pseudo -sort sortfile
check "pseudo: the definitions made entries" \
	sh -c "grep -q '^crw------- 0/5 .* squashfs-root/dev/console\$' '$T/our.ls' &&
	       grep -q '^drwxr-x--- 1/2 .* squashfs-root/newdir\$' '$T/our.ls'"
# -e takes every later argument: "-no-xattrs" is a name to exclude here,
# so xattrs stay, and boot is gone.
line e-swallows 0 src -noappend -e boot -no-xattrs
check "-e: boot excluded" test ! -e "$T/our.d/boot"
check "-e: the later -no-xattrs is an exclude, xattrs stay" \
	sh -c "getfattr -n user.comment '$T/our.d/etc/hostname' >/dev/null 2>&1"
# -Xdict-size N% is N% of the block size, whatever the order.
line dict-percent 0 src -noappend -comp xz -Xdict-size 50% -b 256K
check "-Xdict-size 50% of 256K is 131072" grep -q 'Dictionary size 131072' "$T/our.s"
# -tar: a tar on stdin, as sqfstar; no export table, tails in fragments.
tar -C src -cf src.tar --xattrs --xattrs-include='*' . || exit 99
rm -f ref.img our.img
if mksquashfs - ref.img -tar -noappend < src.tar > ref.out 2>&1; then
	if "$MKSQ" - our.img -tar -noappend < src.tar > our.out 2>&1; then
		compare tar 0
	else
		fail "-tar: sqpack-mksquashfs failed"; tail -5 our.out
	fi
fi

# An unknown option is exit 2, naming it; nothing is written.
rm -f new.img
"$MKSQ" src new.img -noappend -frobnicate > out 2> err; rc=$?
check "unknown option: exit 2 (got $rc)" test "$rc" = 2
check "unknown option: the message names it" grep -q -- "-frobnicate" err
check "unknown option: no image" test ! -e new.img
# An existing DEST that is not an image is refused without -noappend,
# as mksquashfs refuses to append to it, and left as it was.
printf 'keep me' > old.img
"$MKSQ" src old.img -comp xz > out 2> err; rc=$?
check "existing DEST without -noappend: exit 1 (got $rc)" test "$rc" = 1
check "existing DEST: the message says to pass -noappend" grep -q -- "-noappend" err
check "existing DEST: left untouched" test "$(cat old.img)" = "keep me"
"$MKSQ" src old.img -noappend -quiet > out 2> err
check "existing DEST with -noappend: replaced by an image" \
	sh -c "unsquashfs -s old.img > /dev/null 2>&1"
# A DEST that is not a regular file (mksquashfs writes into devices) is
# refused, not replaced by a file.
mkfifo dest.fifo
"$MKSQ" src dest.fifo -noappend -quiet > out 2> err; rc=$?
check "DEST a fifo: exit 1 (got $rc)" test "$rc" = 1
check "DEST a fifo: still a fifo" test -p dest.fifo
finish
