#!/bin/bash
# SPDX-License-Identifier: MIT
# img2img-bench.sh - img2img on an xz image of a corpus tar, in one run:
# replacing one file against packing the tar with xz (the floor: at most
# 5% of its time, since nothing else is compressed again), and
# converting the image to zstd against img2tar | tar2img -c zstd (the
# floor: at most 0.6x its time) and against packing the tar with zstd
# (no more than 1.001x its size); the conversion must read equal to the
# base. The conversion's physical limit is also shown: decoding the xz
# image (imginfo check, which decodes every block and writes nothing)
# plus packing the tar with zstd, each on the -j cores; a conversion
# decodes and encodes the same bytes, so on a machine whose cores both
# phases fill it cannot take less than the sum. Images are kept in
# CORPUS/img2img-images (delete it to rebuild them; the timed runs are
# always made again).
# --repeat N runs the conversion, the pipe, the decode and the zstd pack
# N times, interleaved (a load that changes during the bench then falls
# on all four alike), and reports medians of wall and CPU (user + system)
# time with the load average before and after; --convert-only leaves out
# the xz pack and the one-file row (xz.img must be there from a run
# before), which take most of a run's time.
set -u

corpus=/var/tmp/sqfs-bench
tar=big
jobs=2
bindir=
repeat=1
convert_only=0

while [ $# -gt 0 ]; do
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tar) tar=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--bindir) bindir=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--convert-only) convert_only=1 ;;
	-h|--help)
		echo "usage: $0 [--corpus DIR] [--tar big|small] [--jobs N] [--bindir DIR]" \
			"[--repeat N] [--convert-only]"
		exit 0 ;;
	-*) echo "$0: unknown option $1" >&2; exit 2 ;;
	*) corpus=$1 ;;
	esac
	shift
done
. "$(dirname "$0")/bench_lib.sh"
bindir=$(bench_bindir "$bindir")
bench_need_bins "$bindir" tar2img img2img img2tar imginfo
src=$corpus/$tar.tar
bench_need_corpus "$src"
work=$corpus/img2img-images
mkdir -p "$work"
out=$corpus/img2img-bench-$(date +%Y%m%d-%H%M%S).md
export SOURCE_DATE_EPOCH=1700000000

size() { stat -c %s "$1"; }

# The layer: the largest regular file of the tar, replaced by a line.
victim=$(tar -tvf "$src" | awk '$1 ~ /^-/ { print $3, $NF }' | sort -n | tail -1 | cut -d' ' -f2-)
rm -rf "$work/layer" && mkdir -p "$work/layer/$(dirname "$victim")" &&
echo "replaced by img2img-bench" > "$work/layer/$victim" &&
tar -C "$work/layer" -cf "$work/layer.tar" "$victim" || exit 1

cat "$src" > /dev/null
load0=$(cut -d' ' -f1-3 /proc/loadavg)
if [ "$convert_only" = 1 ]; then
	[ -f "$work/xz.img" ] || { echo "$0: --convert-only: no $work/xz.img (run once without it)" >&2; exit 1; }
else
	t_xz=$(bench_timed "$work/run" %e "$bindir/tar2img" -q -f -j "$jobs" -c xz "$work/xz.img" "$src")
	t_one=$(bench_timed "$work/run" %e "$bindir/img2img" -q -f -j "$jobs" "$work/one.img" "$work/xz.img" "$work/layer.tar")
fi
# run NAME COMMAND...: one timed run, "wall cpu" appended to $work/NAME.runs
run() {
	local name=$1
	shift
	bench_timed "$work/run" '%e %U %S' "$@" |
		awk '{ printf "%s %.2f\n", $1, $2 + $3 }' >> "$work/$name.runs"
}
rm -f "$work"/{conv,pipe,check,zstd}.runs
for ((i = 0; i < repeat; i++)); do
	run conv "$bindir/img2img" -q -f -j "$jobs" -c zstd "$work/conv.img" "$work/xz.img"
	run pipe sh -c "'$bindir/img2tar' -j '$jobs' '$work/xz.img' |
		'$bindir/tar2img' -q -f -j '$jobs' -c zstd '$work/pipe.img'"
	run check "$bindir/imginfo" check -q -j "$jobs" "$work/xz.img"
	run zstd "$bindir/tar2img" -q -f -j "$jobs" -c zstd "$work/zstd.img" "$src"
done
# med NAME COLUMN: the median of a column (1 wall, 2 cpu) of NAME's runs
med() { awk -v c="$2" '{ print $c }' "$work/$1.runs" | bench_median; }
t_conv=$(med conv 1) t_pipe=$(med pipe 1) t_check=$(med check 1) t_zstd=$(med zstd 1)
c_conv=$(med conv 2) c_pipe=$(med pipe 2) c_check=$(med check 2) c_zstd=$(med zstd 2)
equal=no
"$bindir/imginfo" diff -q "$work/xz.img" "$work/conv.img" > /dev/null 2>&1 && equal=yes
[ "$convert_only" = 1 ] || one_diff=$("$bindir/imginfo" diff "$work/xz.img" "$work/one.img" 2>&1 | cut -d: -f1 | sort -u | tr '\n' ' ')

{
echo "img2img benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $tar.tar, -j $jobs, $(nproc) CPUs," \
	"load $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after; conversion rows: median of $repeat"
echo
echo "| what | s | compared with | s | ratio | floor |"
echo "|---|---|---|---|---|---|"
[ "$convert_only" = 1 ] || awk -v a="$t_one" -v b="$t_xz" 'BEGIN { r = a / b
	printf "| replace one file (xz image) | %s | tar2img -c xz | %s | %.3f | %s (0.05) |\n",
		a, b, r, r <= 0.05 ? "ok" : "MISSED" }'
awk -v a="$t_conv" -v b="$t_pipe" 'BEGIN { r = a / b
	printf "| convert xz to zstd | %s | img2tar \\| tar2img -c zstd | %s | %.3f | %s (0.6) |\n",
		a, b, r, r <= 0.6 ? "ok" : "MISSED" }'
awk -v a="$t_conv" -v c="$t_check" -v z="$t_zstd" 'BEGIN {
	printf "| convert xz to zstd | %s | limit: imginfo check (xz decode) %s + tar2img -c zstd %s | %.2f | %.3f | |\n",
		a, c, z, c + z, a / (c + z) }'
awk -v a="$c_conv" -v b="$c_pipe" -v c="$c_check" -v z="$c_zstd" 'BEGIN {
	printf "| CPU s (user + system): convert | %s | pipe %s; limit: check %s + zstd %s | %.2f | %.3f of the pipe, %.3f of the limit | |\n",
		a, b, c, z, c + z, a / b, a / (c + z) }'
echo
echo "| image | bytes | ratio to tar2img -c zstd |"
echo "|---|---|---|"
for f in zstd conv pipe xz one; do
	[ -f "$work/$f.img" ] || continue
	awk -v n="$f" -v a="$(size "$work/$f.img")" -v b="$(size "$work/zstd.img")" \
		'BEGIN { printf "| %s | %d | %.4f%s |\n", n, a, a / b,
			n == "conv" ? (a / b <= 1.001 ? " ok (1.001)" : " MISSED (1.001)") : "" }'
done
echo
echo "conversion reads equal to the base (imginfo diff): $equal"
[ "$convert_only" = 1 ] || echo "one file replaced ($victim): imginfo diff names: $one_diff"
} | tee "$out"
echo "Results saved in $out"
