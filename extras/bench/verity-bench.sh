#!/bin/bash
# SPDX-License-Identifier: MIT
# verity-bench.sh - what --verity costs: for each codec (default lz4 and
# zstd), in the same run and interleaved so all see the same load,
#   1. tar2img -q -f -c CODEC -j N OUT TAR
#   2. tar2img -q -f -c CODEC -j N --verity OUT TAR
#   3. veritysetup format over image 1 (the two-pass way: pack, then hash)
# and print the median wall and CPU times as a Markdown table with
# tar2img --verity's extra time over plain tar2img, next to veritysetup
# format's time. With --compare OLD, a second tar2img (a build before a
# change) runs --verity in the same rounds: its extra time is a column of
# its own, so the two are compared under the same load. The floors of issue 25: the extra time is at most 10% at lz4, 2%
# at zstd, and at most a quarter of veritysetup format's time. The SHA-256
# floor column is what no implementation can go below: the image's size over
# this CPU's SHA-256 rate (`openssl speed -evp sha256` at 4 KiB), the
# CPU seconds the hashing alone takes; compare it with the cpu row's
# extra time. The last column, --verity's floor: in the cpu row, plain's
# CPU plus that; in the wall row, that CPU spread over every CPU (never
# below plain's wall time: what idle cores allow), then plain's wall
# time grown by the same ratio as its CPU (what a loaded machine allows,
# where --verity gets no larger share of the CPUs than plain got). Each
# run's
# root hash is checked against veritysetup format of that image with the
# same salt (a benchmark of a wrong tree would measure nothing).
# Exit status: 0 when every run succeeded (1 with --strict if a floor was
# missed), 1 when a tool failed or is missing, 2 for bad usage.
set -u
prog=${0##*/}
tar=/var/tmp/sqfs-bench/big.tar
codecs="lz4 zstd"
jobs=2
repeat=3
tar2img=${top_builddir:+$top_builddir/bin/tar2img}
compare=
scratch=
strict=no

usage() {
	cat <<USAGE
usage: $prog [options]
  --tar FILE        input (default $tar)
  --codecs "LIST"   codecs (default "$codecs")
  --jobs N          tar2img threads (default $jobs)
  --repeat N        runs per configuration, median reported (default $repeat)
  --tar2img PATH    tar2img to measure (default \$top_builddir/bin/tar2img)
  --compare PATH    another tar2img whose --verity runs in the same rounds
  --scratch DIR     where images go, in a directory made there and removed
                    after (default: next to the tar)
  --strict          exit 1 if a floor was missed
USAGE
}
need_arg() { [ $# -ge 2 ] || { echo "$prog: $1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
	case $1 in
	--tar) need_arg "$@"; tar=$2; shift 2 ;;
	--codecs) need_arg "$@"; codecs=$2; shift 2 ;;
	--jobs) need_arg "$@"; jobs=$2; shift 2 ;;
	--repeat) need_arg "$@"; repeat=$2; shift 2 ;;
	--tar2img) need_arg "$@"; tar2img=$2; shift 2 ;;
	--compare) need_arg "$@"; compare=$2; shift 2 ;;
	--scratch) need_arg "$@"; scratch=$2; shift 2 ;;
	--strict) strict=yes; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "$prog: --repeat '$repeat' is not a count" >&2; exit 2; }
