#!/bin/sh
# SPDX-License-Identifier: MIT
# failed.sh - an append that fails for any reason leaves the image byte
# for byte as it was (cmp), with no temporary file beside it and no
# directory of renamed sources left in TMPDIR: a source that is missing
# (after a clashing one was renamed), the file size limit reached half
# way (what a full disk does to a writer), a full file system, a signal
# while the input is read and one while the new image is written. And what mksquashfs does before appending:
# a DEST that is not an image is refused, exit 1, as mksquashfs refuses
# it; -noappend replaces the image instead.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
MKSQ=$SQP_BIN/sqpack-mksquashfs
[ -x "$MKSQ" ] || skip "sqpack-mksquashfs not built ($MKSQ)"
need_tool unsquashfs cmp
T=$SCRATCH
mkdir -p "$T/a/x" "$T/b/x" "$T/big" "$T/tmp" || exit 99
printf 'one\n' > "$T/a/x/f"; printf 'two\n' > "$T/b/x/g"
head -c 3000000 /dev/urandom > "$T/big/random"
cd "$T" || exit 99
run "the image appended to" "$MKSQ" a orig.img -quiet
cp orig.img img

# unchanged WHAT: img is orig.img, nothing is left beside it or in TMPDIR.
unchanged() {
	check "$1: the image is unchanged" cmp orig.img img
	check "$1: no temporary file left" test -z "$(ls -A | grep '\.tmp$')"
	check "$1: no renamed source left in TMPDIR" test -z "$(ls -A tmp)"
}

# x clashes with the image's and is staged as x_1; then a source is missing.
TMPDIR=$T/tmp "$MKSQ" b/x missing img -quiet > out 2> err; rc=$?
check "missing source: exit 1 (got $rc)" test "$rc" = 1
check "missing source: x was renamed first" grep -q "trying x_1" err
unchanged "missing source"

# The file size limit reached while the new image is written: write()
# fails with EFBIG (SIGXFSZ ignored, as a full disk fails it with ENOSPC).
(trap '' XFSZ; ulimit -f 1000; TMPDIR=$T/tmp exec "$MKSQ" big img -quiet) > out 2> err; rc=$?
check "file size limit: exit 1 (got $rc)" test "$rc" = 1
check "file size limit: the message says why" grep -q "too large" err
unchanged "file size limit"

# A full file system, when this user may mount a small one.
mkdir -p small
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m tmpfs small 2>/dev/null; then
	cp orig.img small/img
	TMPDIR=$T/tmp "$MKSQ" big small/img -quiet > out 2> err; rc=$?
	check "full disk: exit 1 (got $rc)" test "$rc" = 1
	check "full disk: the image is unchanged" cmp orig.img small/img
	check "full disk: no temporary file left" test "$(ls -A small)" = img
	umount small
else
	skipc "full disk: cannot mount a small tmpfs here"
fi

# A signal while the tar on stdin is awaited, the image open: a fifo
# that we hold open is its stdin (a background job's would be /dev/null).
mkfifo fifo && exec 5<>fifo || exit 99
TMPDIR=$T/tmp interrupt TERM err /bin/sh -c 'exec "$0" - img -tar -quiet <&5' "$MKSQ"
exec 5>&-
check "SIGTERM: the run fails (exit $rc)" test "$rc" != 0 -a "$waited" -lt 50
check "SIGTERM: it was the signal" grep -q "interrupted" err
unchanged "SIGTERM"

# A signal while the new image is being written: an xz image (its codec
# is the append's), 16 MB of text to compress on one thread, and one
# entry renamed by the writer (x, which the image has too).
mkdir -p sig/x && printf 's\n' > sig/x/s || exit 99
head -c 12000000 /dev/urandom | base64 > sig/big || exit 99
"$MKSQ" a xz.img -quiet -comp xz -noappend > /dev/null 2>&1 && cp xz.img xz-orig.img || exit 99
TMPDIR=$T/tmp interrupt TERM err "$MKSQ" sig xz.img -quiet -processors 1
check "SIGTERM while writing: the run fails (exit $rc)" test "$rc" != 0 -a "$waited" -lt 50
check "SIGTERM while writing: it was the signal" grep -q "interrupted" err
check "SIGTERM while writing: the image is unchanged" cmp xz-orig.img xz.img
check "SIGTERM while writing: no temporary file left" test -z "$(ls -A | grep '\.tmp$')"

# Not an image: refused as mksquashfs refuses it (exit 1), untouched.
printf 'not squashfs' > text.img
"$MKSQ" a text.img -quiet > out 2> err; rc=$?
check "not an image: exit 1 (got $rc)" test "$rc" = 1
check "not an image: the message says to use -noappend" grep -q -- -noappend err
check "not an image: untouched" test "$(cat text.img)" = "not squashfs"
: > empty.img
"$MKSQ" a empty.img -quiet > out 2> err; rc=$?
check "empty DEST: exit 1 (got $rc)" test "$rc" = 1 -a ! -s empty.img

# -noappend: the image is replaced, its old entries gone.
run "-noappend" "$MKSQ" b img -noappend -quiet
unsquashfs -lls img > ls 2>&1
check "-noappend: the new tree only" sh -c 'grep -q "squashfs-root/x/g" ls && ! grep -q "x/f" ls'
finish
