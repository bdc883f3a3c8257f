#!/bin/bash
# SPDX-License-Identifier: MIT
# before-after.sh - is a change slower? The same jobs run with two builds,
# in turn (before, after, before, after ...), and each job's ratio is the
# median of its pairs' ratios, so a drift of the machine's speed moves
# both alike. The jobs are the ones a refactor of the cores touches: the
# tar2img pipeline (lz4, and zstd at level 3: its default 15 spends the
# time in the codec), dir2img's EROFS writer (lz4hc), and the
# two extractors (img2tar and img2dir, zstd). Images to extract are made
# once with the "before" build and shared by both.
#
#   before-after.sh --before OLD/bin --after NEW/bin [--corpus DIR]
#                   [--tree small|big] [--jobs N] [--runs N] [--out DIR]
#
# Prints a Markdown table: the medians in seconds, after/before.
set -u

corpus=/var/tmp/sqfs-bench
tree=small
jobs=2
runs=3
out_dir=/dev/shm
before=
after=

while [ $# -gt 0 ]; do
	case $1 in
	--before) before=$2; shift ;;
	--after) after=$2; shift ;;
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--runs) runs=$2; shift ;;
	--out) out_dir=$2; shift ;;
	-h|--help)
		sed -n '/^#   before-after/,/^#   *\[--tree/p' "$0" | sed 's/^# *//'
		exit 0 ;;
	*) echo "$0: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$before" ] && [ -n "$after" ] || { echo "$0: --before and --after are required" >&2; exit 2; }

. "$(dirname "$0")/bench_lib.sh"
for b in "$before" "$after"; do
	bench_need_bins "$b" tar2img dir2img img2tar img2dir
done
bench_need_corpus "$corpus/$tree.tar"
bench_need_corpus "$corpus/rootfs-$tree"
work=$(mktemp -d "$out_dir/before-after.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000

img=$work/zstd.img
"$before/tar2img" -q -c zstd -X level=3 "$img" "$corpus/$tree.tar" || { echo "$0: tar2img -c zstd failed" >&2; exit 1; }
cat "$corpus/$tree.tar" "$img" > /dev/null

# job NAME ARGS...: ARGS with @BIN@ for the build's bin/ and @OUT@ for a
# path in the work directory the job may write (removed after each run).
job() {
	local name=$1 side bin sa sb
	shift
	: > "$work/r"; : > "$work/a"; : > "$work/b"
	for _ in $(seq "$runs"); do
		for side in a b; do
			bin=$before; [ "$side" = b ] && bin=$after
			rm -rf "$work/out"
			bench_timed "$work/t" '%e' $(printf '%s\n' "$@" |
				sed "s|@BIN@|$bin|; s|@OUT@|$work/out|") >> "$work/$side"
			rm -rf "$work/out"
		done
		paste "$work/a" "$work/b" | tail -n 1 |
			awk '{ if ($1 > 0) print $2 / $1; else print "nan" }' >> "$work/r"
	done
	sa=$(bench_median < "$work/a")
	sb=$(bench_median < "$work/b")
	printf '| %s | %s | %s | %.3fx |\n' "$name" "$sa" "$sb" "$(bench_median < "$work/r")"
}

echo "before-after, $(date -u '+%Y-%m-%d %H:%M UTC'), $tree.tar, -j $jobs, $runs pairs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "before: $before"
echo "after:  $after"
echo
echo "| job | before s | after s | after/before (pairs' median) |"
echo "|---|---|---|---|"
job "tar2img -c lz4" @BIN@/tar2img -q -j "$jobs" -c lz4 @OUT@ "$corpus/$tree.tar"
job "tar2img -c zstd -X level=3" @BIN@/tar2img -q -j "$jobs" -c zstd -X level=3 @OUT@ "$corpus/$tree.tar"
job "dir2img --format erofs -c lz4 -X hc" @BIN@/dir2img -q -j "$jobs" --format erofs -c lz4 -X hc @OUT@ "$corpus/rootfs-$tree"
job "img2tar (zstd)" @BIN@/img2tar -j "$jobs" -o @OUT@ "$img"
job "img2dir (zstd)" @BIN@/img2dir -q -j "$jobs" "$img" @OUT@
