#!/bin/bash
# SPDX-License-Identifier: MIT
# fuse-bench.sh - sqpack-fuse against the other FUSE mounters of the
# same images, same run, same machine, and the kernel's own mount as
# the ceiling. Images of a corpus tree (rootfs-small by default; issue
# 41's table is of rootfs-big): SquashFS zstd with 128 KiB blocks and xz
# with 1 MiB blocks (tar2img), EROFS lz4hc and lzma with 1 MiB clusters
# and, asked for (--images lzmafrag), the lzma one with every file in the
# packed inode (-Eall-fragments: extents of several MiB that many files
# share) (--mkfs-erofs, mkfs.erofs by default; an lzma image is left out
# where it cannot make it). For each image and mounter:
#   cold    every file read by --readers parallel readers (find | xargs
#           -P cat), on a fresh mount, the image's pages dropped first
#           (posix_fadvise through dd iflag=nocache: this file only);
#   warm    the same on a fresh mount, the image in the page cache;
#   again   the same on the same mount (the kernel's caches); with
#           "(N reclaimed)" for a FUSE mounter where reclaim (kswapd,
#           or DAMON's kdamond, which pages out page cache read once)
#           took N of the mount's pages out of the page cache during
#           the cold and again reads (of all runs; counted with perf,
#           root): a read again of those reads the image again, and
#           says nothing of the mounter;
#   random  --random 4 KiB reads at random offsets of the largest file
#           (AppImage's case), on a fresh mount;
#   seq     the largest file read once in order (cat), cold: one reader,
#           where only prefetch puts the other cores to work;
#   stat    one reader stat'ing every entry (find -printf %s), on a
#           fresh mount;
#   CPU/GB  the mounter's CPU (user + system, all its threads, from
#           /proc) over cold and again, a second a GB the readers got;
#           the kernel's row has none (its work is the readers');
#   RSS     the mounter's peak RSS (VmHWM) after cold and again, MiB;
#   ready   from exec until a stat of the largest file is answered, the
#           mounter in the foreground (-f, as Apptainer runs it; mount(8)
#           for the kernel): the median over --ready runs of the
#           mounter's CPU ms (all its threads, at that moment) and of the
#           wall ms, and the CPU as a ratio of the reference peer's
#           (squashfuse_ll for SquashFS, erofsfuse for EROFS: "x ref").
# --ready-only measures the ready figures alone (the others show "-").
# --images huge adds issue 41's walk of many entries: --entries (default
# 1,000,000) small files, 1000 to a directory (extras/bench/many-tar,
# --many-tar), packed by tar2img (zstd), mounted by sqpack,
# squashfuse_ll, squashfuse_ll -s (single-threaded, the issue's
# reference: "squashfuse_ll-s") and the kernel; one reader stat'ing every
# entry on a fresh mount, the image cached: its own table of the walk's
# wall seconds, the mounter's CPU seconds in it and its peak RSS.
# --mounters LIST keeps those mounters of the ones given (a slow peer
# on the xz image: Debian's squashfuse takes minutes a GB).
# Peers are given by path (--squashfuse-ll, --squashfuse, --erofsfuse;
# e.g. squashfuse 0.6.2 built from its source; --squashfuse-old, a
# second squashfuse such as Debian's 0.1.105): a mounter that is not
# given or cannot read an image leaves "-". The kernel's row needs root.
# The FUSE mounters run in the foreground (-f), in the background of
# this script, which reads their /proc. Each run measures every
# mounter of an image in turn (ours, a peer, ..., ours, a peer), so a
# change of load falls on all alike. Prints a Markdown table of median
# seconds over --runs; compare columns of one run, not runs: the
# machine is shared.
# Exit status: 0 when every run succeeded, 1 when one failed, 2 for bad
# usage.
set -u
prog=${0##*/}
corpus=/var/tmp/sqfs-bench
tree=rootfs-small
readers=8
random=2000
runs=1
ready=11
ready_only=
bin=
sqll=
sqhl=
sqold=
erofsfuse=
mkfs_erofs=mkfs.erofs
images=zstd,xz,lz4hc,lzma
entries=1000000
many_tar=
only=
scratch=

usage() {
	cat <<USAGE
usage: $prog [options]
  --corpus DIR          corpus (default $corpus)
  --tree NAME           tree in DIR to pack (default $tree)
  --readers N           parallel readers (default $readers)
  --random N            random 4 KiB reads (default $random)
  --runs N              runs per cell, the median shown (default $runs)
  --ready N             runs of the ready figures (default $ready)
  --ready-only          the ready figures alone
  --bin DIR             the build's bin/ (default \$top_builddir/bin)
  --squashfuse-ll PATH  squashfuse_ll to compare with
  --squashfuse PATH     squashfuse (high-level) to compare with
  --squashfuse-old PATH a second squashfuse (Debian's 0.1.105)
  --erofsfuse PATH      erofsfuse to compare with
  --mkfs-erofs PATH     mkfs.erofs making the EROFS images (lzma: 1.6+)
  --images LIST         of zstd,xz,lz4hc,lzma,lzmafrag,huge: those made
                        and measured
                        (default $images)
  --entries N           files in the huge image (default $entries)
  --many-tar PATH       its generator (default: the build's
                        extras/bench/many-tar)
  --mounters LIST       of sqpack,squashfuse_ll,squashfuse_ll-s,
                        squashfuse,squashfuse-0.1,erofsfuse,kernel:
                        those measured (default all that are given)
  --scratch DIR         images and mount points (default DIR/out-fuse)
USAGE
}
while [ $# -gt 0 ]; do
	case $1 in
	--corpus|--tree|--readers|--random|--runs|--ready|--bin|--squashfuse-ll|--squashfuse|--squashfuse-old|--erofsfuse|--mkfs-erofs|--images|--mounters|--scratch|--entries|--many-tar)
		[ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; exit 2; } ;;
	esac
	case $1 in
	--corpus) corpus=$2; shift ;;
	--tree) tree=$2; shift ;;
	--readers) readers=$2; shift ;;
	--random) random=$2; shift ;;
	--runs) runs=$2; shift ;;
	--ready) ready=$2; shift ;;
	--ready-only) ready_only=1 ;;
	--bin) bin=$2; shift ;;
	--squashfuse-ll) sqll=$2; shift ;;
	--squashfuse) sqhl=$2; shift ;;
	--squashfuse-old) sqold=$2; shift ;;
	--mkfs-erofs) mkfs_erofs=$2; shift ;;
	--images) images=$2; shift ;;
	--mounters) only=$2; shift ;;
	--entries) entries=$2; shift ;;
	--many-tar) many_tar=$2; shift ;;
	--erofsfuse) erofsfuse=$2; shift ;;
	--scratch) scratch=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
