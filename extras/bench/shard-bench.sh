#!/bin/bash
# SPDX-License-Identifier: MIT
# shard-bench.sh - one build in N shards against one pass, as a table of
# corpus tars x formats x shard counts: each tar packed by tar2img in one
# pass and as N shards (tar2img --shard I/N, built one after another
# here: the longest shard is the wall time an N-node cluster would see),
# the merge (img2img --shards) against `cat` of the shards into a file
# on the same file system (the issue's bound: at most 1.5x), the merge's
# peak RSS, the merged image's size against the one-pass image's, and
# whether imginfo diff finds them equal.
#
# A merge of small.tar's shards takes tens of milliseconds, below what
# /usr/bin/time resolves: the merge and `cat` are each timed as a loop
# of --reps runs (divided by it), alternating, and the best of --runs
# such loops is taken, CPU (user + system) being the figure to compare
# on a loaded machine. The programs themselves are timed, not libtool's
# wrappers (bench_unwrap).
# Exit status: 0 when every run succeeded and every merge matched its
# one pass, 1 otherwise, 2 for bad usage.
set -u
prog=${0##*/}

corpus=/var/tmp/sqfs-bench
tars=big,small
codec=zstd
formats=squashfs,erofs
jobs=2
counts=1,4
runs=3
reps=5
bin=
scratch=
results=

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR     corpus of ../shared/bench/make-corpus.sh (default $corpus)
  --tar NAMES      DIR/NAME.tar for each of the comma-separated NAMES (default $tars)
  --codec NAME     block compressor (default $codec)
  --format NAMES   squashfs, erofs or both, comma-separated (default $formats)
  --jobs N         -j of every run (default $jobs)
  --shards COUNTS  shard counts, comma-separated (default $counts)
  --runs N         merge and cat: the best of N timed loops (default $runs)
  --reps N         runs in each timed loop (default $reps)
  --bin DIR        the tools (default \$top_builddir/bin, or ./bin)
  --scratch DIR    images, in a directory made there and removed after
                   (default: the corpus directory)
  --results FILE   the table (default DIR/shard-bench-DATE.md)
USAGE
}
need_arg() { [ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	--corpus) need_arg "$@"; corpus=$2; shift ;;
	--tar) need_arg "$@"; tars=$2; shift ;;
	--codec) need_arg "$@"; codec=$2; shift ;;
	--format) need_arg "$@"; formats=$2; shift ;;
	--jobs) need_arg "$@"; jobs=$2; shift ;;
	--shards) need_arg "$@"; counts=$2; shift ;;
	--runs) need_arg "$@"; runs=$2; shift ;;
	--reps) need_arg "$@"; reps=$2; shift ;;
	--bin) need_arg "$@"; bin=$2; shift ;;
	--scratch) need_arg "$@"; scratch=$2; shift ;;
	--results) need_arg "$@"; results=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
for n in "$jobs" "$runs" "$reps"; do
	case $n in '' | *[!0-9]* | 0) echo "$prog: '$n': not a positive number" >&2; exit 2 ;; esac
done
IFS=, read -r -a tar_list <<< "$tars"
IFS=, read -r -a format_list <<< "$formats"
IFS=, read -r -a count_list <<< "$counts"
for n in "${count_list[@]}"; do
	case $n in '' | *[!0-9]* | 0) echo "$prog: '$n': not a shard count" >&2; exit 2 ;; esac
done
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench_lib.sh"
bin=$(bench_bindir "$bin")
bench_unwrap
bench_need_bins "$bin" tar2img img2img imginfo
for t in "${tar_list[@]}"; do
	[ -f "$corpus/$t.tar" ] || { echo "$prog: no $corpus/$t.tar (../shared/bench/make-corpus.sh builds it)" >&2; exit 1; }
done
work=$(mktemp -d "${scratch:-$corpus}/shard-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
: "${results:=$corpus/shard-bench-$(date -u +%Y%m%d-%H%M%S).md}"
export SOURCE_DATE_EPOCH=1700000000
status=0

# timed NAME COMMAND...: "wall cpu rss" of COMMAND (seconds, KiB), "nan"
# for each when it failed.
timed() {
	local name=$1
	shift
	bench_timed "$work/$name" '%e %U %S %M' "$@" |
		awk '{ if ($2 == "nan") print "nan nan nan"; else printf "%s %.2f %s\n", $1, $2 + $3, $4 }'
}
# A figure that is "nan": a run failed.
check_ran() { case "$*" in *nan*) status=1;; esac; }
size() { stat -c %s "$1"; }

