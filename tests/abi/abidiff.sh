#!/bin/sh
# SPDX-License-Identifier: MIT
# abidiff.sh - the ABI guard of issue 22: the built libsqpack.so, and
# libsqpack-fuse.so where built, against the baselines kept in git
# (lib/abi/libsqpack.abi and libsqpack-fuse.abi, libabigail's abidw).
# Any change abidiff reports fails, but for what lib/abi/libsqpack.suppr
# allows: the unstable API, and members added at the end of a struct that
# begins with struct_size (doc/contributing.md). Added functions are
# compatible and pass. An incompatible change is made with a new SONAME,
# and the baseline is then the old one's: a counted skip until it is
# made again. With --write (make abi-baseline) it makes the baseline
# instead, with the same flags.
COMMON_NEEDS_TAR2IMG=no
. "$top_srcdir/tests/lib/common.sh"

suppr=$top_srcdir/lib/abi/libsqpack.suppr
libs="libsqpack libsqpack-fuse"   # the second where fuse3 was found

if [ "${1:-}" = --write ]; then
	for l in $libs; do
		so=$top_builddir/.libs/$l.so
		if [ ! -f "$so" ]; then
			[ "$l" = libsqpack ] || continue
			echo "abi-baseline: $so not built" >&2; exit 1
		fi
		abidw --exported-interfaces-only --no-corpus-path --no-comp-dir-path \
			--no-show-locs --type-id-style hash --suppressions "$suppr" \
			--out-file "$top_srcdir/lib/abi/$l.abi" "$so" || exit 1
	done
	exit
fi

command -v abidiff > /dev/null 2>&1 || skip "abidiff not installed (abigail-tools)"

# abi_check LIB: LIB.so as built against lib/abi/LIB.abi.
abi_check() {
	so=$top_builddir/.libs/$1.so
	base=$top_srcdir/lib/abi/$1.abi
	if [ ! -f "$so" ]; then
		skipc "$1: no shared library in this build"; return
	fi
	if ! readelf -S "$so" 2>/dev/null | grep -q '\.debug_info'; then
		skipc "$so has no debug information: abidiff would see symbols only"; return
	fi
	soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	was=$(sed -n "s/.*<abi-corpus [^>]*soname='\([^']*\)'.*/\1/p" "$base" | head -n 1)
	if [ "$soname" != "$was" ]; then
		skipc "the SONAME changed ($was -> $soname): the baseline is the old library's; make abi-baseline"
		return
	fi
	pass "the SONAME is the baseline's ($soname)"

	# --exported-interfaces-only on both sides: without it, libabigail 2.2
	# missed a member inserted in the middle of sqp_image_info when one side
	# was XML; --drop-private-types with --headers-dir hid it too. Proved:
	# a member inserted in the middle, a member removed and an export
	# removed fail; a member added at the end of a sized struct, a change
	# of an unstable one and an export added pass.
	abidiff --exported-interfaces-only --no-added-syms --suppressions "$suppr" "$base" "$so" > "$SCRATCH/report" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "$1: no ABI change against the baseline but what the rules allow"
	else
		# abidiff's status is a bit field: 1 error, 2 usage, 4 change,
		# 8 incompatible change.
		fail "$1: abidiff found changes (status $rc); if they are meant and compatible, make abi-baseline"
		sed 's/^/# /' "$SCRATCH/report" | head -n 60
	fi
}
abi_check libsqpack
# libsqpack-fuse only where configure found fuse3.
if [ -f "$top_builddir/libsqpack-fuse.la" ]; then
	abi_check libsqpack-fuse
fi
finish
