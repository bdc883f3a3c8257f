#!/bin/bash
# SPDX-License-Identifier: MIT
# dir2img-bench.sh - dir2img against mksquashfs, same run, same machine:
# the Debian root fs of the corpus (rootfs-big by default) per codec, and
# a generated tree of many small files. Prints wall time, peak RSS (from
# /usr/bin/time -v) and image size as a Markdown table with the ratios
# dir2img/mksquashfs. Both tools get the same thread count (-j N,
# -processors N) and mksquashfs's default layout (an export table, so
# dir2img runs with --exportable). The machine is shared and noisy: the
# two tools run back to back per configuration; compare ratios, not times.
# Exit status: 0 when every run succeeded, 1 when a tool failed or is
# missing, 2 for bad usage.
set -u
prog=${0##*/}

corpus=/var/tmp/sqfs-bench
tree=rootfs-big
codecs="zstd gzip xz"
jobs=2
small_files=1000000
dir2img=
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
  --dir2img PATH     dir2img to measure (default \$top_builddir/bin/dir2img)
  --scratch DIR      where images and the generated tree go (default DIR/out-dir2img)
  --results FILE     where the table is saved (default DIR/dir2img-bench-DATE.md)
USAGE
}
need_arg() { [ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	--corpus|--tree|--codecs|--jobs|--small-files|--dir2img|--scratch|--results) need_arg "$@" ;;
	esac
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--small-files) small_files=$2; shift ;;
	--dir2img) dir2img=$2; shift ;;
	--scratch) scratch_parent=$2; shift ;;
	--results) results=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
case $jobs$small_files in *[!0-9]*) echo "$prog: --jobs and --small-files take numbers" >&2; exit 2 ;; esac

: "${dir2img:=${top_builddir:-.}/bin/dir2img}"
[ -x "$dir2img" ] || { echo "$prog: no dir2img at $dir2img (use --dir2img)" >&2; exit 1; }
command -v mksquashfs >/dev/null || { echo "$prog: mksquashfs missing" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "$prog: /usr/bin/time missing (package time)" >&2; exit 1; }
scratch=${scratch_parent:-$corpus/out-dir2img}
results=${results:-$corpus/dir2img-bench-$(date +%Y%m%d-%H%M).md}
mkdir -p "$scratch" || exit 1
failed=0

# measure LABEL CMD...: sets wall (s), rss (MiB); 1 when the command failed
measure() {
	local label=$1; shift
	if ! /usr/bin/time -v -o "$scratch/time" "$@" > /dev/null 2> "$scratch/err"; then
		echo "$prog: $label failed: $(tail -3 "$scratch/err")" >&2
		failed=1
		return 1
	fi
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0;
		for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.1f", s }' "$scratch/time")
	rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$scratch/time")
}

row() { # row INPUT CODEC: one line for both tools
	local input=$1 codec=$2 src=$3 dw dr ds mw mr ms
	rm -f "$scratch/d.img" "$scratch/m.img"
	measure "dir2img $input $codec" "$dir2img" -q -f -j "$jobs" -c "$codec" --exportable \
		"$scratch/d.img" "$src" || return
	dw=$wall dr=$rss ds=$(stat -c %s "$scratch/d.img")
	measure "mksquashfs $input $codec" mksquashfs "$src" "$scratch/m.img" -comp "$codec" \
		-processors "$jobs" -noappend -no-progress -quiet || return
	mw=$wall mr=$rss ms=$(stat -c %s "$scratch/m.img")
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %.4f |\n' "$input" "$codec" \
		"$dw" "$mw" "$dr" "$mr" "$ds" "$ms" \
		"$(echo "$dw / $mw" | bc -l)" "$(echo "$ds / $ms" | bc -l)" | tee -a "$results"
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
	echo "# dir2img vs mksquashfs ($(date -u +%F\ %H:%M) UTC, -j $jobs / -processors $jobs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo
	echo "| input | codec | dir2img s | mksquashfs s | dir2img MiB | mksquashfs MiB | dir2img bytes | mksquashfs bytes | time ratio | size ratio |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
} | tee "$results"
if [ -n "$codecs" ]; then
	[ -d "$corpus/$tree" ] || { echo "$prog: no $corpus/$tree (make-corpus.sh)" >&2; exit 1; }
	for codec in $codecs; do
		row "$tree" "$codec" "$corpus/$tree"
	done
fi
if [ "$small_files" -gt 0 ]; then
	make_small_tree "$scratch/small-files" "$small_files" || { echo "$prog: cannot make the tree" >&2; exit 1; }
	row "$small_files small files" zstd "$scratch/small-files"
fi
rm -f "$scratch/d.img" "$scratch/m.img" "$scratch/time" "$scratch/err"
echo "results: $results"
exit $failed