for n in "$readers" "$random" "$runs" "$ready" "$entries"; do
	case $n in ''|0|*[!0-9]*) echo "$prog: --readers, --random, --runs, --ready and --entries take a number from 1" >&2; exit 2 ;; esac
done
. "$(cd "$(dirname "$0")" && pwd)/bench_lib.sh"
bin=$(bench_bindir "$bin")
# The programs, not libtool's wrappers (whose shell would be timed).
bench_unwrap
# sqpack-fuse links libsqpack's objects into itself: no wrapper, and
# nothing of it in .libs (an older build's may be left there).
fuse=$bin/sqpack-fuse
[ -x "${bin%/.libs}/sqpack-fuse" ] &&
	! grep -qs 'temporary wrapper script' "${bin%/.libs}/sqpack-fuse" &&
	fuse=${bin%/.libs}/sqpack-fuse
bench_need_bins "$bin" tar2img
[ -x "$fuse" ] || { echo "$0: sqpack-fuse not found in ${bin%/.libs}" >&2; exit 1; }
bench_need_cmds "$mkfs_erofs" fusermount3 python3
src=$corpus/$tree
bench_need_corpus "$src"
: "${scratch:=$corpus/out-fuse}"
mkdir -p "$scratch/m" || exit 1
status=0
# Never leave a mount behind (an interrupted run, a timeout).
trap 'umount "$scratch/m" 2> /dev/null || fusermount3 -u "$scratch/m" 2> /dev/null; rm -f "$scratch/reclaimed"' EXIT
trap 'exit 130' INT TERM

