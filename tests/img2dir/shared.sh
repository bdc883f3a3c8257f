#!/bin/sh
# SPDX-License-Identifier: MIT
# shared.sh - blocks that several files share are decompressed once.
# Packers store identical files once: the copies point at the same data
# blocks, or at the same tail in the same fragment block. img2dir,
# sqpack-unsquashfs, img2tar and imginfo check (the codec's own decode
# time of the benchmark) must read each stored block once, counted with
# strace: every pread below the inode table (data and fragment blocks)
# at a distinct offset. The copies lie far apart in walk order, past the
# block reader's window and past its fragment cache, and the trees must
# still be the source's. A second image shares more 1 MiB blocks at once
# than are kept: those are decompressed again, and the tree is the same.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" strace
IMG2DIR="$SQP_BIN/img2dir"
UNSQ="$SQP_BIN/sqpack-unsquashfs"
IMGINFO="$SQP_BIN/imginfo"
for t in "$IMG2DIR" "$UNSQ" "$IMGINFO"; do
	[ -x "$t" ] || skip "$t not built"
done

T=$(fast_dir)
# src: a/ holds the originals, m/ 400 files of their own (a fragment
# block each at 4 KiB blocks: more than the cache holds), z/ the copies.
# wide: ten distinct 1 MiB files, then their ten copies.
$PYTHON3 - "$T/src" "$T/wide" << 'PY' || exit 99
import os, random, sys
rng = random.Random(23)
def put(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (1700000000, 1700000000))
src, wide = sys.argv[1], sys.argv[2]
orig = [rng.randbytes(rng.randrange(3 * 4096, 9 * 4096)) for _ in range(6)]
tails = [rng.randbytes(rng.randrange(500, 3000)) for _ in range(6)]
for i in range(6):
    put("%s/a/big%d" % (src, i), orig[i])
    put("%s/a/tail%d" % (src, i), tails[i])
for i in range(400):
    put("%s/m/f%03d" % (src, i), rng.randbytes(rng.randrange(3000, 4000)))
for i in range(6):
    put("%s/z/big%d" % (src, i), orig[i])
    put("%s/z/tail%d" % (src, i), tails[i])
    put("%s/z/y/big%d" % (src, i), orig[i])
blocks = [rng.randbytes(1 << 20) for _ in range(10)]
for i in range(10):
    put("%s/a/b%d" % (wide, i), blocks[i])
    put("%s/b/b%d" % (wide, i), blocks[i])
PY
( cd "$T/src" && tar -cf - a m z ) > "$T/src.tar" || exit 99
( cd "$T/wide" && tar -cf - a b ) > "$T/wide.tar" || exit 99
run "tar2img" "$TAR2IMG" -q -f -c gzip -b 4K "$T/ours.img" "$T/src.tar" || finish
run "tar2img wide" "$TAR2IMG" -q -f -c gzip -b 1M "$T/wide.img" "$T/wide.tar" || finish

# reads IMAGE LOG: each pread64 of a data or fragment block of IMAGE
# (past the superblock, before the inode table) as its offset, one a
# line, from the per-thread logs LOG.* of strace -ff -y.
reads() {
	$PYTHON3 - "$1" "$2" << 'PY'
import glob, os, re, struct, sys
img = os.path.realpath(sys.argv[1])
with open(img, "rb") as f:
    itab = struct.unpack_from("<Q", f.read(96), 64)[0]
for log in glob.glob(sys.argv[2] + ".*"):
    for line in open(log):
        m = re.match(r"pread64\(\d+<(.*)>, .*, (\d+), (\d+)\) = ", line)
        if m and m.group(1) == img and 96 <= int(m.group(3)) < itab:
            print(m.group(3))
PY
}
# traced LOG CMD...: CMD run under strace, each thread's calls in LOG.*.
# LeakSanitizer cannot run under ptrace (the sanitizer build): leaks are
# looked for in the runs that are not traced.
traced() {
	rm -f "$1".*
	tr_log=$1; shift
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -ff -qq -y -e trace=pread64 -o "$tr_log" "$@"
}
# once WHAT IMAGE LOG: every block IMAGE's reader read, read once.
once() {
	reads "$2" "$3" | sort -n > "$T/reads"
	total=$(wc -l < "$T/reads")
	twice=$(uniq -d "$T/reads" | wc -l)
	if [ "$total" -eq 0 ]; then
		fail "$1: no block read seen in the strace log"
	elif [ "$twice" -ne 0 ]; then
		fail "$1: $twice of $total block reads repeat one"
	else
		pass "$1: $total blocks, each read once"
	fi
}

for j in 1 2; do
	rm -rf "$T/x"
	run "img2dir -j $j" traced "$T/log" "$IMG2DIR" -q -j $j "$T/ours.img" "$T/x" &&
	once "img2dir -j $j" "$T/ours.img" "$T/log" &&
	same_tree "img2dir -j $j: the source's tree" "$T/x" "$T/src"
done
rm -rf "$T/x"
run "sqpack-unsquashfs" traced "$T/log" \
	"$UNSQ" -q -n -processors 2 -d "$T/x" "$T/ours.img" > /dev/null &&
once "sqpack-unsquashfs" "$T/ours.img" "$T/log" &&
same_tree "sqpack-unsquashfs: the source's tree" "$T/x" "$T/src"
run "img2tar" traced "$T/log" "$IMG2TAR" -j 2 "$T/ours.img" > "$T/out.tar" &&
once "img2tar" "$T/ours.img" "$T/log"
rm -rf "$T/t" && mkdir "$T/t" && tar -xf "$T/out.tar" -C "$T/t" &&
same_tree "img2tar: the source's tree" "$T/t" "$T/src"
run "imginfo check" traced "$T/log" "$IMGINFO" check -q -j 2 "$T/ours.img" &&
once "imginfo check" "$T/ours.img" "$T/log"

# A peer's dedup: mksquashfs shares whole files and fragments too.
if command -v mksquashfs > /dev/null 2>&1; then
	mksquashfs "$T/src" "$T/peer.img" -b 4096 -noappend -quiet -no-progress \
		> /dev/null 2>&1 || fail "mksquashfs refuses the tree"
	rm -rf "$T/x"
	run "img2dir of mksquashfs's image" traced "$T/log" \
		"$IMG2DIR" -q -j 2 "$T/peer.img" "$T/x" &&
	once "img2dir of mksquashfs's image" "$T/peer.img" "$T/log" &&
	same_tree "img2dir of mksquashfs's image: the source's tree" "$T/x" "$T/src"
else
	skipc "mksquashfs not installed: no peer's image"
fi

# More shared blocks waiting at once than are kept: the rest decompress
# again, each file whole.
for j in 1 2; do
	rm -rf "$T/w"
	run "img2dir -j $j, 1 MiB blocks" "$IMG2DIR" -q -j $j "$T/wide.img" "$T/w" &&
	same_tree "img2dir -j $j, ten shared 1 MiB blocks: the source's tree" \
		"$T/w" "$T/wide"
done
finish
