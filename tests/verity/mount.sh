#!/bin/sh
# SPDX-License-Identifier: MIT
# mount.sh - the hash tree after the image does not disturb its readers:
# a tar2img --verity image (tree appended) reads equal to its source with
# the kernel (loop mount), unsquashfs, sqfs2tar, 7zz and squashfuse, and
# with --offset (bytes in front) with the kernel, unsquashfs and
# squashfuse, which can skip them. The kernel's dm-verity itself is a
# judge where it opens a tree veritysetup made for our plain image: then
# `veritysetup open` of our image with the printed root hash must work,
# and the device mount read equal to the source. An EROFS --verity image
# likewise: the kernel's loop mount, and its mount over dm-verity. A
# judge that cannot run here is a counted skip with its reason.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/verity/vlib.sh"
[ "$(id -u)" = 0 ] || skip "needs root: loop mounts, and owners 0:0 in the reference tree"
need_tool unsquashfs
T=$SCRATCH
mksrc "$T" || exit 99
judge_skip() { skipc "$*"; }

# judges WHAT IMG OFFSET: every judge that can read IMG at OFFSET (jwhat:
# same_tree sets its own $what)
judges() {
	jwhat=$1 img=$2 off=$3
	if [ -n "$no_loop" ]; then
		judge_skip "$jwhat: kernel loop mount: $no_loop"
	elif mount -t squashfs -o loop,ro,offset="$off" "$img" "$T/mnt" 2> "$T/err"; then
		same_tree "$jwhat: kernel loop mount equals the source" "$T/mnt" "$T/src"
		umount "$T/mnt"
	else
		fail "$jwhat: the kernel refuses to mount it"; head -3 "$T/err"
	fi
	rm -rf "$T/u"
	if unsquashfs -q -n -o "$off" -d "$T/u" "$img" > "$T/err" 2>&1; then
		same_tree "$jwhat: unsquashfs tree equals the source" "$T/u" "$T/src"
	else
		fail "$jwhat: unsquashfs"; head -3 "$T/err"
	fi
	if ! command -v squashfuse > /dev/null || [ ! -c /dev/fuse ]; then
		judge_skip "$jwhat: squashfuse: not installed or no /dev/fuse"
	elif squashfuse -o offset="$off" "$img" "$T/mnt" 2> "$T/err"; then
		same_tree "$jwhat: squashfuse tree equals the source" "$T/mnt" "$T/src"
		fusermount3 -u "$T/mnt" 2>/dev/null || umount "$T/mnt"
	else
		fail "$jwhat: squashfuse"; head -3 "$T/err"
	fi
	[ "$off" = 0 ] || return 0
	if command -v sqfs2tar > /dev/null; then
		rm -rf "$T/x" && mkdir "$T/x"
		if sqfs2tar "$img" 2> "$T/err" | tar -C "$T/x" -xpf -; then
			same_tree "$jwhat: sqfs2tar's tar equals the source" "$T/x" "$T/src"
		else
			fail "$jwhat: sqfs2tar"; head -3 "$T/err"
		fi
	else
		judge_skip "$jwhat: sqfs2tar not installed"
	fi
	if command -v 7zz > /dev/null; then
		rm -rf "$T/z"
		if 7zz x -o"$T/z" "$img" > "$T/err" 2>&1; then
			# 7zz keeps no owners and no directory times: contents only
			check "$jwhat: 7zz extracts the same file contents" \
				diff -r "$T/z" "$T/src"
		else
			fail "$jwhat: 7zz x"; tail -3 "$T/err"
		fi
	else
		judge_skip "$jwhat: 7zz not installed"
	fi
}

# Can this machine loop-mount at all? Asked with a plain image, so that
# the kernel refusing ours is a failure, and no loop device a skip.
mkdir -p "$T/mnt"
run "tar2img" "$TAR2IMG" -q "$T/plain.img" "$T/src.tar" || exit 1
no_loop=
if mount -t squashfs -o loop,ro "$T/plain.img" "$T/mnt" 2> "$T/err"; then
	umount "$T/mnt"
else
	no_loop="not possible here: $(head -1 "$T/err")"
fi

run "tar2img --verity" "$TAR2IMG" --verity "$T/v.img" "$T/src.tar" > "$T/sum" &&
	vfields "$T/sum" || exit 1
VROOT=$ROOT VHOFF=$HOFF
judges "appended tree" "$T/v.img" 0

