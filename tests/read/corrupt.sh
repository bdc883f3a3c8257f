#!/bin/sh
# SPDX-License-Identifier: MIT
# corrupt.sh - img2tar on broken images (mkcorrupt.py: truncations at many
# offsets, bad magic, tables past the end, huge counts, wrong or unknown
# compressor, flipped bits in metadata and data, a directory loop) must
# exit 1 with a message: no crash, no hang (each run has a time limit),
# and no tar that looks complete (no end-of-archive marker).
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs "$PYTHON3" timeout
[ -x "$IMG2TAR" ] || skip "img2tar not built"

T=$SCRATCH
corrupt_set "$T" || exit 99

"$IMG2TAR" "$T/good.img" > /dev/null && pass "the intact image converts" || fail "intact image"
while read -r name; do
	timeout 20 "$IMG2TAR" -j 2 "$T/bad/$name" > "$T/out.tar" 2> "$T/err"
	rc=$?
	# a complete tar ends with two zero blocks
	complete=no
	if [ -s "$T/out.tar" ] && [ "$(tail -c 1024 "$T/out.tar" | tr -d '\0' | wc -c)" -eq 0 ]; then
		complete=yes
	fi
	if [ $rc -eq 1 ] && [ -s "$T/err" ] && [ $complete = no ]; then
		pass "$name: exit 1: $(head -c 120 "$T/err")"
	else
		fail "$name: exit $rc, complete-looking tar: $complete, message: $(head -c 200 "$T/err")"
	fi
done < "$T/bad/cases.txt"
finish
