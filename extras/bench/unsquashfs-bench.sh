#!/bin/bash
# SPDX-License-Identifier: MIT
# unsquashfs-bench.sh - time sqpack-unsquashfs -p N against unsquashfs
# -processors N, the same command line, extracting the same image into a
# tmpfs, per codec, in the same run: the two run in turn (A B A B ...) and
# the ratio is the median of the pairs' ratios, so a drift of the
# machine's speed moves both alike. Beside them, two floors: img2tar -j N
# of the image to /dev/null (every block decompressed on N threads,
# nothing written to a file system), and the codec's own decode time split
# over N cores: imginfo check -j N, which decompresses every data and
# fragment block once on N threads and writes nothing (the physical
# limit an extraction cannot beat), with our time over it. Images are made once from
# the corpus tar with tar2img and kept in CORPUS/unsquashfs-images (delete
# it to rebuild). The goal (issue 23): at most 0.7x unsquashfs's time for
# zstd, gzip and lz4, within 5% of the decode floor for xz, and 64 MiB
# resident.
set -u

corpus=/var/tmp/sqfs-bench
tree=big
codecs="zstd gzip lz4 xz"
jobs=2
runs=3
bin=
out_dir=/dev/shm

while [ $# -gt 0 ]; do
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--runs) runs=$2; shift ;;
	--bin) bin=$2; shift ;;
	--out) out_dir=$2; shift ;;
	-h|--help)
		echo "usage: $0 [--corpus DIR] [--tree big|small] [--codecs LIST] [--jobs N] [--runs N] [--bin BUILD/bin] [--out TMPFS-DIR]"
		exit 0 ;;
	*) echo "$0: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$bin" ] || bin=${top_builddir:-$here/../..}/bin
for t in sqpack-unsquashfs tar2img img2tar imginfo; do
	[ -x "$bin/$t" ] || { echo "$0: $t not found in $bin" >&2; exit 1; }
done
command -v unsquashfs > /dev/null || { echo "$0: unsquashfs not installed" >&2; exit 1; }
[ -f "$corpus/$tree.tar" ] || {
	echo "$0: $corpus/$tree.tar missing; build the corpus with ../shared/bench/make-corpus.sh" >&2
	exit 1
}
images=$corpus/unsquashfs-images
mkdir -p "$images" || exit 1
work=$(mktemp -d "$out_dir/unsquashfs-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
report=$corpus/unsquashfs-bench-$(date +%Y%m%d-%H%M%S).md

# one OUT COMMAND...: "wall_seconds peak_kib" of one extraction into OUT
# (removed before and after), or "nan nan" when it fails.
one() {
	local out=$1; shift
	rm -rf "$out"
	if ! /usr/bin/time -o "$work/time" -f '%e %M' "$@" > /dev/null 2> "$work/err"; then
		echo "FAILED: $*: $(head -c 200 "$work/err")" >&2
		echo "nan nan"
	else
		cat "$work/time"
	fi
	rm -rf "$out"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "nan" }'; }

{
echo "sqpack-unsquashfs benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $tree.tar, -j $jobs, $runs pairs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| codec | sqpack-unsquashfs s | unsquashfs s | ratio (pairs' median) | img2tar floor s | codec decode s (imginfo check) | ours / codec | sqpack-unsquashfs MiB | unsquashfs MiB |"
echo "|---|---|---|---|---|---|---|---|---|"
} | tee "$report"
for c in $codecs; do
	img=$images/$tree-$c.img
	if [ ! -f "$img" ]; then
		"$bin/tar2img" -q -c "$c" "$img" "$corpus/$tree.tar" ||
			{ echo "tar2img -c $c failed" >&2; rm -f "$img"; continue; }
	fi
	cat "$img" > /dev/null
	: > "$work/a"; : > "$work/b"; : > "$work/r"; : > "$work/f"; : > "$work/c"
	for _ in $(seq "$runs"); do
		read -r sa ma < <(one "$work/o" "$bin/sqpack-unsquashfs" -q -n -d "$work/o" -processors "$jobs" "$img")
		read -r sb mb < <(one "$work/u" unsquashfs -q -n -d "$work/u" -processors "$jobs" "$img")
		read -r sf _ < <(one "$work/t" "$bin/img2tar" -j "$jobs" "$img")
		read -r sc _ < <(one "$work/t" "$bin/imginfo" check -q -j "$jobs" "$img")
		echo "$sf" >> "$work/f"
		echo "$sc" >> "$work/c"
		echo "$sa $ma" >> "$work/a"
		echo "$sb $mb" >> "$work/b"
		awk -v a="$sa" -v b="$sb" 'BEGIN { if (b > 0) print a / b; else print "nan" }' >> "$work/r"
	done
	sa=$(cut -d' ' -f1 "$work/a" | median); ma=$(cut -d' ' -f2 "$work/a" | median)
	sb=$(cut -d' ' -f1 "$work/b" | median); mb=$(cut -d' ' -f2 "$work/b" | median)
	r=$(median < "$work/r"); sf=$(median < "$work/f"); sc=$(median < "$work/c")
	awk -v c="$c" -v sa="$sa" -v sb="$sb" -v r="$r" -v sf="$sf" -v sc="$sc" -v ma="$ma" -v mb="$mb" 'BEGIN {
		printf "| %s | %s | %s | %.2fx | %s | %s | %.2fx | %.1f | %.1f |\n", c, sa, sb, r,
			sf, sc, (sc > 0 ? sa / sc : 0), ma / 1024, mb / 1024 }' | tee -a "$report"
done
echo "Results saved in $report"
