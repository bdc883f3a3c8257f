#!/bin/sh
# SPDX-License-Identifier: MIT
# memory.sh - memory stays bounded by the block pipeline, not the input:
# a 64 MiB and a 512 MiB file (distinct compressible blocks, streamed
# through a pipe) must pack with about the same peak resident size, well
# under 256 MiB, for -j 1 and -j 4; -j 64 stays within the job cap. And
# the tree stays compact: 100,000
# small files in 100 directories cost under 250 bytes each beyond what
# 10,000 cost (each entry's tree record, its fragment tail's dedup record
# and its share of the inode and directory tables; it was about 360). The
# peak is the tar2img process's own VmHWM, polled from /proc (ru_maxrss
# would include the python parent it was forked from).
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3"
[ -r /proc/self/status ] || skip "no /proc/PID/status here"

T=$SCRATCH
# ASan's quarantine would hold freed blocks; keep it small if present.
# An instrumented build (it answers ASan's help flag) pads every
# allocation with redzones: the per-entry bound below measures our
# records, not those, so it is checked in plain builds only.
sanitized=no
ASAN_OPTIONS=help=1 "$TAR2IMG" --version 2>&1 | grep -q AddressSanitizer && sanitized=yes
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16
export ASAN_OPTIONS
# peak KIND N JOBS [OPTION]: prints "EXIT PEAK_KIB" for a tar piped into
# tar2img -j JOBS [OPTION]: KIND "blocks" is one file of N 128 KiB blocks,
# KIND "files" N small files, 1000 to a directory.
peak() {
	rm -f "$T/m.img"
	$PYTHON3 - "$1" "$2" "$TAR2IMG" -q -c lz4 -j "$3" ${4:-} "$T/m.img" - <<'PY'
import os, subprocess, sys, tarfile, threading, time
BS = 131072
kind, n = sys.argv[1], int(sys.argv[2])
p = subprocess.Popen(sys.argv[3:], stdin=subprocess.PIPE)
def blocks():
    ti = tarfile.TarInfo("big.bin"); ti.size = n * BS; ti.mtime = 1700000000
    chunk = (b"squashfs-blocks " * (BS // 16))[:BS - 16]
    p.stdin.write(ti.tobuf(tarfile.USTAR_FORMAT))
    for i in range(n):
        p.stdin.write(b"%016d" % i + chunk)
def files():
    out = []
    for i in range(n):
        body = (b"entry %d\n" % i) * (1 + i % 7)
        ti = tarfile.TarInfo("d%04d/f%06d" % (i // 1000, i))
        ti.size = len(body); ti.mtime = 1700000000
        out += [ti.tobuf(tarfile.USTAR_FORMAT), body, bytes(-len(body) % 512)]
        if len(out) > 3000:
            p.stdin.write(b"".join(out)); out = []
    p.stdin.write(b"".join(out))
def feed():
    try:
        blocks() if kind == "blocks" else files()
        p.stdin.write(bytes(10240))
        p.stdin.close()
    except BrokenPipeError:
        pass
threading.Thread(target=feed, daemon=True).start()
hwm = 0
while p.poll() is None:
    try:
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = max(hwm, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.02)
print(p.returncode, hwm)
PY
}

for j in 1 4; do
	set -- $(peak blocks 512 $j); rc_small=$1 small=$2
	set -- $(peak blocks 4096 $j); rc_big=$1 big=$2
	note "-j $j: peak $small KiB for 64 MiB, $big KiB for 512 MiB"
	check "-j $j: both runs succeed" test "$rc_small" = 0 -a "$rc_big" = 0
	check "-j $j: 8 times the input costs under 16 MiB more" \
		test "$big" -lt $((small + 16384))
	check "-j $j: peak under 256 MiB" test "$big" -lt 262144
	rm -f "$T/m.img"
done
# The job memory cap (48 MiB of job buffers) holds for any -j: 1 MiB
# blocks at -j 64 cost less than that more than at -j 1 (it used to grow
# with the workers: 69 MiB more here).
set -- $(peak blocks 2048 1 -b1M); rc_one=$1 one=$2
set -- $(peak blocks 2048 64 -b1M); rc_many=$1 many=$2
note "1 MiB blocks: peak $one KiB at -j 1, $many KiB at -j 64"
check "1 MiB blocks: both runs succeed" test "$rc_one" = 0 -a "$rc_many" = 0
check "1 MiB blocks: -j 64 costs under 48 MiB more than -j 1" \
	test "$many" -lt $((one + 49152))

set -- $(peak files 10000 2); rc_small=$1 small=$2
set -- $(peak files 100000 2); rc_big=$1 big=$2
per=$(( (big - small) * 1024 / 90000 ))
note "10,000 files: peak $small KiB; 100,000 files: $big KiB; $per bytes per entry"
check "many files: both runs succeed" test "$rc_small" = 0 -a "$rc_big" = 0
if [ $sanitized = no ]; then
	check "many files: under 250 bytes per entry" test "$per" -lt 250
else
	skipc "many files: under 250 bytes per entry: a sanitizer build (checked in plain builds)"
fi
rm -f "$T/m.img"
finish
