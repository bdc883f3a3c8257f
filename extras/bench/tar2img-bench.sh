#!/bin/bash
# SPDX-License-Identifier: MIT
# tar2img-bench.sh - pack the benchmark corpus with tar2img and tar2sqfs
# (and mksquashfs from the unpacked tree, and the pure-codec baseline) in
# the same run, per tar, codec and thread count, and print wall time, peak
# RSS, image size and the ratios to tar2sqfs as a Markdown table, then say
# which floors held (zstd, gzip, xz at -j 2; lz4 at -j 1 and -j 2), and
# the main thread's share of tar2img's CPU time (from its own summary:
# how far more -j can help). The peers are taken by path, so that a
# squashfs-tools built from its source (4.7, which reads files in
# parallel) can stand beside Debian's 4.5.1; sqfstar packs the same tar. A generated tar of many small files (each
# with its own text, so no tail is shared) measures the per-entry cost
# and memory at lz4 and zstd. The machine is shared and noisy: the tools
# run interleaved per configuration, and --repeat N reports the median.
# Exit status: 0 when every run succeeded (1 with --strict if a floor was
# missed), 1 when a tool failed or is missing, 2 for bad usage.
set -u
prog=${0##*/}

corpus=/var/tmp/sqfs-bench
tars="small big"
codecs="zstd gzip xz lz4"
jobs="1 2"
repeat=1
tar2img=
baseline=
use_tar2img=yes
use_mksq=yes
mksquashfs=mksquashfs
tar2sqfs=tar2sqfs
sqfstar=
use_sqfstar=yes
use_baseline=yes
scratch_parent=
results=
strict=no
many_files=1000000

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR       corpus of ../shared/bench/make-corpus.sh (default $corpus):
                     DIR/NAME.tar and, for mksquashfs, the tree DIR/rootfs-NAME
  --tars "LIST"      tar names in DIR (default "$tars")
  --many-files N     also a tar of N small files in N/1000 directories,
                     made once as DIR/many-N.tar, for lz4 and zstd
                     (default $many_files; 0 to skip)
  --codecs "LIST"    zstd gzip xz lz4 lzo lzma (default "$codecs")
  --jobs "LIST"      thread counts (default "$jobs")
  --repeat N         run each configuration N times, report the median
  --tar2img PATH     tar2img to measure (default: \$top_builddir/bin/tar2img,
                     or ./bin/tar2img when run from the build tree)
  --no-tar2img       dry run of the peers only (tar2img columns show -)
  --baseline PATH    codec-baseline program (default: next to tar2img's
                     build tree, extras/bench/codec-baseline)
  --no-baseline      skip the pure-codec reference
  --no-mksquashfs    skip the mksquashfs reference
  --mksquashfs PATH  the mksquashfs to run (default: mksquashfs on PATH)
  --sqfstar PATH     sqfstar (squashfs-tools 4.5.1 or later), timed on the tar
                     like tar2sqfs (default: the one beside --mksquashfs,
                     else on PATH; its columns are left out when there is none)
  --no-sqfstar       leave sqfstar out
  --tar2sqfs PATH    the tar2sqfs to run (default: tar2sqfs on PATH)
  --scratch DIR      where images are written (default DIR/out, removed after)
  --results FILE     where the table is saved (default DIR/tar2img-bench-DATE.md)
  --strict           exit 1 if a floor was missed or could not be measured
USAGE
}
die() { echo "$prog: $*" >&2; exit 1; }
need_arg() { [ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	--corpus|--tars|--codecs|--jobs|--repeat|--tar2img|--baseline|--scratch|--results|--many-files|\
	--mksquashfs|--sqfstar|--tar2sqfs)
		need_arg "$@" ;;
	esac
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tars) tars=$2; shift ;;
	--many-files) many_files=$2; shift ;;
	--codecs) codecs=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	--tar2img) tar2img=$2; shift ;;
	--baseline) baseline=$2; shift ;;
	--scratch) scratch_parent=$2; shift ;;
	--results) results=$2; shift ;;
	--no-tar2img) use_tar2img=no ;;
	--no-baseline) use_baseline=no ;;
	--no-mksquashfs) use_mksq=no ;;
	--mksquashfs) mksquashfs=$2; shift ;;
	--sqfstar) sqfstar=$2; shift ;;
	--no-sqfstar) use_sqfstar=no ;;
	--tar2sqfs) tar2sqfs=$2; shift ;;
	--strict) strict=yes ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
