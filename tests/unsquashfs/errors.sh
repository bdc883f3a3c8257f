#!/bin/sh
# SPDX-License-Identifier: MIT
# errors.sh - non-fatal errors as unsquashfs 4.5.1 meets them, extracting
# as an unprivileged user (nobody) an image with a character device and
# a trusted.* xattr, which such a user can make neither of: the same
# exit status (2; 0 with -no-exit-code; 1 with -strict-errors, which
# stops at the first of them) and the same stdout, byte for byte, the
# created counts of the summary included (no device). With -i/-li and
# -strict-errors the lines end at the entry that failed: each name is
# printed as its entry is made, not from a walk before the extraction.
# And -ignore-errors: a file that cannot be created is non-fatal. Not
# root, only the first xattr outside user.* counts: a symlink holding it
# is not created, a fifo holding the next one is.
# Needs root (to make the device and to become nobody with setpriv).
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs unsquashfs setpriv setfattr
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
unsquashfs -v 2>&1 | grep -q 'unsquashfs version 4\.5\.1' ||
	skip "the judge is not unsquashfs 4.5.1: $(unsquashfs -v 2>&1 | head -n 1)"
[ "$(id -u)" = 0 ] || skip "not root: cannot make a device node nor become nobody"

T=$SCRATCH
mkdir -p "$T/src/a" "$T/src/b" "$T/w"
echo hi > "$T/src/a/f1"
mknod "$T/src/a/cdev" c 1 3 || skip "mknod refused"
echo x > "$T/src/b/tx"
setfattr -n trusted.t -v 1 "$T/src/b/tx" 2> /dev/null ||
	skip "this file system keeps no trusted.* xattrs"
echo y > "$T/src/b/z"
mksquashfs "$T/src" "$T/e.img" -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99
# n.img: trusted.* on a symlink, then on a fifo
mkdir -p "$T/src2/a" && ln -s f "$T/src2/a/l" && mkfifo "$T/src2/a/p" || exit 99
setfattr -h -n trusted.t -v 1 "$T/src2/a/l" && setfattr -n trusted.t -v 1 "$T/src2/a/p" ||
	skip "no trusted.* xattrs on a symlink or fifo here"
mksquashfs "$T/src2" "$T/n.img" -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99
# nobody reaches the image and owns the directory it extracts into
chmod 755 "$T" && chmod 644 "$T/e.img" "$T/n.img" && chown 65534 "$T/w" || exit 99
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody true || skip "setpriv cannot become nobody here"
as_nobody unsquashfs -n -d "$T/w/probe" "$T/e.img" > /dev/null 2>&1
[ $? -eq 2 ] || skip "unsquashfs as nobody does not meet the non-fatal errors here"

# same DESCRIPTION ARGS...: -d DIR ARGS as nobody, both exit alike, same
# stdout; DIR made first by the shell command $PRE (as nobody) if set.
PRE=
same() {
	desc=$1; shift
	rm -rf "$T/w/r"
	[ -z "$PRE" ] || as_nobody sh -c "$PRE" || exit 99
	as_nobody unsquashfs -d "$T/w/r" "$@" > "$T/ref.out" 2> /dev/null; r1=$?
	rm -rf "$T/w/r"
	[ -z "$PRE" ] || as_nobody sh -c "$PRE" || exit 99
	as_nobody "$UNSQ" -d "$T/w/r" "$@" > "$T/our.out" 2> "$T/our.err"; r2=$?
	if [ $r1 -ne $r2 ]; then
		fail "$desc: exit $r2, unsquashfs $r1: $(head -c 300 "$T/our.err")"
	elif ! cmp -s "$T/ref.out" "$T/our.out"; then
		fail "$desc: stdout differs"
		diff "$T/ref.out" "$T/our.out" | head -n 8
	else
		pass "$desc: exit $r2 and stdout as unsquashfs"
	fi
}

same "device and xattr refused" -n "$T/e.img"
same "-no-exit-code" -n -no-exit-code "$T/e.img"
same "-strict-errors" -n -strict-errors "$T/e.img"
same "-st, an xattr refused" -n -st "$T/e.img" b
same "-st -i" -n -st -i "$T/e.img"
same "-st -li" -n -st -li "$T/e.img"
same "-i" -n -i "$T/e.img"
same "-li" -n -li "$T/e.img"
same "-i with a selection" -n -i "$T/e.img" b
# not root, xattrs outside user.* are not tried: the first one met is an
# error (its symlink not counted as created), the next (the fifo's) not
same "not root: trusted.* on a symlink and a fifo" -n "$T/n.img"
# -ignore-errors: b/z cannot be created (a directory with a file in it
# stands there, which -f does not remove): fatal without it, else exit 2
# and the file left out of the counts
PRE="mkdir -p '$T/w/r/b/z/in' && echo x > '$T/w/r/b/z/in/f'"
same "a file that cannot be created: fatal" -n -f -no-xattrs "$T/e.img" b
same "-ignore-errors" -n -f -ig -no-xattrs "$T/e.img" b
same "-ignore-errors -no-exit-code" -n -f -ignore-errors -no-exit -no-xattrs "$T/e.img" b
same "-ignore-errors -i" -n -f -ig -i -no-xattrs "$T/e.img" b
PRE=
same "-ignore-errors with -strict-errors: refused" -n -ig -st "$T/e.img"
finish
