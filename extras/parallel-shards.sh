#!/bin/sh
# SPDX-License-Identifier: MIT
# parallel-shards.sh - one SquashFS or EROFS image built on several
# machines with GNU parallel over ssh: shard I of N of the input packed
# on whichever host parallel picks (dir2img or tar2img --shard I/N, with
# -j that host's CPU count), one shard per host at a time, then merged
# here (img2img --shards --plan, with the plan --shard-plan made first,
# so a missing shard is refused) once every shard is built. parallel
# stops at the first failed shard (--halt now,fail=1): nothing merged.
#
# Usage: parallel-shards.sh -S HOSTS [-n N] [-d DIR] OUTPUT INPUT [PACKER-OPTION...]
#   -S HOSTS   parallel's --sshlogin list: "host1,host2" or "4/host1,..."
#              (":" is this machine); each must reach INPUT and DIR at the
#              same paths (a shared file system) and have sqpack on PATH
#              (or in $SQPACK_BIN there)
#   -n N       shards (default: twice the hosts, so a slow one holds less)
#   -d DIR     where the shards go (default OUTPUT.shards)
#   PACKER-OPTIONs go to dir2img or tar2img on every host.
set -u
me=parallel-shards.sh
usage() {
	echo "usage: $me -S HOSTS [-n N] [-d DIR] OUTPUT INPUT [PACKER-OPTION...]" >&2
	exit 2
}
hosts= n= dir=
while getopts S:n:d: opt; do
	case $opt in
	S) hosts=$OPTARG;;
	n) n=$OPTARG;;
	d) dir=$OPTARG;;
	*) usage;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] && [ -n "$hosts" ] || usage
command -v parallel > /dev/null 2>&1 || { echo "$me: GNU parallel not installed" >&2; exit 1; }
[ -n "$n" ] || n=$(( $(echo "$hosts" | tr ',' '\n' | grep -c .) * 2 ))
case $n in ''|*[!0-9]*|0) echo "$me: -n '$n': a number of shards" >&2; exit 2;; esac
abs() { case $1 in /*) echo "$1";; *) echo "$PWD/$1";; esac; }
output=$(abs "$1") input=$(abs "$2")
shift 2
[ -e "$input" ] || { echo "$me: $input: no such file or directory" >&2; exit 1; }
dir=$(abs "${dir:-$output.shards}")
mkdir -p "$dir" || exit 1
packer=tar2img
[ ! -d "$input" ] || packer=dir2img
bin=${SQPACK_BIN:+$SQPACK_BIN/}

# One command line per shard, run by a remote shell: its words quoted
# for it here; $(nproc) left for the host that runs it.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
opts=
for o in "$@"; do
	opts="$opts $(q "$o")"
done
# The plan first (no data read): the merge refuses shards that are not
# all of its N, in order.
"${bin}$packer" --shard-plan "$n" "$@" "$input" > "$dir/plan" ||
	{ echo "$me: no plan of $n shards; nothing built" >&2; exit 1; }
cmd="$(q "${bin}$packer") -q -f -j \$(nproc) --shard {}/$n$opts $(q "$dir")/shard.{}.img $(q "$input")"
seq 1 "$n" | parallel --will-cite -S "$hosts" -j 1 --halt now,fail=1 "$cmd" ||
	{ echo "$me: a shard failed; nothing merged" >&2; exit 1; }
set --
i=1
while [ "$i" -le "$n" ]; do
	set -- "$@" "$dir/shard.$i.img"
	i=$((i + 1))
done
exec "${bin}img2img" -q -f --shards --plan "$dir/plan" "$output" "$@"
