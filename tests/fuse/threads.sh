#!/bin/sh
# SPDX-License-Identifier: MIT
# threads.sh - readers in parallel, small enough to run under TSan:
# first without a kernel, 64 threads calling the read operation on one
# block of a fresh cache at once (oneblock.c: each gets its bytes, and
# the block is decompressed once, the other misses waiting for it);
# prefetch states of files that meet in one set of slots; the cache's
# evicted mappings filled again; an EROFS image's lzma decoder kept for
# the files opened on it; the images that decode units, bounded by the
# cache's budget as well as by the cores;
# then through one mount, 16 readers of one block at once, 8 readers of
# a whole file, each from its start, with a cache of 512 KiB (entries
# evicted while others are read). O_DIRECT keeps the kernel's page cache
# out, so every read is the daemon's. Each reader's bytes are the
# file's, and the daemon (in the foreground, its stderr kept) says
# nothing and exits 0 when unmounted: a sanitizer's report fails it.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/fuse/fuse.sh"
T=$SCRATCH
mkdir -p "$T/src" "$T/m" || exit 99
seq 1 700000 > "$T/src/f" || exit 99     # 4.6 MB, 36 blocks of 128 KiB
# Random bytes: blocks the packer stores as they are; 64 small files:
# tails in one fragment block (one packed inode, EROFS).
head -c 300000 /dev/urandom > "$T/src/r" || exit 99
# 2 blocks and a tail; random bytes, then text (a tail that compresses).
head -c 10000 /dev/urandom > "$T/src/t" || exit 99
{ head -c 9000 /dev/urandom && seq 1 600; } > "$T/src/m" || exit 99
smalls=
for i in $(seq 1 64); do
	echo "small file $i" > "$T/src/s$i" || exit 99
	smalls="$smalls s$i"
done
run "the image" "$SQP_BIN/dir2img" -q "$T/o.sqfs" "$T/src" || finish
run "the EROFS image" "$SQP_BIN/dir2img" -q --format erofs "$T/o.erofs" "$T/src" || finish
run "the EROFS image with fragments" "$SQP_BIN/dir2img" -q --format erofs \
	-c gzip --erofs-fragments "$T/fr.erofs" "$T/src" || finish
dd if="$T/src/f" of="$T/block" bs=128K skip=5 count=1 2> /dev/null || exit 99
oneblock="$top_builddir/tests/fuse/oneblock"
# File data is cached in chunks of the image's decode unit (its reader
# info, whatever the format), 128 KiB to 1 MiB: small blocks share a
# chunk, a 1 MiB block or pcluster is one.
check "SquashFS, 128 KiB blocks: chunks of 128 KiB" "$oneblock" chunk "$T/o.sqfs" 131072
run "a SquashFS image of 4 KiB blocks" "$SQP_BIN/dir2img" -q -b 4K -c gzip -X level=1 "$T/b4.sqfs" "$T/src" &&
	check "SquashFS, 4 KiB blocks: chunks of 128 KiB" "$oneblock" chunk "$T/b4.sqfs" 131072 &&
	check "SquashFS, 4 KiB blocks: a chunk of 32 blocks, decompressed once" \
		"$oneblock" decoded "$T/b4.sqfs" "$T/src" 5 f
run "a SquashFS image of 1 MiB blocks" "$SQP_BIN/dir2img" -q -b 1M -c gzip -X level=1 "$T/b1m.sqfs" "$T/src" &&
	check "SquashFS, 1 MiB blocks: chunks of 1 MiB" "$oneblock" chunk "$T/b1m.sqfs" 1048576
check "EROFS, uncompressed: chunks of 128 KiB" "$oneblock" chunk "$T/o.erofs" 131072
if codec_built lz4; then
	run "an EROFS image of 1 MiB pclusters" "$SQP_BIN/dir2img" -q --format erofs -c lz4 \
		--pcluster-size 1048576 "$T/p1m.erofs" "$T/src" &&
		check "EROFS, 1 MiB pclusters: chunks of 1 MiB" "$oneblock" chunk "$T/p1m.erofs" 1048576
else
	skipc "EROFS, 1 MiB pclusters: lz4 not built"
