#!/bin/sh
# SPDX-License-Identifier: MIT
# options.sh - sqpack-fuse's command lines, its own and under the names
# it stands in for: the image at an offset (-o offset=N, erofsfuse's
# --offset=N), owners forced (-o uid=N,gid=N), a subdirectory as the
# root, squashfuse's umask=, the line Apptainer runs (squashfuse_ll -f
# -o allow_other,ro,uid=U,gid=G,offset=N /proc/self/fd/3 MNT, the
# descriptor inherited), the usage without arguments that Apptainer
# greps for "-o uid=N", bad usage, and writes refused (read-only).
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fuse/fuse.sh"
. "$top_srcdir/tests/erofs/mktree.sh"
fuse_usable
T=$SCRATCH
run "make the tree" erofs_tree "$T/src" || finish
run "the SquashFS image" "$SQP_BIN/dir2img" -q "$T/o.sqfs" "$T/src" || finish
run "the EROFS image" "$SQP_BIN/dir2img" -q --format erofs "$T/o.erofs" "$T/src" || finish

# An image after 4099 bytes of something else (an AppImage's runtime).
head -c 4099 /dev/urandom > "$T/off.sqfs" && cat "$T/o.sqfs" >> "$T/off.sqfs" &&
head -c 4099 /dev/urandom > "$T/off.erofs" && cat "$T/o.erofs" >> "$T/off.erofs" || exit 99
if run "mount -o offset=4099" mount_img "$T/m" -o offset=4099 "$T/off.sqfs"; then
	same_tree "-o offset=4099: the tree" "$T/m" "$T/src"
	unmount "$T/m"
fi
EROFSFUSE=$(fuse_as erofsfuse) || exit 99
if run "erofsfuse --offset=4099" "$EROFSFUSE" --offset=4099 "$T/off.erofs" "$T/m"; then
	same_tree "erofsfuse --offset=4099: the tree" "$T/m" "$T/src"
	unmount "$T/m"
fi

# -o uid=,gid=: every entry's owner.
if run "mount -o uid=1234,gid=5678" mount_img "$T/m" -o uid=1234,gid=5678 "$T/o.erofs"; then
	owners=$(find "$T/m" -printf '%U:%G\n' | sort -u)
	check "-o uid=1234,gid=5678: every owner is 1234:5678 ($owners)" [ "$owners" = 1234:5678 ]
	unmount "$T/m"
fi

# -o subdir=: the directory d as the root.
if run "mount -o subdir=d" mount_img "$T/m" -o subdir=d "$T/o.sqfs"; then
	same_tree "-o subdir=d: the tree of d" "$T/m" "$T/src/d"
	touch "$T/m/new" 2> "$T/touch.err"
	check "read-only: a new file is refused ($(cat "$T/touch.err"))" \
		grep -q "Read-only file system" "$T/touch.err"
	unmount "$T/m"
fi
mount_img "$T/m" -o subdir=a.txt "$T/o.sqfs"
check "-o subdir=FILE: refused ($(cat "$SCRATCH/mount.err"))" \
	grep -q "^sqpack-fuse: $T/o.sqfs: subdir: no such directory\$" "$SCRATCH/mount.err"

# squashfuse's umask=: bits cleared from every mode.
SQUASHFUSE=$(fuse_as squashfuse) || exit 99
if run "squashfuse -o umask=027" "$SQUASHFUSE" -o umask=027 "$T/o.sqfs" "$T/m"; then
	modes="$(stat -c %a "$T/m/a.txt") $(stat -c %a "$T/m/d")"
	check "-o umask=027: a.txt 640, d 750 ($modes)" [ "$modes" = "640 750" ]
	unmount "$T/m"
fi

# Apptainer's line, the image an inherited descriptor.
LL=$(fuse_as squashfuse_ll) || exit 99
mkdir -p "$T/m"
"$LL" -f -o allow_other,ro,uid=4321,gid=8765,offset=4099 /proc/self/fd/3 "$T/m" \
	3< "$T/off.sqfs" > "$T/ll.out" 2>&1 &
pid=$!
if wait_mounted $pid "$T/m"; then
	same_tree "squashfuse_ll as Apptainer runs it: the tree" "$T/m" "$T/src" --ignore=owner
	check "squashfuse_ll as Apptainer runs it: owners 4321:8765" \
		[ "$(stat -c %u:%g "$T/m/a.txt")" = 4321:8765 ]
	unmount "$T/m"
	wait_gone $pid
	check "squashfuse_ll -f: exit 0 when unmounted ($rc)" [ $rc = 0 ]
	check "squashfuse_ll -f: silent ($(cat "$T/ll.out"))" [ ! -s "$T/ll.out" ]
else
	fail "squashfuse_ll as Apptainer runs it: not mounted: $(cat "$T/ll.out")"
	wait_gone $pid
fi

# The usage without arguments (Apptainer looks for -o uid=N in it).
"$LL" > "$T/usage" 2>&1
rc=$?
check "squashfuse_ll without arguments: usage with '-o uid=N', exit 1 ($rc)" \
	grep -q -- '-o uid=N' "$T/usage"
check "squashfuse_ll without arguments: exit 1 ($rc)" [ $rc = 1 ]
usage_refused "missing IMAGE or MOUNTPOINT" "$FUSE" "$T/o.sqfs"
usage_refused "cachesize: not a size" "$FUSE" -o cachesize=lots "$T/o.sqfs" "$T/m"
finish