case $repeat in ''|*[!0-9]*|0) echo "$prog: --repeat needs a positive number" >&2; exit 2 ;; esac
case $many_files in ''|*[!0-9]*) echo "$prog: --many-files needs a number" >&2; exit 2 ;; esac
for j in $jobs; do
	case $j in ''|*[!0-9]*|0) echo "$prog: bad thread count '$j'" >&2; exit 2 ;; esac
done

# Tools. The build tree is $top_builddir (set by make) or the current dir.
builddir=${top_builddir:-.}
if [ "$use_tar2img" = yes ]; then
	[ -n "$tar2img" ] || tar2img=$builddir/bin/tar2img
	[ -x "$tar2img" ] || die "tar2img not found at $tar2img (build it, pass --tar2img PATH, or --no-tar2img for a dry run)"
fi
if [ "$use_baseline" = yes ]; then
	if [ -z "$baseline" ]; then
		baseline=$builddir/extras/bench/codec-baseline
		[ -n "$tar2img" ] && [ ! -x "$baseline" ] &&
			baseline=$(dirname "$tar2img")/../extras/bench/codec-baseline
	fi
	[ -x "$baseline" ] || die "codec-baseline not found at $baseline (make extras/bench/codec-baseline, pass --baseline PATH, or --no-baseline)"
fi
command -v "$tar2sqfs" >/dev/null || die "tar2sqfs not found at $tar2sqfs (Debian: squashfs-tools-ng)"
[ "$use_mksq" = no ] || command -v "$mksquashfs" >/dev/null ||
	die "mksquashfs not found at $mksquashfs (Debian: squashfs-tools), or pass --no-mksquashfs"
# sqfstar came with squashfs-tools 4.5.1: look for it beside the
# mksquashfs given, then on PATH; without one its columns are left out.
if [ "$use_sqfstar" = yes ] && [ -z "$sqfstar" ]; then
	m=$(command -v "$mksquashfs" 2>/dev/null)
	if [ -n "$m" ] && [ -x "$(dirname "$m")/sqfstar" ]; then
		sqfstar=$(dirname "$m")/sqfstar
	else
		sqfstar=$(command -v sqfstar) || use_sqfstar=no
	fi
elif [ "$use_sqfstar" = yes ]; then
	[ -x "$sqfstar" ] || die "sqfstar not found at $sqfstar, or pass --no-sqfstar"
fi
[ -x /usr/bin/time ] || die "/usr/bin/time not installed (Debian: time)"
for t in $tars; do
	[ -f "$corpus/$t.tar" ] ||
		die "$corpus/$t.tar missing; build the corpus with ../shared/bench/make-corpus.sh"
done

# make_many N FILE: N files of 20-300 distinct bytes, 1000 per directory
make_many() {
	python3 - "$1" > "$2.part" <<'PY' && mv "$2.part" "$2"
import random, sys
n = int(sys.argv[1]); out = sys.stdout.buffer; rnd = random.Random(42)
def hdr(name, size, typ, mode):
    h = bytearray(512)
    h[0:len(name)] = name.encode()
    for off, text in ((100, "%07o" % mode), (108, "0000000"), (116, "0000000"),
                      (124, "%011o" % size), (136, "%011o" % 1700000000)):
        h[off:off + len(text)] = text.encode()
    h[156:157] = typ.encode(); h[257:263] = b"ustar\0"; h[263:265] = b"00"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)
