#!/bin/bash
# SPDX-License-Identifier: MIT
# mkfs-lines-bench.sh - each caller's mkfs.erofs line, replayed as the
# caller runs it, with sqpack-mkfs.erofs and with mkfs.erofs (1.9.3
# built from its source, say: --mkfs), same run, same machine, the two
# interleaved per line: wall time, CPU time (user + system), image size
# and peak RSS (the least of the runs, in MB), with the ratios
# ours/theirs, as a Markdown table. Each pair of
# images must hold the same tree (imginfo diff), and fsck.erofs (--fsck,
# 1.9 for the newer features) must pass ours.
#
# The lines (issues 38 and 39), on the corpus's tree or its tar:
#   archiso     -U 0...0 -zlzma,109 -E ztailpacking DIR
#   coreos      -zlzma,level=6 -Eall-fragments,fragdedupe=inode -C1048576 DIR
#   repart      -U UUID -zlz4hc DIR            (systemd-repart, mkosi)
#   android     -zlz4hc,9 --mount-point=/system -T TS -U UUID DIR
#               (its fs_config and file_contexts options need an
#               mkfs.erofs built for Android, which upstream's is not)
#   layer       --tar=f --aufs --quiet -Enoinline_data --sort=none -U UUID TAR
#               (containerd's EROFS snapshotter, one layer)
#   index       --tar=i --aufs --quiet TAR     (its index mode)
# Every line also gets --workers=N (both tools take it). mkfs.erofs
# honours SOURCE_DATE_EPOCH (1700000000 unless set), and so does ours.
# Beside each compressed line, the codec's own limit (issue 38):
# erofs-baseline's one pass of the line's codec, level and pcluster
# size over the clusters our image of the line stores, read from its
# compressed indexes (the packed inode's too, inline tails too), on N
# threads, run in turn with the two tools: each compressed cluster
# compressed once, offered exactly its input, and each stored one
# tried once (what any writer spends to learn that it does not gain).
# Nothing is cut again: the limit costs what a pack's compression does.
# Exit status: 0 when every run succeeded and every check held, 1
# otherwise, 2 for bad usage.
set -u
prog=${0##*/}
corpus=/var/tmp/sqfs-bench
tree=rootfs-small
tarball=
lines="archiso coreos repart android layer index"
jobs=2
runs=1
ours=
mkfs=mkfs.erofs
fsck=fsck.erofs
scratch=
baseline=
usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR     corpus (default $corpus)
  --tree NAME      tree in DIR for the directory lines (default $tree)
  --tar FILE       tar for the tar lines (default DIR/NAME.tar for rootfs-NAME)
  --lines "LIST"   of $lines (default all)
  --jobs N         --workers=N for both tools (default $jobs)
  --runs N         runs of each tool per line, interleaved; the best of them
                   (on a busy machine the least disturbed) (default $runs)
  --ours PATH      sqpack-mkfs.erofs (default \$top_builddir/bin/sqpack-mkfs.erofs)
  --mkfs PATH      mkfs.erofs to compare with (default $mkfs)
  --fsck PATH      fsck.erofs that checks our images (default $fsck)
  --scratch DIR    where the images go (default DIR/out-lines)
  --baseline PATH  erofs-baseline (default \$top_builddir/extras/bench/erofs-baseline;
                   none there: no limit columns)
USAGE
}
while [ $# -gt 0 ]; do
	case $1 in
	--corpus|--tree|--tar|--lines|--jobs|--runs|--ours|--mkfs|--fsck|--scratch|--baseline)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; exit 2; } ;;
	esac
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--tar) tarball=$2; shift ;;
	--lines) lines=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--runs) runs=$2; shift ;;
	--ours) ours=$2; shift ;;
	--mkfs) mkfs=$2; shift ;;
	--fsck) fsck=$2; shift ;;
	--scratch) scratch=$2; shift ;;
	--baseline) baseline=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
case $jobs in ''|0|*[!0-9]*) echo "$prog: --jobs takes a number from 1" >&2; exit 2 ;; esac
case $runs in ''|0|*[!0-9]*) echo "$prog: --runs takes a number from 1" >&2; exit 2 ;; esac
for l in $lines; do
	case " archiso coreos repart android layer index " in
	*" $l "*) ;;
	*) echo "$prog: --lines: unknown line '$l'" >&2; exit 2 ;;
	esac
done
. "$(cd "$(dirname "$0")" && pwd)/bench_lib.sh"
bin=$(bench_bindir "")
: "${baseline:=${top_builddir:-.}/extras/bench/erofs-baseline}"
# the programs themselves, not libtool's wrappers (a shell per run)
bench_unwrap
: "${ours:=$bin/sqpack-mkfs.erofs}"
imginfo=$(dirname "$ours")/imginfo
for t in "$ours" "$imginfo" "$mkfs" "$fsck" /usr/bin/time; do
	command -v "$t" > /dev/null || { echo "$prog: $t not found" >&2; exit 1; }
done
src=$corpus/$tree
: "${tarball:=$corpus/${tree#rootfs-}.tar}"
: "${scratch:=$corpus/out-lines}"
bench_need_corpus "$src"
bench_need_corpus "$tarball"
mkdir -p "$scratch" || exit 1
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
export LC_ALL=C TZ=UTC
uuid=6c9b2d4e-0d3a-4f51-9a57-3e1f0c2b7a10

