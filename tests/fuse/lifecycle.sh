#!/bin/sh
# SPDX-License-Identifier: MIT
# lifecycle.sh - how a sqpack-fuse mount ends, and what a broken image
# does to it: SIGTERM and an unmount from outside end the process with
# exit 0 and no mount left; where the kernel allows, files are read
# with no open nor release; -o timeout=1 unmounts when idle; the notify
# pipe says 's' or 'f'; an image that is not one is refused before
# mounting with one line and exit 1; each corrupt image of
# tests/read/mkcorrupt.py is refused, or mounted with reads of the whole
# tree that end with EIO where they touch the damage and a daemon still serving after
# (a dead one leaves a mount that answers ENOTCONN).
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fuse/fuse.sh"
fuse_usable
need_tool mksquashfs "$PYTHON3"
T=$SCRATCH
run "the corrupt images" corrupt_set "$T" || finish
mkdir -p "$T/m"

# start_fg ARGS...: sqpack-fuse -f ARGS... $T/m in the background; pid.
start_fg() {
	"$FUSE" -f "$@" "$T/m" > "$T/fg.out" 2>&1 &
	pid=$!
	wait_mounted $pid "$T/m" || { fail "-f $*: not mounted: $(cat "$T/fg.out")"; wait_gone $pid; return 1; }
}

if start_fg "$T/good.img"; then
	kill -TERM $pid
	wait_gone $pid
	check "SIGTERM: exit 0 ($rc)" [ $rc = 0 ]
	check "SIGTERM: unmounted" sh -c "! awk '\$2 == \"$T/m\"' /proc/mounts | grep -q ."
fi
if start_fg "$T/good.img"; then
	unmount "$T/m"
	wait_gone $pid
	check "an unmount from outside: exit 0 ($rc)" [ $rc = 0 ]
fi
# No open: where the kernel takes ENOSYS from open and opendir (its
# INIT flags, -d's first "flags=", have FUSE_NO_OPEN_SUPPORT, 1 << 17),
# the daemon answers the first so, and the kernel sends no other, nor
# any release: every file read twice costs one OPEN in all, and the
# second pass no READ (kept pages: the no-open default keeps them).
if start_fg -d "$T/good.img"; then
	find "$T/m" -type f -exec cat {} + > /dev/null 2>&1
	reads=$(grep -c 'opcode: READ ' "$T/fg.out")
	find "$T/m" -type f -exec cat {} + > /dev/null 2>&1
	unmount "$T/m"
	wait_gone $pid
	flags=$(sed -n 's/^flags=0x\([0-9a-f]*\)$/\1/p' "$T/fg.out" | head -n 1)
	if [ -z "$flags" ]; then
		fail "-d: no INIT flags in its output: $(head -c 300 "$T/fg.out")"
	elif [ $((0x$flags & 0x20000)) = 0 ]; then
		skipc "no open: this kernel has no FUSE_NO_OPEN_SUPPORT (flags 0x$flags)"
	else
		check "no open: one OPEN for every file read twice ($(grep -c 'opcode: OPEN ' "$T/fg.out"))" \
			[ "$(grep -c 'opcode: OPEN ' "$T/fg.out")" = 1 ]
		check "no open: no RELEASE ($(grep -c 'opcode: RELEASE ' "$T/fg.out"))" \
			[ "$(grep -c 'opcode: RELEASE ' "$T/fg.out")" = 0 ]
		check "no open: the second pass from kept pages ($reads READs, then $(grep -c 'opcode: READ ' "$T/fg.out"))" \
			[ "$reads" -gt 0 ] && [ "$(grep -c 'opcode: READ ' "$T/fg.out")" = "$reads" ]
	fi
fi
if start_fg -o timeout=1 "$T/good.img"; then
	wait_gone $pid
	check "-o timeout=1: exit 0 once idle ($rc)" [ $rc = 0 ]
	check "-o timeout=1: unmounted" sh -c "! awk '\$2 == \"$T/m\"' /proc/mounts | grep -q ."
fi

# The notify pipe: 's' once mounted, 'f' when refused.
mkfifo "$T/pipe" || exit 99
cat "$T/pipe" > "$T/said" &
cpid=$!
if run "mount -o notify_pipe=" mount_img "$T/m" -o notify_pipe="$T/pipe" "$T/good.img"; then
	wait $cpid
	check "notify_pipe: 's' when mounted ($(cat "$T/said"))" [ "$(cat "$T/said")" = s ]
	unmount "$T/m"
else
	kill $cpid
fi
head -c 8192 /dev/zero > "$T/zero.img"
cat "$T/pipe" > "$T/said" &
cpid=$!
mount_img "$T/m" -o notify_pipe="$T/pipe" "$T/zero.img"
rc=$?
wait $cpid
check "notify_pipe: 'f' when refused ($(cat "$T/said"))" [ "$(cat "$T/said")" = f ]
check "not an image: exit 1 ($rc)" [ $rc = 1 ]
check "not an image: one line 'sqpack-fuse: IMAGE: why' ($(cat "$SCRATCH/mount.err"))" \
	[ "$(grep -c "^sqpack-fuse: $T/zero.img: ." "$SCRATCH/mount.err")" = 1 ] &&
	[ "$(wc -l < "$SCRATCH/mount.err")" = 1 ]

# The corrupt set: refused, or reads that end and a daemon that lives.
refused=0 eio=0
while read -r name; do
	broken_mount "$name" "$T/bad/$name" "$T/b/$name"
done < "$T/bad/cases.txt"
broken_read
note "corrupt images: $refused refused at mount, $eio mounted with EIO on read"
check "some corrupt images are refused ($refused)" [ $refused -gt 0 ]
finish