# A loop of $reps runs of "$@" (after "OUT REPS"), OUT removed before
# each: one for /usr/bin/time to time.
# shellcheck disable=SC2016  # expanded by the loop's shell
run_loop='out=$1 n=$2; shift 2; for ((i = 0; i < n; i++)); do rm -f "$out" && "$@" || exit 1; done'
cat_loop='out=$1 n=$2; shift 2; for ((i = 0; i < n; i++)); do rm -f "$out" && cat "$@" > "$out" || exit 1; done'

# best NAME: the best "wall cpu" (ms, per run) of NAME's timed loops,
# and the largest peak RSS (KiB) any of them saw.
best() {
	awk '{ w = $1 * 1000 / r; c = $2 * 1000 / r
	       if (NR == 1 || w < bw) bw = w; if (NR == 1 || c < bc) bc = c; if ($3 > m) m = $3 }
	     END { printf "%.0f %.0f %d\n", bw, bc, m }' r="$reps" "$work/$1.runs"
}

{
	echo "# shard-bench $(date -u +%Y-%m-%dT%H:%MZ): $codec, -j $jobs; merge and cat: best of $runs loops of $reps, load $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| tar | format | shards | one pass wall / CPU s | longest shard wall s | shards CPU s | cat wall / CPU ms | merge wall / CPU ms | merge / cat wall, CPU | merge peak RSS KiB | size / one pass | equal |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} > "$work/table"
for t in "${tar_list[@]}"; do
	input=$corpus/$t.tar
	for f in "${format_list[@]}"; do
		read -r one_wall one_cpu _ < <(timed one "$bin/tar2img" -q --format "$f" -c "$codec" \
			-j "$jobs" "$work/one.img" "$input")
		check_ran "$one_wall"
		for n in "${count_list[@]}"; do
			list=() longest=0 sum_cpu=0
			for ((i = 1; i <= n; i++)); do
				read -r w c _ < <(timed "s$i" "$bin/tar2img" -q --format "$f" -c "$codec" \
					-j "$jobs" --shard "$i/$n" "$work/s$i.img" "$input")
				check_ran "$w"
				list+=("$work/s$i.img")
				longest=$(awk -v a="$longest" -v b="$w" 'BEGIN { print (b > a ? b : a) }')
				sum_cpu=$(awk -v a="$sum_cpu" -v b="$c" 'BEGIN { printf "%.2f", a + b }')
			done
			: > "$work/cat.runs"
			: > "$work/merge.runs"
			for ((r = 0; r < runs; r++)); do
				timed cat bash -c "$cat_loop" loop "$work/cat.out" "$reps" \
					"${list[@]}" >> "$work/cat.runs"
				timed merge bash -c "$run_loop" loop "$work/merged.img" "$reps" \
					"$bin/img2img" -q -j "$jobs" --shards "$work/merged.img" \
					"${list[@]}" >> "$work/merge.runs"
			done
			rm -f "$work/cat.out"
			read -r cat_wall cat_cpu _ < <(best cat)
			read -r merge_wall merge_cpu merge_rss < <(best merge)
			check_ran "$(cat "$work/cat.runs" "$work/merge.runs")"
			if "$bin/imginfo" diff -q "$work/one.img" "$work/merged.img" > /dev/null 2>&1; then
				same=yes
			else
				same=no status=1
			fi
			awk -v t="$t" -v f="$f" -v n="$n" -v ow="$one_wall" -v oc="$one_cpu" -v l="$longest" \
				-v sc="$sum_cpu" -v cw="$cat_wall" -v cc="$cat_cpu" -v mw="$merge_wall" \
				-v mc="$merge_cpu" -v rss="$merge_rss" -v ms="$(size "$work/merged.img")" \
				-v os="$(size "$work/one.img")" -v same="$same" 'BEGIN {
				printf "| %s.tar | %s | %d | %s / %s | %s | %s | %d / %d | %d / %d | %.2fx, %.2fx | %d | %.4f | %s |\n",
				       t, f, n, ow, oc, l, sc, cw, cc, mw, mc, (cw > 0 ? mw / cw : 0),
				       (cc > 0 ? mc / cc : 0), rss, ms / os, same }' >> "$work/table"
			rm -f "${list[@]}" "$work/merged.img"
		done
		rm -f "$work/one.img"
	done
done
tee "$results" < "$work/table"
exit $status
