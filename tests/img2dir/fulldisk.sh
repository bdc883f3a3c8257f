#!/bin/sh
# SPDX-License-Identifier: MIT
# fulldisk.sh - img2dir into a filesystem that fills up: a tree of many
# small files (tails, written by the walk's thread) and a few big ones
# (blocks, written by the workers) extracted into small tmpfs
# mounts, out of space at different points, and one out of inodes. Each
# run must exit 1 with a message naming an entry and the reason - never
# succeed, crash or hang - for -j 1 and -j 2.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
IMG2DIR="$SQP_BIN/img2dir"
[ -x "$IMG2DIR" ] || skip "img2dir not built"
[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"

T=$(fast_dir)
$PYTHON3 - "$T/in.tar" << 'PY' || exit 99
import io, random, sys, tarfile
rng = random.Random(11)
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as tar:
    def add(name, size):
        info = tarfile.TarInfo(name)
        info.size = size
        info.mtime = 1700000000
        tar.addfile(info, io.BytesIO(rng.randbytes(size)))
    for d in range(8):
        for f in range(400):
            add("d%d/f%03d" % (d, f), rng.randrange(1, 12000))
        add("d%d/big" % d, 600000 + d)
PY
run "tar2img" "$TAR2IMG" -q -f -c gzip "$T/in.img" "$T/in.tar" || finish

mkdir "$T/m"
full() { # full DESCRIPTION MOUNT-OPTIONS
	desc=$1 opts=$2
	for j in 1 2; do
		if ! mount -t tmpfs -o "$opts" tmpfs "$T/m"; then
			skipc "$desc: cannot mount tmpfs -o $opts"; return
		fi
		"$IMG2DIR" -j $j "$T/in.img" "$T/m/x" 2> "$T/err"
		rc=$?
		umount "$T/m"
		if [ $rc -ne 1 ]; then
			fail "$desc -j $j: exit status $rc, want 1 ($(head -c 200 "$T/err"))"
		elif ! grep -q "^img2dir: '[^']*': .*: No space left on device" "$T/err"; then
			fail "$desc -j $j: message: $(head -c 200 "$T/err")"
		else
			pass "$desc -j $j: exit 1, $(head -n 1 "$T/err")"
		fi
	done
}
# The tree holds some 30 MB: full among the first files, midway, and
# near the end.
full "64 KiB of space" size=64k
full "4 MiB of space" size=4m
full "24 MiB of space" size=24m
full "1000 inodes" size=64m,nr_inodes=1000
finish