buf = []
for d in range((n + 999) // 1000):
    buf.append(hdr("d%04d/" % d, 0, "5", 0o755))
    for f in range(min(1000, n - d * 1000)):
        body = (("file %d of %d\n" % (d * 1000 + f, n)) * rnd.randint(1, 20)).encode()
        buf.append(hdr("d%04d/f%04d.txt" % (d, f), len(body), "0", 0o644))
        buf.append(body + b"\0" * (-len(body) % 512))
    out.write(b"".join(buf)); buf = []
out.write(b"\0" * 1024)
PY
}
many_codecs=
if [ "$many_files" -gt 0 ]; then
	for c in $codecs; do case $c in lz4|zstd) many_codecs="$many_codecs $c" ;; esac; done
	if [ -n "$many_codecs" ]; then
		[ -f "$corpus/many-$many_files.tar" ] || make_many "$many_files" "$corpus/many-$many_files.tar" ||
			die "cannot write $corpus/many-$many_files.tar"
		tars="$tars many-$many_files"
	fi
fi

[ -n "$scratch_parent" ] || scratch_parent=$corpus/out
mkdir -p "$scratch_parent" || die "cannot create $scratch_parent"
scratch=$(mktemp -d "$scratch_parent/run.XXXXXX") || die "cannot create a scratch dir in $scratch_parent"
trap 'rm -rf "$scratch"; rmdir "$scratch_parent" 2>/dev/null' EXIT
trap 'exit 1' INT TERM HUP
[ -n "$results" ] || results=$corpus/tar2img-bench-$(date +%Y%m%d-%H%M%S).md
: > "$results" || die "cannot write $results"
img=$scratch/img
: > "$scratch/failures"
: > "$scratch/cpu"

# measure INPUT COMMAND...: run COMMAND with stdin from INPUT, repeat times;
# print "seconds KiB bytes cpu-seconds main%" of the median run by time,
# bytes being the size of the image it wrote to $img, main% the main
# thread's share of CPU from tar2img's summary (- for other tools), or
# "- - - - -" when a run failed or wrote no image.
# Runs inside a subshell, so failures are counted in a file.
measure() {
	local input=$1 i
	shift
	: > "$scratch/runs"
	for i in $(seq 1 "$repeat"); do
		rm -f "$img"
		if ! /usr/bin/time -o "$scratch/time" -f '%e %M %U %S' "$@" < "$input" \
			> "$scratch/stdout" 2> "$scratch/err"; then
			fail "$*"
			echo "- - - - -"
			return
		fi
		if [ ! -s "$img" ]; then
			echo "exited 0 but wrote no image" > "$scratch/err"
			fail "$*"
			echo "- - - - -"
			return
		fi
		tail -n 1 "$scratch/time" | awk -v b="$(stat -c %s "$img")" \
			-v m="$(sed -n 's/.*main thread \([0-9.]*\)%.*/\1/p' "$scratch/stdout")" \
			'{ printf "%s %s %s %.2f %s\n", $1, $2, b, $3 + $4, m == "" ? "-" : m }' \
			>> "$scratch/runs"
	done
	rm -f "$img"
	median < "$scratch/runs"
}
# baseline_s TAR CODEC JOBS: "wall cpu" seconds of pure compression (the
# median run by wall time), or "- -".
baseline_s() {
	local i
	: > "$scratch/runs"
	for i in $(seq 1 "$repeat"); do
		if ! "$baseline" -c "$2" -j "$3" "$1" > "$scratch/out" 2> "$scratch/err"; then
			fail "codec-baseline -c $2 -j $3 $1 (run $i)"
			echo "- -"
			return
		fi
		sed -n 's/.*cpu_s=\([0-9.]*\) wall_s=\([0-9.]*\).*/\2 \1/p' "$scratch/out" |
			awk '{ printf "%.2f %.2f\n", $1, $2 }' >> "$scratch/runs"
	done
	[ -s "$scratch/runs" ] || { fail "codec-baseline printed no times"; echo "- -"; return; }
	median < "$scratch/runs"
}
median() { sort -n | sed -n "$(( (repeat + 1) / 2 ))p"; }
fail() {
	echo "$prog: FAILED: $1: $(head -c 300 "$scratch/err")" >&2
	echo "$1" >> "$scratch/failures"
}
# calc EXPR with variables a and b; prints - when an operand is missing.
calc() {
	case "$2$3" in *-*|'') echo -; return ;; esac
	awk -v a="$2" -v b="$3" "BEGIN { if (b + 0 == 0) print \"-\"; else $1 }"
}
mib() { calc 'printf "%.1f", a / b' "$1" 1024; }
size_mib() { calc 'printf "%.2f", a / b' "$1" 1048576; }
warm_tree() { find "$1" -type f -print0 | xargs -0 -r cat > /dev/null 2>&1; }

