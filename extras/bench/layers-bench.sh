#!/bin/bash
# SPDX-License-Identifier: MIT
# layers-bench.sh - merging a stack of container layers in one pass
# (tar2img --whiteouts=oci OUT L1 L2 L3) against packing the merged tree's
# own tar (tar2img OUT MERGED.tar), in the same run, interleaved: wall
# and CPU time (user + system, which a loaded machine blurs less; medians
# of --repeat), peak RSS, image size, and whether the two
# images hold the same tree (imginfo diff). The stack is made once from a
# corpus tar: L1 is the tar itself (a base root file system); L2 an
# update: every 5th regular file replaced (its bytes reversed: as
# compressible, not shared with the old), every 17th deleted by a
# whiteout, one directory made opaque with a new file in it; L3 a small
# application layer of new files. MERGED.tar is the tree those give,
# written by the same generator (members in the base's order).
# Exit status: 0 when every run succeeded and the trees matched, 1
# otherwise, 2 for bad usage.
set -u
prog=${0##*/}

corpus=/var/tmp/sqfs-bench
tar=small
codec=zstd
jobs=2
repeat=3
tar2img=
scratch=
results=

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR     corpus of ../shared/bench/make-corpus.sh (default $corpus)
  --tar NAME       the base layer, DIR/NAME.tar (default $tar)
  --codec NAME     block compressor (default $codec)
  --jobs N         tar2img -j (default $jobs)
  --repeat N       runs of each, the median reported (default $repeat)
  --tar2img PATH   default: \$top_builddir/bin/tar2img, or ./bin/tar2img
  --scratch DIR    layers and images, in a directory made there and
                   removed after (default: the corpus directory)
  --results FILE   the table (default DIR/layers-bench-DATE.md)
USAGE
}
need_arg() { [ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	--corpus) need_arg "$@"; corpus=$2; shift ;;
	--tar) need_arg "$@"; tar=$2; shift ;;
	--codec) need_arg "$@"; codec=$2; shift ;;
	--jobs) need_arg "$@"; jobs=$2; shift ;;
	--repeat) need_arg "$@"; repeat=$2; shift ;;
	--tar2img) need_arg "$@"; tar2img=$2; shift ;;
	--scratch) need_arg "$@"; scratch=$2; shift ;;
	--results) need_arg "$@"; results=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
