#!/bin/sh
# SPDX-License-Identifier: MIT
# hashfail.sh - a hash job of --verity that fails on the pool's worker
# ends the run cleanly: exit 1, "hashing the image for dm-verity" named,
# no output left, no hang. The writer's test hook (hooked_tar2img -F N:
# the Nth job the data path's pool runs fails) counts the hash jobs with
# the data jobs, so every N up to the last job is tried, at -j 1, 2 and
# 3 (until the first N that fails nothing): a data job's failure is
# named as compression, a hash job's as hashing. The number of jobs does
# not depend on -j (which of them are hash jobs does, on the workers'
# timing; the last is always the hash job of the last data block).
# Hash jobs are the pool's background jobs, taken back in any order:
# without the latch of their errors (reap_hashes in compress.c) the run
# would go on and write a tree with a digest missing.
. "$top_srcdir/tests/lib/common.sh"
. "$top_srcdir/tests/verity/vlib.sh"
need_tool timeout
H="$top_builddir/tests/unit/hooked_tar2img"
[ -x "$H" ] || skip "hooked_tar2img not built"
T=$SCRATCH
# 8 blocks of random bytes (a hash job each: stored raw, 32 verity
# blocks) and text whose compressed blocks leave carries.
mkdir -p "$T/src" &&
	head -c 1000000 /dev/urandom > "$T/src/random" &&
	seq 1 100000 > "$T/src/text" &&
	tar -C "$T/src" -cf "$T/in.tar" . || exit 99
mkdir "$T/out"

for j in 1 2 3; do
	n=1 hashes=0 bad=0
	while [ $n -le 200 ]; do
		rm -rf "$T/out" && mkdir "$T/out"
		timeout 120 "$H" -c lz4 -j $j -V -F $n "$T/out/img" "$T/in.tar" \
			> "$T/stdout" 2> "$T/err"
		rc=$? left=$(ls -A "$T/out")
		[ $rc = 0 ] && break
		if [ $rc = 1 ] && [ -z "$left" ] && [ ! -s "$T/stdout" ] &&
		   grep -q "hashing the image for dm-verity: the compressor failed" "$T/err"; then
			hashes=$((hashes + 1))
		elif [ $rc = 1 ] && [ -z "$left" ] && [ ! -s "$T/stdout" ] &&
		     grep -q "compressing a block: the compressor failed" "$T/err"; then
			:
		else
			bad=$((bad + 1))
			fail "-j $j, job $n fails: exit $rc, left '$left': $(head -c 300 "$T/err")"
		fi
		n=$((n + 1))
	done
	jobs=$((n - 1))
	check "-j $j: a failing job ends every run but past the last ($jobs jobs)" \
		test $rc = 0 -a $bad = 0
	check "-j $j: hash jobs fail as hashing ($hashes of $jobs)" test $hashes -gt 0
	[ $j = 1 ] && { jobs1=$jobs; continue; }
	check "-j $j: as many jobs as -j 1" test "$jobs" = "$jobs1"
done
finish
