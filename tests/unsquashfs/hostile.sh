#!/bin/sh
# SPDX-License-Identifier: MIT
# hostile.sh - the crafted images of tests/hostile (a root listing with a
# name twice - a symlink out of the tree, then a directory of the same
# name, CVE-2021-41072's shape -, unsorted, or holding ".", "..", a '/'
# or a NUL byte) are refused with exit 1 by sqpack-unsquashfs (extracting,
# into a fresh and an existing DEST, with -f, and listing) and by sqfscat,
# and nothing is written outside DEST: the symlink evil points at
# outside/, which must stay empty. The unpatched image extracts.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs "$PYTHON3"
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
SQFSCAT=$(dirname "$UNSQ")/sqfscat
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
[ -x "$SQFSCAT" ] || skip "sqfscat not built"

T=$SCRATCH
hostile_set "$T" || exit 99

refused() { # refused DESCRIPTION CMD...: exit 1 with a message naming the directory
	desc=$1; shift
	"$@" > /dev/null 2> "$T/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'directory inode' "$T/err"; then
		pass "$desc: $(head -c 100 "$T/err")"
	else
		fail "$desc: exit $rc: $(head -c 200 "$T/err")"
	fi
}
n=0
while read -r name; do
	rm -rf "$T/x"
	refused "extract $name" "$UNSQ" -n -d "$T/x" "$T/bad/$name"
	mkdir -p "$T/y/evim"
	refused "extract $name -f into an existing DEST" "$UNSQ" -f -n -d "$T/y" "$T/bad/$name"
	refused "extract $name evil/evim" "$UNSQ" -n -d "$T/x" "$T/bad/$name" evil 'evi*'
	refused "-lls $name" "$UNSQ" -lls "$T/bad/$name"
	refused "sqfscat $name" "$SQFSCAT" "$T/bad/$name" evim/payload
	n=$((n + 1))
done < "$T/bad/cases.txt"
[ $n -gt 0 ] || fail "mkhostile.py made no cases"
rm -rf "$T/x"
"$UNSQ" -n -d "$T/x" "$T/raw.img" > /dev/null && [ -L "$T/x/evil" ] &&
	[ -f "$T/x/evim/payload" ] &&
	pass "the unpatched image extracts" || fail "extracting the unpatched image"
[ -z "$(ls -A "$T/outside")" ] && pass "nothing written outside DEST" ||
	fail "files appeared in outside/: $(ls -A "$T/outside")"
finish