# The images, made once.
sq_zstd=$scratch/zstd-128k.sqfs sq_xz=$scratch/xz-1m.sqfs ero=$scratch/lz4hc.erofs
ero_lzma=$scratch/lzma-1m.erofs ero_frag=$scratch/lzma-1m-frag.erofs
want() { case ",$images," in *",$1,"*) return 0 ;; esac; return 1; }
want zstd || sq_zstd=
want xz || sq_xz=
want lz4hc || ero=
want lzma || ero_lzma=
want lzmafrag || ero_frag=
huge=$scratch/huge-$entries.sqfs
want huge || huge=
if [ -n "$huge" ] && [ ! -f "$huge" ]; then
	: "${many_tar:=${bin%/.libs}/../extras/bench/many-tar}"
	[ -x "$many_tar" ] || { echo "$prog: no generator at $many_tar (make check builds it; --many-tar PATH)" >&2; exit 1; }
	"$many_tar" "$entries" | "$bin/tar2img" -q -c zstd "$huge.tmp" &&
		mv "$huge.tmp" "$huge" || { rm -f "$huge.tmp"; exit 1; }
fi
[ -z "$sq_zstd" ] || [ -f "$sq_zstd" ] || "$bin/tar2img" -q -c zstd "$sq_zstd" "$corpus/${tree#rootfs-}.tar" || exit 1
[ -z "$sq_xz" ] || [ -f "$sq_xz" ] || "$bin/tar2img" -q -c xz -b 1M "$sq_xz" "$corpus/${tree#rootfs-}.tar" || exit 1
[ -z "$ero" ] || [ -f "$ero" ] || "$mkfs_erofs" --quiet -zlz4hc "$ero" "$src" > /dev/null || exit 1
[ -z "$ero_lzma" ] || [ -f "$ero_lzma" ] ||
	"$mkfs_erofs" --quiet -zlzma -C1048576 "$ero_lzma" "$src" > /dev/null 2>&1 ||
	{ rm -f "$ero_lzma"; echo "$prog: $mkfs_erofs makes no lzma image: left out" >&2; }
[ -z "$ero_frag" ] || [ -f "$ero_frag" ] ||
	"$mkfs_erofs" --quiet -zlzma -C1048576 -Eall-fragments "$ero_frag" "$src" > /dev/null 2>&1 ||
	{ rm -f "$ero_frag"; echo "$prog: $mkfs_erofs makes no -Eall-fragments lzma image: left out" >&2; }
