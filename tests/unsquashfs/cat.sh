#!/bin/sh
# SPDX-License-Identifier: MIT
# cat.sh - `sqpack-unsquashfs -cat` and `sqfscat` write the files asked
# for, byte for byte (a hole, a fragment tail, a file of several blocks,
# at an offset, a symlink to one); what is missing or not a file is
# named: -cat and sqfscat go on and exit 2 as unsquashfs and sqfscat
# 4.5.1 do (the judges' statuses are checked when they run). And the
# exit statuses of the command
# line: no image or an unknown option 1 (unsquashfs's), a missing image
# 1; and
# -version/--version: sqpack's lines, then unsquashfs's that scripts
# match.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
SQFSCAT=$(dirname "$UNSQ")/sqfscat
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
[ -x "$SQFSCAT" ] || skip "sqfscat not built"

T=$SCRATCH
mkdir -p "$T/src/d"
seq 1 100000 > "$T/src/d/big"
truncate -s 1M "$T/src/hole" && echo end >> "$T/src/hole"
echo tail > "$T/src/small"
ln -s small "$T/src/link"
mksquashfs "$T/src" "$T/m.img" -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99
head -c 4096 /dev/zero > "$T/off.img" && cat "$T/m.img" >> "$T/off.img"
cat "$T/src/d/big" "$T/src/hole" "$T/src/small" > "$T/want"

"$UNSQ" -cat "$T/m.img" d/big /hole small > "$T/got" && cmp -s "$T/got" "$T/want" &&
	pass "-cat writes the files" || fail "-cat: wrong bytes or status"
"$SQFSCAT" "$T/m.img" d/big hole //small > "$T/got" && cmp -s "$T/got" "$T/want" &&
	pass "sqfscat writes the files" || fail "sqfscat: wrong bytes or status"
"$SQFSCAT" -o 4096 "$T/off.img" d/big hole small > "$T/got" && cmp -s "$T/got" "$T/want" &&
	pass "sqfscat -o 4096" || fail "sqfscat -o: wrong bytes or status"

cat "$T/src/small" "$T/src/small" > "$T/want2"
"$UNSQ" -cat "$T/m.img" small nothing d link > "$T/got" 2> "$T/err"; rc=$?
[ $rc -eq 2 ] && cmp -s "$T/got" "$T/want2" && grep -q 'no matches for /nothing' "$T/err" &&
	grep -q '/d is a directory' "$T/err" &&
	pass "-cat names what is missing and exits 2" || fail "-cat with missing paths: exit $rc: $(cat "$T/err")"
if command -v unsquashfs > /dev/null 2>&1; then
	for opts in "" "-strict-errors" "-no-exit-code" "-strict-errors -no-exit-code"; do
		# shellcheck disable=SC2086
		unsquashfs $opts -cat "$T/m.img" small nothing d > /dev/null 2>&1; ref=$?
		# shellcheck disable=SC2086
		"$UNSQ" $opts -cat "$T/m.img" small nothing d > /dev/null 2>&1; rc=$?
		[ $ref -eq $rc ] && pass "-cat $opts, a path missing: exit $rc as unsquashfs" ||
			fail "-cat $opts, a path missing: exit $rc, unsquashfs $ref"
	done
else
	note "unsquashfs not installed: its -cat status not compared"
fi
"$SQFSCAT" "$T/m.img" small nothing > "$T/got" 2> "$T/err"; rc=$?
[ $rc -eq 2 ] && cmp -s "$T/got" "$T/src/small" && grep -q 'nothing' "$T/err" &&
	pass "sqfscat names what is missing and exits 2" || fail "sqfscat missing: exit $rc"
if command -v sqfscat > /dev/null 2>&1 &&
   sqfscat -v 2>&1 | grep -q 'sqfscat version 4\.5\.1'; then
	sqfscat "$T/m.img" small nothing d > /dev/null 2>&1; ref=$?
	"$SQFSCAT" "$T/m.img" small nothing d > /dev/null 2>&1; rc=$?
	[ $ref -eq $rc ] && pass "sqfscat, a path missing: exit $rc as sqfscat 4.5.1" ||
		fail "sqfscat, a path missing: exit $rc, sqfscat 4.5.1 $ref"
else
	skipc "sqfscat 4.5.1 not installed: its status not compared"
fi

status() { # status WANT DESCRIPTION GREP CMD...
	want=$1 desc=$2 pat=$3; shift 3
	"$@" > /dev/null 2> "$T/err"; rc=$?
	[ $rc -eq "$want" ] && grep -q -- "$pat" "$T/err" &&
		pass "$desc: $(head -n 1 "$T/err")" || fail "$desc: exit $rc: $(head -c 200 "$T/err")"
}
status 1 "no image" "Usage" "$UNSQ"
status 1 "an unknown option" "invalid option -bogus" "$UNSQ" -bogus "$T/m.img"
status 1 "a missing value" "-dest needs a value" "$UNSQ" -l -dest
status 1 "a missing image" "could not open" "$UNSQ" -l "$T/none.img"
status 1 "not an image" "" "$UNSQ" -l "$T/want"
status 1 "sqfscat without PATH" "no PATH" "$SQFSCAT" "$T/m.img"
# what scripts match in unsquashfs's -version, after sqpack's lines
for v in -version --version; do
	check "$v: sqpack's version, then unsquashfs's line" sh -c \
		"'$UNSQ' $v | sed -n '1p;3p' | tr '\\n' ' ' | grep -Eq '^sqpack-unsquashfs \\(sqpack\\) .* unsquashfs version 4\\.5\\.1 '"
	check "sqfscat $v: the same shape" sh -c \
		"'$SQFSCAT' $v | sed -n '1p;3p' | tr '\\n' ' ' | grep -Eq '^sqfscat \\(sqpack\\) .* sqfscat version 4\\.5\\.1 '"
done
finish
