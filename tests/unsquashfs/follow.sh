#!/bin/sh
# SPDX-License-Identifier: MIT
# follow.sh - -follow-symlinks (-L) and -missing-symlinks, per the
# squashfs-tools 4.7 manual (unsquashfs 4.5.1's own -follow-symlinks
# reports "directory loop detected" on sound images, so it is no judge):
# the symlinks on an extract PATH are resolved in the image (relative,
# absolute, "..", chains) and extracted with the entry they lead to, and
# nothing else; a PATH that cannot be resolved (dangling, a link loop)
# is a warning and adds no link met, or with -missing-symlinks exit 1
# with nothing extracted;
# without the option the same PATH takes nothing; -regex is refused.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs
: "${UNSQ:=$SQP_BIN/sqpack-unsquashfs}"
[ -x "$UNSQ" ] || skip "sqpack-unsquashfs not built"

T=$SCRATCH
s=$T/src
mkdir -p "$s/real/sub" "$s/other"
echo 1 > "$s/real/sub/f"
echo 2 > "$s/other/g"
echo 3 > "$s/real/h"
ln -s real "$s/rl"
ln -s /other "$s/real/abs"
ln -s ../rl/sub "$s/other/up"
ln -s rl "$s/chain"
ln -s nowhere "$s/dangling"
ln -s loop2 "$s/loop1"
ln -s loop1 "$s/loop2"
mksquashfs "$s" "$T/s.img" -noappend -quiet -no-progress > /dev/null 2>&1 || exit 99

# got OPTS... -- PATHS...: exit status, then the tree extracted, sorted
got() {
	rm -rf "$T/o"
	opts=
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	# shellcheck disable=SC2086
	"$UNSQ" -n -q $opts -d "$T/o" "$T/s.img" "$@" > /dev/null 2> "$T/err"
	echo "rc=$? $(cd "$T/o" 2> /dev/null && find . -mindepth 1 | sort | tr '\n' ' ')"
}
expect() { # DESCRIPTION WANT OPTS... -- PATHS...
	desc=$1 want=$2; shift 2
	g=$(got "$@")
	[ "$g" = "$want" ] && pass "$desc" || fail "$desc: got '$g', want '$want' ($(head -c 200 "$T/err"))"
}

expect "a relative link on the way" "rc=0 ./real ./real/sub ./real/sub/f ./rl " \
	-follow-symlinks -- rl/sub/f
expect "-L: a chain, then an absolute link" "rc=0 ./chain ./other ./other/g ./real ./real/abs ./rl " \
	-L -- chain/abs/g
expect "-follow: '..' in a target" "rc=0 ./other ./other/up ./real ./real/sub ./real/sub/f ./rl " \
	-follow -- other/up/f
expect "the PATH itself a link to a directory: its whole tree" \
	"rc=0 ./other ./other/g ./other/up ./real ./real/abs ./rl " -L -- rl/abs
expect "without -follow-symlinks the PATH takes nothing" "rc=0 " -- rl/sub/f
expect "dangling: the link and a warning" "rc=0 ./dangling " -L -- dangling
grep -q "dangling cannot be resolved" "$T/err" && pass "dangling: the warning names it" ||
	fail "dangling: no warning: $(cat "$T/err")"
expect "a link loop: the PATH as given (nothing there), none of the links met" \
	"rc=0 " -L -- loop1/x
expect "-missing-symlinks: exit 1, nothing extracted" "rc=1 " -L -missing-symlinks -- loop1/x
expect "-missing-symlinks: a resolved PATH as without it" "rc=0 ./real ./real/sub ./real/sub/f ./rl " \
	-L -missing -- rl/sub/f
expect "-follow-symlinks with -regex: refused" "rc=1 " -L -r -- rl
finish
