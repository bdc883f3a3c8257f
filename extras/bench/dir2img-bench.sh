#!/bin/bash
# SPDX-License-Identifier: MIT
# dir2img-bench.sh - dir2img against mksquashfs, same run, same machine:
# the Debian root fs of the corpus (rootfs-big by default) per codec, and
# a generated tree of many small files. Prints wall time, peak RSS (from
# /usr/bin/time), CPU seconds (user + system) and image size as a
# Markdown table with the ratios dir2img/mksquashfs, and beside them the
# codec's own time for the same files (codec-baseline on the tree's tar,
# CORPUS/NAME.tar for rootfs-NAME). Both tools get the same thread count
# (-j N, -processors N; mksquashfs 4.7 adds its reader threads) and
# mksquashfs's default layout (an export table, so dir2img runs with
# --exportable). The peer is taken by path (squashfs-tools 4.7.5 built
# from its source, or Debian's 4.5.1). The machine is shared and noisy:
# the two tools run in turn per configuration, --repeat N times, and each
# figure is the median of its N; compare ratios, not times.
# Exit status: 0 when every run succeeded, 1 when a tool failed or is
# missing, 2 for bad usage.
set -u
prog=${0##*/}

corpus=/var/tmp/sqfs-bench
tree=rootfs-big
codecs="zstd gzip xz"
jobs=2
small_files=1000000
repeat=1
dir2img=
mksquashfs=mksquashfs
baseline=
use_baseline=yes
scratch_parent=
results=

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR       corpus of ../shared/bench/make-corpus.sh (default $corpus)
  --tree NAME        tree in DIR to pack (default $tree)
  --codecs "LIST"    codecs for the tree (default "$codecs"; "" for none)
  --jobs N           threads for both tools (default $jobs)
  --small-files N    size of the generated small-file tree, 0 to skip
                     (default $small_files; zstd)
  --repeat N         run each tool N times in turn, report the medians
  --dir2img PATH     dir2img to measure (default \$top_builddir/bin/dir2img)
  --mksquashfs PATH  the mksquashfs to compare with (default: on PATH)
  --baseline PATH    codec-baseline (default \$top_builddir/extras/bench/codec-baseline)
  --no-baseline      leave the codec's own time out
  --scratch DIR      where images and the generated tree go (default DIR/out-dir2img)
  --results FILE     where the table is saved (default DIR/dir2img-bench-DATE.md)
USAGE
}
need_arg() { [ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	--corpus|--tree|--codecs|--jobs|--small-files|--dir2img|--scratch|--results|--repeat|\
	--mksquashfs|--baseline) need_arg "$@" ;;
	esac
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--small-files) small_files=$2; shift ;;
	--dir2img) dir2img=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--mksquashfs) mksquashfs=$2; shift ;;
	--baseline) baseline=$2; shift ;;
	--no-baseline) use_baseline=no ;;
	--scratch) scratch_parent=$2; shift ;;
	--results) results=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
case $jobs$small_files in *[!0-9]*) echo "$prog: --jobs and --small-files take numbers" >&2; exit 2 ;; esac
case $repeat in ''|*[!0-9]*|0) echo "$prog: --repeat needs a positive number" >&2; exit 2 ;; esac

: "${dir2img:=${top_builddir:-.}/bin/dir2img}"
[ -x "$dir2img" ] || { echo "$prog: no dir2img at $dir2img (use --dir2img)" >&2; exit 1; }
command -v "$mksquashfs" >/dev/null || { echo "$prog: no mksquashfs at $mksquashfs" >&2; exit 1; }
if [ "$use_baseline" = yes ]; then
	: "${baseline:=${top_builddir:-.}/extras/bench/codec-baseline}"
	[ -x "$baseline" ] ||
		{ echo "$prog: no codec-baseline at $baseline (use --baseline or --no-baseline)" >&2; exit 1; }
fi
[ -x /usr/bin/time ] || { echo "$prog: /usr/bin/time missing (package time)" >&2; exit 1; }
scratch=${scratch_parent:-$corpus/out-dir2img}
results=${results:-$corpus/dir2img-bench-$(date +%Y%m%d-%H%M).md}
mkdir -p "$scratch" || exit 1
failed=0

