#!/bin/sh
# SPDX-License-Identifier: MIT
# api.sh - libsqpack-fuse (include/sqpack/fuse.h) as a runtime calls it:
# fuse_api.c creates (a bad image refused before anything is mounted),
# mounts a small SquashFS image by path and by fd at an offset (as an
# AppImage runtime does), reads a file through the mount, and stops the
# loop from another thread and from a signal handler; run returns 0 and
# the mount is gone each time. The kernel's /proc/mounts is the judge of
# mounted and unmounted.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fuse/fuse.sh"
fuse_usable
api=$top_builddir/tests/fuse/fuse_api
[ -x "$api" ] || cannot "tests/fuse/fuse_api not built"

T=$(fast_dir)
mkdir -p "$T/src" "$T/m" || exit 99
printf 'hello, fuse\n' > "$T/src/hello" || exit 99
run "dir2img" "$SQP_BIN/dir2img" -q "$T/img" "$T/src" || finish
# The same image 4096 bytes into a file, as in an AppImage.
{ head -c 4096 /dev/zero; cat "$T/img"; } > "$T/off.img" || exit 99
mnt=$(cd "$T/m" && pwd -P)

"$api" "$T/img" "$T/off.img" 4096 "$mnt" > "$T/api.out" 2>&1
rc=$?
while read -r verdict what; do
	case $verdict in
	ok:) pass "$what" ;;
	FAIL:) fail "$what" ;;
	esac
done < "$T/api.out"
check "fuse_api exits 0 ($rc)" [ "$rc" = 0 ]
check "fuse_api made its 20 checks" [ "$(grep -c '^ok: ' "$T/api.out")" = 20 ]
if mounted "$mnt"; then fail "$mnt is left mounted"; else pass "nothing left mounted"; fi
finish
