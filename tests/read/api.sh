#!/bin/sh
# SPDX-License-Identifier: MIT
# api.sh - the public browsing API (sqp_dir_*, sqp_file_*, lookup, stat,
# readlink, xattrs, export table) extracts the same tree as unsquashfs,
# for images from mksquashfs (with and without export table, small
# blocks, uncompressed everything) and from tar2img. imgextract also
# checks indexed lookups, missing names and scattered re-reads itself.
# A failed open hands back an image that says why.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs bsdtar "$PYTHON3"
EXTRACT=$top_builddir/tests/read/imgextract
[ -x "$EXTRACT" ] || skip "imgextract not built"

T=$SCRATCH
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/src"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/src" || exit 99

judge() { # judge DESCRIPTION ours|peer CODEC IMAGE
	rm -rf "$T/x"; mkdir "$T/x"
	unsquashfs_ref "$1" "$2" "$3" "$4" "$T/u" || return
	if "$EXTRACT" "$4" "$T/x" > "$T/log" 2>&1 &&
	   $TREECMP "$T/x" "$T/u" > "$T/diff"; then
		pass "$1: $(tail -n 1 "$T/log")"
	else
		fail "$1"; head -c 1500 "$T/log" "$T/diff"
	fi
}

for variant in "gzip -comp gzip" "zstd -comp zstd -no-exports -b 4K" \
	"gzip -noI -noD -noF -noX -always-use-fragments"; do
	codec=${variant%% *} variant=${variant#* }
	# shellcheck disable=SC2086
	mksquashfs "$T/src" "$T/m.img" -noappend -quiet -no-progress $variant \
		> /dev/null 2>&1 || { skipc "mksquashfs $variant: mksquashfs failed"; continue; }
	judge "mksquashfs $variant" peer "$codec" "$T/m.img"
done
run "tar2img" "$TAR2IMG" -q -c gzip "$T/s.img" "$T/in.tar" &&
	judge "tar2img" ours gzip "$T/s.img"
# A failed sqp_image_create hands back the image, which says why with the
# name (the convention of sqpack/error.h); NULL would print "bad arguments".
if "$EXTRACT" "$T/in.tar" "$T/x" > "$T/log" 2>&1; then
	fail "a tar opened as an image"
else
	check "a failed open explains itself: $(cat "$T/log")" \
		grep -q "cannot open: $T/in.tar: not a SquashFS image" "$T/log"
fi
finish