fi
# An EROFS extent of 1 MiB lzma pclusters decodes to several MiB (3 MB
# of text here, one extent): each chunk of it is a piece of the extent,
# cached whole, so 64 threads reading its three chunks decode it once,
# not once per chunk; so too in the packed inode (-Eall-fragments).
if codec_built lzma; then
	mkdir -p "$T/big" && seq 1 450000 > "$T/big/f" || exit 99
	run "an EROFS image of 1 MiB lzma pclusters" "$SQP_BIN/sqpack-mkfs.erofs" --quiet \
		-zlzma,0 -C1048576 "$T/l1m.erofs" "$T/big" &&
		check "EROFS, 64 threads read 3 chunks of one extent: decoded once" \
			"$oneblock" unit "$T/l1m.erofs" "$T/big" 0 f f f
	run "the same, all in the packed inode" "$SQP_BIN/sqpack-mkfs.erofs" --quiet \
		-zlzma,0 -C1048576 -Eall-fragments "$T/l1mf.erofs" "$T/big" &&
		check "EROFS, 3 chunks of one extent of the packed inode: decoded once" \
			"$oneblock" unit "$T/l1mf.erofs" "$T/big" 0 f f f
	# Files opened one after the other on one image share its lzma
	# decoder: its 8 MiB dictionary is not mapped and faulted in again
	# for each (unz_kept.c).
	mkdir -p "$T/eight" || exit 99
	for i in 1 2 3 4 5 6 7 8; do
		seq "${i}00000" "${i}45000" > "$T/eight/f$i" || exit 99
	done
	run "an EROFS lzma image of 8 files of 300 KB" "$SQP_BIN/sqpack-mkfs.erofs" --quiet \
		-zlzma,0 -C1048576 "$T/eight.erofs" "$T/eight" &&
		check "EROFS, 8 lzma files read in turn: the image's decoder kept" \
			"$top_builddir/tests/fuse/unz_kept" "$T/eight.erofs" 8
	# Their extents, each a unit, read at once as on 16 cores: the
	# images that decode them, each keeping its dictionary (8 MiB),
	# are as many as the cores up to 4 and as the cache's budget
	# holds, one per 32 MiB; one at least; those past two paid from
	# the budget (16 MiB each).
	for b in "8 1" "64 2" "1024 4"; do
		set -- $b
		check "EROFS, 8 units at once, 16 cores, cache $1 MiB: at most $2 decoders, 16 MiB of it for each past two" \
			"$oneblock" decoders "$T/eight.erofs" "$T/eight" "$1" 16 "$2" \
			f1 f2 f3 f4 f5 f6 f7 f8
	done
else
	skipc "EROFS, extents of several MiB: lzma not built"
fi
# The prefetch loads only on a core the requests leave idle: ahead of
# 8 readers it evicted what they were reading (lzma extents decoded
# twice), and decoding before they ask is no faster on busy cores.
check "no prefetch while as many requests as cores are in flight" \
	"$oneblock" busy "$T/o.sqfs" f
check "64 threads read block 5 at once: their bytes, decompressed once" \
	"$oneblock" decoded "$T/o.sqfs" "$T/src" 5 f
check "64 threads read a stored block: its bytes, from the image file" \
	"$oneblock" stored "$T/o.sqfs" "$T/src" 1 r
check "EROFS, 64 threads read stored data: its bytes, from the image file" \
	"$oneblock" stored "$T/o.erofs" "$T/src" 1 r
# EROFS chunks in pieces, each as it lies in the image, spliced from
# there: stored blocks and an inline tail (t, the last chunk of r); the
# blocks of an extra device appended to the image; raw pclusters and a
# tail in the packed inode (m, taken in part from its decoded chunks);
# the two parts of rotated pclusters (rotated.img, made by mkfs.erofs
# 1.9.3, whose "-zlz4 -Efragments" stores raw data rotated where its
# extent starts inside a block, as the source's 140,000 random bytes do
# after 6,000 of text: below; see its "-T1700000000 --all-root" line).
check "EROFS, stored blocks and an inline tail: from the image file" \
	"$oneblock" stored "$T/o.erofs" "$T/src" 0 t
check "EROFS, the last chunk, its inline tail: from the image file" \
	"$oneblock" stored "$T/o.erofs" "$T/src" 2 r
run "an EROFS image and its blob" "$SQP_BIN/sqpack-mkfs.erofs" --quiet \
	--chunksize=4096 --blobdev="$T/c.blob" "$T/b.erofs" "$T/src" &&
	cat "$T/b.erofs" "$T/c.blob" > "$T/flat.erofs" &&
	check "EROFS, chunks on the appended extra device: from the image file" \
		"$oneblock" stored "$T/flat.erofs" "$T/src" 2 r
run "the EROFS image with raw pclusters and fragments" \
	"$SQP_BIN/sqpack-mkfs.erofs" --quiet -zlz4 -Efragments "$T/lz.erofs" "$T/src" &&
	check "EROFS, raw pclusters and a tail in the packed inode: in part from the image file" \
		"$oneblock" mixed "$T/lz.erofs" "$T/src" 0 m
mkdir -p "$T/rot" || exit 99
python3 -c 'import random, sys
r = random.Random(41)
t = lambda n, tag: b"".join(b"%s line %d of a text\n" % (tag, i) for i in range(n))
sys.stdout.buffer.write(t(250, b"head") + r.randbytes(140000) + t(90, b"tail"))' \
	> "$T/rot/z" || exit 99
check "EROFS, rotated pclusters: both parts from the image file" \
	"$oneblock" stored "$top_srcdir/tests/fuse/rotated.img" "$T/rot" 1 z
# shellcheck disable=SC2086
check "64 threads read 64 tails of one fragment block: decoded once" \
	"$oneblock" fragment "$T/o.sqfs" "$T/src" 0 $smalls
# shellcheck disable=SC2086
check "EROFS, 64 threads read 64 files of the packed inode: decoded once" \
	"$oneblock" fragment "$T/fr.erofs" "$T/src" 0 $smalls
