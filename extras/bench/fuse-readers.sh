#!/bin/bash
# SPDX-License-Identifier: MIT
# fuse-readers.sh - issue 41's parallel readers, one row per mount, to
# see where the CPU goes: a fresh mount of IMAGE by each MOUNTER in turn
# (a FUSE program run as `PROG -f IMAGE MNT`, or `kernel` for mount(8),
# root), every file read by --readers readers (find -print0 | xargs -0
# -P N -n 64 cat), then the same again on that mount. Cold (the image's
# pages dropped first: posix_fadvise through dd iflag=nocache) or warm
# (the image read into the page cache first). Per run: wall and the
# readers' CPU (GNU time), the daemon's CPU (user + system, all its
# threads, /proc) for the read and for the read again, its minor faults
# and peak RSS (VmHWM), and the load average before and after. With
# perf (root), what the kernel did on the mount: the READ requests the
# read again sent a FUSE mounter (none when the page cache served it
# all: fuse:fuse_request_send on the mount's connection), and the
# mount's pages that reclaim took out of the page cache during both
# reads (filemap:mm_filemap_delete_from_page_cache by kswapd, or by
# kdamond, DAMON's proactive reclaim, which where it is set up pages
# out page cache left unread a while): a read again of those reads the
# image again, for every mounter alike. The kernel's mount shows "-"
# for both (its SquashFS also takes pages out on its own, a page a file
# on big.tar's tree, which a count by device cannot tell apart).
# fuse-bench.sh gives the medians of whole tables; this gives the rows.
# Exit status: 0 when every mount and read succeeded, 1 when one failed,
# 2 for bad usage.
set -u
prog=${0##*/}
. "$(cd "$(dirname "$0")" && pwd)/bench_lib.sh"
mode=cold rounds=1 readers=8 scratch=/var/tmp/fuse-readers

usage() {
	echo "usage: $prog [--mode cold|warm] [--rounds N] [--readers N]" \
	     "[--scratch DIR] IMAGE MOUNTER..." >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--mode) [ $# -ge 2 ] || usage; mode=$2; shift 2 ;;
	--rounds) [ $# -ge 2 ] || usage; rounds=$2; shift 2 ;;
	--readers) [ $# -ge 2 ] || usage; readers=$2; shift 2 ;;
	--scratch) [ $# -ge 2 ] || usage; scratch=$2; shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "$prog: $1: unknown option" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || usage
case $mode in cold|warm) ;; *) echo "$prog: --mode: cold or warm" >&2; usage ;; esac
case $rounds$readers in *[!0-9]*) echo "$prog: --rounds and --readers take numbers" >&2; usage ;; esac
img=$1; shift
[ -r "$img" ] || { echo "$prog: $img: cannot read" >&2; exit 1; }
mnt=$scratch/mnt
mkdir -p "$mnt" || exit 1
status=0

# One read of the whole tree: "WALL s, readers CPU s".
read_all() {
	/usr/bin/time -f '%e %U %S' -o "$scratch/time" sh -c \
		"cd '$mnt' && find . -type f -print0 | xargs -0 -P $readers -n 64 cat > /dev/null" ||
		return 1
	awk '{ printf "%.2f s, readers %.2f s", $1, $2 + $3 }' "$scratch/time"
}

echo "| mounter | $mode read | daemon CPU s | again | daemon CPU s | again READs | pages reclaimed | minor faults | peak RSS MiB | load |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for ((r = 0; r < rounds; r++)); do
	for m in "$@"; do
		if [ "$mode" = cold ]; then
			dd if="$img" iflag=nocache count=0 status=none
		else
			cat "$img" > /dev/null
		fi
		load0=$(cut -d' ' -f1 /proc/loadavg)
		pid=
		if [ "$m" = kernel ]; then
			mount -o loop,ro "$img" "$mnt" || { status=1; continue; }
		else
			"$m" -f "$img" "$mnt" > /dev/null 2>&1 &
			pid=$!
			for ((i = 0; i < 500; i++)); do
				mountpoint -q "$mnt" && break
				kill -0 "$pid" 2> /dev/null || break
				sleep 0.01
			done
			if ! mountpoint -q "$mnt"; then
				echo "$prog: $m: did not mount $img" >&2
				kill "$pid" 2> /dev/null
				wait "$pid"
				status=1
				continue
			fi
		fi
		[ -z "$pid" ] ||
			bench_count_start reclaimed "$mnt" filemap:mm_filemap_delete_from_page_cache \
				s_dev '(comm ~ "kdamond*" || comm ~ "kswapd*")'
		a=$(read_all) || status=1
		c1=${pid:+$(bench_proc_cpu "$pid")}
		[ -z "$pid" ] || bench_count_start reads "$mnt" fuse:fuse_request_send \
			connection 'opcode == 15'
		b=$(read_all) || status=1
		c2=${pid:+$(bench_proc_cpu "$pid")}
		reads=- reclaimed=-
		if [ -n "$pid" ]; then
			bench_count_end reads
			reads=$count
			bench_count_end reclaimed
			reclaimed=$count
		fi
		again=- faults=- hwm=-
		if [ -n "$pid" ]; then
			again=$(awk -v a="$c1" -v b="$c2" 'BEGIN { printf "%.2f", b - a }')
			faults=$(bench_proc_faults "$pid")
			hwm=$(bench_proc_rss "$pid")
		fi
		echo "| ${m##*/} | $a | ${c1:--} | $b | $again | $reads | $reclaimed | $faults | $hwm |" \
		     "$load0-$(cut -d' ' -f1 /proc/loadavg) |"
		if [ -n "$pid" ]; then
			fusermount3 -u "$mnt" || status=1
			wait "$pid"
		else
			umount "$mnt" || status=1
		fi
	done
done
rm -f "$scratch/time" "$scratch/reads" "$scratch/reclaimed"
rmdir "$mnt" 2> /dev/null
exit $status
