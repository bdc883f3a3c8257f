#!/bin/sh
# SPDX-License-Identifier: MIT
# scale.sh - what grows with the image: a directory of 100,000 entries
# (empty files, so the image is cheap) listed whole through the mount,
# the names the tar's and each d_ino the kernel's inode number for
# that name where root may loop-mount, names looked up (st_ino, the
# kernel's) and one that is missing; and the daemon's peak RSS (VmHWM)
# while a file 32 times its cache (-o cachesize=8M, a 256 MiB file of
# holes: read as zeros through the same chunks of the cache as data,
# and packed in no time) is read in order, with the prefetch on: at
# most the cache plus 64 MiB, the issue's bound; so too with 8 readers
# of EROFS extents of several MiB (below). Sanitized builds pad and
# keep memory: the bound is checked in plain builds only.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fuse/fuse.sh"
fuse_usable
need_tool "$PYTHON3"
T=$(fast_dir)
mkdir -p "$T/big" "$T/m" "$T/k" || exit 99

# The tar of d/ and d/f000000..d/f099999, written as bytes: one ustar
# header patched per entry (tarfile took 6 CPU-s, making the files and
# dir2img 4).
$PYTHON3 -c 'import sys
h = bytearray(512)
h[0:9] = b"d/f000000"
h[100:148] = b"0000644\0" b"0000000\0" b"0000000\0" b"00000000000\0" b"14000000000\0"
h[148:156] = b" " * 8
h[156] = ord("0")
h[257:265] = b"ustar\x0000"
d = bytearray(h)
d[0:9] = b"d/" + bytes(7)
d[100:108] = b"0000755\0"
d[156] = ord("5")
d[148:156] = b"%06o\0 " % sum(d)
base = sum(h) - 6 * ord("0")
h = bytes(h)
def entry(i):
    n = b"%06d" % i
    return h[:3] + n + h[9:148] + b"%06o\0 " % (base + sum(n)) + h[156:]
with open(sys.argv[1], "wb") as f:
    f.write(bytes(d) + b"".join(entry(i) for i in range(100000)) + bytes(1024))' \
	"$T/d.tar" || exit 99
run "the image of 100,000 entries" "$TAR2IMG" -q "$T/d.sqfs" "$T/d.tar" || finish
truncate -s 256M "$T/big/f" || exit 99
run "the image of a 256 MiB file" "$SQP_BIN/dir2img" -q "$T/big.sqfs" "$T/big" || finish

# The listing: names and d_ino through the mount, against the tar's
# names and the kernel's inode numbers; then lookups.
kernel=
if judge_ok "100,000 entries: kernel mount" kernel gzip; then
	if mount -t squashfs -o loop,ro "$T/d.sqfs" "$T/k" 2> "$T/k.err"; then
		kernel=$T/k
	else
		fail "the kernel refuses the image: $(head -1 "$T/k.err")"
	fi
