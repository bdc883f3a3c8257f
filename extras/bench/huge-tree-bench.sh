#!/bin/bash
# SPDX-License-Identifier: MIT
# huge-tree-bench.sh - tar2img on a generated tar of N entries (default
# 20,000,000: N files of 20-300 distinct bytes, 1000 to a directory),
# streamed from extras/bench/many-tar through a pipe so no tar file of
# 20 GB is ever written. Runs tar2img with --mem (default 256M) and, with
# --compare, once more without it; prints wall time, CPU, peak RSS and how
# much spilled, as a Markdown table. Then checks the image: the entry count
# and a sample of file contents, through a kernel mount when we may mount
# (root), else through unsquashfs. The floor: peak RSS within the budget
# plus the job buffers (--mem + 64 MiB).
# Exit status: 0 when the runs and checks passed (1 with --strict if the
# floor was missed), 1 on a failure, 2 for bad usage.
set -u
prog=${0##*/}

entries=20000000
mem=256M
codec=lz4
jobs=2
scratch_parent=/var/tmp/sqfs-bench
tar2img=
many_tar=
compare=no
strict=no
results=

usage() {
	cat <<USAGE
usage: $prog [options]
  --entries N      files in the generated tar (default $entries)
  --mem SIZE       tar2img's --mem (default $mem)
  --codec NAME     compressor (default $codec)
  --jobs N         tar2img -j (default $jobs)
  --compare        also run without --mem (needs about 140 bytes per entry)
  --tar2img PATH   tar2img to measure (default: \$top_builddir/bin/tar2img)
  --many-tar PATH  the generator (default: next to tar2img's build tree,
                   extras/bench/many-tar)
  --scratch DIR    where the image is written (default $scratch_parent;
                   the spill file goes there too)
  --results FILE   where the table is saved (default DIR/huge-tree-DATE.md)
  --strict         exit 1 if the memory floor was missed
USAGE
}
die() { echo "$prog: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
	case $1 in
	--entries|--mem|--codec|--jobs|--tar2img|--many-tar|--scratch|--results)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage >&2; exit 2; } ;;
	esac
	case $1 in
	--entries) entries=$2; shift ;;
	--mem) mem=$2; shift ;;
	--codec) codec=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--compare) compare=yes ;;
	--tar2img) tar2img=$2; shift ;;
	--many-tar) many_tar=$2; shift ;;
	--scratch) scratch_parent=$2; shift ;;
	--results) results=$2; shift ;;
	--strict) strict=yes ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
case $entries in ''|*[!0-9]*) echo "$prog: --entries needs a number" >&2; exit 2 ;; esac
mem_kib=$(awk -v m="$mem" 'BEGIN { n = m + 0; u = toupper(substr(m, length(m)));
	if (u == "K") n *= 1; else if (u == "M") n *= 1024; else if (u == "G") n *= 1048576;
	else n /= 1024; printf "%d", n }')

builddir=${top_builddir:-.}
[ -n "$tar2img" ] || tar2img=$builddir/bin/tar2img
[ -n "$many_tar" ] || many_tar=$(dirname "$tar2img")/../extras/bench/many-tar
[ -x "$tar2img" ] || die "no tar2img at $tar2img (--tar2img PATH)"
[ -x "$many_tar" ] || die "no generator at $many_tar (make check builds it; --many-tar PATH)"
[ -x /usr/bin/time ] || die "/usr/bin/time not installed (Debian: time)"
mkdir -p "$scratch_parent" || die "cannot create $scratch_parent"
scratch=$(mktemp -d "$scratch_parent/huge.XXXXXX") || die "cannot create a scratch dir"
mnt=$scratch/mnt
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
[ -n "$results" ] || results=$scratch_parent/huge-tree-$(date +%Y%m%d-%H%M%S).md
: > "$results" || die "cannot write $results"
img=$scratch/huge.img
# pack [OPTION...]: one run, the tar streamed in; prints
# "wall_s cpu_s peak_KiB spilled_MiB main%".
pack() {
	if ! /usr/bin/time -o "$scratch/time" -f '%e %U %S %M' sh -c \
		'"$1" "$2" | "$3" -f -c "$4" -j "$5" "$6" '"$*"' > "$7"' sh \
		"$many_tar" "$entries" "$tar2img" "$codec" "$jobs" "$img" "$scratch/summary" \
		2> "$scratch/err"; then
		echo "$prog: FAILED: tar2img $*: $(head -c 300 "$scratch/err")" >&2
		echo "tar2img $*" >> "$scratch/failed"
		echo "- - - - -"
		return
	fi
	awk -v s="$(sed -n 's/.*memory: \([0-9]*\) MiB.*/\1/p' "$scratch/summary")" \
		-v m="$(sed -n 's/.*main thread \([0-9.]*\)%.*/\1/p' "$scratch/summary")" \
		'{ printf "%s %.1f %s %s %s\n", $1, $2 + $3, $4, s == "" ? 0 : s, m }' "$scratch/time"
}

