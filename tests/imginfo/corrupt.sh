#!/bin/sh
# SPDX-License-Identifier: MIT
# corrupt.sh - imginfo on broken images (tests/read/mkcorrupt.py:
# truncations, bad superblocks and tables, flipped bits, a directory
# loop): summary, ls -lR, stat, cat and diff either succeed (a defect
# in data they do not read) or exit 1 (diff: 2) with an "imginfo:"
# message; never a crash, a hang or a sanitizer report. The directory
# loop must be refused by every command that walks the tree.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs "$PYTHON3" timeout
IMGINFO=$SQP_BIN/imginfo
T=$SCRATCH
corrupt_set "$T" || exit 99

# run WANT-ON-ERROR NAME ARGS...: exit 0, or WANT with a message
run() {
	want=$1 name=$2; shift 2
	timeout 20 "$IMGINFO" "$@" > /dev/null 2> "$T/err"
	rc=$?
	if grep -q 'Sanitizer\|runtime error' "$T/err" ||
	   { [ $rc -ne 0 ] && { [ $rc -ne "$want" ] || ! grep -q '^imginfo: ' "$T/err"; }; }; then
		fail "$name: imginfo $1 exits $rc"; head -c 400 "$T/err"
		return 1
	fi
	return 0
}
n=0
while read -r name; do
	img=$T/bad/$name
	run 1 "$name" summary "$img" && run 1 "$name" ls -lR "$img" &&
		run 1 "$name" stat "$img" / d/f1 link &&
		run 1 "$name" cat "$img" big d/f7 &&
		run 2 "$name" diff "$T/good.img" "$img" && n=$((n + 1))
done < "$T/bad/cases.txt"
check "every corrupt image ($n) gives a result or a message" test "$n" -eq "$(wc -l < "$T/bad/cases.txt")"
for cmd in summary "ls -R" ; do
	# shellcheck disable=SC2086
	timeout 20 "$IMGINFO" $cmd "$T/bad/directory-loop.img" > /dev/null 2> "$T/err"
	check "directory loop: $cmd exits 1" test $? -eq 1
	check "directory loop: $cmd says so" grep -q "reached twice" "$T/err"
done
timeout 20 "$IMGINFO" diff "$T/raw.img" "$T/bad/directory-loop.img" > /dev/null 2> "$T/err"
check "directory loop: diff exits 2" test $? -eq 2
check "directory loop: diff says so" grep -q "reached twice" "$T/err"
finish