# 12345 bytes in front (an AppImage runtime's place)
head -c 12345 /dev/urandom > "$T/o.img"
run "tar2img --verity --offset" "$TAR2IMG" --verity --offset 12345 "$T/o.img" "$T/src.tar" \
	> "$T/sum" && vfields "$T/sum" &&
check "--offset: the hash offset counts the bytes in front" test "$HOFF" = $((12345 + DATA)) &&
check "--offset: imginfo --offset N verity accepts it" \
	"$IMGINFO" --offset 12345 verity "$T/o.img" "$ROOT" &&
judges "--offset 12345" "$T/o.img" 12345

# dm_verity_why: empty when the kernel's dm-verity opens what veritysetup
# itself made here (a tree in a file of its own for the plain image),
# else the reason it cannot. NAME is left closed.
dm_verity_why() {
	[ -n "$VERITYSETUP" ] || { echo "veritysetup not installed"; return; }
	# Asked first: libdevmapper would make /dev/mapper/control for a
	# driver the kernel does not have.
	grep -qw device-mapper /proc/misc ||
		{ echo "the kernel has no device-mapper (not in /proc/misc)"; return; }
	rm -f "$T/peer.hash"
	"$VERITYSETUP" format "$T/plain.img" "$T/peer.hash" > "$T/peer.out" 2>&1 ||
		{ echo "veritysetup format fails: $(head -1 "$T/peer.out")"; return; }
	proot=$(sed -n 's/^Root hash:[[:space:]]*//p' "$T/peer.out")
	"$VERITYSETUP" open "$T/plain.img" "$name" "$T/peer.hash" "$proot" > "$T/peer.out" 2>&1 ||
		{ echo "it refuses veritysetup's own tree: $(grep -v '^$' "$T/peer.out" | head -2 | tr '\n' ' ')"; return; }
	"$VERITYSETUP" close "$name"
}

# the kernel's own dm-verity over the appended image
name=sqpack-verity-$$
why=$(dm_verity_why)
if [ -n "$why" ]; then
	judge_skip "dm-verity (veritysetup open): $why"
elif "$VERITYSETUP" open "$T/v.img" "$name" "$T/v.img" "$VROOT" --hash-offset="$VHOFF" \
	2> "$T/err"; then
	if mount -t squashfs -o ro "/dev/mapper/$name" "$T/mnt" 2> "$T/err"; then
		same_tree "dm-verity device mounts and equals the source" "$T/mnt" "$T/src"
		umount "$T/mnt"
	else
		fail "mount of the dm-verity device"; head -3 "$T/err"
	fi
	"$VERITYSETUP" close "$name"
else
	fail "veritysetup open refuses the image with its printed root hash"; head -3 "$T/err"
fi

# EROFS: the kernel reads the image with its tree appended, and mounts
# it through dm-verity
run "erofs: tar2img --verity" "$TAR2IMG" --format erofs -c lz4 --verity "$T/e.img" \
	"$T/src.tar" > "$T/sum" && vfields "$T/sum" || exit 1
if ! grep -qw erofs /proc/filesystems && ! modprobe -q erofs 2> /dev/null; then
	judge_skip "erofs: kernel mounts: the kernel has no EROFS"
else
	if [ -n "$no_loop" ]; then
		judge_skip "erofs: kernel loop mount: $no_loop"
	elif mount -t erofs -o loop,ro "$T/e.img" "$T/mnt" 2> "$T/err"; then
		same_tree "erofs: kernel loop mount equals the source" "$T/mnt" "$T/src"
		umount "$T/mnt"
	else
		fail "erofs: the kernel refuses to mount it"; head -3 "$T/err"
	fi
	if [ -n "$why" ]; then
		judge_skip "erofs: dm-verity (veritysetup open): $why"
	elif "$VERITYSETUP" open "$T/e.img" "$name" "$T/e.img" "$ROOT" --hash-offset="$HOFF" \
		2> "$T/err"; then
		if mount -t erofs -o ro "/dev/mapper/$name" "$T/mnt" 2> "$T/err"; then
			same_tree "erofs: dm-verity device mounts and equals the source" \
				"$T/mnt" "$T/src"
			umount "$T/mnt"
		else
			fail "erofs: mount of the dm-verity device"; head -3 "$T/err"
		fi
		"$VERITYSETUP" close "$name"
	else
		fail "erofs: veritysetup open refuses the image with its root hash"
		head -3 "$T/err"
	fi
fi
finish
