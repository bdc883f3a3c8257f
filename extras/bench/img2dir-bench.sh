#!/bin/bash
# SPDX-License-Identifier: MIT
# img2dir-bench.sh - time img2dir -j N against unsquashfs -d -processors N
# extracting the same image into a tmpfs, per codec, in the same run: the
# two run in turn (A B A B ...) and the ratio is the median of the pairs'
# ratios, so a drift of the machine's speed moves both alike. Beside them
# the medians of CPU seconds (user + system: what a loaded machine blurs
# least) and the codec's own decode time over N cores (imginfo check -j N:
# every block decompressed once, nothing written), the floor an
# extraction cannot beat. The peer is taken by path (--unsquashfs:
# squashfs-tools 4.7.5 built from its source, or Debian's 4.5.1). Images
# are made once from the corpus tar with tar2img and kept in
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
unsquashfs=unsquashfs

. "$(dirname "$0")/bench_lib.sh"
bench_extract_args "$@"
bin=$(bench_bindir "$bin")
bench_need_bins "$bin" img2dir tar2img imginfo
bench_need_cmds "$unsquashfs"
bench_need_corpus "$corpus/$tree.tar"
images=$corpus/img2dir-images
mkdir -p "$images" || exit 1
work=$(mktemp -d "$out_dir/img2dir-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
report=$corpus/img2dir-bench-$(date +%Y%m%d-%H%M%S).md

{
echo "img2dir benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $tree.tar, -j $jobs, $runs pairs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Peer: $("$unsquashfs" -version 2>&1 | head -n 1)"
echo
echo "| codec | img2dir s | unsquashfs s | ratio (pairs' median) | img2dir CPU s | unsquashfs CPU s | CPU ratio | decode s | decode CPU s | img2dir MiB | unsquashfs MiB | goal 0.7x, 64 MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} | tee "$report"
# med FILE COLUMN: the median of that column of bench_extract's lines
med() { cut -d' ' -f"$2" "$1" | bench_median; }
for c in $codecs; do
	img=$images/$tree-$c.img
	if [ ! -f "$img" ]; then
		"$bin/tar2img" -q -c "$c" "$img" "$corpus/$tree.tar" ||
			{ echo "tar2img -c $c failed" >&2; rm -f "$img"; continue; }
	fi
	cat "$img" > /dev/null
	: > "$work/a"; : > "$work/b"; : > "$work/r"; : > "$work/f"
	for _ in $(seq "$runs"); do
		bench_extract "$work/o" "$bin/img2dir" -q -j "$jobs" "$img" "$work/o" >> "$work/a"
		bench_extract "$work/u" "$unsquashfs" -q -n -d "$work/u" -processors "$jobs" "$img" >> "$work/b"
		bench_extract "$work/t" "$bin/imginfo" check -q -j "$jobs" "$img" >> "$work/f"
		paste -d' ' "$work/a" "$work/b" | tail -n 1 |
			awk '{ if ($4 > 0) print $1 / $4; else print "nan" }' >> "$work/r"
	done
	awk -v c="$c" -v sa="$(med "$work/a" 1)" -v sb="$(med "$work/b" 1)" -v r="$(bench_median < "$work/r")" \
		-v ca="$(med "$work/a" 3)" -v cb="$(med "$work/b" 3)" -v sf="$(med "$work/f" 1)" \
		-v cf="$(med "$work/f" 3)" -v ma="$(med "$work/a" 2)" -v mb="$(med "$work/b" 2)" 'BEGIN {
		ok = (r <= 0.7 && ma / 1024 <= 64) ? "ok" : "MISSED"
		printf "| %s | %s | %s | %.2fx | %s | %s | %.2fx | %s | %s | %.1f | %.1f | %s |\n", c, sa, sb, r,
			ca, cb, (cb > 0 ? ca / cb : 0), sf, cf, ma / 1024, mb / 1024, ok }' | tee -a "$report"
done
echo "Results saved in $report"