# args LINE: the line's options (its operand, DIR or TAR, separately).
args() {
	case $1 in
	archiso) echo "-U 00000000-0000-0000-0000-000000000000 -zlzma,109 -E ztailpacking" ;;
	coreos) echo "-zlzma,level=6 -Eall-fragments,fragdedupe=inode -C1048576" ;;
	repart) echo "-U $uuid -zlz4hc" ;;
	android) echo "-zlz4hc,9 --mount-point=/system -T $SOURCE_DATE_EPOCH -U $uuid" ;;
	layer) echo "--tar=f --aufs --quiet -Enoinline_data --sort=none -U $uuid" ;;
	index) echo "--tar=i --aufs --quiet" ;;
	esac
}
input() { case $1 in layer|index) echo "$tarball" ;; *) echo "$src" ;; esac; }
# bargs LINE: erofs-baseline's codec, level and pcluster size for the
# line (mkfs.erofs reads lzma's 109 as level 9 with the extreme preset,
# lz4hc's default level as 9); none for the lines stored uncompressed.
bargs() {
	case $1 in
	archiso) echo "-c lzma -X level=9,extreme -C 4096" ;;
	coreos) echo "-c lzma -X level=6 -C 1048576" ;;
	repart|android) echo "-c lz4 -X hc,level=9 -C 4096" ;;
	esac
}
# timed OUT CMD...: "wall cpu peak-RSS-KiB" of CMD appended to OUT.
timed() {
	local out=$1
	shift
	bench_timed "$out" '%e %U %S %M' "$@" |
		awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' >> "$out"
}
# limit OUT LINE IMAGE: "wall cpu" of the codec's one pass
# (erofs-baseline) over the clusters of our IMAGE of LINE appended to
# OUT; nothing without the baseline or for an uncompressed line.
limit() {
	local b
	b=$(bargs "$2")
	[ -n "$b" ] && [ -x "$baseline" ] || return 0
	# shellcheck disable=SC2086
	"$baseline" -j "$jobs" $b "$3" > "$1.base" 2> "$1.err" ||
		{ echo "$prog: $baseline: $(head -c 300 "$1.err")" >&2; return 1; }
	sed -n 's/.* cpu_s=\([0-9.]*\) wall_s=\([0-9.]*\).*/\2 \1/p' "$1.base" >> "$1"
}
best() { awk -v f="$2" '{ print $f }' "$1" | sort -g | head -n 1; }
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { printf "%.*f", d, (b > 0 ? a / b : 0) }'; }
load() { cut -d' ' -f1 /proc/loadavg; }
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

echo "| line | ours s | mkfs s | time ratio | limit s | ours/limit | ours cpu s | mkfs cpu s | cpu ratio | limit cpu s | ours/limit cpu | ours bytes | mkfs bytes | size ratio | ours MB | mkfs MB | load |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
status=0
for l in $lines; do
	a=$(args "$l") in=$(input "$l") o=$scratch/ours.$l.erofs m=$scratch/mkfs.$l.erofs l0=$(load)
	rm -f "$scratch/ours.$l" "$scratch/mkfs.$l" "$scratch/limit.$l"
	for _ in $(seq "$runs"); do
		rm -f "$o" "$m"
		# shellcheck disable=SC2086
		timed "$scratch/ours.$l" "$ours" --workers="$jobs" $a "$o" "$in"
		# shellcheck disable=SC2086
		timed "$scratch/mkfs.$l" "$mkfs" --workers="$jobs" $a "$m" "$in"
		[ -s "$o" ] && { limit "$scratch/limit.$l" "$l" "$o" || status=1; }
	done
	if [ ! -s "$o" ] || [ ! -s "$m" ]; then
		echo "| $l | failed: see above |||||||||||||||$l0-$(load) |"
		status=1
		continue
	fi
	# --tar=i images name the tar's blocks: the checks read them with it.
	if [ "$l" != index ]; then
		"$fsck" "$o" > "$scratch/fsck.err" 2>&1 ||
			{ echo "$prog: $l: $fsck refuses ours: $(head -c 300 "$scratch/fsck.err")" >&2; status=1; }
		"$imginfo" diff -q "$o" "$m" > "$scratch/diff.err" 2>&1 ||
			{ echo "$prog: $l: the two images' trees differ: $(head -c 300 "$scratch/diff.err")" >&2; status=1; }
	fi
	ow=$(best "$scratch/ours.$l" 1) oc=$(best "$scratch/ours.$l" 2) os=$(stat -c %s "$o")
	mw=$(best "$scratch/mkfs.$l" 1) mc=$(best "$scratch/mkfs.$l" 2) ms=$(stat -c %s "$m")
	om=$(mb "$(best "$scratch/ours.$l" 3)") mm=$(mb "$(best "$scratch/mkfs.$l" 3)")
	lw=- lc=- rw=- rc=-
	if [ -s "$scratch/limit.$l" ]; then
		lw=$(best "$scratch/limit.$l" 1) lc=$(best "$scratch/limit.$l" 2)
		rw=$(ratio "$ow" "$lw") rc=$(ratio "$oc" "$lc")
	fi
	echo "| $l | $ow | $mw | $(ratio "$ow" "$mw") | $lw | $rw | $oc | $mc | $(ratio "$oc" "$mc") | $lc | $rc | $os | $ms | $(ratio "$os" "$ms" 4) | $om | $mm | $l0-$(load) |"
done
exit $status
