#!/bin/bash
# SPDX-License-Identifier: MIT
# erofs-bench.sh - dir2img --format erofs against mkfs.erofs, same run,
# same machine: a tree of the corpus (rootfs-big by default) per codec
# (lz4, lz4hc: what Debian 12's mkfs.erofs 1.5 has; lzma, deflate, zstd:
# ours alone, one-block clusters, as that mkfs.erofs has none of them)
# and layout (--layouts: a physical cluster size, ours --pcluster-size,
# theirs -C, default one block; "+z" after it adds tail packing, ours
# --ztailpacking, theirs -E ztailpacking; "+d" adds dedup to both, ours
# --erofs-dedupe, theirs -E dedupe, which needs --mkfs a newer
# erofs-utils than Debian 12's 1.5; "+D" to ours alone, to compare with
# a mkfs.erofs that has none). Prints
# wall time, CPU time and image size as a Markdown table with the ratios
# ours/mkfs.erofs, and has fsck.erofs check our lz4 and lz4hc images.
# mkfs.erofs clamps mtimes to SOURCE_DATE_EPOCH (1700000000 unless set),
# so ours runs with --clamp-mtime, and imginfo diff checks that the two
# images hold the same tree: the sizes compare like with like. The
# machine is shared and noisy: the two tools run back to back per codec;
# compare ratios, not times. mkfs.erofs 1.5 has one thread; ours runs
# with --jobs. Exit status: 0 when every run succeeded, 1 when a tool
# failed or is missing, 2 for bad usage.
set -u
prog=${0##*/}
corpus=/var/tmp/sqfs-bench
tree=rootfs-big
codecs="lz4 lz4hc lzma deflate zstd"
layouts=4096
jobs=2
runs=3
dir2img=${top_builddir:-.}/bin/dir2img
mkfs=mkfs.erofs
scratch=

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR     corpus (default $corpus)
  --tree NAME      tree in DIR to pack (default $tree)
  --codecs "LIST"  of lz4 lz4hc lzma deflate zstd (default "$codecs")
  --layouts "LIST" cluster sizes in bytes, each with +z for tail packing,
                   +d for dedup (+D: ours only) (default "$layouts";
                   e.g. "4096 65536 4096+z 65536+z 4096+d")
  --jobs N         our threads (default $jobs)
  --runs N         runs of each tool per row, interleaved (default $runs)
  --dir2img PATH   dir2img to measure (default \$top_builddir/bin/dir2img)
  --mkfs PATH      mkfs.erofs to compare with (default $mkfs)
  --scratch DIR    where the images go (default DIR/out-erofs)
USAGE
}
while [ $# -gt 0 ]; do
	case $1 in
	--corpus|--tree|--codecs|--layouts|--jobs|--runs|--dir2img|--mkfs|--scratch)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; exit 2; } ;;
	esac
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--layouts) layouts=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--runs) runs=$2; shift ;;
	--dir2img) dir2img=$2; shift ;;
	--mkfs) mkfs=$2; shift ;;
	--scratch) scratch=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
case $jobs in ''|*[!0-9]*) echo "$prog: --jobs takes a number" >&2; exit 2 ;; esac
case $runs in ''|0|*[!0-9]*) echo "$prog: --runs takes a number from 1" >&2; exit 2 ;; esac
. "$(cd "$(dirname "$0")" && pwd)/bench_lib.sh"
imginfo=$(dirname "$dir2img")/imginfo
for t in "$dir2img" "$imginfo" "$mkfs" fsck.erofs /usr/bin/time; do
	command -v "$t" > /dev/null || { echo "$prog: $t not found" >&2; exit 1; }
done
src=$corpus/$tree
[ -d "$src" ] || { echo "$prog: no tree $src" >&2; exit 1; }
: "${scratch:=$corpus/out-erofs}"
mkdir -p "$scratch" || exit 1
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}

