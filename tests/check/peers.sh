#!/bin/sh
# SPDX-License-Identifier: MIT
# peers.sh - imginfo check passes every writer's images of the edge-case
# tree (mktar.py): mksquashfs (every codec, and -noI -noD -noF -noX,
# -no-fragments, -b 4K), gensquashfs, tar2sqfs and tar2img (every
# codec), with -j 1 and -j 2: exit 0 and no report line.
. "$top_srcdir/tests/lib/common.sh"
need_tool mksquashfs bsdtar "$PYTHON3"
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
[ -x "$IMGINFO" ] || skip "imginfo not built"

T=$(fast_dir)
$PYTHON3 "$top_srcdir/tests/tar2img/mktar.py" "$T/in.tar" || exit 99
mkdir "$T/src"
bsdtar -xpf "$T/in.tar" --xattrs --numeric-owner -C "$T/src" || exit 99

judge() { # judge DESCRIPTION IMAGE
	for j in 1 2; do
		if "$IMGINFO" check -q -j $j "$2" > "$T/out" 2>&1 && [ ! -s "$T/out" ]; then
			pass "$1 (-j $j)"
		else
			fail "$1 (-j $j): $(head -c 400 "$T/out")"
		fi
	done
}

for codec in $ALL_CODECS; do
	codec_built "$codec" || { skipc "$codec not built"; continue; }
	mksquashfs "$T/src" "$T/m.img" -comp "$codec" $(peer_fast mksquashfs "$codec") -noappend -quiet -no-progress > /dev/null 2>&1 &&
		judge "mksquashfs -comp $codec" "$T/m.img"
	"$TAR2IMG" -q -f -c "$codec" "$T/o.img" "$T/in.tar" 2>/dev/null &&
		judge "tar2img -c $codec" "$T/o.img" || fail "tar2img -c $codec"
done
for variant in "-noI -noD -noF -noX" "-no-fragments" "-b 4K"; do
	# shellcheck disable=SC2086
	mksquashfs "$T/src" "$T/m.img" -comp gzip $(peer_fast mksquashfs gzip) -noappend -quiet -no-progress $variant > /dev/null 2>&1 &&
		judge "mksquashfs $variant" "$T/m.img" || fail "mksquashfs $variant"
done
if command -v tar2sqfs >/dev/null 2>&1; then
	for codec in gzip xz zstd; do
		if tar2sqfs -q -f -c $codec $(peer_fast tar2sqfs $codec) "$T/t.img" < "$T/in.tar" > /dev/null 2>&1; then
			judge "tar2sqfs -c $codec" "$T/t.img"
		else
			skipc "tar2sqfs -c $codec: tar2sqfs cannot pack the archive"
		fi
	done
else
	skipc "tar2sqfs images: tar2sqfs not installed"
fi
if ! command -v gensquashfs >/dev/null 2>&1; then
	skipc "gensquashfs images: gensquashfs not installed"
elif gensquashfs -q -f -D "$T/src" "$T/g.img" > /dev/null 2>&1; then
	judge "gensquashfs -D" "$T/g.img"
else
	skipc "gensquashfs -D: gensquashfs cannot pack the tree"
fi
finish
