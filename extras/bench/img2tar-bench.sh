#!/bin/bash
# SPDX-License-Identifier: MIT
# img2tar-bench.sh - time img2tar -j N against sqfs2tar (single-threaded)
# writing a tar of the same image to /dev/null, per codec, in the same
# run. Images are made once from the corpus tree with mksquashfs and kept
# in CORPUS/img2tar-images (delete it to rebuild).
set -u

corpus=/var/tmp/sqfs-bench
tree=big
codecs="gzip xz zstd lz4"
jobs=2
img2tar=

while [ $# -gt 0 ]; do
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--img2tar) img2tar=$2; shift ;;
	-h|--help)
		echo "usage: $0 [--corpus DIR | DIR] [--tree big|small] [--codecs LIST] [--jobs N] [--img2tar PATH]"
		exit 0 ;;
	-*) echo "$0: unknown option $1" >&2; exit 2 ;;
	*) corpus=$1 ;;
	esac
	shift
done
. "$(dirname "$0")/bench_lib.sh"
img2tar=${img2tar:-$(bench_bindir "")/img2tar}
[ -x "$img2tar" ] || { echo "$0: img2tar not found at $img2tar" >&2; exit 1; }
bench_need_cmds sqfs2tar
bench_need_corpus "$corpus/rootfs-$tree"
images=$corpus/img2tar-images
mkdir -p "$images"
out=$corpus/img2tar-bench-$(date +%Y%m%d-%H%M%S).md

{
echo "img2tar benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), rootfs-$tree, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| codec | img2tar -j $jobs s | sqfs2tar s | speed-up | img2tar MiB | sqfs2tar MiB | floor |"
echo "|---|---|---|---|---|---|---|"
} | tee "$out"
for c in $codecs; do
	img=$images/$tree-$c.img
	if [ ! -f "$img" ]; then
		mksquashfs "$corpus/rootfs-$tree" "$img" -comp "$c" -noappend -quiet -no-progress \
			> /dev/null 2>&1 || { echo "mksquashfs -comp $c failed" >&2; continue; }
	fi
	cat "$img" > /dev/null
	read -r s1 m1 < <(bench_timed "$images/run" '%e %M' "$img2tar" -j "$jobs" "$img")
	read -r s2 m2 < <(bench_timed "$images/run" '%e %M' sh -c "sqfs2tar '$img' > /dev/null")
	# The floor: 1.7x sqfs2tar for gzip and xz, not slower for the
	# others, at most 128 MiB resident.
	awk -v c="$c" -v s1="$s1" -v s2="$s2" -v m1="$m1" -v m2="$m2" 'BEGIN {
		r = s1 > 0 ? s2 / s1 : 0
		need = (c == "gzip" || c == "xz") ? 1.7 : 1.0
		ok = r >= need && m1 / 1024 <= 128 ? "ok" : "MISSED"
		printf "| %s | %s | %s | %.2fx | %.1f | %.1f | %s (%.1fx) |\n", c, s1, s2,
			r, m1 / 1024, m2 / 1024, ok, need }' | tee -a "$out"
done
echo "Results saved in $out"
