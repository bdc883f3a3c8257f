#!/bin/sh
# SPDX-License-Identifier: MIT
# memory.sh - peak RSS stays at most 64 MiB (the issue's bound;
# unsquashfs 4.5.1 takes about 105 MiB on this image) whatever the queue
# and memory options ask: the snapd line (-da 16 -fr 16), and queues of
# 4096 MiB with -mem 8G, which sqpack-unsquashfs accepts and does not
# follow; and 16 threads (each has a decoder and a scratch block of its
# own: xz's 1 MiB dictionary, so the threads must share the budget). Images
# of 110 MB in 1 MiB blocks (the largest block, so the most bytes per
# block in flight), xz (the codec with the largest decoder) and zstd,
# made by dir2img; sqfscat of a 16 MiB file too. zstd's image holds
# base64 of random bytes, 82 MB once compressed, so that not even the
# compressed blocks fit the bound at once; xz's holds blocks that are
# a quarter random and the rest repeats: the blocks decode to the same
# 1 MiB each, but xz packs them in 7 s of CPU where base64 took 45.
# Measured with /usr/bin/time's maximum resident set size.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
: "${SQFSCAT:=$SQP_BIN/sqfscat}"
DIR2IMG=$SQP_BIN/dir2img
[ -x "$UNSQ" ] && [ -x "$SQFSCAT" ] && [ -x "$DIR2IMG" ] ||
	skip "sqpack-unsquashfs, sqfscat or dir2img not built"
[ -x /usr/bin/time ] || skip "no /usr/bin/time to measure the peak RSS"
LIMIT_KIB=65536
# An instrumented build (it answers ASan's help flag) pads allocations
# and keeps freed ones: the bound is checked in plain builds only.
sanitized=no
ASAN_OPTIONS=help=1 "$UNSQ" -v 2>&1 | grep -q AddressSanitizer && sanitized=yes

# Such a build checks no bound: it runs the same extractions over a
# sixth of the bytes, for its memory errors.
rand_mib=12 xz_mib=16
[ $sanitized = no ] || rand_mib=2 xz_mib=3

T=$(fast_dir)
mkdir -p "$T/src/small" "$T/srcx" || exit 99
for i in 1 2 3 4 5 6; do
	head -c $((rand_mib << 20)) /dev/urandom | base64 > "$T/src/f$i" || exit 99
done
i=0
while [ $i -lt 2000 ]; do
	echo $i > "$T/src/small/s$i" || exit 99
	i=$((i + 1))
done
cp -a "$T/src/small" "$T/srcx/" || exit 99
# xz's files: each MiB 256 KiB of random bytes, then its first 64 KiB
# twelve times over
$PYTHON3 -c 'import os, sys
for i in range(1, 7):
    with open(os.path.join(sys.argv[1], "f%d" % i), "wb") as f:
        for m in range(int(sys.argv[2])):
            r = os.urandom(262144)
            f.write(r + r[:65536] * 12)' "$T/srcx" $xz_mib || exit 99

# rss WHAT CMD...: CMD's exit status must be 0 and its peak RSS at most
# LIMIT_KIB.
rss() {
	what=$1; shift
	if ! /usr/bin/time -o "$T/time" -f %M "$@" > /dev/null 2> "$T/err"; then
		fail "$what: exit status not 0: $(tail -n 1 "$T/err")"
		return
	fi
	kib=$(tail -n 1 "$T/time")
	if [ $sanitized = yes ]; then
		skipc "$what: peak RSS $kib KiB: a sanitizer build (checked in plain builds)"
	elif [ "$kib" -le $LIMIT_KIB ]; then
		pass "$what: peak RSS $kib KiB"
	else
		fail "$what: peak RSS $kib KiB, more than $LIMIT_KIB"
	fi
}

for c in xz zstd; do
	codec_built $c || { skipc "$c: codec not built"; continue; }
	# xz at preset 0: its dictionary is still the block (what the
	# decoders' memory follows)
	lvl= src=src; [ $c != xz ] || { lvl="-X level=0"; src=srcx; }
	# shellcheck disable=SC2086
	"$DIR2IMG" -c $c $lvl -b 1M "$T/$c.img" "$T/$src" > /dev/null 2>&1 || exit 99
	rm -rf "$T/out"
	rss "$c: -da 16 -fr 16" "$UNSQ" -da 16 -fr 16 -no-progress -d "$T/out" "$T/$c.img"
	rm -rf "$T/out"
	rss "$c: -da 4096 -fr 4096 -mem 8G" "$UNSQ" -data-queue 4096 \
		-frag-queue 4096 -mem 8G -n -d "$T/out" "$T/$c.img"
	check "$c: -mem 8G extracts f3 equal" cmp -s "$T/out/f3" "$T/$src/f3"
	rm -rf "$T/out"
	rss "$c: -processors 16" "$UNSQ" -processors 16 -n -d "$T/out" "$T/$c.img"
	check "$c: -processors 16 extracts f5 equal" cmp -s "$T/out/f5" "$T/$src/f5"
	rm -rf "$T/out"
	rss "$c: sqfscat" "$SQFSCAT" "$T/$c.img" f1 f2
done
finish
