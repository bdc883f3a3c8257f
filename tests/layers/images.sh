#!/bin/sh
# SPDX-License-Identifier: MIT
# images.sh - img2img's LAYERs may be images, SquashFS or EROFS, found by
# their magic beside tars and directories: a base image plus image
# layers of both formats (one of the output's codec and block size,
# copied as stored, which is checked; one EROFS; one of another block
# size, converted) gives the tree that applying the same layers as tars
# gives (apply.py, judged by unsquashfs and the kernel where they can):
# a later image wins on a clash, whiteout markers inside an image layer
# count with --whiteouts=oci, a file over a directory and a directory
# over a file, --delete; a base file equal to one of a layer read
# through is stored once; the same bytes for -j 1. A layer that is
# neither a tar, a directory nor an image (random bytes; a zero block,
# then data) is an error that names it and leaves no OUTPUT: an EROFS
# image was once read as an empty tar (its first 1 KiB is zeros) and
# silently dropped.
. "$top_srcdir/tests/lib/common.sh"
IMG2IMG=${IMG2IMG:-$SQP_BIN/img2img}
need_tool "$PYTHON3" tar
[ "$(id -u)" = 0 ] || skip "needs root (the reference tree's owners)"
umask 022
export SOURCE_DATE_EPOCH=1700000000

T=$SCRATCH
run "make the layers" $PYTHON3 "$top_srcdir/tests/layers/mklayers.py" "$T" images &&
run "apply the layers (reference)" $PYTHON3 "$top_srcdir/tests/layers/apply.py" "$T/ref" \
	"$T/l0.tar" "$T/l1.tar" "$T/l2.tar" "$T/l3.tar" || finish

# Each layer packed on its own, its markers kept as plain files.
run "the base image" "$TAR2IMG" -q -c gzip "$T/base.img" "$T/l0.tar" &&
run "layer 1: SquashFS, the base's codec and block size" "$TAR2IMG" -q -c gzip \
	--whiteouts=none "$T/l1.img" "$T/l1.tar" &&
run "layer 2: EROFS" "$TAR2IMG" -q --format erofs --whiteouts=none "$T/l2.erofs" "$T/l2.tar" &&
run "layer 3: SquashFS of another block size" "$TAR2IMG" -q -c gzip -b 65536 \
	--whiteouts=none "$T/l3.img" "$T/l3.tar" || finish
L="$T/l1.img $T/l2.erofs $T/l3.img"

# shellcheck disable=SC2086
run "img2img of a base and three image layers" "$IMG2IMG" -q --whiteouts=oci "$T/out.img" \
	"$T/base.img" $L || finish
if unsquashfs_ref "image layers" ours gzip "$T/out.img" "$T/out"; then
	check "the image is the applied tree (unsquashfs)" \
		$TREECMP --ignore-root-mtime "$T/ref" "$T/out"
fi
judge_same_tree "image layers" kernel gzip "$T/out.img" "$T/ref"
"$IMG2TAR" "$T/out.img" > "$T/out.tar" || fail "img2tar of the image"
check "no whiteout marker in the image" sh -c "! tar tf '$T/out.tar' | grep -F .wh."
# The EROFS layer's copy of a base file is read through, so the base's
# file of that size is too, and dedup stores the two once.
# shellcheck disable=SC2086
"$IMG2IMG" --whiteouts=oci "$T/sum.img" "$T/base.img" $L > "$T/sum" || fail "the summary"
check "a base file equal to an EROFS layer's is stored once: $(grep -o '[0-9]* whole files shared' "$T/sum")" \
	grep -Eq '[1-9][0-9]* whole files shared' "$T/sum"
# Layer 1 is of the output's codec and block size: its blocks, as the
# base's, are copied as they are stored, none decoded and hashed.
"$IMG2IMG" --whiteouts=oci "$T/copy.img" "$T/base.img" "$T/l1.img" > "$T/copy.sum" ||
	fail "img2img of the base and layer 1"
check "layer 1's blocks are copied as stored: $(grep -o '[0-9]* blocks and tails hashed' "$T/copy.sum")" \
	grep -q ' 0 blocks and tails hashed' "$T/copy.sum"
# shellcheck disable=SC2086
run "the same, -j 1" "$IMG2IMG" -q -j 1 --whiteouts=oci "$T/out.j1" "$T/base.img" $L &&
check "the same bytes for -j 1" cmp -s "$T/out.img" "$T/out.j1"

# To EROFS: the kernel reads the same tree.
# shellcheck disable=SC2086
run "img2img --format erofs of the same layers" "$IMG2IMG" -q --format erofs -c none \
	--whiteouts=oci "$T/out.erofs" "$T/base.img" $L &&
judge_same_tree "image layers to EROFS" kernel erofs "$T/out.erofs" "$T/ref"

# --delete takes the base's shared/ away; layer 1 adds shared/same2 back.
mkdir -p "$T/del" && : > "$T/del/.wh.shared" && tar -C "$T/del" -cf "$T/del.tar" .wh.shared &&
run "apply with shared deleted (reference)" $PYTHON3 "$top_srcdir/tests/layers/apply.py" \
	"$T/refdel" "$T/l0.tar" "$T/del.tar" "$T/l1.tar" &&
run "img2img --delete shared, one image layer" "$IMG2IMG" -q --whiteouts=oci --delete shared \
	"$T/del.img" "$T/base.img" "$T/l1.img" &&
if unsquashfs_ref "--delete" ours gzip "$T/del.img" "$T/deltree"; then
	check "--delete with an image layer: the applied tree (unsquashfs)" \
		$TREECMP --ignore-root-mtime "$T/refdel" "$T/deltree"
fi

# A tar whose first name starts with SquashFS's magic is a tar all the
# same, old (v7) or POSIX.
mkdir -p "$T/h" && echo note > "$T/h/hsqs-note" || exit 99
for fmt in v7 posix; do
	tar -C "$T/h" --format=$fmt -cf "$T/hsqs.tar" hsqs-note &&
	run "a $fmt tar layer whose first name starts 'hsqs'" "$IMG2IMG" -q -f "$T/hsqs.img" \
		"$T/base.img" "$T/hsqs.tar" &&
	check "the $fmt tar layer's file is in the image" \
		sh -c "'$IMG2TAR' '$T/hsqs.img' | tar tf - | grep hsqs-note > /dev/null"
done

# Neither a tar, a directory nor an image: exit 1, the layer named, no
# OUTPUT.
head -c 4096 /dev/urandom > "$T/random.bin" &&
{ head -c 512 /dev/zero && head -c 3000 /dev/urandom; } > "$T/zerothen.bin" || exit 99
for bad in random.bin zerothen.bin; do
	"$IMG2IMG" -q "$T/bad.img" "$T/base.img" "$T/l1.img" "$T/$bad" 2> "$T/bad.err"
	rc=$?
	check "$bad as a layer: exit 1 (got $rc)" test "$rc" = 1
	check "$bad as a layer: the message names it: $(head -1 "$T/bad.err")" \
		grep -qF "$T/$bad" "$T/bad.err"
	check "$bad as a layer: no OUTPUT left" test ! -e "$T/bad.img"
done
finish
