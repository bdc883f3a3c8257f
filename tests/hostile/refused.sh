#!/bin/sh
# SPDX-License-Identifier: MIT
# refused.sh - crafted images whose root listing holds a name twice (a
# symlink out of the tree, then a directory of the same name: the shape
# of unsquashfs's CVE-2021-41072), is unsorted, or holds ".", "..", a
# '/' or a NUL byte (mkhostile.py) are refused with exit 1 and a message
# naming the directory: by img2tar, with no tar that looks complete, and
# by img2dir, which must not have written anything outside its target
# (the symlink evil points at outside/, which must stay empty).
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs "$PYTHON3"
IMG2DIR="$SQP_BIN/img2dir"
[ -x "$IMG2TAR" ] || skip "img2tar not built"
[ -x "$IMG2DIR" ] || skip "img2dir not built"

T=$SCRATCH
hostile_set "$T" || exit 99

check "the unpatched image converts" sh -c '"$1" "$2" > /dev/null' - "$IMG2TAR" "$T/raw.img"
while read -r name; do
	"$IMG2TAR" -j 2 "$T/bad/$name" > "$T/out.tar" 2> "$T/err"
	rc=$?
	complete=no
	if [ -s "$T/out.tar" ] && [ "$(tail -c 1024 "$T/out.tar" | tr -d '\0' | wc -c)" -eq 0 ]; then
		complete=yes
	fi
	if [ $rc -eq 1 ] && grep -q 'directory inode' "$T/err" && [ $complete = no ]; then
		pass "img2tar $name: $(head -c 120 "$T/err")"
	else
		fail "img2tar $name: exit $rc, complete tar: $complete: $(head -c 200 "$T/err")"
	fi
	rm -rf "$T/x"
	"$IMG2DIR" -j 2 "$T/bad/$name" "$T/x" 2> "$T/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'directory inode' "$T/err"; then
		pass "img2dir $name: $(head -c 120 "$T/err")"
	else
		fail "img2dir $name: exit $rc: $(head -c 200 "$T/err")"
	fi
done < "$T/bad/cases.txt"
rm -rf "$T/x"
"$IMG2DIR" "$T/raw.img" "$T/x" && [ -L "$T/x/evil" ] && [ -f "$T/x/evim/payload" ] &&
	pass "img2dir extracts the unpatched image" || fail "img2dir of the unpatched image"
[ -z "$(ls -A "$T/outside")" ] && pass "nothing written outside" || fail "files appeared in outside/"
finish
