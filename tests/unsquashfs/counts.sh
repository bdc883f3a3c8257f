#!/bin/sh
# SPDX-License-Identifier: MIT
# counts.sh - what an extraction reports and leaves in DEST, against
# unsquashfs 4.5.1 (same stdout, exit status, and tree with modes):
# - each closing count at one (file, directory, symlink, device, fifo,
#   socket, hardlink), of a selection that leaves out the first name of
#   a file with three: the first selected is the file, the next its
#   hard link;
# - DEST is made (or, already there, set) 0700 and given the root's mode
#   only when the extraction ends: one that stops (a directory already
#   there, no -f) leaves it 0700;
# - DEST is made after the "to write" header and -i's line of it: one
#   that cannot be made (or, as a user who cannot change its mode,
#   root's 0777 one) is exit 1 with nothing made, or with
#   -ignore-errors zero counts and exit 2.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs unsquashfs "$PYTHON3"
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
unsquashfs -v 2>&1 | grep -q 'unsquashfs version 4\.5\.1' ||
	skip "the judge is not unsquashfs 4.5.1: $(unsquashfs -v 2>&1 | head -n 1)"

T=$SCRATCH
mkdir -p "$T/one" "$T/two/z" "$T/w"
chmod 0755 "$T/w"
echo x > "$T/one/a"
ln "$T/one/a" "$T/one/b"
ln "$T/one/a" "$T/one/c"
ln -s a "$T/one/s"
mkfifo "$T/one/p" || exit 99
$PYTHON3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$T/one/k" || exit 99
# the device from a pseudo definition: no root needed to pack it
mksquashfs "$T/one" "$T/one.img" -noappend -quiet -no-progress \
	-p "cdev c 644 0 0 1 3" > /dev/null 2>&1 || exit 99
echo f > "$T/two/z/f"
chmod 0751 "$T/two"
mksquashfs "$T/two" "$T/two.img" -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99

# same DESCRIPTION SETUP [AS...] -- ARGS...: SETUP (a shell command run
# with $D the destination) prepares, then each program runs ARGS with
# -d $D (as the command AS..., when given); the exit status, stdout and
# the tree (modes, types, link counts) must be the same.
same() {
	desc=$1 setup=$2; shift 2
	as=
	while [ "$1" != -- ]; do as="$as $1"; shift; done
	shift
	for who in ref our; do
		prog=unsquashfs
		[ $who = our ] && prog=$UNSQ
		# the same name for both: -i's lines print it
		D=$T/w/d
		rm -rf "$D"
		eval "$setup" || exit 99
		# shellcheck disable=SC2086
		$as $prog -n -d "$D" "$@" > "$T/$who.out" 2> "$T/$who.err"
		echo "rc=$?" >> "$T/$who.out"
		(cd "$D" 2> /dev/null && find . -printf '%p %m %y %n\n' | LC_ALL=C sort) \
			>> "$T/$who.out"
	done
	if cmp -s "$T/ref.out" "$T/our.out"; then
		pass "$desc"
	else
		fail "$desc: differs from unsquashfs (<) ($(head -c 200 "$T/our.err"))"
		diff "$T/ref.out" "$T/our.out" | head -n 12
	fi
}

same "each count at one; the first selected name of a file is the file" \
	: -- -excludes "$T/one.img" a
same "DEST there, a directory on the way there, no -f: DEST left 0700" \
	'mkdir -m 0750 "$D" && mkdir "$D/z"' -- "$T/two.img" z/f
same "DEST cannot be made: the header and -i's line of it, exit 1" \
	'D=$D/none/x' -- -i "$T/two.img"

if [ "$(id -u)" != 0 ]; then
	skipc "not root: cannot become nobody to meet a DEST not its own"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null; then
	skipc "setpriv cannot become nobody here"
else
	chmod 0755 "$T"
	for opts in "" "-ignore-errors" "-li -ignore-errors"; do
		same "a DEST whose mode cannot be changed ${opts:-(fatal)}" \
			'mkdir -m 0777 "$D"' setpriv --reuid=65534 --regid=65534 \
			--clear-groups -- $opts "$T/two.img"
	done
fi
finish