bytes=$(cd "$src" && find . -type f -printf '%s\n' | awk '{ n += $1 } END { print n }')
big=$(cd "$src" && find . -type f -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
# What a mount is ready for: a stat of this path answered.
probe=$big

# mnt_up MOUNTER IMAGE: mount IMAGE at $scratch/m, until it answers;
# a FUSE mounter runs in the foreground, in our background: its pid in
# mpid (none for the kernel's).
mpid=
mnt_up() {
	mpid=
	case $1 in
	kernel) mount -o loop,ro "$2" "$scratch/m" || return 1 ;;
	sqpack) "$fuse" -f "$2" "$scratch/m" & mpid=$! ;;
	squashfuse_ll) "$sqll" -f "$2" "$scratch/m" & mpid=$! ;;
	squashfuse_ll-s) "$sqll" -f -s "$2" "$scratch/m" & mpid=$! ;;
	squashfuse) "$sqhl" -f "$2" "$scratch/m" & mpid=$! ;;
	squashfuse-0.1) "$sqold" -f "$2" "$scratch/m" & mpid=$! ;;
	erofsfuse) "$erofsfuse" -f "$2" "$scratch/m" > /dev/null 2>&1 & mpid=$! ;;
	esac
	until [ -e "$scratch/m/$probe" ]; do
		[ -z "$mpid" ] || kill -0 "$mpid" 2> /dev/null || return 1
		sleep 0.001
	done
}
# The mounter's CPU seconds so far (user + system, every thread).
mnt_cpu() {
	[ -n "$mpid" ] || { echo nan; return; }
	bench_proc_cpu "$mpid"
}
# Its peak RSS, MiB.
mnt_rss() {
	[ -n "$mpid" ] || { echo nan; return; }
	bench_proc_rss "$mpid"
}
# ready_of MOUNTER IMAGE: "CPU-ms wall-ms", medians over --ready runs of
# exec until a stat of $probe under the mount is answered. The CPU is the
# mounter's own: its threads' run time (schedstat, in ns) while it
# serves in the foreground, or mount(8)'s rusage for the kernel, whose
# process does the mounting and exits. The mount is polled from this
# one process (no fork a poll) every 0.2 ms.
ready_of() {
	local cmd
	case $1 in
	kernel) cmd=(mount -o loop,ro "$2" "$scratch/m") ;;
	sqpack) cmd=("$fuse" -f "$2" "$scratch/m") ;;
	squashfuse_ll) cmd=("$sqll" -f "$2" "$scratch/m") ;;
	squashfuse_ll-s) cmd=("$sqll" -f -s "$2" "$scratch/m") ;;
	squashfuse) cmd=("$sqhl" -f "$2" "$scratch/m") ;;
	squashfuse-0.1) cmd=("$sqold" -f "$2" "$scratch/m") ;;
	erofsfuse) cmd=("$erofsfuse" -f "$2" "$scratch/m") ;;
	esac
	python3 - "$ready" "$scratch/m" "$probe" "$1" "${cmd[@]}" <<'PY'
import glob, os, resource, subprocess, sys, time
runs, mnt, rel, who, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
under = os.stat(mnt).st_dev
cpu, wall = [], []
def children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
for _ in range(runs):
    c0 = children()
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while os.stat(mnt).st_dev == under:
        if p.poll() is not None and who != "kernel":
            sys.exit(1)
        time.sleep(0.0002)
    os.stat(os.path.join(mnt, rel))
    wall.append(time.perf_counter() - t0)
    if who == "kernel":
        p.wait()
        cpu.append(children() - c0)
    else:
        ns = 0
        for f in glob.glob("/proc/%d/task/*/schedstat" % p.pid):
            try:
                ns += int(open(f).read().split()[0])
            except (OSError, ValueError):
                pass  # a thread that ended meanwhile
        cpu.append(ns / 1e9)
    down = ["umount", mnt] if who == "kernel" else ["fusermount3", "-u", mnt]
    subprocess.run(down, check=True)
    p.wait()
