#!/bin/sh
# SPDX-License-Identifier: MIT
# ignore.sh - entries that cannot be made, against unsquashfs 4.5.1, as
# an unprivileged user (nobody) extracting with -f over obstacles it
# cannot remove: a directory of root's that nobody may open where a
# directory goes, and non-empty directories where a symlink, a fifo and
# a hard link go. 4.5.1 sorts them in two: a symlink or fifo not made is
# a non-fatal error (exit 2); a directory or hard link not made is fatal
# (exit 1), unless -ignore-errors, which makes it non-fatal and skips
# what the directory holds. Each case: the same exit status, the same
# stdout (created counts, -i lines) and, where it is not fatal, the same
# extracted tree (set-id bits dropped, of a file and of the root, which
# a selection makes on the way: nobody cannot give them their owner,
# and 4.5.1 gives the bits to no one else). Needs root (to make the
# obstacles and to become nobody).
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs unsquashfs setpriv
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"
unsquashfs -v 2>&1 | grep -q 'unsquashfs version 4\.5\.1' ||
	skip "the judge is not unsquashfs 4.5.1: $(unsquashfs -v 2>&1 | head -n 1)"
[ "$(id -u)" = 0 ] || skip "not root: cannot make root-owned obstacles nor become nobody"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody true || skip "setpriv cannot become nobody here"

T=$SCRATCH
umask 022
mkdir -p "$T/src/a" "$T/src/b/sub" "$T/src/c" "$T/src/d" "$T/w"
echo one > "$T/src/a/f1"
ln -s f1 "$T/src/a/sym"
mkfifo "$T/src/a/fifo"
echo x > "$T/src/b/x"
echo y > "$T/src/b/sub/y"
ln "$T/src/a/f1" "$T/src/c/h"
echo z > "$T/src/d/z"
echo s > "$T/src/d/suid" && chmod 6755 "$T/src/d/suid" && chmod 2755 "$T/src" || exit 99
touch -h -d @1000000000 "$T/src"/*/* "$T/src"/* "$T/src/b/sub/y"
mksquashfs "$T/src" "$T/e.img" -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99
chmod 755 "$T" "$T/w" && chmod 644 "$T/e.img" || exit 99

# obstacles WHAT...: $T/w/r made again (nobody's: unsquashfs changes
# the mode of an existing DEST), holding what blocks each WHAT: dir (b:
# root's, mode 0, which nobody can neither open nor change), sym, fifo
# (a/sym, a/fifo) and link (c/h: non-empty directories, which -f cannot
# remove).
obstacles() {
	rm -rf "$T/w/r" && mkdir "$T/w/r" || exit 99
	for o in "$@"; do
		case $o in
		dir) mkdir -m 0 "$T/w/r/b" ;;
		sym) mkdir -p "$T/w/r/a/sym/in" && : > "$T/w/r/a/sym/in/f" ;;
		fifo) mkdir -p "$T/w/r/a/fifo/in" && : > "$T/w/r/a/fifo/in/f" ;;
		link) mkdir -p "$T/w/r/c/h/in" && : > "$T/w/r/c/h/in/f" ;;
		esac || exit 99
	done
	chown 65534:65534 "$T/w/r" || exit 99
	for d in a c; do
		[ ! -d "$T/w/r/$d" ] || chown -R 65534:65534 "$T/w/r/$d" || exit 99
	done
	find "$T/w/r" -mindepth 1 -exec touch -h -d @0 {} + || exit 99
}

# same DESCRIPTION "OBSTACLES" ARGS...: -d $T/w/r ARGS as nobody over
# the obstacles, by both; same exit status and stdout, and with an exit
# status other than 1 the same tree.
same() {
	desc=$1 obs=$2; shift 2
	obstacles $obs
	as_nobody unsquashfs -d "$T/w/r" "$@" > "$T/ref.out" 2> "$T/ref.err"; r1=$?
	rm -rf "$T/w/ref" && mv "$T/w/r" "$T/w/ref" || exit 99
	obstacles $obs
	as_nobody "$UNSQ" -d "$T/w/r" "$@" > "$T/our.out" 2> "$T/our.err"; r2=$?
	if [ $r1 -ne $r2 ]; then
		fail "$desc: exit $r2, unsquashfs $r1: $(head -c 300 "$T/our.err")"
		return
	fi
	if ! cmp -s "$T/ref.out" "$T/our.out"; then
		fail "$desc: stdout differs"
		diff "$T/ref.out" "$T/our.out" | head -n 8
		return
	fi
	pass "$desc: exit $r2 and stdout as unsquashfs"
	[ $r2 -eq 1 ] || same_tree "$desc: the tree unsquashfs makes" \
		"$T/w/r" "$T/w/ref" --no-xattrs
}

same "nothing in the way" "" -n -f "$T/e.img"
same "a symlink and a fifo not made: non-fatal" "sym fifo" -n -f "$T/e.img"
same "a symlink not made, -strict-errors: fatal" "sym" -n -f -st "$T/e.img"
same "a directory not made: fatal" "dir" -n -f "$T/e.img"
same "a directory not made, -ignore-errors" "dir" -n -f -ig "$T/e.img"
same "a hard link not made: fatal" "link" -n -f "$T/e.img"
same "a hard link not made, -ignore-errors" "link" -n -f -ig "$T/e.img"
same "all of them, -ignore-errors" "dir sym fifo link" -n -f -ig "$T/e.img"
same "all of them, -ignore-errors -i" "dir sym fifo link" -n -f -ig -i "$T/e.img"
same "all of them, -ignore-errors -no-exit-code" "dir sym fifo link" \
	-n -f -ig -no-exit-code "$T/e.img"
same "a directory not made, -ignore-errors, a selection" "dir" -n -f -ig \
	"$T/e.img" b d
finish
