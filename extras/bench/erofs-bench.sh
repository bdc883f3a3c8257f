#!/bin/bash
# SPDX-License-Identifier: MIT
# erofs-bench.sh - dir2img --format erofs against mkfs.erofs, same run,
# same machine: a tree of the corpus (rootfs-big by default) per codec
# at mkfs.erofs's default level (lz4, lz4hc 9, lzma 6, deflate 1, zstd
# 3; a codec that --mkfs lacks, as Debian 12's 1.5 lacks all but lz4
# and lz4hc, runs ours alone; --mkfs-args "--workers=2" for a 1.8 or
# newer) and layout (--layouts: a physical cluster size, ours --pcluster-size,
# theirs -C, default one block; "+z" after it adds tail packing, ours
# --ztailpacking, theirs -E ztailpacking; "+d" adds dedup to both, ours
# --erofs-dedupe, theirs -E dedupe, which needs --mkfs a newer
# erofs-utils than Debian 12's 1.5; "+D" to ours alone, to compare with
# a mkfs.erofs that has none); "+f" adds fragments to both, ours
# --erofs-fragments, theirs -E fragments (1.9's default fragdedupe).
# Prints
# wall time, CPU time and image size as a Markdown table with the ratios
# ours/mkfs.erofs, and has fsck.erofs check our images. Beside them the
# codec's limit: erofs-baseline's one pass of the codec over the
# clusters of the tree's tar (--tar, default DIR/NAME.tar for
# rootfs-NAME) on --jobs threads, its wall time and CPU time, and our
# time over it.
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
mkfs_args=
fsck=fsck.erofs
baseline=${top_builddir:-.}/extras/bench/erofs-baseline
tarball=
scratch=

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR     corpus (default $corpus)
  --tree NAME      tree in DIR to pack (default $tree)
  --codecs "LIST"  of lz4 lz4hc lzma deflate zstd (default "$codecs")
  --layouts "LIST" cluster sizes in bytes, each with +z for tail packing,
                   +d for dedup (+D: ours only), +f for fragments
                   (default "$layouts"; e.g. "4096 65536 4096+z 65536+f")
  --jobs N         our threads (default $jobs)
  --runs N         runs of each tool per row, interleaved (default $runs)
  --dir2img PATH   dir2img to measure (default \$top_builddir/bin/dir2img)
  --mkfs PATH      mkfs.erofs to compare with (default $mkfs)
  --mkfs-args "A"  more options for it (e.g. "--workers=2")
  --fsck PATH      fsck.erofs that checks our images (default $fsck; 1.5
                   knows lz4 alone)
  --baseline PATH  erofs-baseline (default \$top_builddir/extras/bench/erofs-baseline;
                   no limit column when it is missing)
  --tar FILE       the tree's tar for it (default DIR/NAME.tar for rootfs-NAME)
  --scratch DIR    where the images go (default DIR/out-erofs)
USAGE
}
while [ $# -gt 0 ]; do
	case $1 in
	--corpus|--tree|--codecs|--layouts|--jobs|--runs|--dir2img|--mkfs|--mkfs-args|\
	--fsck|--baseline|--tar|--scratch)
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
	--mkfs-args) mkfs_args=$2; shift ;;
	--fsck) fsck=$2; shift ;;
	--baseline) baseline=$2; shift ;;
	--tar) tarball=$2; shift ;;
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
for t in "$dir2img" "$imginfo" "$mkfs" "$fsck" /usr/bin/time; do
	command -v "$t" > /dev/null || { echo "$prog: $t not found" >&2; exit 1; }
done
src=$corpus/$tree
[ -d "$src" ] || { echo "$prog: no tree $src" >&2; exit 1; }
: "${scratch:=$corpus/out-erofs}"
: "${tarball:=$corpus/${tree#rootfs-}.tar}"
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

# limit OUT P [IMAGE]: the codec's own time for the clusters (erofs-
# baseline's one pass over them, on --jobs threads) into OUT: "wall
# cpu"; those of the tree's tar, or of IMAGE (our image: a tar knows
# nothing of the packed inode that fragments compress).
limit() {
	input=${3:-$tarball}
	[ -x "$baseline" ] && [ -f "$input" ] || return 0
	# shellcheck disable=SC2086
	"$baseline" -j "$jobs" -C "$2" $bopt "$input" > "$1.base" 2> "$1.err" ||
		{ echo "$prog: $baseline: $(head -c 300 "$1.err")" >&2; return 1; }
	sed -n 's/.* cpu_s=\([0-9.]*\) wall_s=\([0-9.]*\).*/\2 \1/p' "$1.base" >> "$1"
}
# peer_has C: --mkfs has codec C (1.9 names them in --version, 1.5 in --help).
peer_has() {
	{ "$mkfs" --version; "$mkfs" --help; } 2>&1 | grep -i '^available compressors' | grep -qw "$1"
}