# measure FILE CMD...: append "wall-s rss-KiB cpu-s" of CMD to FILE; 1
# when the command failed
measure() {
	local file=$1; shift
	if ! /usr/bin/time -o "$scratch/time" -f '%e %M %U %S' "$@" > /dev/null 2> "$scratch/err"; then
		echo "$prog: $* failed: $(tail -3 "$scratch/err")" >&2
		failed=1
		return 1
	fi
	tail -n 1 "$scratch/time" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' >> "$file"
}
# med FILE COLUMN: the median of that column of FILE
med() { cut -d' ' -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

row() { # row INPUT CODEC SOURCE [TAR]: one line for both tools and the codec
	local input=$1 codec=$2 src=$3 tar=${4:-} ds ms cw=- cc=- i
	rm -f "$scratch/d.img" "$scratch/m.img" "$scratch/d.runs" "$scratch/m.runs" "$scratch/c.runs"
	for i in $(seq "$repeat"); do
		measure "$scratch/d.runs" "$dir2img" -q -f -j "$jobs" -c "$codec" --exportable \
			"$scratch/d.img" "$src" || return
		rm -f "$scratch/m.img"
		measure "$scratch/m.runs" "$mksquashfs" "$src" "$scratch/m.img" -comp "$codec" \
			-processors "$jobs" -noappend -no-progress -quiet || return
		if [ "$use_baseline" = yes ] && [ -n "$tar" ]; then
			"$baseline" -c "$codec" -j "$jobs" "$tar" > "$scratch/c.out" 2> "$scratch/err" ||
				{ echo "$prog: codec-baseline -c $codec $tar failed: $(tail -3 "$scratch/err")" >&2
				  failed=1; return 1; }
			sed -n 's/.*cpu_s=\([0-9.]*\) wall_s=\([0-9.]*\).*/\2 0 \1/p' "$scratch/c.out" \
				>> "$scratch/c.runs"
		fi
	done
	ds=$(stat -c %s "$scratch/d.img") ms=$(stat -c %s "$scratch/m.img")
	[ ! -s "$scratch/c.runs" ] || cw=$(med "$scratch/c.runs" 1) cc=$(med "$scratch/c.runs" 3)
	awk -v input="$input" -v codec="$codec" -v dw="$(med "$scratch/d.runs" 1)" \
		-v mw="$(med "$scratch/m.runs" 1)" -v dc="$(med "$scratch/d.runs" 3)" \
		-v mc="$(med "$scratch/m.runs" 3)" -v dr="$(med "$scratch/d.runs" 2)" \
		-v mr="$(med "$scratch/m.runs" 2)" -v cw="$cw" -v cc="$cc" -v ds="$ds" -v ms="$ms" 'BEGIN {
		printf "| %s | %s | %s | %s | %.3f | %s | %s | %.3f | %s | %s | %.0f | %.0f | %s | %s | %.4f |\n",
			input, codec, dw, mw, dw / mw, dc, mc, dc / mc, cw, cc, dr / 1024, mr / 1024,
			ds, ms, ds / ms }' | tee -a "$results"
}

# many small files: 1000 per directory, 20..1000 bytes each, all different
make_small_tree() {
	local dir=$1 n=$2
	[ -f "$dir/.complete-$n" ] && return 0
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	python3 - "$dir" "$n" <<'PY' || return 1
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
words = [b"lorem", b"ipsum", b"dolor", b"sit", b"amet", b"config", b"usr", b"lib", b"=", b"\n"]
for i in range(n):
    d = os.path.join(root, "d%04d" % (i // 1000))
    if i % 1000 == 0:
        os.mkdir(d)
    body = b" ".join(r.choice(words) for _ in range(r.randint(4, 160)))
    with open(os.path.join(d, "f%06d.conf" % i), "wb") as f:
        f.write(b"%d " % i + body)
PY
	touch "$dir/.complete-$n"
}

{
	echo "# dir2img vs mksquashfs ($(date -u +%F\ %H:%M) UTC, -j $jobs / -processors $jobs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), median of $repeat)"
	echo
	echo "$("$mksquashfs" -version 2>&1 | head -n 1)"
	echo
	echo "| input | codec | dir2img s | mksquashfs s | time ratio | dir2img CPU s | mksquashfs CPU s | CPU ratio | codec s | codec CPU s | dir2img MiB | mksquashfs MiB | dir2img bytes | mksquashfs bytes | size ratio |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} | tee "$results"
if [ -n "$codecs" ]; then
	[ -d "$corpus/$tree" ] || { echo "$prog: no $corpus/$tree (make-corpus.sh)" >&2; exit 1; }
	for codec in $codecs; do
		row "$tree" "$codec" "$corpus/$tree" "$(ls "$corpus/${tree#rootfs-}.tar" 2>/dev/null)"
	done
fi
if [ "$small_files" -gt 0 ]; then
	make_small_tree "$scratch/small-files" "$small_files" || { echo "$prog: cannot make the tree" >&2; exit 1; }
	row "$small_files small files" zstd "$scratch/small-files"
fi
rm -f "$scratch/d.img" "$scratch/m.img" "$scratch/time" "$scratch/err" "$scratch/c.out" \
	"$scratch"/[dmc].runs
echo "results: $results"
exit $failed