fi
if mount_img "$T/m" "$T/d.sqfs"; then
	out=$($PYTHON3 -c 'import os, sys
m, k = sys.argv[1:3]
got = {e.name: e.inode() for e in os.scandir(m + "/d")}
want = ["f%06d" % i for i in range(100000)]
print("names", "same" if sorted(got) == want else "differ", len(got))
if k:
    kern = {e.name: e.inode() for e in os.scandir(k + "/d")}
    print("d_ino", sum(got.get(n) != i for n, i in kern.items()), "unlike the kernel")
    print("st_ino", sum(os.lstat("%s/d/f%06d" % (m, i)).st_ino != kern["f%06d" % i]
                        for i in range(0, 100000, 97)), "unlike the kernel")
try:
    os.lstat(m + "/d/f100000")
    print("missing found")
except FileNotFoundError:
    print("missing ENOENT")' "$T/m" "$kernel")
	check "100,000 entries: the tar's names ($(echo "$out" | head -1))" \
		[ "$(echo "$out" | head -1)" = "names same 100000" ]
	if [ -n "$kernel" ]; then
		check "100,000 entries: d_ino as the kernel's ($(echo "$out" | grep d_ino))" \
			[ "$(echo "$out" | grep d_ino)" = "d_ino 0 unlike the kernel" ]
		check "1031 lookups: st_ino as the kernel's ($(echo "$out" | grep st_ino))" \
			[ "$(echo "$out" | grep st_ino)" = "st_ino 0 unlike the kernel" ]
	fi
	check "a missing name: ENOENT ($(echo "$out" | tail -1))" \
		[ "$(echo "$out" | tail -1)" = "missing ENOENT" ]
	unmount "$T/m" || fail "unmount"
else
	fail "100,000 entries: mount: $(head -c 300 "$SCRATCH/mount.err")"
fi
[ -z "$kernel" ] || umount "$kernel"

# The peak RSS of the daemon (in the foreground: its pid) reading the
# big file, cache 8 MiB.
sanitized=no
is_sanitized "$FUSE" --version && sanitized=yes
"$FUSE" -f -o cachesize=8M "$T/big.sqfs" "$T/m" > "$T/fg.err" 2>&1 &
pid=$!
if wait_mounted $pid "$T/m"; then
	run "reading the 256 MiB file" cmp -s "$T/m/f" "$T/big/f"
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	unmount "$T/m"
	if [ $sanitized = yes ]; then
		skipc "peak RSS: a sanitized build ($hwm KiB)"
	else
		check "peak RSS $hwm KiB: at most the cache (8 MiB) plus 64 MiB" \
			[ "$hwm" -le $(((8 + 64) * 1024)) ]
	fi
else
	fail "-o cachesize=8M: not mounted: $(cat "$T/fg.err")"
fi
wait_gone $pid

# EROFS extents of several MiB (lzma, 1 MiB pclusters: 3.5 MB of text a
# file, one extent each), 8 files read at once: each extent is decoded
# whole on one of a few images of its own, straight into the cache's
# buffer of its own pages, and glibc's threshold keeps the decoders'
# buffers out of its arenas. Before, each of the pool's images grew an
# extent's buffer and liblzma's dictionary and the arenas kept the
# freed units: 75 to 93 MiB here, now 24 (cache 8 MiB).
if ! codec_built lzma; then
	skipc "EROFS extents of several MiB: lzma not built"
elif [ $sanitized = yes ]; then
	skipc "EROFS extents of several MiB: peak RSS in a sanitized build"
else
	mkdir -p "$T/ext" || exit 99
	for i in 1 2 3 4 5 6 7 8; do
		seq $((i * 1000000)) $((i * 1000000 + 450000)) > "$T/ext/f$i" || exit 99
	done
	run "an EROFS image of 1 MiB lzma pclusters" "$SQP_BIN/sqpack-mkfs.erofs" \
		--quiet -zlzma,0 -C1048576 "$T/ext.erofs" "$T/ext" || finish
	"$FUSE" -f -o cachesize=8M "$T/ext.erofs" "$T/m" > "$T/fg.err" 2>&1 &
	pid=$!
	if wait_mounted $pid "$T/m"; then
		pids=
		for i in 1 2 3 4 5 6 7 8; do
			cmp -s "$T/m/f$i" "$T/ext/f$i" > "$T/cmp$i" 2>&1 &
			pids="$pids $!"
		done
		rs=0
		for p in $pids; do wait "$p" || rs=1; done
		check "8 readers of extents of several MiB: the files' bytes" [ $rs = 0 ]
		hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
		unmount "$T/m"
		check "8 readers of extents of several MiB: peak RSS $hwm KiB, at most the cache (8 MiB) plus 32 MiB" \
			[ "$hwm" -le $(((8 + 32) * 1024)) ]
	else
		fail "the lzma image: not mounted: $(cat "$T/fg.err")"
	fi
	wait_gone $pid
fi
finish
