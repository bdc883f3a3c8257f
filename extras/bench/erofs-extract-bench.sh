#!/bin/bash
# SPDX-License-Identifier: MIT
# erofs-extract-bench.sh - extracting EROFS images (issue 38): img2dir
# -j N into a tmpfs and img2tar -j N to /dev/null against fsck.erofs
# --extract (erofs-utils, one thread: give 1.9.3's with --fsck) into the
# same tmpfs, per codec and layout, in the same run: the tools run in turn
# (ours, theirs, ours, theirs ...) and each ratio is the median of the
# pairs' ratios, so a drift of the machine's speed moves both alike.
# Beside them the floor: the codec's decode time over N cores, imginfo
# check -q -j N, which decodes every extent once on N threads and writes
# nothing, with img2dir's time over it; and the CPU seconds (user +
# system) of img2dir, fsck.erofs and the floor, which a loaded machine
# blurs less than wall time. Beside it the write floor: img2dir -j N of
# an uncompressed image of the same tree (dir2img --format erofs -c
# none, made once beside the others) into the same tmpfs, the cost of
# extracting with no decoding at all: reading the image, making the
# files, writing the same bytes. Then the row's limit by two models:
# "max", the larger of the two floors' wall times (a bound img2dir cannot
# beat: it does both jobs on the same cores), and "sum", both floors'
# CPU seconds spread over the N cores, less the read floor's (imginfo
# check -q -j N of the uncompressed image: reading and walking the
# image, which both floors count), with img2dir's time over each.
# The sum is the model the figures fit (rootfs-small, -j 2, --rt 10,
# load 16 to 20, lz4, lz4hc, zstd, lzma at 64 KiB and 1 MiB clusters,
# two runs): img2dir over it 0.96 to 1.09 on every row, over the max
# 1.03 to 1.59 (zstd 1.39 to 1.59, where both floors are about 0.11 s;
# lz4 and lz4hc 1.04 to 1.25): decoding and writing share the cores,
# neither hides behind the other. The read floor's share matters:
# without it the sum is too high, and img2dir beat it (0.75x at lz4,
# 0.80x at zstd). For lz4 and lz4hc the write floor is the larger part
# (0.17 to 0.23 CPU seconds against decoding's 0.10 to 0.12), though it
# reads a 200 MB image where theirs are 110 to 124 MB. --image rows get
# the write and read floors of --tree's uncompressed image. Under that,
# for our lz4, lz4hc and zstd images, the codec's own limit:
# erofs-baseline's decode of the clusters
# it cuts from CORPUS/TREE.tar as the writer does, with the codec's
# library alone, on N threads (its CPU seconds, and img2dir's time
# over its wall time), for every codec: lz4 and zstd through the
# library's decoders, lzma (MicroLZMA) and deflate (raw) through the
# EROFS reader's libraries; figures are kept beside the images
# (CORPUS/erofs-extract-images/TREE-limit-*.txt: the lzma pass takes
# minutes). Images are made once from
# CORPUS/rootfs-TREE with dir2img --format erofs (zstd level 3, lz4hc
# level 9, lzma level 6: mkfs.erofs's defaults; lz4, deflate) and kept in
# CORPUS/erofs-extract-images (delete it to rebuild); each is read once
# to the page cache before its rows. Layouts: a physical cluster size,
# "+z" adds tail packing (--ztailpacking), "+f" fragments
# (--erofs-fragments). The goal: img2dir and img2tar at most 0.5x
# fsck.erofs --extract's time, within 10% of the decode floor; where the
# writing costs more than the decoding (lz4, lz4hc, zstd), img2dir /
# sum says how far it is from what decoding and writing together need.
# --image adds images made elsewhere (mkfs.erofs 1.9.3's, say), each a
# row of its own named by its file; a file named NAME-CODEC-PCLUSTER.erofs
# (m193-lzma-1048576.erofs) gets the limit of that codec at its default
# level and that cluster size (our writer's cut of the clusters, which
# mkfs.erofs's follows within a few per cent of the bytes). To a disk (--out on ext4), --settle
# syncs and drops the page cache before each run, the image read back
# in, so that no run pays for the writeback of the one before; the
# times never include the output's own writeback (neither tool syncs).
# On a machine other jobs load, --rt PRIO runs each timed command (ours,
# fsck.erofs, the floor) at SCHED_FIFO priority PRIO (root): the other
# jobs then wait while it runs, so its wall time is an idle machine's
# and the tools' ratios are not skewed toward the one with more threads
# (at load 15 on 2 cores, img2dir -j 2 gets less than a core). A run
# is a second or two; the kernel's real-time throttling still leaves
# the others 5% of each second.
# Exit status: 0 when every run succeeded, 1 when a tool failed or is
# missing, 2 for bad usage.
set -u
prog=${0##*/}
corpus=/var/tmp/sqfs-bench
tree=small
codecs="lz4hc zstd lzma"
layouts="4096 65536 1048576"
jobs=2
runs=3
bin=
fsck=fsck.erofs
baseline=${top_builddir:-.}/extras/bench/erofs-baseline
out_dir=/dev/shm
extra=()
settle=no
rt=()

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR     corpus (default $corpus)
  --tree NAME      small or big: CORPUS/rootfs-NAME (default $tree)
  --codecs "LIST"  of lz4 lz4hc zstd lzma deflate (default "$codecs";
                   "" for --image rows alone)
  --layouts "LIST" cluster sizes, each with +z (tail packing) and/or +f
                   (fragments) (default "$layouts"; e.g. "4096+z 65536+zf")
  --jobs N         our threads (default $jobs)
  --runs N         pairs per row (default $runs)
  --bin DIR        our tools (default \$top_builddir/bin)
  --fsck PATH      fsck.erofs to compare with (default $fsck)
  --baseline PATH  erofs-baseline (default \$top_builddir/extras/bench/erofs-baseline;
                   no limit columns without it)
  --out DIR        where to extract (default $out_dir, a tmpfs)
  --image PATH     also this image (a row of its own; may be repeated)
  --rt PRIO        run the timed commands at SCHED_FIFO priority PRIO
                   (1-99; root): a loaded machine times like an idle one
  --settle         sync and drop caches before each run (root; for a
                   disk --out)
USAGE
}
while [ $# -gt 0 ]; do
	case $1 in
	--corpus|--tree|--codecs|--layouts|--jobs|--runs|--bin|--fsck|--out|--image|--baseline|--rt)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; exit 2; } ;;
	esac
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--layouts) layouts=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--runs) runs=$2; shift ;;
	--bin) bin=$2; shift ;;
	--fsck) fsck=$2; shift ;;
	--baseline) baseline=$2; shift ;;
	--out) out_dir=$2; shift ;;
	--image) extra+=("$2"); shift ;;
	--rt) rt=(chrt -f "$2"); shift ;;
	--settle) settle=yes ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
