#!/bin/sh
# SPDX-License-Identifier: MIT
# devout.sh - a device named as OUTPUT is never replaced by a file: root
# benchmarking into /dev/null once left a regular file there. An image
# tool refuses a character device (its image is read back as it is
# written) and writes into a block device in place, as mkfs.erofs and
# mksquashfs -noappend do: only with --force in tar2img and dir2img, not
# when it is mounted, never appending to it, and a run that fails leaves
# no superblock there. img2tar writes a tar into a character device or a
# FIFO as into a file. The device nodes are the script's own (mknod, a
# loop device over a file in the scratch directory).
. "$top_srcdir/tests/lib/common.sh"
[ "$(id -u)" = 0 ] || skip "mknod and loop devices need root"

T=$SCRATCH
mkdir "$T/src" "$T/mnt" || exit 99
echo small > "$T/src/a"
seq 1 30000 > "$T/src/b"
mknod "$T/null" c 1 3 || skip "mknod refused here"
tar -C "$T/src" -cf "$T/in.tar" . || exit 99

# still_null WHAT: $T/null is still the character device 1,3.
still_null() {
	if [ -c "$T/null" ] && [ "$(stat -c %t:%T "$T/null")" = 1:3 ]; then
		pass "$1: the character device is still there"
	else
		fail "$1: the character device was replaced: $(ls -l "$T/null")"
	fi
}
# refused WHAT WORDS CMD...: exit 1 with WORDS in the message.
refused() {
	rf_what=$1 rf_words=$2; shift 2
	"$@" > "$T/out" 2>&1
	rf_rc=$?
	if [ $rf_rc -eq 1 ] && grep -q -- "$rf_words" "$T/out"; then
		pass "$rf_what: refused: $(head -1 "$T/out")"
	else
		fail "$rf_what: expected exit 1 and '$rf_words': exit $rf_rc: $(head -c 200 "$T/out")"
	fi
}

refused "sqpack-mkfs.erofs into a character device" "character device" \
	"$SQP_BIN/sqpack-mkfs.erofs" --quiet "$T/null" "$T/src"
still_null "sqpack-mkfs.erofs"
refused "dir2img --force into a character device" "character device" \
	"$SQP_BIN/dir2img" -q --force "$T/null" "$T/src"
refused "tar2img --force into a character device" "character device" \
	"$TAR2IMG" -q --force "$T/null" "$T/in.tar"
refused "sqpack-mksquashfs -noappend into a character device" "not a regular file" \
	"$SQP_BIN/sqpack-mksquashfs" "$T/src" "$T/null" -noappend -quiet
still_null "dir2img, tar2img and sqpack-mksquashfs"

# A tar is a stream: into the character device, and through a FIFO.
run "an image to read" "$TAR2IMG" -q "$T/img" "$T/in.tar" &&
run "img2tar into a file" "$IMG2TAR" -o "$T/file.tar" "$T/img" &&
check "img2tar -o a character device: exit 0" "$IMG2TAR" -o "$T/null" "$T/img"
still_null "img2tar"
mkfifo "$T/fifo" || exit 99
# The script holds the FIFO open (read-write: that does not block) until
# img2tar is done, so the reader ends whether or not img2tar opened it.
exec 5<> "$T/fifo"
cat "$T/fifo" > "$T/fifo.tar" 5>&- &
reader=$!
"$IMG2TAR" -o "$T/fifo" "$T/img"
rc=$?
exec 5>&-
wait $reader
if [ $rc -eq 0 ] && [ -p "$T/fifo" ] && cmp -s "$T/file.tar" "$T/fifo.tar"; then
	pass "img2tar -o a FIFO: the same tar as into a file, the FIFO kept"
else
	fail "img2tar -o a FIFO: exit $rc, $(ls -l "$T/fifo" "$T/fifo.tar" | tr '\n' ' ')"
fi

# A block device: a loop device over a file of the scratch directory.
truncate -s 16M "$T/disk" || exit 99
DEV=$(losetup -f --show "$T/disk" 2> "$T/err") ||
	{ skipc "block devices: no loop device: $(head -c 200 "$T/err")"; finish; }
trap 'losetup -d "$DEV" 2>/dev/null; cleanup' EXIT
# The tools are given a node of the script's own for it: a tool that
# replaces its OUTPUT must not take /dev/loopN with it.
set -- $(stat -c '%t %T' "$DEV")
mknod "$T/blk" b $((0x$1)) $((0x$2)) || exit 99
LOOP=$T/blk

run "sqpack-mkfs.erofs into $LOOP" "$SQP_BIN/sqpack-mkfs.erofs" --quiet "$LOOP" "$T/src" &&
check "sqpack-mkfs.erofs: $LOOP is still a block device" test -b "$LOOP" &&
kernel_check erofs "$LOOP" "the kernel mounts the EROFS image written into $LOOP" \
	same_tree "EROFS in $LOOP" "$KMNT" "$T/src"
refused "dir2img into a block device without --force" "use --force" \
	"$SQP_BIN/dir2img" -q "$LOOP" "$T/src"
refused "sqpack-mksquashfs appending to a block device" "not appended" \
	"$SQP_BIN/sqpack-mksquashfs" "$T/src" "$LOOP" -quiet
run "sqpack-mksquashfs -noappend into $LOOP" \
	"$SQP_BIN/sqpack-mksquashfs" "$T/src" "$LOOP" -noappend -quiet &&
check "sqpack-mksquashfs: $LOOP is still a block device" test -b "$LOOP" &&
judge_ok "the SquashFS image in $LOOP" kernel zstd &&
if mount -t squashfs -o ro "$LOOP" "$T/mnt" 2> "$T/err"; then
	same_tree "the kernel mounts the SquashFS image written into $LOOP" "$T/mnt" "$T/src"
	refused "dir2img --force into a mounted block device" "busy" \
		"$SQP_BIN/dir2img" -q --force "$LOOP" "$T/src"
	umount "$T/mnt"
else
	fail "the kernel does not mount the SquashFS image in $LOOP: $(head -c 200 "$T/err")"
fi
# A run that fails after it started writing: no superblock is left to
# describe what it wrote (here: the SquashFS image before it).
head -c 3000 "$T/in.tar" > "$T/cut.tar"
refused "tar2img --force of a cut tar into $LOOP" "" \
	"$TAR2IMG" -q --force "$LOOP" "$T/cut.tar"
if [ "$(head -c 4096 "$LOOP" | tr -d '\0' | wc -c)" -eq 0 ]; then
	pass "a failed run into $LOOP leaves its first 4 KiB zero (no superblock)"
else
	fail "a failed run into $LOOP left bytes in its first 4 KiB"
fi
finish