version() { "$@" --version 2>&1 | head -n 1; }
# The sqfstar columns, only when there is one: wall time and tar2img's
# ratio to it, the image size and tar2img's size ratio to it.
sq_head= sq_rule= sq_size_head= sq_size_rule= sq_cpu_head= sq_cpu_rule=
if [ "$use_sqfstar" = yes ]; then
	sq_head=" sqfstar s | vs sqfstar |" sq_rule="---|---|"
	sq_size_head=" sqfstar MiB | size vs sqfstar |" sq_size_rule="---|---|"
	sq_cpu_head=" sqfstar CPU s | CPU vs sqfstar |" sq_cpu_rule="---|---|"
fi
{
	echo "# tar2img benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "$(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), repeat $repeat (median)."
	[ "$use_tar2img" = no ] || echo "tar2img: $(version "$tar2img")"
	echo "tar2sqfs: $(version tar2sqfs)"
	[ "$use_mksq" = no ] || echo "mksquashfs: $("$mksquashfs" -version 2>&1 | head -n 1)"
	[ "$use_sqfstar" = no ] || echo "sqfstar: $("$sqfstar" -version 2>&1 | head -n 1)"
	echo
	echo "| tar | codec | -j | tar2img s | tar2sqfs s | time ratio | mksquashfs s |$sq_head codec s | over codec | tar2img RSS MiB | tar2sqfs RSS MiB | tar2img MiB | tar2sqfs MiB | size ratio |$sq_size_head"
	echo "|---|---|---|---|---|---|---|$sq_rule---|---|---|---|---|---|---|$sq_size_rule"
} | tee -a "$results"

