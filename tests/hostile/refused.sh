#!/bin/sh
# SPDX-License-Identifier: MIT
# refused.sh - crafted images whose root listing holds a name twice (a
# symlink out of the tree, then a directory of the same name: the shape
# of unsquashfs's CVE-2021-41072), is unsorted, or holds ".", "..", a
# '/' or a NUL byte (mkhostile.py) are refused with exit 1 and a message
# naming the directory, and no tar that looks complete.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs "$PYTHON3"
[ -x "$IMG2TAR" ] || skip "img2tar not built"

T=$SCRATCH
mkdir -p "$T/src/evim" "$T/src/kk" "$T/outside" "$T/bad"
ln -s "$T/outside" "$T/src/evil"
echo payload > "$T/src/evim/payload"
echo escape > "$T/src/kk/escape"
echo k > "$T/src/k"
mksquashfs "$T/src" "$T/raw.img" -noI -noD -noF -noX -noappend -quiet \
	-no-progress >/dev/null 2>&1 || exit 99
$PYTHON3 "$top_srcdir/tests/hostile/mkhostile.py" "$T/raw.img" "$T/bad" || exit 99

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
done < "$T/bad/cases.txt"
[ -z "$(ls -A "$T/outside")" ] && pass "nothing written outside" || fail "files appeared in outside/"
finish
