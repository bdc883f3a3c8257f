#!/bin/sh
# SPDX-License-Identifier: MIT
# metafail.sh - a metadata block whose compression fails on the pool (the
# writer's test hook, through tests/unit/hooked_tar2img -M N: the Nth block
# job of the inode and directory tables fails as a broken codec would)
# ends the run cleanly: exit 1, the compressor named, no output left, no
# hang; early, in the middle and at the end of some 470 blocks, serial
# and threaded (block 450: near the end, with room for the tables to
# shrink a little). A job number past the last block fails nothing.
. "$top_srcdir/tests/lib/common.sh"
need_tool "$PYTHON3" timeout
H="$top_builddir/tests/unit/hooked_tar2img"
[ -x "$H" ] || skip "hooked_tar2img not built"

T=$SCRATCH
$PYTHON3 "$top_srcdir/tests/tar2img/mkmeta.py" "$T/in.tar" "$T/paths" || exit 99
mkdir "$T/out"

# lz4 where it is built: a job fails whatever the codec, and zstd's
# default level took 1.3 CPU-s a run of the ten.
c=; ! codec_built lz4 || c="-c lz4"
for j in 1 2 4; do
	for n in 1 300 450; do
		rm -rf "$T/out" && mkdir "$T/out"
		timeout 120 "$H" $c -j $j -M $n "$T/out/img" "$T/in.tar" > "$T/stdout" 2> "$T/err"
		rc=$? left=$(ls -A "$T/out")
		if [ $rc -eq 1 ] && grep -q "metadata block.*compressor failed" "$T/err" &&
		   [ -z "$left" ] && [ ! -s "$T/stdout" ]; then
			pass "metadata job $n fails, -j $j: $(head -c 100 "$T/err")"
		else
			fail "metadata job $n fails, -j $j: exit $rc, left '$left': $(head -c 300 "$T/err")"
		fi
	done
done
rm -rf "$T/out" && mkdir "$T/out"
check "a job number past the last metadata block fails nothing" \
	"$H" $c -j 2 -M 100000 "$T/out/img" "$T/in.tar"
finish