# timed OUT CMD...: runs CMD, adds a line "wall cpu" to OUT.
timed() {
	out=$1; shift
	/usr/bin/time -f '%e %U %S' -o "$out.time" "$@" > /dev/null 2> "$out.err" ||
		{ echo "$prog: $*: $(head -c 300 "$out.err")" >&2; return 1; }
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$out.time" >> "$out"
}
# med OUT FIELD: the median of column FIELD of OUT.
med() { awk -v f="$2" '{ print $f }' "$1" | bench_median; }
load() { cut -d' ' -f1 /proc/loadavg; }
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { printf "%.*f", d, (b > 0 ? a / b : 0) }'; }

echo "| tree | codec | layout | ours s | mkfs s | time ratio | ours cpu s | mkfs cpu s | ours bytes | mkfs bytes | size ratio | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
status=0
for c in $codecs; do
	case $c in
	lz4) copt="-c lz4" ;;
	lz4hc) copt="-c lz4 -X hc" ;;
	lzma|deflate|zstd) copt="-c $c" ;;
	*) echo "$prog: codec $c: lz4, lz4hc, lzma, deflate or zstd" >&2; exit 2 ;;
	esac
	case $c in lzma|deflate|zstd)
		ours=$scratch/ours.$c.erofs l0=$(load)
		rm -f "$scratch/ours.$c"
		for _ in $(seq "$runs"); do
			# shellcheck disable=SC2086
			timed "$scratch/ours.$c" "$dir2img" -q -f -j "$jobs" --format erofs $copt "$ours" "$src" ||
				{ status=1; continue 2; }
		done
		echo "| $tree | $c | 4096 | $(med "$scratch/ours.$c" 1) | | | $(med "$scratch/ours.$c" 2) | | $(stat -c %s "$ours") | | | $l0-$(load) |"
		continue ;;
	esac
	for l in $layouts; do
		p=${l%%+*} oz= mz=
		case $p in ''|*[!0-9]*) echo "$prog: --layouts: '$l' is not SIZE[+z][+d|+D]" >&2; exit 2 ;; esac
		case $l in *+z*) oz=--ztailpacking; mz=-Eztailpacking ;; esac
		case $l in *+[dD]*) oz="$oz --erofs-dedupe" ;; esac
		case $l in *+d*) if [ -n "$mz" ]; then mz=$mz,dedupe; else mz=-Ededupe; fi ;; esac
		ours=$scratch/ours.$c.$l.erofs peer=$scratch/mkfs.$c.$l.erofs l0=$(load)
		rm -f "$scratch/ours.$c.$l" "$scratch/mkfs.$c.$l"
		for _ in $(seq "$runs"); do
			rm -f "$ours" "$peer"
			# shellcheck disable=SC2086
			timed "$scratch/ours.$c.$l" "$dir2img" -q -j "$jobs" --format erofs $copt \
				--pcluster-size "$p" $oz --clamp-mtime "$ours" "$src" &&
			# shellcheck disable=SC2086
			timed "$scratch/mkfs.$c.$l" "$mkfs" --quiet -z"$c" -C"$p" $mz "$peer" "$src" ||
				{ status=1; continue 2; }
		done
		fsck.erofs "$ours" > "$scratch/fsck.err" 2>&1 ||
			{ echo "$prog: fsck.erofs refuses $ours: $(head -c 300 "$scratch/fsck.err")" >&2; status=1; }
		"$imginfo" diff -q "$ours" "$peer" > "$scratch/diff.err" 2>&1 ||
			{ echo "$prog: the two images' trees differ: $(head -c 300 "$scratch/diff.err")" >&2; status=1; }
		ow=$(med "$scratch/ours.$c.$l" 1) oc=$(med "$scratch/ours.$c.$l" 2)
		mw=$(med "$scratch/mkfs.$c.$l" 1) mc=$(med "$scratch/mkfs.$c.$l" 2)
		os=$(stat -c %s "$ours") ms=$(stat -c %s "$peer")
		echo "| $tree | $c | $l | $ow | $mw | $(ratio "$ow" "$mw") | $oc | $mc | $os | $ms | $(ratio "$os" "$ms" 4) | $l0-$(load) |"
	done
done
exit $status
