#!/bin/sh
# SPDX-License-Identifier: MIT
# outside.sh - a program outside the tree builds against the library
# with only what pkg-config says, the shared way and the --static way,
# and packs and reads an image with it: sqpack.pc names every library a
# static link needs (Requires.private / Libs.private). The build tree's
# sqpack-uninstalled.pc stands in for the installed file.
. "$top_srcdir/tests/lib/common.sh"

need_tool pkg-config
: "${CC:=cc}"
command -v "$CC" > /dev/null 2>&1 || skip "no C compiler ($CC)"
PKG_CONFIG_PATH=$top_builddir
export PKG_CONFIG_PATH
src=$top_srcdir/tests/pkgconfig/outside.c

cc_() { # the build's compiler and flags (a sanitizer build's too)
	# shellcheck disable=SC2086
	$CC $SQP_CFLAGS "$@" $SQP_LDFLAGS
}
if [ -f "$top_builddir/.libs/libsqpack.so" ]; then
	# shellcheck disable=SC2046
	run "shared link" cc_ -o "$SCRATCH/outside" "$src" $(pkg-config --cflags --libs sqpack) &&
	check "shared: packs and reads an image" \
		env LD_LIBRARY_PATH="$top_builddir/.libs" "$SCRATCH/outside" "$SCRATCH/shared.img"
else
	note "no shared library in this build: the shared link is not checked"
fi
if [ -f "$top_builddir/.libs/libsqpack.a" ]; then
	# libsqpack.a with what --static adds, the rest as the system has it:
	# every symbol the archive needs must come from pkg-config's list.
	# shellcheck disable=SC2046
	run "libsqpack.a with pkg-config --static" cc_ -o "$SCRATCH/outside-a" "$src" \
		$(pkg-config --static --cflags --libs sqpack | sed 's/-lsqpack\b/-l:libsqpack.a/') &&
	check "libsqpack.a: packs and reads an image" "$SCRATCH/outside-a" "$SCRATCH/a.img" &&
	check "libsqpack.a: the program needs no shared libsqpack" \
		sh -c "! ldd '$SCRATCH/outside-a' 2>&1 | grep -q libsqpack"
	# A fully static program (sanitizers cannot link so).
	case $SQP_CFLAGS in
	*-fsanitize*) note "sanitizer build: no fully static link" ;;
	*)
		# shellcheck disable=SC2046
		run "static link with pkg-config --static" cc_ -static -o "$SCRATCH/outside-static" \
			"$src" $(pkg-config --static --cflags --libs sqpack) &&
		check "static: packs and reads an image" "$SCRATCH/outside-static" "$SCRATCH/static.img"
		;;
	esac
else
	note "no static library in this build: the static link is not checked"
fi
finish
