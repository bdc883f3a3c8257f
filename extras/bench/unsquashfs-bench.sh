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
unsquashfs=unsquashfs

. "$(dirname "$0")/bench_lib.sh"
bench_extract_args "$@"
bin=$(bench_bindir "$bin")
bench_need_bins "$bin" sqpack-unsquashfs tar2img img2tar imginfo
bench_need_cmds "$unsquashfs"
bench_need_corpus "$corpus/$tree.tar"
images=$corpus/unsquashfs-images
mkdir -p "$images" || exit 1
work=$(mktemp -d "$out_dir/unsquashfs-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
report=$corpus/unsquashfs-bench-$(date +%Y%m%d-%H%M%S).md

{
echo "sqpack-unsquashfs benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $tree.tar, -j $jobs, $runs pairs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Peer: $("$unsquashfs" -version 2>&1 | head -n 1)"
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
		read -r sa ma _ < <(bench_extract "$work/o" "$bin/sqpack-unsquashfs" -q -n -d "$work/o" -processors "$jobs" "$img")
		read -r sb mb _ < <(bench_extract "$work/u" "$unsquashfs" -q -n -d "$work/u" -processors "$jobs" "$img")
		read -r sf _ < <(bench_extract "$work/t" "$bin/img2tar" -j "$jobs" "$img")
		read -r sc _ < <(bench_extract "$work/t" "$bin/imginfo" check -q -j "$jobs" "$img")
		echo "$sf" >> "$work/f"
		echo "$sc" >> "$work/c"
		echo "$sa $ma" >> "$work/a"
		echo "$sb $mb" >> "$work/b"
		awk -v a="$sa" -v b="$sb" 'BEGIN { if (b > 0) print a / b; else print "nan" }' >> "$work/r"
	done
	sa=$(cut -d' ' -f1 "$work/a" | bench_median); ma=$(cut -d' ' -f2 "$work/a" | bench_median)
	sb=$(cut -d' ' -f1 "$work/b" | bench_median); mb=$(cut -d' ' -f2 "$work/b" | bench_median)
	r=$(bench_median < "$work/r"); sf=$(bench_median < "$work/f"); sc=$(bench_median < "$work/c")
	awk -v c="$c" -v sa="$sa" -v sb="$sb" -v r="$r" -v sf="$sf" -v sc="$sc" -v ma="$ma" -v mb="$mb" 'BEGIN {
		printf "| %s | %s | %s | %.2fx | %s | %s | %.2fx | %.1f | %.1f |\n", c, sa, sb, r,
			sf, sc, (sc > 0 ? sa / sc : 0), ma / 1024, mb / 1024 }' | tee -a "$report"
done
echo "Results saved in $report"