med = lambda v: sorted(v)[(len(v) - 1) // 2]
print("%.1f %.1f" % (med(cpu) * 1e3, med(wall) * 1e3))
PY
}
mnt_down() {
	if [ "$1" = kernel ]; then umount "$scratch/m"; else fusermount3 -u "$scratch/m"; fi
	[ -z "$mpid" ] || wait "$mpid"
}
read_all() {
	(cd "$scratch/m" && find . -type f -print0 | xargs -0 -P "$readers" -n 64 cat > /dev/null)
}
read_big() {
	cat "$scratch/m/$big" > /dev/null
}
stat_walk() {
	(cd "$scratch/m" && find . -printf '%s\n' > /dev/null)
}
random_reads() {
	python3 -c 'import os, random, sys
r = random.Random(1); f = os.open(sys.argv[1], os.O_RDONLY); n = os.fstat(f).st_size
for _ in range(int(sys.argv[2])): os.pread(f, 4096, r.randrange(0, max(1, n - 4096)))' \
		"$scratch/m/$big" "$random"
}
secs() { # secs COMMAND...: wall seconds, "nan" on failure
	local t0 t1
	t0=$(date +%s%N)
	"$@" || { echo nan; return; }
	t1=$(date +%s%N)
	awk -v d=$((t1 - t0)) 'BEGIN { printf "%.2f\n", d / 1e9 }'
}
# reclaim_start: a count of the FUSE mount's pages that reclaim takes
# out of the page cache until reclaim_end, which adds them to
# fig[$m.reclaimed].
reclaim_start() {
	[ -z "$mpid" ] || bench_count_start reclaimed "$scratch/m" \
		filemap:mm_filemap_delete_from_page_cache s_dev \
		'(comm ~ "kdamond*" || comm ~ "kswapd*")'
}
reclaim_end() {
	[ -n "$mpid" ] || return 0
	bench_count_end reclaimed
	[ "$count" = - ] || fig[$m.reclaimed]=$(( ${fig[$m.reclaimed]:-0} + count ))
}
# measure MOUNTER IMAGE: one run of every figure but ready's, appended
# to the mounter's lists in fig (cold, warm, again, random, seq, stat,
# cpu, rss: space-separated; reclaimed: a sum); 1 when a mount failed.
declare -A fig=()
measure() {
	local m=$1 img=$2 c0 c1 t k
	dd if="$img" iflag=nocache count=0 status=none
	mnt_up "$m" "$img" || return 1
	reclaim_start
	c0=$(mnt_cpu)
	fig[$m.cold]+="$(secs read_all) "
	fig[$m.again]+="$(secs read_all) "
	c1=$(mnt_cpu)
	reclaim_end
	fig[$m.rss]+="$(mnt_rss) "
	fig[$m.cpu]+="$(awk -v a="$c0" -v b="$c1" -v n="$bytes" 'BEGIN { if (a == "nan") print "nan"; else printf "%.2f\n", (b - a) / (2 * n / 1e9) }') "
	mnt_down "$m"
	for k in warm:read_all random:random_reads stat:stat_walk; do
		mnt_up "$m" "$img" || return 1
		fig[$m.${k%%:*}]+="$(secs "${k#*:}") "
		mnt_down "$m"
	done
	dd if="$img" iflag=nocache count=0 status=none
	mnt_up "$m" "$img" || return 1
	fig[$m.seq]+="$(secs read_big) "
	mnt_down "$m"
}
# row MOUNTER IMAGE READY REF: the mounter's table row, medians over the
# runs; READY is ready_of's figures, REF the reference peer's CPU ms
# (or "").
row() {
	local m=$1 img=$2 rcpu=${3% *} rwall=${3#* } ref=$4 x=- k cells=
	med() { if [ -n "$ready_only" ]; then echo -; else tr ' ' '\n' | sed '/^$/d' | bench_median; fi; }
	[ -n "$ref" ] && [ "$rcpu" != nan ] && x=$(awk -v a="$rcpu" -v b="$ref" 'BEGIN { printf "%.2fx\n", a / b }')
	for k in cold warm again random seq stat cpu rss; do
		cells+=" $(med <<< "${fig[$m.$k]:-}")"
		[ "$k" = again ] && [ "${fig[$m.reclaimed]:-0}" -gt 0 ] &&
			cells+=" (${fig[$m.reclaimed]} reclaimed)"
		cells+=" |"
	done
	echo "| ${img##*/} | $m |$cells $rcpu | $rwall | $x |"
}

echo "$tree: $readers readers, $random random reads in $big, $runs run(s); seconds; CPU: s/GB; RSS: MiB; ready: ms, median of $ready; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| image | mounter | cold | warm | again | random | seq | stat | CPU/GB | RSS | ready CPU | ready wall | ready x ref |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
# only_kept MOUNTER...: those of them that --mounters keeps.
only_kept() {
	local m kept=
	for m in "$@"; do
		case ",$only," in *",$m,"*) kept+=" $m" ;; esac
	done
	echo "${kept# }"
}

for img in "$sq_zstd" "$sq_xz" "$ero" "$ero_lzma" "$ero_frag"; do
	[ -n "$img" ] && [ -f "$img" ] || continue
	mounters="sqpack" refm=
	case $img in
	*.sqfs) [ -n "$sqll" ] && mounters+=" squashfuse_ll" refm=squashfuse_ll
		[ -n "$sqhl" ] && mounters+=" squashfuse"
		[ -n "$sqold" ] && mounters+=" squashfuse-0.1" ;;
	*.erofs) [ -n "$erofsfuse" ] && mounters+=" erofsfuse" refm=erofsfuse ;;
	esac
	[ "$(id -u)" = 0 ] && mounters+=" kernel"
	if [ -n "$only" ]; then
		mounters=$(only_kept $mounters)
		refm=${refm:+$(only_kept "$refm")}
	fi
	# The ready figures first, so that each row shows its ratio.
	declare -A rdy=()
	for m in $mounters; do
		rdy[$m]=$(ready_of "$m" "$img") || { rdy[$m]="nan nan"; status=1; }
	done
	ref=
	[ -n "$refm" ] && [ "${rdy[$refm]% *}" != nan ] && ref=${rdy[$refm]% *}
	fig=()
	failed=
	for ((r = 0; r < runs && !ready_only; r++)); do
		for m in $mounters; do
			measure "$m" "$img" || { failed+=" $m"; status=1; }
		done
	done
	for m in $mounters; do
		case " $failed " in
		*" $m "*) echo "| ${img##*/} | $m | - | - | - | - | - | - | - | - | - | - | - |" ;;
		*) row "$m" "$img" "${rdy[$m]}" "$ref" ;;
		esac
	done
	unset rdy
