#!/bin/sh
# SPDX-License-Identifier: MIT
# slurm-shards.sh - one SquashFS or EROFS image built by a Slurm job
# array: array task I packs shard I of N of the input (dir2img or tar2img
# --shard I/N, -j from SLURM_CPUS_ON_NODE, the CPUs Slurm gave the task,
# not the node's), and a job that depends on the whole array merges the
# shards (img2img --shards --plan, with the plan --shard-plan made at
# submission, so a missing shard is refused). The merge is submitted with
# --kill-on-invalid-dep=yes: without it a merge whose array had a failed
# task would wait in the queue forever.
#
# Usage: slurm-shards.sh [-n N] [-d DIR] [-W] [-s SBATCH-OPTIONS]
#                        OUTPUT INPUT [PACKER-OPTION...]
#   INPUT       a directory (dir2img) or a tar file (tar2img; a file, not
#               a pipe: each task reads its headers)
#   -n N        shards, the array's size (default 4)
#   -d DIR      where the shards and the jobs' logs go (default
#               OUTPUT.shards); OUTPUT, DIR and INPUT must be on a file
#               system every node sees
#   -W          wait for the merge and exit with its status (sbatch --wait)
#   -s OPTIONS  more sbatch options for both jobs (split on spaces), e.g.
#               "-p batch -t 2:00:00 -c 16"
#   PACKER-OPTIONs go to dir2img or tar2img (-c zstd, -b 1M, --format
#               erofs, ...); the merge keeps the shards' codec and format.
# The sqpack programs are found on PATH (sbatch passes the environment),
# or in $SQPACK_BIN. Prints the two job ids. The shards stay in DIR.
set -u
me=slurm-shards.sh
bin=${SQPACK_BIN:+$SQPACK_BIN/}

# A job's part: "--task build N DIR INPUT OPTION..." in array task I,
# "--task merge N DIR OUTPUT" in the merge job.
if [ "${1:-}" = --task ]; then
	task=$2 n=$3 dir=$4 target=$5
	shift 5
	jobs=${SLURM_CPUS_ON_NODE:-1}
	case $task in
	build)
		i=${SLURM_ARRAY_TASK_ID:?"$me: not in an array task"}
		packer=tar2img
		[ ! -d "$target" ] || packer=dir2img
		exec "${bin}$packer" -q -f -j "$jobs" --shard "$i/$n" "$@" \
			"$dir/shard.$i.img" "$target";;
	merge)
		set --
		i=1
		while [ "$i" -le "$n" ]; do
			set -- "$@" "$dir/shard.$i.img"
			i=$((i + 1))
		done
		exec "${bin}img2img" -q -f -j "$jobs" --shards --plan "$dir/plan" \
			"$target" "$@";;
	esac
	echo "$me: unknown task '$task'" >&2
	exit 2
fi

usage() {
	echo "usage: $me [-n N] [-d DIR] [-W] [-s SBATCH-OPTIONS] OUTPUT INPUT [PACKER-OPTION...]" >&2
	exit 2
}
n=4 dir= wait= extra=
while getopts n:d:Ws: opt; do
	case $opt in
	n) n=$OPTARG;;
	d) dir=$OPTARG;;
	W) wait=--wait;;
	s) extra=$OPTARG;;
	*) usage;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
case $n in ''|*[!0-9]*|0) echo "$me: -n '$n': a number of shards" >&2; exit 2;; esac
output=$1 input=$2
shift 2
[ -e "$input" ] || { echo "$me: $input: no such file or directory" >&2; exit 1; }
# Absolute paths: the jobs start in the submitting directory, but a
# relative path in a log is no help.
abs() { case $1 in /*) echo "$1";; *) echo "$PWD/$1";; esac; }
output=$(abs "$output") input=$(abs "$input")
dir=$(abs "${dir:-$output.shards}")
mkdir -p "$dir" || exit 1
self=$(abs "$0")
# The plan first (no data read): the merge refuses shards that are not
# all of its N, in order.
packer=tar2img
[ ! -d "$input" ] || packer=dir2img
"${bin}$packer" --shard-plan "$n" "$@" "$input" > "$dir/plan" ||
	{ echo "$me: no plan of $n shards; nothing submitted" >&2; exit 1; }

# shellcheck disable=SC2086
array=$(sbatch --parsable $extra --job-name=sqpack-shard --array="1-$n" \
	--output="$dir/shard.%a.log" "$self" --task build "$n" "$dir" "$input" "$@") ||
	{ echo "$me: sbatch of the shards failed" >&2; exit 1; }
array=${array%%;*}
echo "shards: job array $array (1-$n) into $dir"
# shellcheck disable=SC2086
merge=$(sbatch --parsable $extra $wait --job-name=sqpack-merge \
	--dependency="afterok:$array" --kill-on-invalid-dep=yes \
	--output="$dir/merge.log" "$self" --task merge "$n" "$dir" "$output")
rc=$?
merge=${merge%%;*}
echo "merge: job $merge into $output"
[ -n "$wait" ] && [ -n "$merge" ] || exit $rc
# sbatch --wait exits 0 for a merge cancelled because a shard failed
# (the dependency can never be met): ask how the job ended. It returns
# once the job's script has ended, and on a busy node slurmd may not
# have cleaned up yet: the state reads COMPLETING (whether it completed
# or was cancelled) for a moment, so wait for the final one (a minute
# at most).
k=0
while :; do
	state=$(scontrol show job -o "$merge" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p')
	case $state in
	COMPLETING|CONFIGURING|PENDING|RUNNING) ;;
	*) break;;
	esac
	[ $k -lt 120 ] || break
	sleep 0.5
	k=$((k + 1))
done
case $state in
COMPLETED) exit $rc;;
'') exit $rc;;   # already forgotten (MinJobAge): sbatch's status stands
esac
echo "$me: the merge job $merge ended $state; the shards' logs are in $dir" >&2
exit 1
