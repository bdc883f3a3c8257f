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
		sh -c "LD_LIBRARY_PATH='$top_builddir/.libs' '$SCRATCH/outside' '$SCRATCH/shared.img' > '$SCRATCH/outside.out'"
else
	note "no shared library in this build: the shared link is not checked"
fi
if [ -f "$top_builddir/.libs/libsqpack.a" ]; then
	# libsqpack.a with what --static adds, the rest as the system has it:
	# every symbol the archive needs must come from pkg-config's list.
	# shellcheck disable=SC2046
	run "libsqpack.a with pkg-config --static" cc_ -o "$SCRATCH/outside-a" "$src" \
		$(pkg-config --static --cflags --libs sqpack | sed 's/-lsqpack\b/-l:libsqpack.a/') &&
	check "libsqpack.a: packs and reads an image" \
		sh -c "'$SCRATCH/outside-a' '$SCRATCH/a.img' > '$SCRATCH/outside-a.out'" &&
	check "libsqpack.a: the program needs no shared libsqpack" \
		sh -c "! ldd '$SCRATCH/outside-a' 2>&1 | grep -q libsqpack"
	# A fully static program (sanitizers cannot link so).
	case $SQP_CFLAGS in
	*-fsanitize*) note "sanitizer build: no fully static link" ;;
	*)
		# shellcheck disable=SC2046
		run "static link with pkg-config --static" cc_ -static -o "$SCRATCH/outside-static" \
			"$src" $(pkg-config --static --cflags --libs sqpack) &&
		check "static: packs and reads an image" \
			sh -c "'$SCRATCH/outside-static' '$SCRATCH/static.img' > '$SCRATCH/outside-static.out'"
		;;
	esac
else
	note "no static library in this build: the static link is not checked"
fi
# libsqpack-fuse, where built (fuse3 found): a program built with what
# `pkg-config sqpack-fuse` says, shared and with the archives, checks
# the image packed above and has /dev/null refused.
fuse_links() { # IMAGE: the shared library and the archive, where built
	if [ -f "$top_builddir/.libs/libsqpack-fuse.so" ]; then
		# shellcheck disable=SC2046
		run "libsqpack-fuse: shared link" cc_ -o "$SCRATCH/outside-fuse" "$fsrc" \
			$(pkg-config --cflags --libs sqpack-fuse) &&
		check "libsqpack-fuse shared: checks an image, refuses /dev/null" \
			env LD_LIBRARY_PATH="$top_builddir/.libs" "$SCRATCH/outside-fuse" "$1"
	fi
	if [ -f "$top_builddir/.libs/libsqpack-fuse.a" ]; then
		# shellcheck disable=SC2046
		run "libsqpack-fuse.a with pkg-config --static" cc_ -o "$SCRATCH/outside-fuse-a" "$fsrc" \
			$(pkg-config --static --cflags --libs sqpack-fuse |
			  sed 's/-lsqpack-fuse\b/-l:libsqpack-fuse.a/; s/-lsqpack\b/-l:libsqpack.a/') &&
		check "libsqpack-fuse.a: checks an image, refuses /dev/null" "$SCRATCH/outside-fuse-a" "$1" &&
		check "libsqpack-fuse.a: the program needs no shared libsqpack" \
			sh -c "! ldd '$SCRATCH/outside-fuse-a' 2>&1 | grep -q libsqpack"
	fi
}
fsrc=$top_srcdir/tests/pkgconfig/outside_fuse.c
img=$(ls "$SCRATCH"/*.img 2>/dev/null | head -n 1)
if [ -z "$img" ]; then
	note "no image was packed: libsqpack-fuse is not checked"
elif [ -f "$top_builddir/.libs/libsqpack-fuse.so" ] || [ -f "$top_builddir/.libs/libsqpack-fuse.a" ]; then
	fuse_links "$img"
else
	note "no libsqpack-fuse in this build (no fuse3): not checked"
fi
# One version everywhere: configure's, the library's at run time, the
# headers' macros, pkg-config's, the tools', and the packaging's.
v=$(pkg-config --modversion sqpack)
n=$(echo "$v" | awk -F. '{ printf "%d", $1 * 10000 + $2 * 100 + $3 }')
for out in "$SCRATCH"/outside*.out; do
	[ -f "$out" ] || continue
	check "${out##*/}: library, headers and number say $v ($n)" \
		grep -q "sqpack $v (headers $v, number $n) packed" "$out"
done
check "tar2img --version says $v" sh -c "'$TAR2IMG' --version | grep -q '(sqpack) $v\$'"
# Every tool's second line names each codec of this build with the
# library that runs it and that library's version.
for t in tar2img dir2img img2tar img2dir imginfo sqpack-mksquashfs sqpack-unsquashfs sqfscat; do
	"$SQP_BIN/$t" --version > "$SCRATCH/$t.version" 2>&1
	for c in $ALL_CODECS; do
		codec_built "$c" || continue
		grep -Eq "^codecs: (.*, )?$c \([a-z0-9]+ [0-9]+\.[0-9]" "$SCRATCH/$t.version" ||
			{ fail "$t --version: no library version for $c"; cat "$SCRATCH/$t.version"; }
	done
done
check "--version: a line of codec libraries from every tool" \
	sh -c "cat '$SCRATCH'/*.version | grep -c '^codecs: ' | grep -qx 8"
check "debian/changelog's version is $v" \
	sh -c "head -1 '$top_srcdir/debian/changelog' | grep -q '^sqpack ($v)'"
check "the RPM spec's version is $v" grep -q "^Version: *$v\$" "$top_builddir/extras/sqpack.spec"
finish
