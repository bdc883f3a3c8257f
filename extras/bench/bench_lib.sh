# SPDX-License-Identifier: MIT
# bench_lib.sh - sourced by the reader benchmarks (img2dir-, unsquashfs-,
# img2tar- and img2img-bench.sh, and the FUSE ones, fuse-bench.sh and
# fuse-readers.sh): what they did alike, written once, so
# that a corpus or a tool that is missing is refused in one way and
# every figure is measured and summarised by the same code.
#
# bench_bindir DIR: DIR, or when it is empty the build's bin/ (the
# top_builddir make passes, else the tree this file is in).
# bench_unwrap: when $bin holds libtool's wrapper scripts (a shared
# build), bin becomes the programs' own directory ($bin/.libs) and the
# library's goes first on LD_LIBRARY_PATH, as the wrapper does: the
# wrapper costs a shell and three seds per call, about 20 ms of CPU,
# which a run of a tenth of a second would be timed with.
# bench_need_bins BINDIR TOOL...: exit 1 unless each TOOL is built there.
# bench_need_cmds CMD...: exit 1 unless each CMD is installed.
# bench_need_corpus PATH: exit 1 unless the corpus file or tree exists.
# bench_timed FILES FORMAT COMMAND...: COMMAND's /usr/bin/time figures
# (FORMAT: '%e', '%e %M', ...), its output dropped; on failure its
# message on stderr and one "nan" per figure. FILES is a path prefix for
# the time and error files.
# bench_extract OUT COMMAND...: "wall-s rss-KiB cpu-s" (CPU: user +
# system) of an extraction into OUT, which is removed before and after
# (files: $work/extract); "nan nan nan" when it failed.
# bench_median: the median of the numbers on stdin (the lower middle
# one of an even count), "nan" when there are none.
# bench_proc_cpu PID: PID's CPU seconds so far (user + system, every
# thread, from /proc); bench_proc_faults PID: its minor faults so far;
# bench_proc_rss PID: its peak RSS (VmHWM), MiB. For a process that
# serves others (a FUSE mounter), whose time /usr/bin/time cannot see.
# bench_count_start NAME MNT EVENT FIELD [FILTER]: a system-wide count
# (perf) of the tracepoint EVENT where its FIELD is MNT's device (a
# dev_t as the kernel writes it) and FILTER holds, into $scratch/NAME,
# until bench_count_end NAME, which leaves it in count ("-" without
# perf or a mount). Neither in a subshell: perf is the shell's child. It
# is asked to stop until it does: a SIGINT before perf sets its handler
# is ignored (an asynchronous command's is, in a script).
# bench_extract_args ARGS...: the options img2dir- and unsquashfs-bench.sh
# share (--corpus --tree --codecs --jobs --runs --bin --out --unsquashfs)
# into corpus, tree, codecs, jobs, runs, bin, out_dir and unsquashfs
# (the peer's path: squashfs-tools 4.7.5 built from its source, say),
# given their defaults first.

bench_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

bench_bindir() {
	if [ -n "$1" ]; then echo "$1"; else echo "${top_builddir:-$bench_here/../..}/bin"; fi
}

bench_unwrap() {
	if grep -qs 'temporary wrapper script' "$bin/tar2img" && [ -x "$bin/.libs/tar2img" ] &&
	   [ -d "$bin/../.libs" ]; then
		LD_LIBRARY_PATH=$(cd "$bin/../.libs" && pwd)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
		bin=$bin/.libs
	fi
}

bench_need_bins() {
	local dir=$1 t
	shift
	for t in "$@"; do
		[ -x "$dir/$t" ] || { echo "$0: $t not found in $dir" >&2; exit 1; }
	done
}

bench_need_cmds() {
	local c
	for c in "$@"; do
		command -v "$c" > /dev/null || { echo "$0: $c not installed" >&2; exit 1; }
	done
}

bench_need_corpus() {
	[ -e "$1" ] ||
		{ echo "$0: $1 missing; build the corpus with ../shared/bench/make-corpus.sh" >&2; exit 1; }
}

bench_timed() {
	local files=$1 format=$2
	shift 2
	if /usr/bin/time -o "$files.time" -f "$format" "$@" > /dev/null 2> "$files.err"; then
		cat "$files.time"
	else
		echo "FAILED: $*: $(head -c 300 "$files.err")" >&2
		# one "nan" per figure of FORMAT
		echo "$format" | awk '{ for (i = 1; i <= NF; i++) printf "%snan", (i > 1 ? " " : ""); print "" }'
	fi
}

bench_extract() {
	local out=$1
	shift
	rm -rf "$out"
	bench_timed "$work/extract" '%e %M %U %S' "$@" |
		awk '{ print $1, $2, ($3 == "nan" ? "nan" : $3 + $4) }'
	rm -rf "$out"
}

bench_median() {
	sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "nan" }'
}

bench_proc_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz }' \
		"/proc/$1/stat"
}

bench_proc_faults() {
	awk '{ sub(/.*\) /, ""); print $8 }' "/proc/$1/stat"
}

bench_proc_rss() {
	awk '/^VmHWM:/ { printf "%.0f\n", $2 / 1024 }' "/proc/$1/status"
}

declare -A bench_counting=()
bench_count_start() {
	local dev
	bench_counting[$1]=
	command -v perf > /dev/null && dev=$(mountpoint -d "$2" 2> /dev/null) ||
		return 0
	perf stat -a -x, -o "$scratch/$1" -e "$3" \
		--filter "$4 == $(( ${dev%%:*} << 20 | ${dev#*:} ))${5:+ && $5}" \
		2> /dev/null &
	bench_counting[$1]=$!
	sleep 0.5      # its counters open before the reads start
}

bench_count_end() {
	local i

	count=
	if [ -n "${bench_counting[$1]}" ]; then
		for ((i = 0; i < 100; i++)); do
			kill -INT "${bench_counting[$1]}" 2> /dev/null
			sleep 0.1
			case $(ps -o stat= -p "${bench_counting[$1]}") in ''|Z*) break ;; esac
		done
		wait "${bench_counting[$1]}"
		count=$(awk -F, 'NR > 1 && $3 ~ /:/ { print $1 }' "$scratch/$1")
	fi
	case $count in ''|*[!0-9]*) count=- ;; esac
}

bench_extract_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--corpus) corpus=$2; shift ;;
		--tree) tree=$2; shift ;;
		--codecs) codecs=$2; shift ;;
		--jobs) jobs=$2; shift ;;
		--runs) runs=$2; shift ;;
		--bin) bin=$2; shift ;;
		--out) out_dir=$2; shift ;;
		--unsquashfs) unsquashfs=$2; shift ;;
		-h|--help)
			echo "usage: $0 [--corpus DIR] [--tree big|small] [--codecs LIST] [--jobs N] [--runs N] [--bin BUILD/bin] [--out TMPFS-DIR] [--unsquashfs PATH]"
			exit 0 ;;
		*) echo "$0: unknown argument $1" >&2; exit 2 ;;
		esac
		shift
	done
}
