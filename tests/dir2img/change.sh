#!/bin/sh
# SPDX-License-Identifier: MIT
# change.sh - a file truncated by another process while dir2img reads it.
# By default: exit 1 with a message naming the file, and no OUTPUT (nor
# its temporary file). With --on-change=warn: exit 0, a warning naming the
# file, and the file stored as documented: the size it had when opened,
# the bytes read before the truncation, zeros after.
. "$top_srcdir/tests/lib/common.sh"
DIR2IMG="$SQP_BIN/dir2img"
need_tool unsquashfs "$PYTHON3"
T=$SCRATCH
SIZE=50331648

make_src() {
	rm -rf "$T/src" && mkdir -p "$T/src"
	echo small > "$T/src/a-small"
	head -c $((SIZE / 4 * 3)) /dev/urandom | base64 -w 0 > "$T/src/big"
	cp "$T/src/big" "$T/orig"
}
# truncate_when_writing DIR: once the image being written in DIR passes
# 1 MiB (the big file is then being read), cut the big file to 4 KiB.
truncate_when_writing() {
	n=0
	while [ $n -lt 600 ]; do
		s=$(find "$1" -name '.*.tmp' -size +1024k 2>/dev/null | head -1)
		if [ -n "$s" ]; then truncate -s 4096 "$T/src/big"; return 0; fi
		sleep 0.05; n=$((n + 1))
	done
	return 1
}

make_src
mkdir -p "$T/out1"
truncate_when_writing "$T/out1" & watcher=$!
"$DIR2IMG" -q -j 1 -c xz "$T/out1/img" "$T/src" 2> "$T/err1"
rc=$?
wait $watcher; truncated=$?
if [ $truncated -ne 0 ]; then
	skip "the image never reached 1 MiB: cannot time the truncation"
fi
check "truncated during the read: exit 1 (got $rc)" test $rc = 1
check "the message names the file" grep -q "'big': changed while it was read" "$T/err1"
check "no OUTPUT and no temporary file" test -z "$(ls -A "$T/out1")"

make_src
mkdir -p "$T/out2"
truncate_when_writing "$T/out2" & watcher=$!
"$DIR2IMG" -q -j 1 -c xz --on-change=warn "$T/out2/img" "$T/src" 2> "$T/err2"
rc=$?
wait $watcher
check "--on-change=warn: exit 0 (got $rc)" test $rc = 0
check "--on-change=warn: a warning names the file" grep -q "warning: 'big': changed" "$T/err2"
rm -rf "$T/u"
unsquashfs -q -n -d "$T/u" "$T/out2/img" >/dev/null 2>&1
check "--on-change=warn: stored with its size when opened" test "$(stat -c %s "$T/u/big" 2>/dev/null)" = $SIZE
check "--on-change=warn: what was read kept, zeros after the cut" \
	$PYTHON3 -c 'import sys
got = open(sys.argv[1], "rb").read(); orig = open(sys.argv[2], "rb").read()
assert got[:1 << 20] == orig[:1 << 20]
assert got[-(1 << 20):] == bytes(1 << 20)
cut = len(got.rstrip(b"\0"))
assert got[:cut] == orig[:cut], cut' "$T/u/big" "$T/orig"
check "--on-change=warn: the other files intact" test "$(cat "$T/u/a-small")" = small
finish
