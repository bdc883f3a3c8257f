#!/bin/bash
# SPDX-License-Identifier: MIT
# img2tar-bench.sh - time img2tar -j N against sqfs2tar (single-threaded)
# writing a tar of the same image to /dev/null, per codec, in the same
# run: the two in turn, --runs times, with the medians of wall and of CPU
# seconds (user + system), and beside them the codec's own decode time
# over N cores (imginfo check -j N, next to img2tar: every block
# decompressed once, nothing written). The peers are taken by path
# (--sqfs2tar, --mksquashfs). Images are made once from the corpus tree
# with mksquashfs and kept in CORPUS/img2tar-images, named after the
# mksquashfs version (delete it to rebuild).
set -u

corpus=/var/tmp/sqfs-bench
tree=big
codecs="gzip xz zstd lz4"
jobs=2
runs=1
img2tar=
sqfs2tar=sqfs2tar
mksquashfs=mksquashfs

while [ $# -gt 0 ]; do
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--img2tar) img2tar=$2; shift ;;
	--runs) runs=$2; shift ;;
	--sqfs2tar) sqfs2tar=$2; shift ;;
	--mksquashfs) mksquashfs=$2; shift ;;
	-h|--help)
		echo "usage: $0 [--corpus DIR | DIR] [--tree big|small] [--codecs LIST] [--jobs N] [--runs N]" \
			"[--img2tar PATH] [--sqfs2tar PATH] [--mksquashfs PATH]"
		exit 0 ;;
	-*) echo "$0: unknown option $1" >&2; exit 2 ;;
	*) corpus=$1 ;;
	esac
	shift
done
. "$(dirname "$0")/bench_lib.sh"
img2tar=${img2tar:-$(bench_bindir "")/img2tar}
[ -x "$img2tar" ] || { echo "$0: img2tar not found at $img2tar" >&2; exit 1; }
imginfo=$(dirname "$img2tar")/imginfo
[ -x "$imginfo" ] || { echo "$0: imginfo not found beside img2tar ($imginfo)" >&2; exit 1; }
case $runs in ''|*[!0-9]*|0) echo "$0: --runs needs a positive number" >&2; exit 2 ;; esac
bench_need_cmds "$sqfs2tar" "$mksquashfs"
mksq_version=$("$mksquashfs" -version 2>&1 | awk 'NR == 1 { print $3 }')
bench_need_corpus "$corpus/rootfs-$tree"
images=$corpus/img2tar-images
mkdir -p "$images" || exit 1
# the runs' figures go to a directory of this run's own, so that two runs
# sharing the images do not mix them
work=$(mktemp -d "$images/run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
out=$corpus/img2tar-bench-$(date +%Y%m%d-%H%M%S).md

{
echo "img2tar benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), rootfs-$tree, $runs runs (medians), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Peer: $("$sqfs2tar" --version 2>&1 | head -n 1); images by mksquashfs $mksq_version"
echo
echo "| codec | img2tar -j $jobs s | sqfs2tar s | speed-up | img2tar CPU s | sqfs2tar CPU s | CPU ratio | decode s | decode CPU s | img2tar MiB | sqfs2tar MiB | floor |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} | tee "$out"
# med FILE COLUMN: the median of that column; cpu FILE: of user + system
med() { cut -d' ' -f"$2" "$1" | bench_median; }
cpu() { awk '{ print ($3 == "nan" ? "nan" : $3 + $4) }' "$1" | bench_median; }
for c in $codecs; do
	img=$images/$tree-$c-$mksq_version.img
	if [ ! -f "$img" ]; then
		"$mksquashfs" "$corpus/rootfs-$tree" "$img" -comp "$c" -noappend -quiet -no-progress \
			> /dev/null 2>&1 || { echo "mksquashfs -comp $c failed" >&2; rm -f "$img"; continue; }
	fi
	cat "$img" > /dev/null
	: > "$work/a"; : > "$work/b"; : > "$work/f"
	for _ in $(seq "$runs"); do
		# one line per run: wall-s rss-KiB user-s system-s
		bench_timed "$work/run" '%e %M %U %S' "$img2tar" -j "$jobs" "$img" >> "$work/a"
		bench_timed "$work/run" '%e %M %U %S' sh -c "'$sqfs2tar' '$img' > /dev/null" >> "$work/b"
		bench_timed "$work/run" '%e %M %U %S' "$imginfo" check -q -j "$jobs" "$img" >> "$work/f"
	done
	# The floor: 1.7x sqfs2tar for gzip and xz, not slower for the
	# others, at most 128 MiB resident.
	awk -v c="$c" -v s1="$(med "$work/a" 1)" -v s2="$(med "$work/b" 1)" \
		-v c1="$(cpu "$work/a")" -v c2="$(cpu "$work/b")" -v sf="$(med "$work/f" 1)" \
		-v cf="$(cpu "$work/f")" -v m1="$(med "$work/a" 2)" -v m2="$(med "$work/b" 2)" 'BEGIN {
		r = s1 > 0 ? s2 / s1 : 0
		need = (c == "gzip" || c == "xz") ? 1.7 : 1.0
		ok = r >= need && m1 / 1024 <= 128 ? "ok" : "MISSED"
		printf "| %s | %s | %s | %.2fx | %s | %s | %.2fx | %s | %s | %.1f | %.1f | %s (%.1fx) |\n", c,
			s1, s2, r, c1, c2, (c2 > 0 ? c1 / c2 : 0), sf, cf, m1 / 1024, m2 / 1024, ok, need }' |
		tee -a "$out"
done
echo "Results saved in $out"
