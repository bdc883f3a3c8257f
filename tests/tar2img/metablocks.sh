#!/bin/sh
# SPDX-License-Identifier: MIT
# metablocks.sh - the inode and directory tables compressed on the pool
# (lib/squashfs/metapool.c): on a tree whose tables span some 470 metadata
# blocks (more than the window of 256 blocks in flight), with directory
# indexes, the image is byte-identical for -j 1, 2 and 8, with and without
# --exportable, and readers agree with the generator: unsquashfs lists
# every path, and the kernel finds every path by name (its lookups go
# through the directory indexes) and lists every directory.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" cmp

T=$(fast_dir) || exit 99
$PYTHON3 "$top_srcdir/tests/tar2img/mkmeta.py" "$T/in.tar" "$T/paths" || exit 99
export SOURCE_DATE_EPOCH=1700000000

# At the codecs' fastest level: the order of the pool's blocks is what
# is tested, and the default levels took 8 of the test's 20 CPU-s.
for codec in gzip zstd; do
	codec_built "$codec" || { skipc "$codec not built"; continue; }
	for opts in "" "--exportable"; do
		what="$codec${opts:+ $opts}"
		run "$what: -j 1" "$TAR2IMG" -q -c $codec -X level=1 $opts -j 1 "$T/ref.img" "$T/in.tar" || continue
		for j in 2 8; do
			run "$what: -j $j" "$TAR2IMG" -q -c $codec -X level=1 $opts -j $j "$T/j.img" "$T/in.tar" &&
				check "$what: -j $j equals -j 1" cmp -s "$T/ref.img" "$T/j.img"
			rm -f "$T/j.img"
		done
		rm -f "$T/ref.img"
	done
done

# The readers: unsquashfs's listing, the kernel's lookups and listings.
run "zstd -j 2" "$TAR2IMG" -q -j 2 "$T/img" "$T/in.tar" || finish
if judge_ok "unsquashfs listing" unsquashfs zstd; then
	unsquashfs -l "$T/img" | sed -n 's,^squashfs-root/,,p' | sort > "$T/listed"
	check "unsquashfs lists every path of the tar" cmp -s "$T/paths" "$T/listed"
fi
if ! judge_ok "kernel lookups" kernel zstd; then
	:
elif mkdir "$T/mnt" && mount -t squashfs -o loop,ro "$T/img" "$T/mnt" 2> "$T/err"; then
	check "the kernel finds every path by name and lists every directory" \
		$PYTHON3 - "$T/mnt" "$T/paths" <<'PY'
import os, sys
root, want = sys.argv[1], open(sys.argv[2]).read().split("\n")[:-1]
for p in want:
    os.lstat(os.path.join(root, p))
seen = sorted(os.path.relpath(os.path.join(d, n), root)
              for d, ds, fs in os.walk(root) for n in ds + fs)
sys.exit(0 if seen == sorted(want) else "readdir differs")
PY
	umount "$T/mnt"
else
	fail "the kernel refuses our image: $(head -1 "$T/err" 2>/dev/null)"
fi
finish