echo "| tree | codec | layout | ours s | mkfs s | time ratio | limit s | ours/limit | ours cpu s | mkfs cpu s | limit cpu s | ours bytes | mkfs bytes | size ratio | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
status=0
for c in $codecs; do
	# The same codec and level both sides: mkfs.erofs's defaults.
	case $c in
	lz4) copt="-c lz4" mopt=-zlz4 bopt="-c lz4" ;;
	lz4hc) copt="-c lz4 -X hc" mopt=-zlz4hc bopt="-c lz4 -X hc" ;;
	lzma) copt="-c lzma" mopt=-zlzma bopt="-c lzma" ;;
	deflate) copt="-c deflate -X level=1" mopt=-zdeflate,1 bopt="-c deflate -X level=1" ;;
	zstd) copt="-c zstd -X level=3" mopt=-zzstd,3 bopt="-c zstd -X level=3" ;;
	*) echo "$prog: codec $c: lz4, lz4hc, lzma, deflate or zstd" >&2; exit 2 ;;
	esac
	peer=yes
	peer_has "${c%hc}" || peer=
	for l in $layouts; do
		p=${l%%+*} oz= mz= limg=
		case $p in ''|*[!0-9]*) echo "$prog: --layouts: '$l' is not SIZE[+z][+d|+D][+f]" >&2; exit 2 ;; esac
		case $l in *+z*) oz=--ztailpacking; mz=-Eztailpacking ;; esac
		case $l in *+[dD]*) oz="$oz --erofs-dedupe" ;; esac
		case $l in *+d*) if [ -n "$mz" ]; then mz=$mz,dedupe; else mz=-Ededupe; fi ;; esac
		case $l in *+f*) oz="$oz --erofs-fragments"
			if [ -n "$mz" ]; then mz=$mz,fragments; else mz=-Efragments; fi ;; esac
		ours=$scratch/ours.$c.$l.erofs theirs=$scratch/mkfs.$c.$l.erofs l0=$(load)
		rm -f "$scratch/ours.$c.$l" "$scratch/mkfs.$c.$l" "$scratch/limit.$c.$l"
		for _ in $(seq "$runs"); do
			rm -f "$ours" "$theirs"
			# shellcheck disable=SC2086
			timed "$scratch/ours.$c.$l" "$dir2img" -q -j "$jobs" --format erofs $copt \
				--pcluster-size "$p" $oz --clamp-mtime "$ours" "$src" || { status=1; continue 2; }
			if [ -n "$peer" ]; then
				# shellcheck disable=SC2086
				timed "$scratch/mkfs.$c.$l" "$mkfs" --quiet $mkfs_args $mopt -C"$p" $mz \
					"$theirs" "$src" || { status=1; continue 2; }
			fi
			case $l in *+f*) limg=$ours ;; esac
			limit "$scratch/limit.$c.$l" "$p" $limg || status=1
		done
		"$fsck" "$ours" > "$scratch/fsck.err" 2>&1 ||
			{ echo "$prog: $fsck refuses $ours: $(head -c 300 "$scratch/fsck.err")" >&2; status=1; }
		ow=$(med "$scratch/ours.$c.$l" 1) oc=$(med "$scratch/ours.$c.$l" 2) os=$(stat -c %s "$ours")
		mw= mc= ms= tr= sr= bw= bc= br=
		if [ -n "$peer" ]; then
			"$imginfo" diff -q "$ours" "$theirs" > "$scratch/diff.err" 2>&1 ||
				{ echo "$prog: the two images' trees differ: $(head -c 300 "$scratch/diff.err")" >&2; status=1; }
			mw=$(med "$scratch/mkfs.$c.$l" 1) mc=$(med "$scratch/mkfs.$c.$l" 2)
			ms=$(stat -c %s "$theirs") tr=$(ratio "$ow" "$mw") sr=$(ratio "$os" "$ms" 4)
		fi
		if [ -s "$scratch/limit.$c.$l" ]; then
			bw=$(med "$scratch/limit.$c.$l" 1) bc=$(med "$scratch/limit.$c.$l" 2) br=$(ratio "$ow" "$bw")
		fi
		echo "| $tree | $c | $l | $ow | $mw | $tr | $bw | $br | $oc | $mc | $bc | $os | $ms | $sr | $l0-$(load) |"
	done
done
exit $status