case $jobs in ''|*[!0-9]*) echo "$prog: --jobs takes a number" >&2; exit 2 ;; esac
case $runs in ''|0|*[!0-9]*) echo "$prog: --runs takes a number from 1" >&2; exit 2 ;; esac
if [ ${#rt[@]} -gt 0 ]; then
	case ${rt[2]} in ''|0|*[!0-9]*) echo "$prog: --rt takes a priority from 1 to 99" >&2; exit 2 ;; esac
	"${rt[@]}" true 2> /dev/null ||
		{ echo "$prog: --rt ${rt[2]}: cannot run at SCHED_FIFO (chrt, root)" >&2; exit 1; }
fi
. "$(cd "$(dirname "$0")" && pwd)/bench_lib.sh"
bin=$(bench_bindir "$bin")
bench_need_bins "$bin" dir2img img2dir img2tar imginfo
bench_unwrap
bench_need_cmds "$fsck" /usr/bin/time
bench_need_corpus "$corpus/rootfs-$tree"
images=$corpus/erofs-extract-images
mkdir -p "$images" || exit 1
work=$(mktemp -d "$out_dir/erofs-extract-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
report=$corpus/erofs-extract-bench-$(date +%Y%m%d-%H%M%S).md
# timed PREFIX COMMAND...: "wall cpu" of COMMAND (user + system), in
# milliseconds' precision (bash's time): /usr/bin/time's hundredths are
# 7% of a 0.14 s extraction. "nan nan" when it failed (its message on
# stderr; PREFIX.err holds its output).
timed() {
	local f=$1 t
	shift
	if t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" > /dev/null 2> "$f.err"; } 2>&1 ); then
		echo "$t" | awk '{ print $1, $2 + $3 }'
	else
		echo "FAILED: $*: $(head -c 300 "$f.err")" >&2
		echo "nan nan"
	fi
}
# pair_ratio A B: the median of the ratios of the lines of files A and B.
pair_ratio() {
	paste -d' ' "$1" "$2" |
		awk '$1 != "nan" && $2 != "nan" && $2 > 0 { printf "%.4f\n", $1 / $2 }' |
		bench_median
}
med() { bench_median < "$1"; }

{
echo "EROFS extraction, $(date -u '+%Y-%m-%d %H:%M UTC'), rootfs-$tree, -j $jobs, $runs runs each, fsck: $("$fsck" --version 2>&1 | head -n1), load $(cut -d' ' -f1-3 /proc/loadavg)${rt[0]:+, at SCHED_FIFO ${rt[2]}}"
echo
echo "| codec | layout | img2dir s | img2tar s | fsck.erofs --extract s | img2dir / fsck | img2tar / fsck | decode floor s (imginfo check) | img2dir / floor | img2tar / floor | img2dir cpu s | fsck cpu s | floor cpu s | write floor s (img2dir, uncompressed) | img2dir / write floor | write floor cpu s | read floor cpu s | limit s, max | img2dir / max | limit s, sum over cores | img2dir / sum | codec limit s | img2dir / limit | limit cpu s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} | tee "$report"
status=0
# The write floor's image: the tree with no compression, made once.
plain=$images/$tree-none.erofs
if [ ! -f "$plain" ]; then
	"$bin/dir2img" -q -j "$jobs" --format erofs -c none "$plain" "$corpus/rootfs-$tree" ||
		{ echo "$prog: dir2img -c none failed" >&2; rm -f "$plain"; exit 1; }
fi
# settle IMAGE: with --settle, the writeback of the run before done and
# the page cache dropped, then IMAGE read back in.
settle() {
	if [ $settle = yes ]; then
		sync && echo 3 > /proc/sys/vm/drop_caches ||
			{ echo "$prog: --settle: cannot drop caches" >&2; exit 1; }
	fi
	cat "$1" > /dev/null
}
# decode_limit OPTS P: "wall cpu" of erofs-baseline's decode of the
# clusters of P bytes it cuts with codec OPTS, or "- -" without it.
# Kept in $images/$tree-limit-CODEC-P-jJOBS.txt (CODEC: $3).
decode_limit() {
	local line kept=$images/$tree-limit-$3-$2-j$jobs.txt
	[ -x "$baseline" ] && [ -f "$corpus/$tree.tar" ] || { echo "- -"; return; }
	if [ -s "$kept" ]; then cat "$kept"; return; fi
	# shellcheck disable=SC2086
	line=$("$baseline" -j "$jobs" -C "$2" $1 "$corpus/$tree.tar" 2> "$work/base.err" |
	       sed -n 's/.*decode_cpu_s=\([0-9.]*\) decode_wall_s=\([0-9.]*\).*/\2 \1/p')
	[ -n "$line" ] || { echo "$prog: $baseline: $(head -c 300 "$work/base.err")" >&2; echo "- -"; return; }
	echo "$line" | tee "$kept"
}
# codec_opts CODEC: dir2img's and erofs-baseline's options for it, at
# mkfs.erofs's default levels; empty for an unknown one.
codec_opts() {
	case $1 in
	lz4hc) echo "-c lz4 -X hc,level=9" ;;
	zstd) echo "-c zstd -X level=3" ;;
	lzma) echo "-c lzma -X level=6" ;;
	lz4) echo "-c lz4" ;;
	deflate) echo "-c deflate" ;;
	esac
}
# limits: from each run's floors (files c, w: wall; cc, wc, rc: CPU), a
# line per run "MAX SUM": the larger floor's wall, and the decode and
# write floors' CPU less the read floor's, over the $jobs cores.
limits() {
	paste -d' ' "$work/c" "$work/w" "$work/cc" "$work/wc" "$work/rc" |
		awk -v n="$jobs" '{
			if ($1 == "nan" || $2 == "nan" || $5 == "nan") { print "nan nan"; next }
			printf "%.4f %.4f\n", ($1 > $2 ? $1 : $2), ($3 + $4 - $5) / n }'
}
# row CODEC LAYOUT IMAGE [LIMIT]: the runs of one image, and its line;
# LIMIT: decode_limit's "wall cpu".
row() {
	local c=$1 l=$2 img=$3 lim=${4:-- -} f s u lw lc
	for f in d t k c dc kc cc w wc rc; do : > "$work/$f"; done
	for _ in $(seq "$runs"); do
		rm -rf "$work/o"
		settle "$img"
		read -r s u < <(timed "$work/dir" "${rt[@]}" "$bin/img2dir" -j "$jobs" "$img" "$work/o")
		echo "$s" >> "$work/d"; echo "$u" >> "$work/dc"
		# fsck.erofs 1.9.3 wants the directory there with fragments.
		rm -rf "$work/o"; mkdir "$work/o"
		settle "$img"
		read -r s u < <(timed "$work/fsck" "${rt[@]}" "$fsck" --extract="$work/o" "$img")
		echo "$s" >> "$work/k"; echo "$u" >> "$work/kc"
		rm -rf "$work/o"
		read -r s _ < <(timed "$work/tar" "${rt[@]}" "$bin/img2tar" -j "$jobs" "$img")
		echo "$s" >> "$work/t"
		read -r s u < <(timed "$work/check" "${rt[@]}" "$bin/imginfo" check -q -j "$jobs" "$img")
		echo "$s" >> "$work/c"; echo "$u" >> "$work/cc"
		# The write floor, then the read floor, of the uncompressed image.
		rm -rf "$work/o"
		settle "$plain"
		read -r s u < <(timed "$work/write" "${rt[@]}" "$bin/img2dir" -j "$jobs" "$plain" "$work/o")
		echo "$s" >> "$work/w"; echo "$u" >> "$work/wc"
		rm -rf "$work/o"
		read -r _ u < <(timed "$work/read" "${rt[@]}" "$bin/imginfo" check -q -j "$jobs" "$plain")
		echo "$u" >> "$work/rc"
	done
	grep -q nan "$work/d" "$work/t" "$work/k" "$work/c" "$work/w" "$work/rc" && status=1
	limits | cut -d' ' -f1 > "$work/lmax"
	limits | cut -d' ' -f2 > "$work/lsum"
	read -r lw lc <<< "$lim"
	echo "| $c | $l | $(med "$work/d") | $(med "$work/t") | $(med "$work/k") | $(pair_ratio "$work/d" "$work/k") | $(pair_ratio "$work/t" "$work/k") | $(med "$work/c") | $(pair_ratio "$work/d" "$work/c") | $(pair_ratio "$work/t" "$work/c") | $(med "$work/dc") | $(med "$work/kc") | $(med "$work/cc") | $(med "$work/w") | $(pair_ratio "$work/d" "$work/w") | $(med "$work/wc") | $(med "$work/rc") | $(med "$work/lmax") | $(pair_ratio "$work/d" "$work/lmax") | $(med "$work/lsum") | $(pair_ratio "$work/d" "$work/lsum") | $lw | $(awk -v a="$(med "$work/d")" -v b="$lw" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else print "-" }') | $lc |" | tee -a "$report"
}
for c in $codecs; do
	copt=$(codec_opts "$c")
	[ -n "$copt" ] || { echo "$prog: codec $c: lz4, lz4hc, zstd, lzma or deflate" >&2; exit 2; }
	for l in $layouts; do
		p=${l%%+*} x=
		case $p in ''|*[!0-9]*) echo "$prog: --layouts: '$l' is not SIZE[+z][f]" >&2; exit 2 ;; esac
		case $l in *+*z*) x="$x --ztailpacking" ;; esac
		case $l in *+*f*) x="$x --erofs-fragments" ;; esac
		img=$images/$tree-$c-$l.erofs
		if [ ! -f "$img" ]; then
			# shellcheck disable=SC2086
			"$bin/dir2img" -q -j "$jobs" --format erofs $copt --pcluster-size "$p" $x \
				"$img" "$corpus/rootfs-$tree" ||
				{ echo "$prog: dir2img $c $l failed" >&2; rm -f "$img"; status=1; continue; }
		fi
		row "$c" "$l" "$img" "$(decode_limit "$copt" "$p" "$c")"
	done
done
for img in "${extra[@]}"; do
	[ -f "$img" ] || { echo "$prog: --image $img: no such file" >&2; status=1; continue; }
	n=${img##*/}
	n=${n%.*}
	# NAME-CODEC-PCLUSTER: that codec's limit.
	p=${n##*-} c=${n%-*} c=${c##*-} lim="- -"
	copt=$(codec_opts "$c")
	case $p in ''|*[!0-9]*) copt= ;; esac
	[ -z "$copt" ] || lim=$(decode_limit "$copt" "$p" "$c")
	row "$n" given "$img" "$lim"
done
echo "(saved in $report)"
exit $status
