#!/bin/bash
# SPDX-License-Identifier: MIT
# tar2img-bench.sh - pack the benchmark corpus with tar2img, tar2sqfs and
# (from the unpacked tree) mksquashfs in the same run, per tar, codec and
# thread count, and print wall time, peak RSS, image size and the ratios
# to tar2sqfs as a Markdown table. The machine is shared: tools run
# interleaved, and --repeat N reports the median of N runs.
set -u

corpus=/var/tmp/sqfs-bench
tars="small big"
codecs="zstd gzip xz"
jobs="1 2"
repeat=1
tar2img=
mksq=yes
out=

usage() {
	cat <<USAGE
usage: $0 [--corpus DIR] [--tars "small big"] [--codecs "zstd gzip xz"]
          [--jobs "1 2"] [--repeat N] [--tar2img PATH] [--no-mksquashfs]
          [--results FILE]
The corpus is made by ../shared/bench/make-corpus.sh: DIR/small.tar,
DIR/big.tar and the trees DIR/rootfs-small, DIR/rootfs-big.
USAGE
}
while [ $# -gt 0 ]; do
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tars) tars=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--tar2img) tar2img=$2; shift ;;
	--no-mksquashfs) mksq=no ;;
	--results) out=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
here=$(cd "$(dirname "$0")" && pwd)
[ -n "$tar2img" ] || tar2img=$here/../../build/bin/tar2img
[ -x "$tar2img" ] || { echo "$0: tar2img not found at $tar2img (use --tar2img)" >&2; exit 1; }
command -v tar2sqfs >/dev/null || { echo "$0: tar2sqfs not installed (squashfs-tools-ng)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time not installed (Debian: time)" >&2; exit 1; }
for t in $tars; do
	[ -f "$corpus/$t.tar" ] || {
		echo "$0: $corpus/$t.tar missing; build the corpus with ../shared/bench/make-corpus.sh" >&2
		exit 1
	}
done
scratch=$(mktemp -d "${corpus}/bench.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
[ -n "$out" ] || out=$corpus/tar2img-bench-$(date +%Y%m%d-%H%M%S).md

# run NAME COMMAND...: prints "seconds kib bytes" (median over repeats).
run() {
	local i res=()
	shift  # the name is for the reader of this script
	for i in $(seq 1 "$repeat"); do
		rm -f "$scratch/img"
		if ! /usr/bin/time -o "$scratch/time" -f '%e %M' "$@" > /dev/null 2> "$scratch/err"; then
			echo "FAILED: $* : $(head -c 200 "$scratch/err")" >&2
			echo "nan nan 0"; return
		fi
		res+=("$(cat "$scratch/time") $(stat -c %s "$scratch/img")")
	done
	printf '%s\n' "${res[@]}" | sort -n | sed -n "$(( (repeat + 1) / 2 ))p"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a" }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

{
echo "tar2img benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tar2img: $("$tar2img" --version | head -1); tar2sqfs: $(tar2sqfs --version 2>&1 | head -1)"
echo
echo "| tar | codec | -j | tar2img s | tar2sqfs s | time ratio | mksquashfs s | tar2img MiB | tar2sqfs MiB | tar2img bytes | tar2sqfs bytes | size ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
} | tee "$out"

verdict=""
for t in $tars; do
	cat "$corpus/$t.tar" > /dev/null   # warm the page cache
	for c in $codecs; do
		for j in $jobs; do
			read -r s1 m1 b1 < <(run tar2img "$tar2img" -q -f -c "$c" -j "$j" "$scratch/img" "$corpus/$t.tar")
			read -r s2 m2 b2 < <(run tar2sqfs sh -c "tar2sqfs -q -f -j $j -c $c '$scratch/img' < '$corpus/$t.tar'")
			s3=-
			if [ "$mksq" = yes ] && [ -d "$corpus/rootfs-$t" ]; then
				read -r s3 m3 b3 < <(run mksquashfs mksquashfs "$corpus/rootfs-$t" "$scratch/img" \
					-comp "$c" -processors "$j" -noappend -quiet -no-progress)
			fi
			tr=$(ratio "$s1" "$s2"); sr=$(ratio "$b1" "$b2")
			echo "| $t | $c | $j | $s1 | $s2 | $tr | $s3 | $(mib "$m1") | $(mib "$m2") | $b1 | $b2 | $sr |" | tee -a "$out"
			if [ "$j" = 2 ] && [ "$c" != lz4 ] && [ "$c" != lzo ] && [ "$c" != lzma ]; then
				ok=$(awk -v t="$tr" -v s="$sr" -v m="$m1" 'BEGIN { print (t <= 1.1 && s <= 1.005 && m <= 131072) ? "held" : "MISSED" }')
				verdict="$verdict $t/$c:$ok"
			fi
			rm -f "$scratch/img"
		done
	done
done
{
echo
echo "Floors at -j 2 (time <= 1.1x tar2sqfs, size <= 100.5%, RSS <= 128 MiB):$verdict"
echo "Results saved in $out"
} | tee -a "$out"