done

# The walk of many entries: its own table.
[ -n "$huge" ] || exit $status
probe=d000000/f0000.txt
mounters="sqpack"
[ -n "$sqll" ] && mounters+=" squashfuse_ll squashfuse_ll-s"
[ "$(id -u)" = 0 ] && mounters+=" kernel"
[ -z "$only" ] || mounters=$(only_kept $mounters)
fig=()
cat "$huge" > /dev/null
for ((r = 0; r < runs; r++)); do
	for m in $mounters; do
		mnt_up "$m" "$huge" || { fig[$m.stat]+="nan "; status=1; continue; }
		c0=$(mnt_cpu)
		fig[$m.stat]+="$(secs stat_walk) "
		c1=$(mnt_cpu)
		fig[$m.cpu]+="$(awk -v a="$c0" -v b="$c1" 'BEGIN { if (a == "nan") print "-"; else printf "%.2f\n", b - a }') "
		fig[$m.rss]+="$(mnt_rss) "
		mnt_down "$m"
	done
done
med() { tr ' ' '\n' | sed '/^$/d' | bench_median; }
echo
echo "${huge##*/}: $entries files, $(( entries / 1000 )) directories; one reader stat'ing every entry (find -printf %s), a fresh mount, the image cached; median of $runs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| image | mounter | walk s | mounter CPU s | RSS MiB |"
echo "|---|---|---|---|---|"
for m in $mounters; do
	echo "| ${huge##*/} | $m | $(med <<< "${fig[$m.stat]:-}") | $(med <<< "${fig[$m.cpu]:-}") | $(med <<< "${fig[$m.rss]:-}") |"
done
exit $status