held="" missed="" unmeasured=""
for t in $tars; do
	tarfile=$corpus/$t.tar
	tree=$corpus/rootfs-$t
	cat "$tarfile" > /dev/null
	[ "$use_mksq" = no ] || [ ! -d "$tree" ] || warm_tree "$tree"
	tar_codecs=$codecs
	case $t in many-*) tar_codecs=$many_codecs ;; esac
	for c in $tar_codecs; do
		for j in $jobs; do
			s1=- m1=- b1=- c1=- p1=- s3=- c3=- s4=- c4=- sq_cells= sq_size= sq_cpu=
			if [ "$use_tar2img" = yes ]; then
				read -r s1 m1 b1 c1 p1 < <(measure /dev/null "$tar2img" -f -c "$c" -j "$j" "$img" "$tarfile")
			fi
			read -r s2 m2 b2 c2 _ < <(measure "$tarfile" "$tar2sqfs" -q -f -j "$j" -c "$c" "$img")
			if [ "$use_sqfstar" = yes ]; then
				read -r s5 _ b5 c5 _ < <(measure "$tarfile" "$sqfstar" -comp "$c" \
					-processors "$j" -quiet -no-progress "$img")
				sq_cells=" $s5 | $(calc 'printf "%.3f", a / b' "$s1" "$s5") |"
				sq_size=" $(size_mib "$b5") | $(calc 'printf "%.2f%%", 100 * a / b' "$b1" "$b5") |"
				sq_cpu=" $c5 | $(calc 'printf "%.3f", a / b' "$c1" "$c5") |"
			fi
			if [ "$use_mksq" = yes ] && [ -d "$tree" ]; then
				read -r s3 _ _ c3 _ < <(measure /dev/null "$mksquashfs" "$tree" "$img" \
					-comp "$c" -processors "$j" -noappend -quiet -no-progress)
			fi
			[ "$use_baseline" = no ] || read -r s4 c4 < <(baseline_s "$tarfile" "$c" "$j")
			tr=$(calc 'printf "%.3f", a / b' "$s1" "$s2")
			sr=$(calc 'printf "%.2f%%", 100 * a / b' "$b1" "$b2")
			oc=$(calc 'printf "%+.0f%%", 100 * (a - b) / b' "$s1" "$s4")
			echo "| $t | $c | $j | $s1 | $s2 | $tr | $s3 |$sq_cells $s4 | $oc | $(mib "$m1") | $(mib "$m2") | $(size_mib "$b1") | $(size_mib "$b2") | $sr |$sq_size" |
				tee -a "$results"
			cr=$(calc 'printf "%.3f", a / b' "$c1" "$c2")
			oc=$(calc 'printf "%+.0f%%", 100 * (a - b) / b' "$c1" "$c4")
			echo "| $t | $c | $j | $c1 | $c2 | $cr | $c3 |$sq_cpu $c4 | $oc | $p1 |" >> "$scratch/cpu"
			rss=128
			case "$t:$j:$c" in
			many-*) limit=1.0 rss=160 ;;
			*:2:zstd|*:2:gzip|*:2:xz) limit=1.1 ;;
			*:1:lz4) limit=1.0 ;;
			*:2:lz4) limit=0.8 ;;
			*) continue ;;
			esac
			why=$(awk -v t="$tr" -v b1="$b1" -v b2="$b2" -v m="$m1" -v l="$limit" -v r="$rss" 'BEGIN {
				if (t == "-" || b2 == "-" || b1 == "-") { print "no figures"; exit }
				if (t > l) w = w sprintf(" time %.3fx", t)
				if (b1 / b2 > 1.005) w = w sprintf(" size %.2f%%", 100 * b1 / b2)
				if (m / 1024 > r) w = w sprintf(" RSS %.0f MiB", m / 1024)
				print w }')
			case $why in
			'') held="$held $t/$c/-j$j" ;;
			'no figures') unmeasured="$unmeasured $t/$c/-j$j" ;;
			*) missed="$missed $t/$c/-j$j (${why# })" ;;
			esac
		done
	done
done
{
	echo
	echo "CPU seconds (user + system), less sensitive to a busy machine than wall time:"
	echo
	echo "| tar | codec | -j | tar2img CPU s | tar2sqfs CPU s | CPU ratio | mksquashfs CPU s |$sq_cpu_head codec CPU s | CPU over codec | tar2img main thread % |"
	echo "|---|---|---|---|---|---|---|$sq_cpu_rule---|---|---|"
	cat "$scratch/cpu"
	echo
	echo "Floors (time <= 1.1x tar2sqfs at -j 2 for zstd, gzip, xz; lz4 <= 1.0x at -j 1" \
		"and <= 0.8x at -j 2; size <= 100.5%, peak RSS <= 128 MiB; the many-file tar:" \
		"time <= 1.0x, peak RSS <= 160 MiB):" \
		"held:${held:- none}; missed:${missed:- none}${unmeasured:+; not measured:$unmeasured}."
	failures=$(wc -l < "$scratch/failures")
	[ "$failures" -eq 0 ] || echo "$failures run(s) FAILED; see the messages on stderr."
} | tee -a "$results"
echo "Results saved in $results"
[ ! -s "$scratch/failures" ] || exit 1
[ "$strict" = no ] || [ -z "$missed$unmeasured" ] || exit 1
exit 0
