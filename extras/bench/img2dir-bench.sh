#!/bin/bash
# SPDX-License-Identifier: MIT
# img2dir-bench.sh - time img2dir -j N against unsquashfs -d -processors N
# extracting the same image into a tmpfs, per codec, in the same run: the
# two run in turn (A B A B ...) and the ratio is the median of the pairs'
# ratios, so a drift of the machine's speed moves both alike. Images are
# made once from the corpus tar with tar2img and kept in
# CORPUS/img2dir-images (delete it to rebuild). The goal (issue 11): at
# most 0.7x unsquashfs's time and 64 MiB resident.
set -u

corpus=/var/tmp/sqfs-bench
tree=big
codecs="zstd xz"
jobs=2
runs=3
bin=
out_dir=/dev/shm

. "$(dirname "$0")/bench_lib.sh"
bench_extract_args "$@"
bin=$(bench_bindir "$bin")
bench_need_bins "$bin" img2dir tar2img
bench_need_cmds unsquashfs
bench_need_corpus "$corpus/$tree.tar"
images=$corpus/img2dir-images
mkdir -p "$images" || exit 1
work=$(mktemp -d "$out_dir/img2dir-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
report=$corpus/img2dir-bench-$(date +%Y%m%d-%H%M%S).md

{
echo "img2dir benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $tree.tar, -j $jobs, $runs pairs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| codec | img2dir s | unsquashfs s | ratio (pairs' median) | img2dir MiB | unsquashfs MiB | goal 0.7x, 64 MiB |"
echo "|---|---|---|---|---|---|---|"
} | tee "$report"
for c in $codecs; do
	img=$images/$tree-$c.img
	if [ ! -f "$img" ]; then
		"$bin/tar2img" -q -c "$c" "$img" "$corpus/$tree.tar" ||
			{ echo "tar2img -c $c failed" >&2; rm -f "$img"; continue; }
	fi
	cat "$img" > /dev/null
	: > "$work/a"; : > "$work/b"; : > "$work/r"
	for _ in $(seq "$runs"); do
		read -r sa ma < <(bench_extract "$work/o" "$bin/img2dir" -q -j "$jobs" "$img" "$work/o")
		read -r sb mb < <(bench_extract "$work/u" unsquashfs -q -n -d "$work/u" -processors "$jobs" "$img")
		echo "$sa $ma" >> "$work/a"
		echo "$sb $mb" >> "$work/b"
		awk -v a="$sa" -v b="$sb" 'BEGIN { if (b > 0) print a / b; else print "nan" }' >> "$work/r"
	done
	sa=$(cut -d' ' -f1 "$work/a" | bench_median); ma=$(cut -d' ' -f2 "$work/a" | bench_median)
	sb=$(cut -d' ' -f1 "$work/b" | bench_median); mb=$(cut -d' ' -f2 "$work/b" | bench_median)
	r=$(bench_median < "$work/r")
	awk -v c="$c" -v sa="$sa" -v sb="$sb" -v r="$r" -v ma="$ma" -v mb="$mb" 'BEGIN {
		ok = (r <= 0.7 && ma / 1024 <= 64) ? "ok" : "MISSED"
		printf "| %s | %s | %s | %.2fx | %.1f | %.1f | %s |\n", c, sa, sb, r,
			ma / 1024, mb / 1024, ok }' | tee -a "$report"
done
echo "Results saved in $report"