[ -n "$tar2img" ] && [ -x "$tar2img" ] || { echo "$prog: no tar2img (--tar2img)" >&2; exit 1; }
[ -z "$compare" ] || [ -x "$compare" ] || { echo "$prog: $compare: not executable" >&2; exit 1; }
[ -r "$tar" ] || { echo "$prog: $tar: not readable" >&2; exit 1; }
command -v veritysetup > /dev/null || { echo "$prog: veritysetup not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "$prog: /usr/bin/time (GNU time) not installed" >&2; exit 1; }
command -v openssl > /dev/null || { echo "$prog: openssl not installed" >&2; exit 1; }
# bytes per second of SHA-256 over 4 KiB blocks (openssl prints 1000s)
sha_rate=$(openssl speed -evp sha256 -bytes 4096 -seconds 1 2> /dev/null |
	awk '$1 == "sha256" { sub(/k$/, "", $2); printf "%.0f", $2 * 1000 }')
[ -n "$sha_rate" ] || { echo "$prog: openssl speed gave no SHA-256 rate" >&2; exit 1; }
# a directory of its own inside DIR: the trap removes it, never DIR
scratch=$(mktemp -d "${scratch:-$(dirname "$tar")}/verity-bench.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT

# seconds CMD...: run, print "WALL CPU" (user + system) in seconds; 1 if
# it failed. CPU time is what a loaded, shared machine cannot blur.
seconds() {
	/usr/bin/time -f '%e %U %S' -o "$scratch/time" "$@" > "$scratch/out" 2> "$scratch/err" ||
		{ cat "$scratch/err" >&2; return 1; }
	awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$scratch/time"
}
wall() { echo "${1% *}"; }
cpu() { echo "${1#* }"; }
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

status=0
missed=0
load=$(cut -d' ' -f1 /proc/loadavg)
ccol= csep=
[ -n "$compare" ] && ccol=" --compare --verity s | its extra |" csep="---|---|"
echo "| codec | | tar2img s | tar2img --verity s | extra |$ccol veritysetup format s | extra / format | image MiB | SHA-256 floor s | --verity floor s (wall: idle / loaded) |"
echo "|---|---|---|---|---|$csep---|---|---|---|---|"
for codec in $codecs; do
	plain=() verity=() format=() cplain=() cverity=() cformat=() old=() cold=()
	for ((i = 0; i < repeat; i++)); do
		t=$(seconds "$tar2img" -q -f -c "$codec" -j "$jobs" "$scratch/plain.img" "$tar") ||
			{ status=1; continue 2; }
		plain+=("$(wall "$t")") cplain+=("$(cpu "$t")")
		t=$(seconds "$tar2img" -f -c "$codec" -j "$jobs" --verity "$scratch/v.img" "$tar") ||
			{ status=1; continue 2; }
		verity+=("$(wall "$t")") cverity+=("$(cpu "$t")")
		if [ -n "$compare" ]; then
			t=$(seconds "$compare" -f -c "$codec" -j "$jobs" --verity \
				"$scratch/old.img" "$tar") || { status=1; continue 2; }
			old+=("$(wall "$t")") cold+=("$(cpu "$t")")
			cmp -s "$scratch/old.img" "$scratch/v.img" || {
				echo "$prog: $codec: --compare's image is not the same" >&2
				status=1; continue 2; }
		fi
		line=$(grep '^  verity: ' "$scratch/out")
		root=$(sed -n 's/.*root hash \([0-9a-f]*\),.*/\1/p' <<< "$line")
		salt=$(sed -n 's/.*salt \([0-9a-f]*\),.*/\1/p' <<< "$line")
		rm -f "$scratch/plain.hash"
		t=$(seconds veritysetup format --salt="$salt" "$scratch/plain.img" \
			"$scratch/plain.hash") || { status=1; continue 2; }
		format+=("$(wall "$t")") cformat+=("$(cpu "$t")")
		grep -q "^Root hash:[[:space:]]*$root\$" "$scratch/out" || {
			echo "$prog: $codec: veritysetup format's root hash is not tar2img's" >&2
			status=1; continue 2; }
	done
	bytes=$(stat -c %s "$scratch/plain.img")
	mib=$((bytes >> 20))
	sha_floor=$(echo "scale=2; $bytes / $sha_rate" | bc)
	floor=$([ "$codec" = lz4 ] && echo 10 || echo 2)
	for kind in wall cpu; do
		if [ $kind = wall ]; then
			p=$(median "${plain[@]}") v=$(median "${verity[@]}") f=$(median "${format[@]}")
			o=$([ -n "$compare" ] && median "${old[@]}")
		else
			p=$(median "${cplain[@]}") v=$(median "${cverity[@]}")
			f=$(median "${cformat[@]}")
			o=$([ -n "$compare" ] && median "${cold[@]}")
		fi
		extra=$(echo "scale=1; 100 * ($v - $p) / $p" | bc)
		share=$(echo "scale=2; ($v - $p) / $f" | bc)
		cval=
		[ -n "$compare" ] && cval=" $o | $(echo "scale=1; 100 * ($o - $p) / $p" | bc)% |"
		# the least --verity can take (see the top)
		if [ $kind = wall ]; then
			pc=$(median "${cplain[@]}")
			vfloor=$(echo "scale=2; c = ($pc + $sha_floor) / $(nproc); if (c < $p) c = $p
				s = $p * ($pc + $sha_floor) / $pc; print c, \" / \", s" | bc)
		else
			vfloor=$(echo "scale=2; $p + $sha_floor" | bc)
		fi
		echo "| $codec | $kind | $p | $v | $extra% |$cval $f | $share | $mib | $sha_floor | $vfloor |"
		if [ "$(echo "$extra > $floor || $share > 0.25" | bc)" = 1 ]; then
			echo "$prog: $codec: $kind: floor missed (extra at most $floor%," \
				"at most 0.25 of format)" >&2
			missed=1
		fi
	done
done
echo "($repeat runs each, median; -j $jobs; $(basename "$tar"); $(nproc) CPUs;" \
	"SHA-256 $((sha_rate / 1000000)) MB/s; load before: $load, after:" \
	"$(cut -d' ' -f1 /proc/loadavg))"
[ "$strict" = yes ] && [ "$missed" = 1 ] && status=1
exit $status