: "${tar2img:=${top_builddir:-.}/bin/tar2img}"
imginfo=$(dirname "$tar2img")/imginfo
[ -x "$tar2img" ] && [ -x "$imginfo" ] || { echo "$prog: no tar2img/imginfo at $tar2img" >&2; exit 1; }
[ -f "$corpus/$tar.tar" ] || { echo "$prog: no $corpus/$tar.tar (make-corpus.sh)" >&2; exit 1; }
results=${results:-$corpus/layers-bench-$(date +%Y%m%d-%H%M).md}
# a directory of its own inside DIR: the trap removes it, never DIR
scratch=$(mktemp -d "${scratch:-$corpus}/layers-bench.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
export SOURCE_DATE_EPOCH=1700000000

# The stack and the merged tar, in one streaming pass over the base.
python3 - "$corpus/$tar.tar" "$scratch" <<'PY' || { echo "$prog: cannot make the layers" >&2; exit 1; }
import io, os, sys, tarfile
base, out = sys.argv[1], sys.argv[2]
# Hard link targets stay: a link in the base to a replaced or deleted
# name is the one case a single pass refuses (tar2img(1), LAYERS).
linked, dirs = set(), {}
with tarfile.open(base, "r:") as t:
    for m in t:
        if m.islnk():
            linked.add(m.linkname)
        elif m.isdir():
            dirs[m.name.rstrip("/")] = 0
        d = os.path.dirname(m.name.rstrip("/"))
        if d in dirs:
            dirs[d] += 1
# The opaque one: the directory with most entries and no link target in it.
opaque = max((d for d in dirs if d not in ("", ".") and not any(l.startswith(d + "/") for l in linked)),
             key=lambda d: dirs[d])
l2 = tarfile.open(os.path.join(out, "l2.tar"), "w", format=tarfile.PAX_FORMAT)
l3 = tarfile.open(os.path.join(out, "l3.tar"), "w", format=tarfile.PAX_FORMAT)
merged = tarfile.open(os.path.join(out, "merged.tar"), "w", format=tarfile.PAX_FORMAT)
def entry(name, data, mtime=1700000000):
    ti = tarfile.TarInfo(name); ti.size = len(data); ti.mtime = mtime; ti.mode = 0o644
    return ti
n = 0
with tarfile.open(base, "r:") as t:
    for m in t:
        name = m.name.rstrip("/")
        under = name.startswith(opaque + "/")
        if m.isreg() and not under and name not in linked:
            n += 1
            if n % 5 == 0:
                data = t.extractfile(m).read()[::-1]
                l2.addfile(m, io.BytesIO(data))
                merged.addfile(m, io.BytesIO(data))
                continue
            if n % 17 == 3:
                wh = tarfile.TarInfo(os.path.join(os.path.dirname(name), ".wh." + os.path.basename(name)))
                l2.addfile(wh)
                continue
        if under:
            continue
        merged.addfile(m, t.extractfile(m) if m.isreg() else None)
        if name == opaque:
            l2.addfile(tarfile.TarInfo(opaque + "/.wh..wh..opq"))
            fresh = entry(opaque + "/fresh-in-l2", b"new in the update layer\n" * 100)
            l2.addfile(fresh, io.BytesIO(b"new in the update layer\n" * 100))
            merged.addfile(fresh, io.BytesIO(b"new in the update layer\n" * 100))
for i in range(200):
    data = (b"application file %d\n" % i) * (50 + 37 * i)
    app = entry("opt/app/file%03d" % i, data)
    l3.addfile(app, io.BytesIO(data))
    merged.addfile(app, io.BytesIO(data))
for f in (l2, l3, merged):
    f.close()
print("opaque directory: %s; %d regular files in the base outside it" % (opaque, n))
PY
ln -sf "$corpus/$tar.tar" "$scratch/l1.tar"
cat "$scratch/l1.tar" "$scratch/l2.tar" "$scratch/l3.tar" "$scratch/merged.tar" > /dev/null
failed=0

# once LABEL CMD...: one timed run; appends "wall rss cpu" to $scratch/LABEL.
# Timed by wait4()'s rusage, to the microsecond: /usr/bin/time prints
# hundredths, and an lz4 run of small.tar takes 0.2 s, so one tick was
# 5% of it and the ratios moved in steps of that.
once() {
	local label=$1; shift
	if ! python3 -c 'import os, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
_, st, ru = os.wait4(p.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write("%.4f %.0f %.4f\n" % (time.monotonic() - t, ru.ru_maxrss / 1024,
                                  ru.ru_utime + ru.ru_stime))
sys.exit(1 if st else 0)' "$scratch/time" "$@" 2> "$scratch/err"; then
		echo "$prog: $label failed: $(tail -3 "$scratch/err")" >&2
		failed=1
		return 1
	fi
	cat "$scratch/time" >> "$scratch/$label"
}
# median LABEL COLUMN
median() { awk -v c="$2" '{ print $c }' "$scratch/$1" | sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }

: > "$scratch/layers"; : > "$scratch/merged"
for ((i = 0; i < repeat; i++)); do
	once layers "$tar2img" -q -f -c "$codec" -j "$jobs" --whiteouts=oci "$scratch/layers.img" \
		"$scratch/l1.tar" "$scratch/l2.tar" "$scratch/l3.tar"
	once merged "$tar2img" -q -f -c "$codec" -j "$jobs" "$scratch/merged.img" "$scratch/merged.tar"
done
lw=$(median layers 1) lr=$(median layers 2) lc=$(median layers 3)
mw=$(median merged 1) mr=$(median merged 2) mc=$(median merged 3)
ls=$(stat -c %s "$scratch/layers.img" 2>/dev/null || echo 0)
ms=$(stat -c %s "$scratch/merged.img" 2>/dev/null || echo 0)
if "$imginfo" diff "$scratch/layers.img" "$scratch/merged.img" > "$scratch/diff" 2>&1; then
	same=yes
else
	same="NO: $(head -1 "$scratch/diff")"
	failed=1
fi
insize=$(du -bL "$scratch/l1.tar" "$scratch/l2.tar" "$scratch/l3.tar" | awk '{ s += $1 } END { print s }')
{
	echo "# tar2img: layers merged in one pass vs the merged tree's tar ($(date -u +%F\ %H:%M) UTC, $codec, -j $jobs, median of $repeat, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo
	echo "| input | input bytes | wall s | cpu s | MiB | image bytes |"
	echo "|---|---|---|---|---|---|"
	echo "| 3 layers ($tar.tar + update + app) | $insize | $lw | $lc | $lr | $ls |"
	echo "| merged tree's tar | $(stat -c %s "$scratch/merged.tar") | $mw | $mc | $mr | $ms |"
	echo
	printf 'layers/merged: wall %.3f, cpu %.3f, size %.5f; same tree: %s; load after %s\n' \
		"$(echo "$lw / $mw" | bc -l)" "$(echo "$lc / $mc" | bc -l)" \
		"$(echo "$ls / $ms" | bc -l)" "$same" "$(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$results"
echo "results: $results"
exit $failed
