#!/bin/sh
# SPDX-License-Identifier: MIT
# progress.sh - the progress bar of sqpack-unsquashfs: on a terminal (a
# pty from script(1), 60 columns) it is drawn as extraction goes, first
# empty ("0/N   0%"), last full, every draw as wide as unsquashfs 4.5.1's
# in the same pty, N the inodes and blocks announced; piped, it is drawn
# once, full; -n draws none. -percentage (4.6's, per its manual: bare
# percentages for a gauge) prints numbers only, one a line, growing from
# 0 to 100, and the tree is extracted all the same.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs script
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"

T=$SCRATCH
mkdir -p "$T/src/d"
i=0
while [ $i -lt 40 ]; do
	seq 1 $((i * 3000)) > "$T/src/d/f$i"
	i=$((i + 1))
done
ln -s d/f1 "$T/src/link"
mksquashfs "$T/src" "$T/m.img" -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99

# on_tty OUT COMMAND...: run COMMAND in a 60-column pty, its output in OUT
on_tty() {
	out=$1; shift
	script -qec "stty cols 60; $*" /dev/null > "$out" 2>&1
}
# bars FILE: each draw of the bar, one a line
bars() { tr '\r' '\n' < "$1" | grep '^\[' | tr -d '\n\r' | sed 's/%\[/%\n[/g'; echo; }

on_tty "$T/tty.out" "'$UNSQ' -d '$T/o1' '$T/m.img'"; rc=$?
n=$(sed -n 's/^\([0-9]*\) inodes (\([0-9]*\) blocks) to write.*/\1 \2/p' "$T/tty.out" |
	tr -d '\r' | awk '{ print $1 + $2 }')
bars "$T/tty.out" | grep -v '^$' > "$T/bars"
draws=$(wc -l < "$T/bars")
if [ $rc -ne 0 ] || [ -z "$n" ]; then
	fail "on a terminal: exit $rc: $(head -c 300 "$T/tty.out")"
elif [ "$draws" -lt 2 ]; then
	fail "on a terminal: the bar is drawn $draws times, not as extraction goes"
elif ! head -n 1 "$T/bars" | grep -Eq "^\[\|? *\] +0/$n +0%\$" ||
     ! tail -n 1 "$T/bars" | grep -Eq "^\[=+\|\] $n/$n 100%\$"; then
	fail "on a terminal: the bar does not run from 0/$n to $n/$n"
	sed -n '1p;$p' "$T/bars"
else
	pass "on a terminal: $draws draws, from 0/$n to $n/$n"
fi
if command -v unsquashfs > /dev/null 2>&1; then
	on_tty "$T/ref.out" "unsquashfs -d '$T/r1' '$T/m.img'"
	want=$(bars "$T/ref.out" | grep -v '^$' | tail -n 1 | awk '{ print length($0) }')
	got=$(awk '{ print length($0) }' "$T/bars" | sort -u | tr '\n' ' ')
	[ "$got" = "$want " ] && pass "every draw is $want columns wide, as unsquashfs's" ||
		fail "draws $got columns wide, unsquashfs's $want"
else
	skipc "unsquashfs not installed: the bar's width is not compared"
fi

"$UNSQ" -d "$T/o2" "$T/m.img" > "$T/pipe.out" 2>&1
[ "$(bars "$T/pipe.out" | grep -c '^\[')" = 1 ] && pass "piped: one bar, drawn once" ||
	fail "piped: $(bars "$T/pipe.out" | grep -c '^\[') bars"
on_tty "$T/n.out" "'$UNSQ' -n -d '$T/o3' '$T/m.img'"
grep -q '\[' "$T/n.out" && fail "-n on a terminal: a bar is drawn" || pass "-n: no bar"

"$UNSQ" -percentage -d "$T/o4" "$T/m.img" > "$T/pct.out" 2> "$T/pct.err"; rc=$?
if [ $rc -ne 0 ]; then
	fail "-percentage: exit $rc: $(cat "$T/pct.err")"
elif grep -vqx '[0-9]*' "$T/pct.out" || [ "$(head -n 1 "$T/pct.out")" != 0 ] ||
     [ "$(tail -n 1 "$T/pct.out")" != 100 ] || ! sort -n -c "$T/pct.out" 2> /dev/null; then
	fail "-percentage: not bare growing numbers from 0 to 100"
	head -n 5 "$T/pct.out"
elif ! diff -r "$T/src" "$T/o4" > /dev/null; then
	fail "-percentage: the tree differs from the source"
else
	pass "-percentage: $(wc -l < "$T/pct.out") lines from 0 to 100, the tree extracted"
fi
finish
