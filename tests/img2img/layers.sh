#!/bin/sh
# SPDX-License-Identifier: MIT
# layers.sh - img2img's LAYERs are container layers over the base: the
# later of two layers wins; a file a layer replaces is not copied from
# the base (the image shrinks by its size); --delete removes base
# entries and a layer may add one back; --whiteouts=oci applies a
# layer's .wh. markers to the base; a layer's copy of a base file is
# stored once (dedup sees the base); a hard link of the base whose first
# name a layer replaced keeps the base's data under its other name.
. "$top_srcdir/tests/lib/common.sh"
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
IMGINFO=${IMGINFO:-$SQP_BIN/imginfo}
codec_built zstd || skip "zstd not built"

S=$SCRATCH/src
mkdir -p "$S/d/e" "$S/keep" || exit 99
head -c 2000000 /dev/urandom > "$S/random" && echo f > "$S/f" &&
echo inner > "$S/d/e/inner" && echo kept > "$S/keep/k" &&
echo linked > "$S/a-link" && ln "$S/a-link" "$S/z-link" || exit 99
tar -C "$S" --sort=name -cf "$SCRATCH/src.tar" . || exit 99
base=$SCRATCH/base.img
run "tar2img" "$TAR2IMG" -q -c zstd "$base" "$SCRATCH/src.tar" || finish

# layer TAR NAME CONTENT...: a tar of files NAME holding CONTENT
layer() {
	out=$1; shift
	rm -rf "$SCRATCH/l" && mkdir -p "$SCRATCH/l" || return 1
	while [ $# -ge 2 ]; do
		mkdir -p "$SCRATCH/l/$(dirname "$1")" && printf '%s\n' "$2" > "$SCRATCH/l/$1" || return 1
		shift 2
	done
	tar -C "$SCRATCH/l" --sort=name -cf "$out" $(cd "$SCRATCH/l" && find . -type f | sort)
}
cat_is() { test "$("$IMGINFO" cat "$1" "$2" 2>&1)" = "$3"; }

layer "$SCRATCH/one.tar" f one random small && layer "$SCRATCH/two.tar" f two || exit 99
run "img2img with two layers" "$IMG2IMG" -q "$SCRATCH/two.img" "$base" \
	"$SCRATCH/one.tar" "$SCRATCH/two.tar" &&
{
	check "the later layer wins" cat_is "$SCRATCH/two.img" f two
	check "the earlier layer's other file is there" cat_is "$SCRATCH/two.img" random small
	check "the replaced 2 MB file is not copied (image $(stat -c %s "$SCRATCH/two.img") of $(stat -c %s "$base") bytes)" \
		test "$(stat -c %s "$SCRATCH/two.img")" -lt "$(($(stat -c %s "$base") - 1900000))"
	check "untouched files are there" cat_is "$SCRATCH/two.img" keep/k kept
}

layer "$SCRATCH/back.tar" d/e/inner back || exit 99
run "img2img --delete d and a layer adding d/e/inner back" \
	"$IMG2IMG" -q --delete d "$SCRATCH/del.img" "$base" "$SCRATCH/back.tar" &&
{
	check "--delete: the layer's file is back" cat_is "$SCRATCH/del.img" d/e/inner back
	check "--delete: nothing else of d" test "$("$IMGINFO" ls -R "$SCRATCH/del.img" d | wc -l)" = 3
	check "--delete: the rest of the base is there" cat_is "$SCRATCH/del.img" keep/k kept
}

mkdir -p "$SCRATCH/oci/d" && : > "$SCRATCH/oci/d/.wh.e" && : > "$SCRATCH/oci/.wh.keep" &&
tar -C "$SCRATCH/oci" -cf "$SCRATCH/oci.tar" d/.wh.e .wh.keep || exit 99
run "img2img --whiteouts=oci" "$IMG2IMG" -q --whiteouts=oci "$SCRATCH/oci.img" "$base" \
	"$SCRATCH/oci.tar" &&
{
	"$IMGINFO" ls -R "$SCRATCH/oci.img" > "$SCRATCH/oci.ls"
	check "--whiteouts=oci: d/e and keep are gone, no marker is stored" \
		sh -c "! grep -Eq '/d/e|/keep|\\.wh\\.' '$SCRATCH/oci.ls'"
	check "--whiteouts=oci: d and f stay" sh -c "grep -qx /d '$SCRATCH/oci.ls' && grep -qx /f '$SCRATCH/oci.ls'"
}

# A layer bringing a copy of a base file: dedup sees the base's data
# (what it may cost: the fragment block holding the base file's tail,
# copied whole for the other tails in it).
mkdir -p "$SCRATCH/dup" && cp "$S/random" "$SCRATCH/dup/random-again" || exit 99
run "img2img with a layer holding a copy of a base file" "$IMG2IMG" -q \
	"$SCRATCH/dup.img" "$base" "$SCRATCH/dup" &&
{
	check "the copy reads back" \
		sh -c "'$IMGINFO' cat '$SCRATCH/dup.img' random-again | cmp -s - '$S/random'"
	check "the copy costs no data (image $(stat -c %s "$SCRATCH/dup.img") of $(stat -c %s "$base") bytes)" \
		test "$(stat -c %s "$SCRATCH/dup.img")" -le "$(($(stat -c %s "$base") + 65536))"
}

layer "$SCRATCH/link.tar" a-link replaced || exit 99
run "img2img replacing a hard link's first name" "$IMG2IMG" -q "$SCRATCH/link.img" "$base" \
	"$SCRATCH/link.tar" &&
{
	check "the layer's file" cat_is "$SCRATCH/link.img" a-link replaced
	check "the base's other name keeps its data" cat_is "$SCRATCH/link.img" z-link linked
}
finish
