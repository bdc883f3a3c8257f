#!/bin/sh
# SPDX-License-Identifier: MIT
# corrupt.sh - imginfo check finds each defect of mkcheckbad.py (link
# counts, inode numbers and types that disagree with the listing, a wrong
# parent, an unreachable inode, blocks and fragments outside the image or
# of the wrong size, a bad export entry, owner and symlink fields, names,
# garbage in data, the superblock): exit 1 and a report line naming the
# table (and the inode or path where one is known). Also every case of
# tests/read/mkcorrupt.py and tests/hostile/mkhostile.py: exit 1 with a
# report, never a crash or a hang.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs "$PYTHON3" timeout
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
[ -x "$IMGINFO" ] || skip "imginfo not built"

T=$SCRATCH
mkdir -p "$T/src/d/e" "$T/bad" "$T/bad2" "$T/bad3" "$T/outside"
echo one > "$T/src/f1" && ln "$T/src/f1" "$T/src/f2"
ln -s f1 "$T/src/s"
seq 1 100000 > "$T/src/big"
for i in 1 2 3; do echo "$i" > "$T/src/d/f$i"; done
mksquashfs "$T/src" "$T/raw.img" -noI -noD -noF -noX -noappend -quiet -no-progress >/dev/null 2>&1 || exit 99
mksquashfs "$T/src" "$T/good.img" -comp gzip -noappend -quiet -no-progress >/dev/null 2>&1 || exit 99
$PYTHON3 "$top_srcdir/tests/check/mkcheckbad.py" "$T/raw.img" "$T/good.img" "$T/bad" || exit 99

for img in raw good; do
	"$IMGINFO" check -q "$T/$img.img" > "$T/out" 2>&1 && [ ! -s "$T/out" ] &&
		pass "the intact $img image passes" || fail "$img: $(head -c 300 "$T/out")"
done
while read -r name table; do
	timeout 20 "$IMGINFO" check -j 2 "$T/bad/$name" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^$table:" "$T/out"; then
		pass "$name: $(grep "^$table:" "$T/out" | head -n 1 | head -c 150)"
	else
		fail "$name: exit $rc, want a '$table:' line: $(head -c 300 "$T/out" "$T/err")"
	fi
done < "$T/bad/cases.txt"

# the reader's corruption cases and the hostile names
mkdir -p "$T/src2/d"
for i in $(seq 1 40); do printf 'file %d\n' "$i" > "$T/src2/d/f$i"; done
seq 1 200000 > "$T/src2/big"
( cd "$T/src2" && tar -cf - . ) | "$TAR2IMG" -q -f -c gzip "$T/g2.img" || exit 99
mksquashfs "$T/src2" "$T/r2.img" -noI -noD -noF -noX -noappend -quiet -no-progress >/dev/null 2>&1 || exit 99
$PYTHON3 "$top_srcdir/tests/read/mkcorrupt.py" "$T/g2.img" "$T/r2.img" "$T/bad2" || exit 99
mkdir -p "$T/src3/evim" "$T/src3/kk"
ln -s "$T/outside" "$T/src3/evil"
echo p > "$T/src3/evim/payload" && echo e > "$T/src3/kk/escape" && echo k > "$T/src3/k"
mksquashfs "$T/src3" "$T/r3.img" -noI -noD -noF -noX -noappend -quiet -no-progress >/dev/null 2>&1 || exit 99
$PYTHON3 "$top_srcdir/tests/hostile/mkhostile.py" "$T/r3.img" "$T/bad3" || exit 99
for dir in bad2 bad3; do
	while read -r name; do
		timeout 20 "$IMGINFO" check -j 2 "$T/$dir/$name" > "$T/out" 2> "$T/err"
		rc=$?
		if [ $rc -eq 1 ] && grep -Eq '^[a-z]+: ' "$T/out"; then
			pass "$name: $(head -n 1 "$T/out" | head -c 120)"
		else
			fail "$name: exit $rc: $(head -c 300 "$T/out" "$T/err")"
		fi
	done < "$T/$dir/cases.txt"
done
finish
