#!/bin/bash
# SPDX-License-Identifier: MIT
# shard-bench.sh - one build in N shards against one pass: a corpus tar
# packed by tar2img in one pass and as N shards (tar2img --shard I/N,
# built one after another here: the longest shard is the wall time an
# N-node cluster would see), the plan's time (--shard-plan, headers
# only), the merge (img2img --shards) against `cat` of the shards into
# a file on the same file system (the issue's bound: at most 1.5x), the
# merge's peak RSS, the merged image's size against the one-pass image's,
# and whether imginfo diff finds them equal. Wall and CPU (user +
# system) seconds from /usr/bin/time, of the programs themselves (not
# libtool's wrappers: bench_unwrap); on a loaded machine CPU is the
# figure to compare.
# Exit status: 0 when every run succeeded and the images matched, 1
# otherwise, 2 for bad usage.
set -u
prog=${0##*/}

corpus=/var/tmp/sqfs-bench
tar=big
codec=zstd
format=squashfs
jobs=2
shards=4
bin=
scratch=
results=

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR     corpus of ../shared/bench/make-corpus.sh (default $corpus)
  --tar NAME       DIR/NAME.tar (default $tar)
  --codec NAME     block compressor (default $codec)
  --format NAME    squashfs or erofs (default $format)
  --jobs N         -j of every run (default $jobs)
  --shards N       shards (default $shards)
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
	--tar) need_arg "$@"; tar=$2; shift ;;
	--codec) need_arg "$@"; codec=$2; shift ;;
	--format) need_arg "$@"; format=$2; shift ;;
	--jobs) need_arg "$@"; jobs=$2; shift ;;
	--shards) need_arg "$@"; shards=$2; shift ;;
	--bin) need_arg "$@"; bin=$2; shift ;;
	--scratch) need_arg "$@"; scratch=$2; shift ;;
	--results) need_arg "$@"; results=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/bench_lib.sh"
bin=$(bench_bindir "$bin")
bench_unwrap
bench_need_bins "$bin" tar2img img2img imginfo
input=$corpus/$tar.tar
[ -f "$input" ] || { echo "$prog: no $input (../shared/bench/make-corpus.sh builds it)" >&2; exit 1; }
work=$(mktemp -d "${scratch:-$corpus}/shard-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
: "${results:=$corpus/shard-bench-$(date -u +%Y%m%d-%H%M%S).md}"
export SOURCE_DATE_EPOCH=1700000000
status=0

# timed NAME COMMAND...: "wall cpu rss" of COMMAND.
timed() {
	local name=$1 out
	shift
	out=$(bench_timed "$work/$name" '%e %U %S %M' "$@")
	case $out in *nan*) status=1;; esac
	echo "$out" | awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }'
}
size() { stat -c %s "$1"; }

read -r one_wall one_cpu _ < <(timed one "$bin/tar2img" -q --format "$format" -c "$codec" -j "$jobs" "$work/one.img" "$input")
read -r plan_wall plan_cpu _ < <(timed plan "$bin/tar2img" --shard-plan "$shards" "$input")
list=() longest=0 sum_wall=0 sum_cpu=0
rows=
for ((i = 1; i <= shards; i++)); do
	read -r w c _ < <(timed "s$i" "$bin/tar2img" -q --format "$format" -c "$codec" -j "$jobs" --shard "$i/$shards" \
		"$work/s$i.img" "$input")
	list+=("$work/s$i.img")
	rows+="| shard $i/$shards | $w | $c | $(size "$work/s$i.img") |"$'\n'
	longest=$(awk -v a="$longest" -v b="$w" 'BEGIN { print (b > a ? b : a) }')
	sum_wall=$(awk -v a="$sum_wall" -v b="$w" 'BEGIN { print a + b }')
	sum_cpu=$(awk -v a="$sum_cpu" -v b="$c" 'BEGIN { print a + b }')
done
read -r cat_wall cat_cpu _ < <(timed cat sh -c 'cat "$@" > "'"$work/cat.out"'"' cat "${list[@]}")
rm -f "$work/cat.out"
read -r merge_wall merge_cpu merge_rss < <(timed merge "$bin/img2img" -q -j "$jobs" --shards \
	"$work/merged.img" "${list[@]}")
if "$bin/imginfo" diff -q "$work/one.img" "$work/merged.img" > /dev/null 2>&1; then
	same=yes
else
	same=no status=1
fi
one_size=$(size "$work/one.img") merged_size=$(size "$work/merged.img")

{
	echo "# shard-bench $(date -u +%Y-%m-%dT%H:%MZ): $tar.tar, $format, $codec, -j $jobs, $shards shards"
	echo
	echo "| run | wall s | cpu s | bytes |"
	echo "|---|---|---|---|"
	echo "| one pass | $one_wall | $one_cpu | $one_size |"
	echo "| --shard-plan $shards | $plan_wall | $plan_cpu | |"
	printf '%s' "$rows"
	echo "| shards, longest (an N-node cluster's wall) | $longest | | |"
	echo "| shards, all (one machine) | $sum_wall | $sum_cpu | |"
	echo "| cat of the shards | $cat_wall | $cat_cpu | |"
	echo "| img2img --shards (peak RSS $merge_rss KiB) | $merge_wall | $merge_cpu | $merged_size |"
	echo
	awk -v m="$merge_wall" -v c="$cat_wall" -v l="$longest" -v o="$one_wall" \
		-v ms="$merged_size" -v os="$one_size" -v mc="$merge_cpu" -v cc="$cat_cpu" 'BEGIN {
		printf "merge / cat: %.2fx wall, %.2fx CPU; ", (c > 0 ? m / c : 0), (cc > 0 ? mc / cc : 0)
		printf "size merged / one pass: %.4f; ", ms / os
		printf "cluster wall (longest shard + merge) / one pass: %.2f\n", (l + m) / o }'
	echo "imginfo diff finds the merge equal to the one-pass image: $same"
} | tee "$results"
exit $status