# shellcheck disable=SC2086
[ -f "$T/b4.sqfs" ] && check "4 KiB blocks: 64 tails of one fragment block in a larger chunk, decoded once" \
	"$oneblock" fragment "$T/b4.sqfs" "$T/src" 0 $smalls
# Files read without an open file (the kernel's no-open) keep their
# prefetch state in slots found by a hash: four whose hashes meet, read
# in order in turns, are each prefetched for.
check "4 files read in order, their prefetch slots met: each prefetched for" \
	"$top_builddir/tests/fuse/prefetch_ways"
# Loads of about one size take the mappings of the entries evicted
# before them: no fresh pages faulted in, no unmapping.
check "evicted entries' mappings filled again by loads of about their size" \
	"$top_builddir/tests/fuse/cache_spares"
# The holes evicted entries leave in malloc's arenas given back: 24
# budgets loaded, about one kept.
"$top_builddir/tests/fuse/cache_trim" > "$T/trim.out" 2>&1
case $? in
0) pass "malloc's pages freed by evictions given back (resident about the budget)" ;;
77) skipc "malloc's pages given back: $(cat "$T/trim.out")" ;;
*) fail "malloc's pages given back: $(cat "$T/trim.out")" ;;
esac
# With a large budget, every 16 MiB freed at most: the allowance beside
# the cache is fixed, not a quarter of it.
"$top_builddir/tests/fuse/cache_trim" big > "$T/trim.out" 2>&1
case $? in
0) pass "a 128 MiB cache: malloc's pages given back every 16 MiB freed" ;;
77) skipc "a 128 MiB cache, pages given back: $(cat "$T/trim.out")" ;;
*) fail "a 128 MiB cache, pages given back: $(cat "$T/trim.out")" ;;
esac

fuse_usable
cp "$T/o.sqfs" "$T/t.sqfs" || exit 99     # the mount's, truncated below
"$FUSE" -f -o cachesize=512K "$T/t.sqfs" "$T/m" > "$T/fg.err" 2>&1 &
pid=$!
wait_mounted $pid "$T/m" || { fail "not mounted: $(cat "$T/fg.err")"; wait_gone $pid; finish; }

# readers N ARGS...: N dd readers of f with ARGS at once, each to its
# own file; 0 when all succeeded.
readers() {
	rn=$1; shift
	i=0 pids=
	while [ $i -lt "$rn" ]; do
		dd if="$T/m/${rfile:-f}" of="$T/r$i" iflag=direct "$@" 2> "$T/r$i.err" &
		pids="$pids $!"
		i=$((i + 1))
	done
	rs=0
	for p in $pids; do wait "$p" || rs=1; done
	return $rs
}
# same_as N FILE: the N readers' outputs are FILE's bytes.
same_as() {
	i=0
	while [ $i -lt "$1" ]; do
		cmp -s "$T/r$i" "$2" || return 1
		i=$((i + 1))
	done
}

run "16 readers of one block at once" readers 16 bs=128K skip=5 count=1 &&
	check "16 readers of one block: each got its bytes" same_as 16 "$T/block"
run "8 readers of the whole file at once" readers 8 bs=64K &&
	check "8 readers of the whole file: each got its bytes" same_as 8 "$T/src/f"
# The stored file: its bytes, replied from the image file, spliced
# where libfuse can (strace, attached to the daemon's threads, sees it).
spid=
if command -v strace > /dev/null 2>&1; then
	strace -f -e trace=splice -o "$T/strace" -p $pid 2> "$T/strace.err" &
	spid=$!
	i=0
	while [ $i -lt 250 ] && kill -0 $spid 2> /dev/null &&
		! grep -q attached "$T/strace.err"; do
		sleep 0.02
		i=$((i + 1))
	done
	grep -q attached "$T/strace.err" || { wait $spid; spid=; }
fi
rfile=r
run "8 readers of the stored file at once" readers 8 bs=64K &&
	check "8 readers of the stored file: each got its bytes" same_as 8 "$T/src/r"
# Its image cut short under the mount: the stored chunks, cached as
# places in it, give EIO (not a short read the kernel would take for
# the file's end).
truncate -s 20000 "$T/t.sqfs" || exit 99
if dd if="$T/m/r" of=/dev/null iflag=direct bs=64K 2> "$T/cut.err"; then
	fail "the image cut short: the stored file read without an error"
else
	check "the image cut short: the stored file gives EIO" \
		grep -q 'Input/output error' "$T/cut.err"
fi
# strace detaches before the daemon ends: LeakSanitizer (the ASan
# build's) cannot run in a process still traced at its exit.
if [ -n "$spid" ]; then
	kill -INT $spid 2> /dev/null
	wait $spid
	check "the stored file's replies spliced ($(grep -c 'splice(' "$T/strace") calls)" \
		grep -q 'splice(' "$T/strace"
else
	skipc "splice: strace cannot trace the daemon: $(head -c 200 "$T/strace.err" 2> /dev/null)"
fi
unmount "$T/m"
wait_gone $pid
check "unmounted: exit 0 ($rc)" [ $rc = 0 ]
check "nothing on stderr (a sanitizer's report): $(head -c 300 "$T/fg.err")" [ ! -s "$T/fg.err" ]
finish