{
	echo "# tar2img on $entries generated entries, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $codec -j $jobs;" \
		"tar2img: $("$tar2img" --version 2>&1 | head -n 1)"
	echo
	echo "| run | wall s | CPU s | peak RSS MiB | spilled MiB | main thread % | image MiB |"
	echo "|---|---|---|---|---|---|---|"
} | tee -a "$results"
if [ "$compare" = yes ]; then
	read -r w c m s p < <(pack)
	echo "| in memory | $w | $c | $((${m/-/0} / 1024)) | $s | $p | $(( $(stat -c %s "$img" 2>/dev/null || echo 0) >> 20 )) |" |
		tee -a "$results"
	cp "$img" "$scratch/ref.img" 2>/dev/null
fi
read -r w c m s p < <(pack --mem "$mem")
echo "| --mem $mem | $w | $c | $((${m/-/0} / 1024)) | $s | $p | $(( $(stat -c %s "$img" 2>/dev/null || echo 0) >> 20 )) |" |
	tee -a "$results"
peak=${m/-/0}

# The image: every entry there, files holding what the generator wrote.
check() {
	if "$@"; then echo "- ok: $what"; else echo "- FAILED: $what"; fi
}
expected=$(( entries + (entries + 999) / 1000 + 1 ))
body() { # the text of file I: "file I of N\n" 1-20 times (many-tar.c)
	awk -v i="$1" -v n="$entries" 'BEGIN { x = 42; for (k = 0; k <= i; k++) {
		x = (x * 1664525 + 1013904223) % 4294967296 }
		r = 1 + int(x / 65536) % 20; for (k = 0; k < r; k++) printf "file %d of %d\n", i, n }'
}
{
	echo
	if [ -s "$scratch/ref.img" ]; then
		what="the image is byte-identical to the one built in memory"
		check cmp -s "$scratch/ref.img" "$img"
	fi
	mkdir -p "$mnt"
	if [ ! -e "$scratch/failed" ] && [ "$(id -u)" = 0 ] && mount -t squashfs -o loop,ro "$img" "$mnt" 2>/dev/null; then
		what="kernel mount lists $expected entries"
		n=$(find "$mnt" | wc -l)
		check test "$n" = "$expected"
		for i in 0 1 999 1000 $((entries / 2)) $((entries - 1)); do
			what="file $i holds its text"
			check sh -c "cmp -s '$mnt/$(printf 'd%06d/f%04d.txt' $((i / 1000)) $((i % 1000)))' -" \
				< <(body "$i")
		done
	elif [ ! -e "$scratch/failed" ]; then
		what="unsquashfs lists $expected entries (no kernel mount here)"
		n=$(unsquashfs -l "$img" 2>/dev/null | grep -c '^squashfs-root')
		check test "$n" = "$expected"
	fi
	floor=$(( mem_kib + 65536 ))
	if [ "$peak" -gt 0 ] && [ "$peak" -le "$floor" ]; then
		echo "- floor held: peak RSS $((peak / 1024)) MiB <= --mem + 64 MiB of job buffers ($((floor / 1024)) MiB)"
	else
		echo "- floor MISSED: peak RSS $((peak / 1024)) MiB > $((floor / 1024)) MiB"
	fi
} | tee -a "$results"
echo "Results saved in $results"
[ ! -e "$scratch/failed" ] && ! grep -q "FAILED" "$results" || exit 1
[ "$strict" = no ] || ! grep -q "floor MISSED" "$results" || exit 1
exit 0
